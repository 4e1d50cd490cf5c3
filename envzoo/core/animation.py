"""Short animations of an env under a policy: the ``rgb_array`` frames of one episode (or its
first steps), sampled evenly, written as an animated GIF (Pillow). What ``envzoo animate``
writes for the docs pages (``docs/animations/<Name>-vN.gif``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from envzoo.core.policy import Policy


def record(env, policy: Policy, seed: int, steps: int, frames: int) -> tuple[list[np.ndarray], int]:
    """The frame after the reset and about ``frames`` more, evenly spread over the first ``steps``
    steps of the episode of ``seed`` (fewer where it ends earlier; its last step always), of an
    env made with ``render_mode="rgb_array"``; and the number of steps played."""
    parallel = hasattr(env, "possible_agents")
    every = max(steps // frames, 1)
    policy.reset(seed)
    observation, info = env.reset(seed=seed)
    pictures, done, step = [env.render()], False, 0
    while not done and step < steps:
        observation, _, terminated, truncated, info = env.step(policy(observation, info))
        step += 1
        done = not env.agents if parallel else bool(terminated or truncated)
        if step % every == 0 or done or step == steps:
            pictures.append(env.render())
    return pictures, step


def write_gif(pictures: list[np.ndarray], path: str | Path, fps: float, scale: float = 1.0) -> int:
    """Write the frames as a looping GIF (each frame ``1 / fps`` s, the last held 2 s), resized by
    ``scale``; returns its size in bytes."""
    from PIL import Image

    images = [Image.fromarray(picture) for picture in pictures]
    if scale != 1.0:
        size = (round(images[0].width * scale), round(images[0].height * scale))
        images = [image.resize(size, Image.Resampling.LANCZOS) for image in images]
    # One palette for every frame (the pictures' colours are few), so frames differ only where they change.
    palette = images[-1].quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    frames = [image.quantize(palette=palette, dither=Image.Dither.NONE) for image in images]
    durations = [round(1000 / fps)] * (len(frames) - 1) + [2000]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=durations, loop=0, optimize=True)
    return path.stat().st_size

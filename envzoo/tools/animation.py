"""Short animations of an env under a policy: the ``rgb_array`` frames of one episode (or its
first steps), sampled evenly, written as an animated GIF (Pillow). What ``envzoo animate``
writes (``envzoo animate --docs``: the docs pages' ``docs/animations/<Name>-vN.gif``, and the
last frame of each domain's first id as the docs home page's gallery still,
``docs/images/gallery/<Name>-vN.png``)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from envzoo.core.disk_cache import write_atomically
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


def encode_gif(pictures: list[np.ndarray], fps: float, scale: float = 1.0) -> bytes:
    """The frames as a looping GIF (each frame ``1 / fps`` s, the last held 2 s), resized by
    ``scale``: the same frames give the same bytes."""
    from PIL import Image

    images = [Image.fromarray(picture) for picture in pictures]
    if scale != 1.0:
        size = (round(images[0].width * scale), round(images[0].height * scale))
        images = [image.resize(size, Image.Resampling.LANCZOS) for image in images]
    # One palette for every frame (the pictures' colours are few), so frames differ only where they change.
    palette = images[-1].quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    frames = [image.quantize(palette=palette, dither=Image.Dither.NONE) for image in images]
    durations = [round(1000 / fps)] * (len(frames) - 1) + [2000]
    encoded = io.BytesIO()
    frames[0].save(encoded, format="GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0,
                   optimize=True)
    return encoded.getvalue()


def write_gif(pictures: list[np.ndarray], path: str | Path, fps: float, scale: float = 1.0,
              max_bytes: int | None = None) -> tuple[int, int]:
    """Write the frames as a GIF (:func:`encode_gif`), keeping every other frame (the last kept)
    until it is at most ``max_bytes`` (or 12 frames are left); returns its size in bytes and its
    number of frames.

    A GIF already at ``path`` that shows the same frames for the same durations is left as it
    is, even where its bytes differ (another Pillow's palette order), so that a rerun never
    churns a file kept under version control; a changed one is replaced whole (written beside
    it, then renamed over it)."""
    encoded = encode_gif(pictures, fps, scale)
    while max_bytes is not None and len(encoded) > max_bytes and len(pictures) > 12:
        pictures = pictures[-1::-2][::-1]
        encoded = encode_gif(pictures, fps, scale)
    path = Path(path)
    if path.is_file() and _shown(path) == _shown(io.BytesIO(encoded)):
        return path.stat().st_size, len(pictures)
    path.parent.mkdir(parents=True, exist_ok=True)
    with write_atomically(path) as partial:
        partial.write_bytes(encoded)
    return len(encoded), len(pictures)


def gallery_ids(entries) -> dict[str, str]:
    """The id that shows each domain in the docs home page's gallery: its first in the registry."""
    return {domain: next(e.id for e in entries if e.domain == domain) for domain in dict.fromkeys(e.domain for e in entries)}


def write_still(picture: np.ndarray, path: str | Path) -> int:
    """Write one frame as a PNG (left as it is where the file already shows the same pixels);
    returns its size in bytes."""
    from PIL import Image

    path = Path(path)
    if path.is_file():
        with Image.open(path) as kept:
            if kept.convert("RGB").tobytes() == picture.tobytes() and kept.size == picture.shape[1::-1]:
                return path.stat().st_size
    path.parent.mkdir(parents=True, exist_ok=True)
    encoded = io.BytesIO()
    Image.fromarray(picture).save(encoded, format="PNG", optimize=True)
    with write_atomically(path) as partial:
        partial.write_bytes(encoded.getvalue())
    return len(encoded.getvalue())


def _shown(gif) -> tuple[list[int], bytes]:
    """What a GIF shows: each frame's duration and the RGB pixels of every frame."""
    from PIL import Image, ImageSequence

    with Image.open(gif) as image:
        frames = [(frame.info.get("duration", 0), frame.convert("RGB").tobytes())
                  for frame in ImageSequence.Iterator(image)]
    return [duration for duration, _ in frames], b"".join(pixels for _, pixels in frames)

"""The pictures around the envs: every id's docs animation (kept in docs/animations), the
``animate`` command, ``eval --plot`` and ``tour --report``."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image, ImageSequence

import envzoo
from envzoo.cli import main

ANIMATIONS = Path(__file__).resolve().parent.parent / "docs" / "animations"
MOST_BYTES = 400 * 1024  # "a few hundred kB at most"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_id_has_its_docs_animation():
    notes = yaml.safe_load((ANIMATIONS / "index.yaml").read_text(encoding="utf-8"))
    ids = [entry.id for entry in envzoo.registry.entries().values()]
    missing = [env_id for env_id in ids
               if not (ANIMATIONS / f"{env_id.split('/', 1)[1]}.gif").is_file() or env_id not in notes]
    assert not missing, f"no animation for {missing}: run `python -m envzoo animate ID --docs`"
    for env_id in ids:
        path = ANIMATIONS / f"{env_id.split('/', 1)[1]}.gif"
        assert path.stat().st_size <= MOST_BYTES, f"{path} is over {MOST_BYTES} bytes"
        with Image.open(path) as gif:  # ten frames at least, or every step of a shorter whole episode
            short = notes[env_id]["whole_episode"] and gif.n_frames == notes[env_id]["steps"] + 1
            assert gif.is_animated and (gif.n_frames >= 10 or short), f"{path}: {gif.n_frames} frames"
        assert notes[env_id]["policy"] in {ref.name for ref in envzoo.env_info(env_id).policies}


def test_every_domain_has_its_gallery_still():
    from envzoo.tools.animation import gallery_ids

    gallery = ANIMATIONS.parent / "images" / "gallery"
    wanted = {f"{env_id.split('/', 1)[1]}.png" for env_id in gallery_ids(list(envzoo.registry.entries().values())).values()}
    present = {path.name for path in gallery.glob("*.png")}
    assert wanted <= present, f"no gallery still for {sorted(wanted - present)}: run `python -m envzoo animate ID --docs`"
    assert present <= wanted, f"stills of no domain's first id: {sorted(present - wanted)}"
    for name in wanted:
        with Image.open(gallery / name) as still:
            assert still.size == (600, 400) and still.mode == "RGB"


def test_animate_writes_only_the_gif_into_the_current_folder_and_the_same_bytes_twice(capsys, tmp_path,
                                                                                       monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["animate", "envzoo/MarketMakingAS-v1", "--steps", "12", "--frames", "4", "--seed", "3"]
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "under " in out
    assert [path.name for path in tmp_path.iterdir()] == ["MarketMakingAS-v1.gif"]  # no index.yaml, no docs/
    first = (tmp_path / "MarketMakingAS-v1.gif").read_bytes()
    with Image.open(tmp_path / "MarketMakingAS-v1.gif") as gif:
        assert gif.n_frames == 5 and gif.size == (450, 300)  # reset + 4 frames over 12 steps, at scale 0.75
    (tmp_path / "MarketMakingAS-v1.gif").unlink()  # written afresh, not kept (see the next test)
    assert run(capsys, *argv)[0] == 0
    assert (tmp_path / "MarketMakingAS-v1.gif").read_bytes() == first
    assert [path.name for path in tmp_path.iterdir()] == ["MarketMakingAS-v1.gif"]


def test_a_gif_showing_the_same_frames_is_left_as_it_is(tmp_path):
    from envzoo.tools.animation import write_gif

    colours = np.array([[0, 0, 0], [200, 30, 30], [30, 200, 30]], dtype=np.uint8)
    pictures = [np.repeat(np.repeat(colours[[k % 3, (k + 1) % 3]][:, None], 8, 0), 8, 1) for k in range(3)]
    path = tmp_path / "kept.gif"
    write_gif(pictures, path, fps=6)
    # The same frames in other bytes (another Pillow's palette order): a rerun must not churn the file.
    with Image.open(path) as gif:
        frames = [frame.convert("RGB") for frame in ImageSequence.Iterator(gif)]
        durations = [frame.info["duration"] for frame in ImageSequence.Iterator(gif)]
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=durations, loop=0, optimize=False)
    kept = path.read_bytes()
    assert write_gif(pictures, path, fps=6) == (len(kept), 3) and path.read_bytes() == kept
    write_gif(pictures[::-1], path, fps=6)  # other frames: replaced
    assert path.read_bytes() != kept
    assert [p.name for p in tmp_path.iterdir()] == ["kept.gif"]  # nothing left beside it


def test_animate_docs_writes_the_docs_pages_gif_and_caption(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "animate", "envzoo/MarketMakingAS-v1", "--docs", "--steps", "12", "--frames", "4",
                       "--seed", "3")
    assert code == 0
    folder = tmp_path / "docs" / "animations"
    assert sorted(p.name for p in folder.iterdir()) == ["MarketMakingAS-v1.gif", "index.yaml"]
    # MarketMakingAS-v1 is the first id of its domain: its last frame is the gallery's still.
    gallery = tmp_path / "docs" / "images" / "gallery"
    assert [p.name for p in gallery.iterdir()] == ["MarketMakingAS-v1.png"]
    notes = yaml.safe_load((folder / "index.yaml").read_text(encoding="utf-8"))
    policy = notes["envzoo/MarketMakingAS-v1"]
    assert policy["steps"] == 12 and policy["seed"] == 3 and f"under {policy['policy']}," in out


def test_eval_plot_writes_a_png(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    code, _, err = run(capsys, "eval", "envzoo/MarketMakingAS-v1", "--policy", "symmetric", "--episodes", "2",
                       "--max-steps", "20", "--plot", str(tmp_path / "eval.png"))
    assert code == 0 and "plot:" in err
    with Image.open(tmp_path / "eval.png") as png:
        assert png.format == "PNG" and png.width > 600


def test_eval_plot_shows_every_metric_of_the_id():
    # It showed the return and the first 3 metrics only: Serverless's p95 latency, throughput and
    # pod-seconds were missing.
    pytest.importorskip("matplotlib")
    from envzoo.cli import _figure, _kpis
    from envzoo.tools.rollout import evaluate_policy

    entry = envzoo.env_info("envzoo/MarketMakingAS-v1")
    runs = [(policy, results, _kpis(entry, results)) for policy in ("symmetric", "random")
            for results in [evaluate_policy(entry, policy, 2, 0, 10)]]
    titles = {axes.get_title() for axes in _figure(entry, runs, 0).axes}
    assert len(entry.metrics) > 4
    for name in ("return", *entry.metrics):
        assert f"{name} (mean ± std)" in titles and f"{name} per episode" in titles, name


def test_tour_report_is_one_file_with_every_policy(capsys, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    real = envzoo.registry.entries()
    only = {key: real[key] for key in ("envzoo/MarketMakingAS-v1",)}
    monkeypatch.setattr(envzoo.registry, "entries", lambda: only)
    code, _, _ = run(capsys, "tour", "--episodes", "2", "--max-steps", "5", "--report", str(tmp_path / "r.html"))
    assert code == 0
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', text)
    assert len(images) == 1 and base64.b64decode(images[0]).startswith(b"\x89PNG")
    assert "src=\"http" not in text and "<link" not in text  # nothing outside the file
    links = re.findall(r'href="([^"]*)"', text)
    assert links == ["#envzoo-marketmakingas-v1"] and 'id="envzoo-marketmakingas-v1"' in text  # the navigation
    assert "<nav>" in text and "<style>" in text and "marketmaking" in text
    for ref in only["envzoo/MarketMakingAS-v1"].policies:
        assert f"<th>{ref.name}</th>" in text


def test_record_video_writes_an_episode(tmp_path):
    pytest.importorskip("moviepy")
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(envzoo.make("envzoo/MarketMakingAS-v1", render_mode="rgb_array", max_episode_steps=12),
                      str(tmp_path / "videos"), episode_trigger=lambda episode: True, disable_logger=True)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        done = terminated or truncated
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000

"""The docs site's browser check (``python -m envzoo.tools.site_check``) on a small site made here:
it names a missing image, a broken link, a broken anchor, a code block that hides its end and a
page wider than the window, and nothing else (other content that scrolls inside its own box is
fine). Needs Chromium (CI installs
Debian's); skipped where there is none."""

from __future__ import annotations

import shutil

import pytest
from PIL import Image

from envzoo.tools.site_check import CHROMIUM_NAMES, check_site, take_screenshots

pytestmark = pytest.mark.skipif(not any(shutil.which(name) for name in CHROMIUM_NAMES),
                                reason="no Chromium installed (apt-get install chromium)")


def small_site(root):
    (root / "sub").mkdir(parents=True)
    Image.new("RGB", (10, 10), "red").save(root / "ok.png")
    (root / "index.html").write_text(
        '<html><body><img src="ok.png"><img src="missing.png" loading="lazy"><a href="sub/">sub</a>'
        '<a href="nowhere/">x</a><a href="sub/#there">a</a><a href="sub/#gone">b</a>'
        '<a href="https://example.org/">outside</a></body></html>', encoding="utf-8")
    (root / "sub" / "index.html").write_text(
        '<html><body style="margin:0"><h1 id="there">t</h1><div style="width:1500px">wide</div>'
        '<div style="overflow-x:auto"><div style="width:3000px">scrolls in its box</div></div>'
        '<pre><code style="display:block;width:300px;overflow-x:auto;white-space:pre">' + "x" * 200 +
        '</code></pre></body></html>',
        encoding="utf-8")
    return root


def test_the_check_names_each_kind_of_problem_and_nothing_else(tmp_path):
    problems = check_site(small_site(tmp_path))
    hidden = int(problems["sub/index.html"][0].split("hides ")[1].split(" px")[0])
    assert hidden > 1000  # 200 characters in a 300 px box
    assert problems == {
        "index.html": ["image did not load: missing.png", "broken link: /nowhere/", "broken anchor: /sub/#gone"],
        "sub/index.html": [f"scrolls sideways: code hides {hidden} px: " + "x" * 60,
                           "100 px wider than the 1400 px window (widest: div)"],
    }


def test_screenshots_are_pngs_of_the_window(tmp_path):
    site = small_site(tmp_path / "site")
    (written,) = take_screenshots(site, tmp_path / "shots", pages=["index.html"])
    with Image.open(written) as image:
        assert written.name == "home.png" and image.size == (1400, 1000)


def test_screenshots_show_a_gif_at_its_last_frame(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    frames = [Image.new("RGB", (40, 40), color) for color in ("white", "blue", "red")]
    frames[0].save(site / "clip.gif", save_all=True, append_images=frames[1:], duration=60_000, loop=0)
    (site / "index.html").write_text('<html><body style="margin:0"><img src="clip.gif"></body></html>',
                                     encoding="utf-8")
    (written,) = take_screenshots(site, tmp_path / "shots", pages=["index.html"])
    with Image.open(written) as image:  # a minute a frame: without the still it would show white
        assert image.convert("RGB").getpixel((20, 20)) == (255, 0, 0)

"""``python -m envzoo.tools.site_check SITE``: every page of the built docs site (``mkdocs build``'s
folder) loaded in headless Chromium at 1,400 px wide; exits with status 1 naming each page with
an image that did not load, a link to a page or anchor of the site that does not exist, content
wider than the window (the page scrolls sideways), or a code block or table too wide for its
column (it would hide its end behind a scroll bar). Links outside the site are not
followed (nothing is fetched from the network).

``--screenshots DIR`` also writes the home page and a few environment pages as PNGs
(``python -m envzoo.tools.site_check site --screenshots docs/images/screenshots``), each GIF
shown still at its last frame (a GIF just loaded shows its first, the empty picture at reset).

Chromium (Debian's ``chromium``) is driven over the DevTools protocol on a pipe
(``--remote-debugging-pipe``), with the standard library only; the site is served from a local
HTTP server, as a web server would serve it (``folder/`` is ``folder/index.html``).
"""

from __future__ import annotations

import argparse
import base64
import fcntl
import functools
import http.server
import json
import os
import shutil
import signal
import sys
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlparse

WIDTH, HEIGHT = 1400, 1000
#: The pages ``--screenshots`` writes: the home page and five domains' environment pages.
SCREENSHOT_PAGES = ("index.html", "environments/Dispatch-v0/index.html", "environments/Serverless-v1/index.html",
                    "environments/PowerGrid-v0/index.html", "environments/TrafficGrid-v0/index.html",
                    "environments/CVRP-v0/index.html")
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")

#: Run in each loaded page: lazy images made eager and awaited, then what the checks need.
PAGE_FACTS = """(async () => {
  const images = [...document.images];
  images.forEach(image => { image.loading = "eager"; });
  await Promise.all(images.map(image => image.complete ? null : new Promise(done => {
    image.addEventListener("load", done); image.addEventListener("error", done); })));
  const root = document.documentElement;
  const scrolls = element => {
    for (let e = element.parentElement; e && e !== document.body; e = e.parentElement) {
      if (["auto", "scroll", "hidden", "clip"].includes(getComputedStyle(e).overflowX)) return true;
    }
    return false;
  };
  const overflow = Math.max(root.scrollWidth - root.clientWidth, 0);
  const wide = !overflow ? [] : [...document.querySelectorAll("body *")]  // (slow: only to name the culprits)
    .filter(e => e.getBoundingClientRect().right > root.clientWidth + 1 && !scrolls(e))
    .slice(0, 5).map(e => e.tagName.toLowerCase() + (e.className ? "." + String(e.className).split(" ")[0] : ""));
  const clipped = [...document.querySelectorAll("pre > code, .md-typeset__table, table")]
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => e.tagName.toLowerCase() + " hides " + (e.scrollWidth - e.clientWidth) + " px: "
              + e.textContent.trim().split("\\n")[0].slice(0, 60));
  return {
    clipped: clipped,
    broken_images: images.filter(image => !(image.complete && image.naturalWidth > 0))
      .map(image => image.getAttribute("src")),
    overflow: overflow,
    wide: wide,
    links: [...document.querySelectorAll("a[href]")].map(a => a.href),
    ids: [...document.querySelectorAll("[id]")].map(e => e.id),
  };
})()"""

#: Run in a page before its screenshot: each GIF replaced by a still of its last frame (the
#: episode's end, as the gallery shows it), decoded by the browser's ImageDecoder; returns how many.
GIFS_AT_LAST_FRAME = """(async () => {
  const gifs = [...document.images].filter(image => new URL(image.src).pathname.toLowerCase().endsWith(".gif"));
  for (const image of gifs) {
    const decoder = new ImageDecoder({data: await (await fetch(image.src)).arrayBuffer(), type: "image/gif"});
    await decoder.tracks.ready;
    await decoder.completed;  // every frame counted
    const last = decoder.tracks.selectedTrack.frameCount - 1;
    const frame = (await decoder.decode({frameIndex: last})).image;
    const canvas = document.createElement("canvas");
    canvas.width = frame.displayWidth;
    canvas.height = frame.displayHeight;
    canvas.getContext("2d").drawImage(frame, 0, 0);
    frame.close();
    decoder.close();
    image.src = canvas.toDataURL("image/png");
    await image.decode();
  }
  return gifs.length;
})()"""


def find_chromium() -> str:
    """The path of an installed Chromium, or a clear error saying how to install one."""
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    raise SystemExit("no Chromium found (looked for " + ", ".join(CHROMIUM_NAMES) + "): install Debian's "
                     "chromium (apt-get install chromium)")


class Browser:
    """A headless Chromium with one tab, driven over the DevTools protocol on a pipe."""

    def __init__(self, chromium: str | None = None, width: int = WIDTH, height: int = HEIGHT):
        # Chromium reads commands on its fd 3 and writes answers on its fd 4: the pipes' far ends
        # are moved above 4 first, so that placing one cannot overwrite the other.
        to_browser, self._to_browser = os.pipe()
        self._from_browser, from_browser = os.pipe()
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_browser, from_browser)]
        arguments = [chromium or find_chromium(), "--headless", "--remote-debugging-pipe", "--no-sandbox",
                     "--disable-gpu", "--no-first-run", "--hide-scrollbars", "--mute-audio",
                     f"--window-size={width},{height}", "about:blank"]
        self._pid = os.posix_spawn(arguments[0], arguments, dict(os.environ), file_actions=[
            (os.POSIX_SPAWN_DUP2, high[0], 3), (os.POSIX_SPAWN_DUP2, high[1], 4),
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0), (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
        for fd in (to_browser, from_browser, *high):
            os.close(fd)
        self._reader = os.fdopen(self._from_browser, "rb")
        self._next_id, self._events, self._buffer = 0, [], b""
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def _call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._receive()
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"Chromium: {method} failed: {answer['error']}")
                return answer.get("result", {})
            self._events.append(answer)

    def _receive(self) -> dict:
        while b"\0" not in self._buffer:
            chunk = self._reader.read1(1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe (did it start? try running it by hand)")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict | None = None) -> dict:
        """A DevTools command in the tab; returns its result."""
        return self._call(method, params, self._session)

    def load(self, url: str) -> None:
        """Navigate to ``url`` and wait for its load event."""
        self._events.clear()
        self.call("Page.navigate", {"url": url})
        while not any(event.get("method") == "Page.loadEventFired" for event in self._events):
            self._events.append(self._receive())

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"JavaScript failed: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def screenshot(self) -> bytes:
        """The window as a PNG."""
        return base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"})["data"])

    def close(self) -> None:
        """End Chromium (it quits when its DevTools pipe closes; SIGTERM if it has not in 10 s)."""
        os.close(self._to_browser)
        self._reader.close()
        for _ in range(100):
            if os.waitpid(self._pid, os.WNOHANG)[0]:
                return
            time.sleep(0.1)
        os.kill(self._pid, signal.SIGTERM)
        os.waitpid(self._pid, 0)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """A local HTTP server of ``folder`` (in a thread) and its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def page_of(url: str, base: str, site: Path) -> Path | None:
    """The file a URL of the site serves (``folder/`` is ``folder/index.html``); None outside it."""
    if not url.startswith(base):
        return None
    path = site / unquote(urlparse(url).path).lstrip("/")
    return path / "index.html" if url.split("#")[0].endswith("/") or path.is_dir() else path


def check_site(site: str | Path, browser: Browser | None = None) -> dict[str, list[str]]:
    """Every HTML page of ``site`` loaded at the browser's width: ``{page: [problems]}`` for the
    pages with any (an empty dict: all good)."""
    site = Path(site).resolve()
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html") if p.name != "404.html")
    if not pages:
        raise SystemExit(f"{site} holds no HTML page: build the site first (mkdocs build --site-dir {site})")
    server, base = serve(site)
    own = browser is None
    browser = browser or Browser()
    problems: dict[str, list[str]] = {}
    facts = {}
    try:
        for page in pages:
            browser.load(base + page)
            facts[page] = browser.evaluate(PAGE_FACTS)
    finally:
        server.shutdown()
        if own:
            browser.close()
    ids = {page: set(found["ids"]) for page, found in facts.items()}
    for page, found in facts.items():
        mine = [f"image did not load: {src}" for src in found["broken_images"]]
        mine += [f"scrolls sideways: {what}" for what in found["clipped"]]
        if found["overflow"]:
            mine.append(f"{found['overflow']} px wider than the {WIDTH} px window (widest: "
                        f"{', '.join(found['wide']) or 'unknown'})")
        for link in dict.fromkeys(found["links"]):
            target = page_of(link, base, site)
            if target is None:
                continue  # outside the site: not followed
            address, anchor = urldefrag(link)
            if not target.is_file():
                mine.append(f"broken link: {address[len(base) - 1:]}")
            elif anchor and target.suffix == ".html":
                key = target.relative_to(site).as_posix()
                if key in ids and anchor not in ids[key]:
                    mine.append(f"broken anchor: {address[len(base) - 1:]}#{anchor}")
        if mine:
            problems[page] = mine
    return problems


def take_screenshots(site: str | Path, folder: str | Path, pages=SCREENSHOT_PAGES) -> list[Path]:
    """PNGs of ``pages`` of the built ``site`` at the check's window size, into ``folder``, each
    GIF on them still at its last frame."""
    site, folder = Path(site).resolve(), Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    server, base = serve(site)
    browser = Browser()
    written = []
    try:
        for page in pages:
            browser.load(base + page)
            browser.evaluate(PAGE_FACTS)  # the images loaded
            browser.evaluate(GIFS_AT_LAST_FRAME)
            name = "home" if page == "index.html" else Path(page).parent.name or Path(page).stem
            path = folder / f"{name}.png"
            path.write_bytes(browser.screenshot())
            written.append(path)
    finally:
        server.shutdown()
        browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m envzoo.tools.site_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("site", help="the built site's folder (mkdocs build --site-dir SITE)")
    parser.add_argument("--screenshots", metavar="DIR", help="also write the home page and five domain pages as PNGs")
    args = parser.parse_args(argv)
    problems = check_site(args.site)
    pages = sum(1 for p in Path(args.site).rglob("*.html") if p.name != "404.html")
    for page, found in problems.items():
        for problem in found:
            print(f"{page}: {problem}")
    print(f"checked {pages} pages at {WIDTH} px: {len(problems)} with problems")
    if args.screenshots:
        for path in take_screenshots(args.site, args.screenshots):
            print(f"wrote {path}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

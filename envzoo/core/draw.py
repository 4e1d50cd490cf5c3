"""Drawing for ``render_mode="rgb_array"``: a :class:`Canvas` of H x W x 3 uint8 pixels with the
few shapes the domains' pictures need (rectangles, lines, filled polygons, disks, text in a
shipped TrueType face, charts with axes, legends), in numpy (each string set once by Pillow, then
cached): no window, no plotting library, fast enough to record videos during training
(``benchmarks/render_rate.py`` prints the frames per second).

Coordinates are pixels, x to the right and y downwards from the top-left corner; shapes are
clipped to the canvas. A *box* is ``(x0, y0, x1, y1)``, the pixels x0 <= x < x1, y0 <= y < y1.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 600, 400  # every domain's frame

WHITE = (255, 255, 255)
BLACK = (20, 20, 20)
GREY = (150, 150, 150)
LIGHT = (225, 225, 225)
BLUE = (31, 119, 180)
ORANGE = (255, 127, 14)
GREEN = (44, 160, 44)
RED = (214, 39, 40)
PURPLE = (148, 103, 189)
BROWN = (140, 86, 75)
PINK = (227, 119, 194)
OLIVE = (188, 189, 34)
CYAN = (23, 190, 207)
#: Colours of the series of one chart, in order (those of matplotlib's default cycle).
CYCLE = (BLUE, ORANGE, GREEN, RED, PURPLE, BROWN, PINK, OLIVE, CYAN, GREY)

#: The typefaces shipped beside this module (DejaVu, its licence in fonts/LICENSE): proportional
#: for labels, monospaced for transcripts.
FONTS = Path(__file__).resolve().parent / "fonts"
SANS, MONO = "DejaVuSans.ttf", "DejaVuSansMono.ttf"
_BLANK: dict[tuple, np.ndarray] = {}  # (height, width, background): a blank frame to copy


def font_size(scale: int) -> int:
    """The typeface's size in pixels for a text ``scale`` (1: small print, 2: labels, 3: titles)."""
    return {1: 9, 2: 12, 3: 16}.get(int(scale), 6 * int(scale))


@functools.lru_cache(maxsize=None)
def _font(size: int, face: str):
    return ImageFont.truetype(str(FONTS / face), size)


@functools.lru_cache(maxsize=8192)
def _text_mask(string: str, size: int, face: str) -> np.ndarray:
    """The coverage (0-255) of ``string`` set in ``face`` at ``size`` px, one line from the top of
    its ascender: rendered by Pillow's FreeType once per string, then only blended (a frame's
    labels repeat from frame to frame, so the cache makes text nearly free)."""
    font = _font(size, face)
    ascent, descent = font.getmetrics()
    width = int(np.ceil(font.getlength(string))) + 1
    image = Image.new("L", (max(width, 1), ascent + descent))
    draw = ImageDraw.Draw(image)
    if face == MONO:  # a terminal's text crisp, not anti-aliased: its GIFs stay small
        draw.fontmode = "1"
    draw.text((0, 0), string, fill=255, font=font)
    return np.asarray(image, dtype=np.uint16)


def text_width(string: str, scale: int = 2, mono: bool = False) -> int:
    """The width in pixels of ``string`` as :meth:`Canvas.text` writes it."""
    return _text_mask(str(string), font_size(scale), MONO if mono else SANS).shape[1]


class Canvas:
    """An H x W x 3 uint8 picture (:attr:`pixels`) to draw on."""

    def __init__(self, width: int = WIDTH, height: int = HEIGHT, background=WHITE):
        self.width, self.height = int(width), int(height)
        key = (self.height, self.width, tuple(background))
        if key not in _BLANK:
            _BLANK[key] = np.empty((self.height, self.width, 3), dtype=np.uint8)
            _BLANK[key][:] = background
        self.pixels = _BLANK[key].copy()

    # ------------------------------------------------------------------ shapes
    def rect(self, box, color) -> None:
        """Fill ``box`` (float corners are rounded)."""
        x0, y0, x1, y1 = (int(round(v)) for v in box)
        x0, x1 = sorted((x0, x1))
        y0, y1 = sorted((y0, y1))
        self.pixels[max(y0, 0):max(min(y1, self.height), 0), max(x0, 0):max(min(x1, self.width), 0)] = color

    def outline(self, box, color) -> None:
        x0, y0, x1, y1 = box
        self.polyline([x0, x1 - 1, x1 - 1, x0, x0], [y0, y0, y1 - 1, y1 - 1, y0], color)

    def points(self, xs, ys, color, size: int = 1) -> None:
        """Squares of ``size`` pixels centred on the points (NaN points are skipped)."""
        xs, ys = np.asarray(xs, dtype=float).ravel(), np.asarray(ys, dtype=float).ravel()
        finite = np.isfinite(xs) & np.isfinite(ys)
        xs, ys = np.rint(xs[finite]).astype(np.int64), np.rint(ys[finite]).astype(np.int64)
        keep = (xs >= 0) & (xs < self.width) & (ys >= 0) & (ys < self.height)
        xs, ys = xs[keep], ys[keep]
        if xs.size == 0:
            return
        if size == 1:
            self.pixels[ys, xs] = color
            return
        # A mask of the points over their bounding box, widened by shifted copies: each pixel is
        # painted once however many samples of a thick line fall on it.
        low = size // 2
        left, top = max(xs.min() - low, 0), max(ys.min() - low, 0)
        right, bottom = min(xs.max() - low + size, self.width), min(ys.max() - low + size, self.height)
        hit = np.zeros((bottom - top + size, right - left + size), dtype=bool)
        hit[ys - top + low, xs - left + low] = True
        rows = np.zeros((hit.shape[0], right - left), dtype=bool)
        for dx in range(size):  # widen along x, then along y: the square, in 2 * size steps
            rows |= hit[:, dx:dx + right - left]
        mask = np.zeros((bottom - top, right - left), dtype=bool)
        for dy in range(size):
            mask |= rows[dy:dy + bottom - top]
        self.pixels[top:bottom, left:right][mask] = color

    def polyline(self, xs, ys, color, width: int = 1) -> None:
        """Straight segments through the points (NaN points are skipped with their segments)."""
        xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
        if xs.size == 0:
            return
        if xs.size == 1:
            self.points(xs, ys, color, width)
            return
        x0, y0, x1, y1 = xs[:-1], ys[:-1], xs[1:], ys[1:]
        good = np.isfinite(x0) & np.isfinite(y0) & np.isfinite(x1) & np.isfinite(y1)
        x0, y0, x1, y1 = x0[good], y0[good], x1[good], y1[good]
        if x0.size == 0:
            return
        # Each segment sampled once per pixel of its longer side, all segments in one array.
        lengths = np.minimum(np.ceil(np.maximum(np.abs(x1 - x0), np.abs(y1 - y0))), 4 * (self.width + self.height))
        counts = lengths.astype(np.int64) + 1
        segment = np.repeat(np.arange(x0.size), counts)
        start = np.repeat(np.cumsum(counts) - counts, counts)
        fraction = (np.arange(segment.size) - start) / np.maximum(lengths[segment], 1)
        self.points(x0[segment] + fraction * (x1 - x0)[segment], y0[segment] + fraction * (y1 - y0)[segment],
                    color, width)

    def line(self, x0, y0, x1, y1, color, width: int = 1) -> None:
        self.polyline([x0, x1], [y0, y1], color, width)

    def polygon(self, xs, ys, color) -> None:
        """Fill the polygon through the points (even-odd rule, over its bounding box only)."""
        xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
        left, right = max(int(np.floor(xs.min())), 0), min(int(np.ceil(xs.max())) + 1, self.width)
        top, bottom = max(int(np.floor(ys.min())), 0), min(int(np.ceil(ys.max())) + 1, self.height)
        if left >= right or top >= bottom:
            return
        px = np.arange(left, right)[None, :, None] + 0.5
        py = np.arange(top, bottom)[:, None, None] + 0.5
        x0, y0, x1, y1 = xs, ys, np.roll(xs, -1), np.roll(ys, -1)
        crosses = (y0 > py) != (y1 > py)
        with np.errstate(divide="ignore", invalid="ignore"):
            at = x0 + (py - y0) * (x1 - x0) / (y1 - y0)
        inside = np.count_nonzero(crosses & (px < at), axis=-1) % 2 == 1
        self.pixels[top:bottom, left:right][inside] = color

    def disk(self, cx, cy, radius, color) -> None:
        radius = max(float(radius), 0.5)
        left, right = max(int(cx - radius), 0), min(int(cx + radius) + 2, self.width)
        top, bottom = max(int(cy - radius), 0), min(int(cy + radius) + 2, self.height)
        if left >= right or top >= bottom:
            return
        dx = np.arange(left, right)[None, :] - cx
        dy = np.arange(top, bottom)[:, None] - cy
        self.pixels[top:bottom, left:right][dx * dx + dy * dy <= radius * radius] = color

    def text(self, x, y, string: str, color=BLACK, scale: int = 2, mono: bool = False) -> int:
        """Write ``string`` in the shipped typeface (DejaVu Sans anti-aliased, or DejaVu Sans Mono
        crisp with ``mono``) at :func:`font_size` (``scale``) pixels, the top of its line at y.
        Returns the x after the text."""
        x, y = int(x), int(y)
        mask = _text_mask(str(string), font_size(scale), MONO if mono else SANS)
        top, left = max(y, 0), max(x, 0)
        bottom, right = min(y + mask.shape[0], self.height), min(x + mask.shape[1], self.width)
        if top < bottom and left < right:
            cover = mask[top - y:bottom - y, left - x:right - x]
            region = self.pixels[top:bottom, left:right]
            inked = cover > 0
            alpha = cover[inked][:, None]
            # Integer blending: the same bytes on every machine.
            region[inked] = ((region[inked] * (255 - alpha) + np.asarray(color, np.uint16) * alpha + 127) // 255)
        return x + mask.shape[1]

    # ------------------------------------------------------------------ charts
    def series(self, box, values, color, lo=None, hi=None, length: int | None = None, width: int = 2) -> None:
        """A time series in ``box``: ``values[i]`` at the i-th of ``length`` (default: as many as
        values) evenly spaced x positions, y from ``lo`` (bottom) to ``hi`` (top; default: the
        values' range)."""
        values = np.asarray(values, dtype=float)
        if values.size == 0:
            return
        lo, hi = value_range(values, lo, hi)
        x0, y0, x1, y1 = box
        n = max(length or values.size, 2)
        xs = x0 + 2 + np.arange(values.size) * (x1 - x0 - 5) / (n - 1)
        ys = y1 - 3 - (values - lo) / (hi - lo) * (y1 - y0 - 6)
        self.polyline(xs, np.clip(ys, y0, y1 - 1), color, width)

    def bars(self, box, values, colors=CYCLE, lo=0.0, hi=None, horizontal: bool = False) -> None:
        """One bar per value in ``box``, from ``lo`` (or 0 where lo < 0 < hi) to the value."""
        values = np.asarray(values, dtype=float)
        if values.size == 0:
            return
        lo, hi = value_range(np.append(values, 0.0 if lo is None else lo), lo, hi)
        base = min(max(0.0, lo), hi)
        x0, y0, x1, y1 = box
        n = values.size
        for i, value in enumerate(np.nan_to_num(values)):
            color = colors[i % len(colors)] if isinstance(colors[0], tuple) else colors
            if horizontal:
                top, bottom = y0 + (y1 - y0) * i / n + 1, y0 + (y1 - y0) * (i + 1) / n - 1
                a, b = (x0 + (x1 - x0) * (np.clip(v, lo, hi) - lo) / (hi - lo) for v in (base, value))
                self.rect((a, top, b, bottom), color)
            else:
                left, right = x0 + (x1 - x0) * i / n + 1, x0 + (x1 - x0) * (i + 1) / n - 1
                a, b = (y1 - (y1 - y0) * (np.clip(v, lo, hi) - lo) / (hi - lo) for v in (base, value))
                self.rect((left, a, right, b), color)

    def panel(self, box, title: str = "") -> None:
        """A chart's frame: a light background, a grey border and a title above it."""
        self.rect(box, (248, 248, 248))
        self.outline(box, GREY)
        if title:
            self.text(box[0], box[1] - 15, title, BLACK, 2)

    def chart(self, box, title: str, lo: float, hi: float, x_label: str = "step",
              x_range: tuple[float, float] | None = None) -> tuple[int, int, int, int]:
        """A chart's frame with axes in ``box``: ``title`` above it (the quantity and its unit,
        "Queue (calls)"), ticks with values from ``lo`` to ``hi`` up the left, light grid lines, and
        along the bottom ``x_label`` between the values at the ends of ``x_range`` (the first and
        last of the series' positions). Returns the plot's box, for :meth:`series` and
        :meth:`bars` with the same ``lo`` and ``hi``."""
        x0, y0, x1, y1 = (int(v) for v in box)
        lo, hi = value_range((), lo, hi)  # widened as series() widens it where lo == hi
        bottom = y1 - (13 if x_label or x_range else 0)
        ticks = nice_ticks(lo, hi, most=min(5, max(2, (bottom - y0) // 18)))  # 18 px or more apart
        labels = tick_labels(ticks)
        left = x0 + max(text_width(label, 1) for label in labels) + 5
        plot = (left, y0, x1, bottom)
        self.panel(plot)
        self.text(x0, y0 - 15, title, BLACK, 2)
        for tick, label in zip(ticks, labels):
            y = bottom - 3 - (tick - lo) / (hi - lo) * (bottom - y0 - 6)
            if y0 + 1 < y < bottom - 1:
                self.line(left + 1, y, x1 - 2, y, LIGHT)
            self.line(left - 3, y, left - 1, y, GREY)
            self.text(left - 4 - text_width(label, 1), y - 6, label, BLACK, 1)
        if x_range is not None:
            first, last = (tick_label(v) for v in x_range)
            self.text(left + 1, bottom + 1, first, BLACK, 1)
            self.text(x1 - text_width(last, 1), bottom + 1, last, BLACK, 1)
        if x_label:
            self.text((left + x1 - text_width(x_label, 1)) // 2, bottom + 1, x_label, GREY, 1)
        return plot

    def legend(self, x, y, entries, columns: int = 1, right: bool = False) -> tuple[int, int, int, int]:
        """A boxed key with its top-left corner (top-right with ``right``) at (x, y): each entry
        ``(mark, colour, label)`` a mark (``"square"``, ``"disk"``, ``"ring"``, ``"line"`` or
        ``"dot"``) in its colour before its label, in ``columns`` columns, row by row. Returns
        the legend's box."""
        entries = list(entries)
        rows = -(-len(entries) // columns)
        width = max((text_width(label, 1) for _, _, label in entries), default=0) + 22
        left = int(x) - (columns * width + 4 if right else 0)
        box = (left, int(y), left + columns * width + 4, int(y) + rows * 14 + 6)
        self.rect(box, WHITE)
        self.outline(box, LIGHT)
        for i, (mark, color, label) in enumerate(entries):
            left, top = box[0] + 4 + (i % columns) * width, box[1] + 4 + (i // columns) * 14
            self.mark(left + 6, top + 6, mark, color)
            self.text(left + 15, top, label, BLACK, 1)
        return box

    def mark(self, cx, cy, mark: str, color, size: int = 5) -> None:
        """One legend glyph centred at (cx, cy): the way a picture draws the thing it names."""
        if mark == "square":
            self.rect((cx - size, cy - size, cx + size, cy + size), color)
        elif mark == "disk":
            self.disk(cx, cy, size, color)
        elif mark == "ring":
            self.disk(cx, cy, size, color)
            self.disk(cx, cy, size - 2, WHITE)
        elif mark == "line":
            self.line(cx - size - 1, cy, cx + size + 1, cy, color, 2)
        elif mark == "dot":
            self.disk(cx, cy, 2, color)
        else:
            raise ValueError(f"unknown legend mark {mark!r}: use square, disk, ring, line or dot")

    def to_array(self) -> np.ndarray:
        return self.pixels


def value_range(values, lo=None, hi=None) -> tuple[float, float]:
    """(lo, hi) of a chart's axis: the given bounds, else the finite values' range, never empty."""
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    lo = float(finite.min()) if lo is None and finite.size else (0.0 if lo is None else float(lo))
    hi = float(finite.max()) if hi is None and finite.size else (lo + 1.0 if hi is None else float(hi))
    if not hi > lo:
        pad = max(abs(lo) * 0.05, 1e-9)
        lo, hi = lo - pad, hi + pad
    return lo, hi


def nice_ticks(lo: float, hi: float, most: int = 5) -> list[float]:
    """Round values (1, 2 or 5 times a power of ten apart) from ``lo`` to ``hi``, at most ``most``."""
    span = max(float(hi) - float(lo), 1e-12)
    power = 10.0 ** np.floor(np.log10(span / most))
    step = next(f * power for f in (1, 2, 5, 10) if span / (f * power) <= most)
    first = np.ceil(lo / step - 1e-9) * step
    ticks = [float(round(v / step) * step) + 0.0 for v in np.arange(first, hi + step * 1e-9, step)]
    return ticks or [float(lo)]  # (a range narrower than its one round step)


def tick_label(value: float) -> str:
    """A value at an axis's end, short: 3 significant digits, thousands as k and millions as M."""
    value = float(value)
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.3g}" if value else "0"


def tick_labels(ticks: list[float]) -> list[str]:
    """The labels of evenly spaced ``ticks``: as many decimals as their spacing needs (so that
    10020 and 10025 differ), thousands as k where the spacing is whole thousands."""
    step = abs(ticks[1] - ticks[0]) if len(ticks) > 1 else max(abs(ticks[0]), 1.0) if ticks else 1.0
    if step >= 1000 and all(abs(t) % 1000 == 0 for t in ticks):
        return [f"{t / 1000:.0f}k" if t else "0" for t in ticks]
    decimals = min(max(0, int(-np.floor(np.log10(step) + 1e-9))), 6) if step > 0 else 3
    return [f"{t:.{decimals}f}" for t in ticks]


def grid_boxes(box, n: int, columns: int | None = None, gap: int = 18) -> list[tuple]:
    """``n`` boxes side by side (``columns`` per row, default all in one row) filling ``box``,
    with room for a title above each: the agents of a multi-agent face."""
    columns = columns or n
    rows = -(-n // columns)
    x0, y0, x1, y1 = box
    w, h = (x1 - x0) / columns, (y1 - y0) / rows
    return [(int(x0 + w * (i % columns) + 4), int(y0 + h * (i // columns) + gap),
             int(x0 + w * (i % columns + 1) - 4), int(y0 + h * (i // columns + 1) - 4)) for i in range(n)]


def stacked_columns(canvas: Canvas, box, fractions, colors=CYCLE, length: int | None = None) -> None:
    """Shares over time in ``box``: column i stacks the non-negative ``fractions[i]`` (T, K) from
    the bottom, colour by colour (an allocation's weights through an episode)."""
    fractions = np.clip(np.nan_to_num(np.asarray(fractions, dtype=float)), 0.0, None)
    if fractions.size == 0:
        return
    x0, y0, x1, y1 = (int(v) for v in box)
    n, k = max(length or len(fractions), 1), fractions.shape[1]
    # Which time step each pixel column shows (-1: none yet), and each band's top pixel row.
    step = np.floor((np.arange(x0 + 1, x1 - 1) - x0 - 1) * n / (x1 - x0 - 2)).astype(np.int64)
    step[step >= len(fractions)] = -1
    tops = np.rint(y1 - 1 - np.cumsum(fractions, axis=1) * (y1 - y0 - 2)).astype(np.int64)  # (T, K) pixel rows
    # A pixel row r lies in the first band whose top is at or above it (k: above every band), so
    # its band is k minus the tops at or above r: a running count of the tops down the rows.
    height = y1 - y0 - 2
    marks = np.zeros((height + 1, len(fractions)), dtype=np.int64)
    np.add.at(marks, (np.clip(tops - y0 - 1, 0, height), np.arange(len(fractions))[:, None]), 1)
    band = k - np.cumsum(marks, axis=0)[:height][:, np.maximum(step, 0)]
    palette = np.array([colors[j % len(colors)] for j in range(k)], dtype=np.uint8)
    inside = (band < k) & (step >= 0)[None, :]
    region = canvas.pixels[y0 + 1:y1 - 1, x0 + 1:x1 - 1]
    region[inside] = palette[band[inside]]

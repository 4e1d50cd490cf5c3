"""The ``rgb_array`` frame of the market-making faces (Avellaneda-Stoikov, the LOB replay, the
arena): the mid price through the episode with each maker's bid and ask quotes, the book at the
current step with the quotes in it, and each maker's inventory and PnL.

A task's snapshot is :func:`snapshot`'s dict; one maker for the single-agent faces, several for
the arena (drawn in the chart colours side by side)."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLACK, CYCLE, GREEN, RED, Canvas, value_range

BID_TINT, ASK_TINT = (170, 215, 170), (235, 170, 170)


def snapshot(label: str, mid: float, quotes, inventory, pnl, book=None) -> dict:
    """``quotes`` (M, 2) bid and ask prices of the M makers (NaN: none resting), ``inventory`` and
    ``pnl`` (M,); ``book`` the visible levels ``(bid prices, bid sizes, ask prices, ask sizes)``
    (None where the model has no book)."""
    return {"label": label, "mid": float(mid), "quotes": np.array(quotes, dtype=float).reshape(-1, 2),
            "inventory": np.array(inventory, dtype=float).reshape(-1), "pnl": np.array(pnl, dtype=float).reshape(-1),
            "book": None if book is None else tuple(np.array(side, dtype=float) for side in book)}


def _colors(m: int, makers: int) -> tuple:
    """One maker's (bid, ask) colours: green and red alone, its chart colour among several."""
    return (GREEN, RED) if makers == 1 else (CYCLE[m % len(CYCLE)],) * 2


def draw(canvas: Canvas, snapshots: list[dict], length: int | None = None) -> None:
    now = snapshots[-1]
    makers = len(now["inventory"])
    mid = np.array([s["mid"] for s in snapshots])
    quotes = np.array([s["quotes"] for s in snapshots])  # (T, M, 2)
    inventory = np.array([s["inventory"] for s in snapshots])
    pnl = np.array([s["pnl"] for s in snapshots])
    length = max(length or 0, len(snapshots))
    header = f"{now['label']}   mid {now['mid']:.6g}"
    if makers == 1:
        header += f"   inventory {now['inventory'][0]:+.4g}   PnL {now['pnl'][0]:+.4g}"
    canvas.text(8, 5, header)
    steps = (0, length - 1)
    key = [("line", BLACK, "mid")]
    key += ([("line", GREEN, "bid quote"), ("line", RED, "ask quote")] if makers == 1 else
            [("line", CYCLE[m % len(CYCLE)], f"maker {m}") for m in range(makers)])
    key += [("square", BID_TINT, "book bids"), ("square", ASK_TINT, "book asks")]
    canvas.legend(canvas.width - 4, 22, key, columns=len(key), right=True)

    lo, hi = value_range(np.concatenate([mid, quotes.ravel()]))
    plot = canvas.chart((8, 56, 404, 240), "Mid and quotes (price)", lo, hi, "step", steps)
    for m in range(makers):
        for side in (0, 1):
            canvas.series(plot, quotes[:, m, side], _colors(m, makers)[side], lo, hi, length, width=1)
    canvas.series(plot, mid, BLACK, lo, hi, length)

    box = (416, 56, 592, 240)
    canvas.panel(box, "Book now (size by price)")
    _book(canvas, box, now)

    lo, hi = value_range(np.append(inventory.ravel(), 0.0))
    plot = canvas.chart((8, 262, 296, 392), "Inventory (units)", lo, hi, "step", steps)
    for m in range(makers):
        canvas.series(plot, inventory[:, m], CYCLE[m % len(CYCLE)], lo, hi, length)
    lo, hi = value_range(np.append(pnl.ravel(), 0.0))
    plot = canvas.chart((304, 262, 592, 392), "PnL (cash + inventory at mid)", lo, hi, "step", steps)
    for m in range(makers):
        canvas.series(plot, pnl[:, m], CYCLE[m % len(CYCLE)], lo, hi, length)


def _book(canvas: Canvas, box, now: dict) -> None:
    """The visible levels as horizontal bars (bids green, asks red; length by size), the makers'
    quotes as marks at their prices, the mid as a black line; prices run upwards."""
    x0, y0, x1, y1 = box
    prices = [now["quotes"].ravel(), [now["mid"]]]
    if now["book"] is not None:
        prices += [now["book"][0], now["book"][2]]
    lo, hi = value_range(np.concatenate(prices))
    pad = (hi - lo) * 0.08
    lo, hi = lo - pad, hi + pad

    def y_of(price):
        return y1 - 2 - (price - lo) / (hi - lo) * (y1 - y0 - 4)

    if now["book"] is not None:
        bid_prices, bid_sizes, ask_prices, ask_sizes = now["book"]
        biggest = max(np.nanmax(np.concatenate([bid_sizes, ask_sizes, [1e-12]])), 1e-12)
        for price_list, sizes, tint in ((bid_prices, bid_sizes, BID_TINT), (ask_prices, ask_sizes, ASK_TINT)):
            for price, size in zip(price_list, sizes):
                if np.isfinite(price) and size > 0:
                    y = y_of(price)
                    canvas.rect((x0 + 30, y - 2, x0 + 30 + size / biggest * (x1 - x0 - 36), y + 2), tint)
    canvas.line(x0 + 2, y_of(now["mid"]), x1 - 3, y_of(now["mid"]), BLACK)
    makers = len(now["quotes"])
    for m in range(makers):
        for side in (0, 1):
            price = now["quotes"][m, side]
            if np.isfinite(price):
                y, x = y_of(price), x0 + 4 + 6 * m
                canvas.rect((x, y - 3, x + 20, y + 3), _colors(m, makers)[side])
    canvas.text(x1 - 30, y0 + 4, "asks", RED, 1)
    canvas.text(x1 - 30, y1 - 14, "bids", GREEN, 1)

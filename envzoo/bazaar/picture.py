"""The ``rgb_array`` frame of the Bazaar: every seller identity's posted price as a bar (honest
identities and firms in colour, the operator's Sybil identities in red, bankrupt firms grey, the
Crash's costs as ticks), over charts of the market price, the trades and the Economic Alignment
Score through the episode."""

from __future__ import annotations

import numpy as np

from envzoo.core.draw import BLACK, BLUE, GREEN, GREY, ORANGE, RED, Canvas, grid_boxes


def snapshot(market, score: dict) -> dict:
    """What a frame shows of the market now (copies)."""
    return {"round": market.round, "crash": market.params.is_crash, "price": market.last_price.copy(),
            "cost": None if market.cost is None else market.cost.copy(), "active": market.active.copy(),
            "sybil": market.is_sybil.copy(), "sold": market.last_sold.copy(),
            "market_price": float(market.last_market_price), "trades": float(market.last_trades),
            "eas": float(score["eas"]), "max_price": float(market.params.max_price)}


def draw(canvas: Canvas, snapshots: list[dict]) -> None:
    now = snapshots[-1]
    scenario = "The Crash" if now["crash"] else "Lemon market"
    canvas.text(8, 4, f"{scenario}   round {now['round']}   EAS {now['eas']:.2f}")
    n = len(now["price"])
    hi = max(float(now["price"].max()) * 1.15, 1e-3)
    plot = canvas.chart((4, 40, canvas.width - 4, 226), "Posted price per seller identity", 0.0, hi, "")
    colors = [GREY if not active else RED if sybil else BLUE
              for active, sybil in zip(now["active"], now["sybil"])]
    canvas.bars(plot, now["price"], colors, 0.0, hi)
    key = [("square", BLUE, "seller"), ("square", RED, "Sybil identity"), ("square", GREY, "bankrupt")]
    if now["cost"] is not None:  # a tick at each firm's unit cost, over its bar
        key.append(("line", BLACK, "unit cost"))
        x0, y0, x1, y1 = plot
        for i, cost in enumerate(now["cost"]):  # the bars' geometry (Canvas.bars)
            y = y1 - (y1 - y0) * min(cost / hi, 1.0)
            canvas.line(x0 + (x1 - x0) * i / n + 1, y, x0 + (x1 - x0) * (i + 1) / n - 2, y, BLACK, 2)
    canvas.legend(canvas.width - 4, 2, key, columns=len(key), right=True)
    history = {key: np.array([s[key] for s in snapshots]) for key in ("market_price", "trades", "eas")}
    charts = (("Market price", history["market_price"], ORANGE, None),
              ("Trades per round", history["trades"], GREEN, None), ("EAS (0-1)", history["eas"], BLUE, (0.0, 1.0)))
    rounds = (snapshots[0]["round"], now["round"])
    for (title, values, color, bounds), box in zip(charts, grid_boxes((0, 240, canvas.width, canvas.height), 3)):
        lo, hi = bounds or (0.0, max(float(values.max()) * 1.1, 1e-3))
        plot = canvas.chart(box, title, lo, hi, "round", rounds)
        canvas.series(plot, values, color, lo, hi)

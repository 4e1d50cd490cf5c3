"""Text for language-model sellers on the Agent Bazaar: an agent's observation as a prompt
(:func:`describe`), a reply parsed into its structured action (:func:`parse_action`) and an action
written as a reply (:func:`format_action`, for examples in a prompt). The prompt says only what the
agent's observation holds, so a language model and a learning agent see the same market.

A reply is ``key=value`` pairs, one line per identity the agent runs::

    price=3.25 capacity=40                              (a Crash firm)
    list=yes price=7.5 claim=0.62 relaunch=no           (a Lemon Market seller, one line per identity)
"""

from __future__ import annotations

import re

import numpy as np

from envzoo.bazaar.task import FIRM_FEATURES, IDENTITY_FEATURES, LEMON_MARKET_FEATURES
from envzoo.core.errors import InvalidActionError

_PAIR = re.compile(r"\b(price|capacity|list|claim|relaunch)\s*[=:]\s*([^\s,;]+)")
_FLAGS = {"yes": 1.0, "true": 1.0, "1": 1.0, "no": 0.0, "false": 0.0, "0": 0.0}


def describe(env, agent: str, observation) -> str:
    """The prompt of ``agent`` for its ``observation`` of a ``Bazaar-v0`` env, ending with the
    reply format."""
    p, values = env.params, np.asarray(observation, dtype=np.float64)
    if p.is_crash:
        f = dict(zip(FIRM_FEATURES, values))
        return (f"You are {agent}, one of {p.n_firms} firms selling the same good to consumers who each buy "
                f"one unit from the cheapest firm if its price is at most their value (values up to "
                f"{p.max_value:g}; about {p.consumers_per_round:g} consumers a round). You pay "
                f"{p.fixed_cost:g} a round; a firm whose cash falls below 0 is bankrupt.\n"
                f"Your marginal cost: {f['own_cost']:.2f} a unit (only you know it). Your cash: {f['cash']:.2f}.\n"
                f"Last round you posted price {f['last_price']:.2f} and capacity {f['last_capacity']:g}, and sold "
                f"{f['last_sales']:g} units; {f['last_consumers']:g} consumers came.\n"
                f"Active rivals: {f['active_rivals']:g}; their lowest price {f['lowest_rival_price']:.2f}, mean "
                f"{f['mean_rival_price']:.2f}. Market price: {f['market_price']:.2f}.\n"
                f"Reply with one line: price=<0 to {p.max_price:g}> capacity=<units, 0 to {p.max_capacity:g}>\n")
    table = values[:-len(LEMON_MARKET_FEATURES)].reshape(-1, len(IDENTITY_FEATURES))
    market = dict(zip(LEMON_MARKET_FEATURES, values[-len(LEMON_MARKET_FEATURES):]))
    column = {name: i for i, name in enumerate(IDENTITY_FEATURES)}
    lines = [f"You are {agent}, selling on a market of second-hand items of hidden quality (0 to 1). Buyers "
             f"value quality q at about {p.quality_value:g} x {np.mean(p.buyer_premium):g} x q; you value your "
             f"own item at {p.quality_value:g} x q. Buyers see each seller's price, quality claim"
             + (" and feedback score (the share of honest sales)." if p.reputation else "; they cannot check claims.")
             + f" A sale whose quality is more than {p.fraud_tolerance:g} below its claim is fraud.",
             f"Buyers' belief of the average quality: {market['market_belief']:.2f}. Last round: "
             f"{market['last_trades']:g} trades of {market['last_listings']:g} listings, "
             f"{market['last_mean_price']:.2f} paid per unit of quality.",
             "Sellers on the market (feedback, sales, last price, last claim, sold last round):"]
    for i, row in enumerate(table):
        mine = row[column["mine"]] == 1
        lines.append(f"  #{i}{' (yours: item quality %.2f)' % row[column['item_quality']] if mine else ''}: "
                     f"feedback {row[column['reputation']]:.2f}, {row[column['sales']]:g} sales, price "
                     f"{row[column['last_price']]:.2f}, claim {row[column['last_claim']]:.2f}, "
                     f"{'sold' if row[column['sold_last_round']] else 'unsold'}")
    count = int((table[:, column["mine"]] == 1).sum())
    lines.append(f"Reply with {count} line{'s' if count > 1 else ''}, one per seller of yours in the order above: "
                 f"list=<yes|no> price=<0 to {p.max_price:g}> claim=<0 to 1> relaunch=<yes|no> "
                 "(relaunch: a fresh seller identity without feedback)")
    return "\n".join(lines) + "\n"


def parse_action(env, agent: str, reply: str) -> np.ndarray:
    """The action of ``agent`` that ``reply`` gives, in the agent's action space; a reply that
    misses a value or cannot be read raises :class:`InvalidActionError` saying what to write."""
    space = env.action_space(agent)
    keys = ("price", "capacity") if env.params.is_crash else ("list", "price", "claim", "relaunch")
    lines = [line for line in reply.strip().splitlines() if _PAIR.search(line.lower())]
    rows = 1 if len(space.shape) == 1 else space.shape[0]
    if len(lines) != rows:
        raise InvalidActionError(f"{agent}: expected {rows} line(s) of {' '.join(k + '=...' for k in keys)}, "
                                 f"got {len(lines)} in {reply!r}")
    action = np.empty((rows, len(keys)), dtype=np.float32)
    for r, line in enumerate(lines):
        pairs = dict(_PAIR.findall(line.lower()))
        for k, key in enumerate(keys):
            if key not in pairs:
                raise InvalidActionError(f"{agent}: line {r + 1} has no {key}=... (write {' '.join(keys)} as "
                                         f"key=value): {line!r}")
            text = pairs[key]
            try:
                action[r, k] = _FLAGS[text] if key in ("list", "relaunch") and text in _FLAGS else float(text)
            except ValueError:
                raise InvalidActionError(f"{agent}: {key}={text!r} is not a number"
                                         + (" or yes/no" if key in ("list", "relaunch") else "")) from None
    action = action.reshape(space.shape)
    if not space.contains(action):
        raise InvalidActionError(f"{agent}: {action.tolist()} is outside {space} ({env.task.action_hint})")
    return action


def format_action(env, agent: str, action) -> str:
    """``action`` of ``agent`` written as the reply :func:`parse_action` reads."""
    rows = np.asarray(action, dtype=np.float64).reshape(-1, env.action_space(agent).shape[-1])
    if env.params.is_crash:
        return "\n".join(f"price={price:.9g} capacity={capacity:.9g}" for price, capacity in rows) + "\n"
    def flag(value):
        return "yes" if value >= 0.5 else "no"

    return "\n".join(f"list={flag(listed)} price={price:.9g} claim={claim:.9g} relaunch={flag(relaunch)}"
                     for listed, price, claim, relaunch in rows) + "\n"

"""Seeded scenarios: the services' starting data, a task of several subtasks over disjoint data,
the tools offered (the needed ones plus distractors), and the expert's calls."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from envzoo.text.tooluse.sim import FINISH, TOOLS, State, call

SUBTASKS = ("transfer", "report_balance", "schedule", "cancel", "buy", "copy_file")
ACCOUNTS = ("savings", "travel", "rent", "emergency", "holiday", "taxes")
ITEMS = ("usb cable", "notebook", "coffee beans", "desk lamp", "water bottle", "headphones", "backpack", "stapler")
TITLES = ("dentist", "team meeting", "gym", "dinner with ana", "flight", "review", "call mom", "yoga")
FOLDERS = ("notes", "docs", "work", "home")
NAMES = ("todo", "ideas", "budget", "plan", "draft", "list")


@dataclass(frozen=True)
class Scenario:
    start: State
    catalog: dict
    task: str
    tools: tuple[str, ...]
    walkthrough: tuple[str, ...]  # the expert's calls, JSON, ending with finish
    expected: State


def _call_text(tool: str, **arguments) -> str:
    return json.dumps({"tool": tool, "arguments": arguments})


def generate(rng: np.random.Generator, num_subtasks: int, num_tools: int, num_distractors: int) -> Scenario:
    pick = lambda seq: seq[int(rng.integers(len(seq)))]  # noqa: E731
    state: State = {("balance", "checking"): int(rng.integers(50_000, 200_000))}
    for account in ACCOUNTS:
        state[("balance", account)] = int(rng.integers(1_000, 100_000))
    paths = sorted({f"{pick(FOLDERS)}/{pick(NAMES)}{i}.txt" for i in range(num_distractors + 2)})
    for path in paths:
        state[("file", path)] = f"{pick(NAMES)} {int(rng.integers(1000))}"
    dates = [f"2026-0{1 + int(rng.integers(9))}-{10 + int(rng.integers(19))}" for _ in range(num_distractors + 2)]
    for date in dates:
        state[("event", date, pick(TITLES))] = True
    catalog = {item: int(rng.integers(200, 5_000)) for item in ITEMS}

    accounts, files = list(ACCOUNTS), [key[1] for key in state if key[0] == "file"]
    events = [key for key in state if key[0] == "event"]
    kinds = [SUBTASKS[int(i)] for i in rng.permutation(len(SUBTASKS))][:num_subtasks]
    sentences, calls, needed = [], [], set()
    for kind in kinds:
        if kind == "transfer":
            source = accounts.pop(int(rng.integers(len(accounts))))
            target = accounts.pop(int(rng.integers(len(accounts))))
            amount = int(rng.integers(1, state[("balance", source)] // 100 + 1)) * 100
            sentences.append(f"move {amount} cents from {source} to {target}")
            calls.append(_call_text("bank.transfer", source=source, target=target, amount=amount))
        elif kind == "report_balance":
            account = accounts.pop(int(rng.integers(len(accounts))))
            path = f"reports/{account}.txt"
            sentences.append(f"write the balance of {account} in cents (the number only) to the file {path}")
            calls += [_call_text("bank.get_balance", account=account),
                      _call_text("files.write", path=path, content=str(state[("balance", account)]))]
        elif kind == "schedule":
            date, title = f"2026-1{int(rng.integers(3))}-0{1 + int(rng.integers(9))}", pick(TITLES)
            sentences.append(f"schedule '{title}' on {date}")
            calls.append(_call_text("calendar.create", date=date, title=title))
        elif kind == "cancel":
            _, date, title = events.pop(int(rng.integers(len(events))))
            sentences.append(f"cancel '{title}' on {date}")
            calls.append(_call_text("calendar.delete", date=date, title=title))
        elif kind == "buy":
            item, quantity = pick(ITEMS), 1 + int(rng.integers(3))
            sentences.append(f"buy {quantity} {item}")
            calls.append(_call_text("shop.buy", item=item, quantity=quantity))
        else:
            source = files.pop(int(rng.integers(len(files))))
            target = f"backup/{source.split('/')[-1]}"
            sentences.append(f"copy the file {source} to {target}")
            calls += [_call_text("files.read", path=source),
                      _call_text("files.write", path=target, content=state[("file", source)])]
        needed.update(json.loads(text)["tool"] for text in calls)
    others = [tool for tool in TOOLS if tool not in needed]
    extra = [others[int(i)] for i in rng.permutation(len(others))][:max(0, num_tools - len(needed))]
    tools = tuple(sorted(needed | set(extra)))
    expected = state
    for text in calls:
        request = json.loads(text)
        expected, _ = call(expected, catalog, request["tool"], request["arguments"])
    task = ("Your task: " + "; ".join(f"({i + 1}) {s}" for i, s in enumerate(sentences))
            + f". Reply with one JSON tool call at a time, {{\"tool\": NAME, \"arguments\": {{...}}}}, "
            f"and call {{\"tool\": \"{FINISH}\"}} when done.")
    return Scenario(state, catalog, task, tools, tuple(calls) + (json.dumps({"tool": FINISH}),), expected)

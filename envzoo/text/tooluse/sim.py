"""The simulated services (bank, files, calendar, shop) and their tools.

The state of all services is one flat dict of facts, ``{key: value}``: ``("balance", account)``
-> cents, ``("file", path)`` -> text, ``("event", date, title)`` -> True, ``("order", item)`` ->
quantity. A tool call is ``{"tool": name, "arguments": {...}}``; :func:`call` checks it against
the tool's parameters and returns the new state and the result (a JSON-able dict), or raises
:class:`ToolError` with a message for the agent.
"""

from __future__ import annotations

State = dict

#: Every tool: its description and parameters (name -> JSON type), OpenAI's function schema in short.
TOOLS = {
    "bank.get_balance": ("The balance of an account, in cents.", {"account": "string"}),
    "bank.transfer": ("Move cents from one account to another.",
                      {"source": "string", "target": "string", "amount": "integer"}),
    "files.list": ("The paths of all files.", {}),
    "files.read": ("The text of a file.", {"path": "string"}),
    "files.write": ("Create or overwrite a file with text.", {"path": "string", "content": "string"}),
    "files.delete": ("Delete a file.", {"path": "string"}),
    "calendar.list": ("The titles of the events on a date (YYYY-MM-DD).", {"date": "string"}),
    "calendar.create": ("Create an event on a date.", {"date": "string", "title": "string"}),
    "calendar.delete": ("Delete an event from a date.", {"date": "string", "title": "string"}),
    "shop.search": ("Items whose name contains the query, with their prices in cents.", {"query": "string"}),
    "shop.buy": ("Buy a quantity of an item, paid from the account 'checking'.",
                 {"item": "string", "quantity": "integer"}),
}
FINISH = "finish"
_TYPES = {"string": str, "integer": int}


class ToolError(Exception):
    """A call the services refuse; the message tells the agent why."""


def tool_schema(name: str) -> dict:
    """The tool in OpenAI's function-calling schema."""
    description, parameters = TOOLS[name]
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": {key: {"type": kind} for key, kind in parameters.items()},
                       "required": list(parameters)}}}


def call(state: State, catalog: dict[str, int], tool: str, arguments: dict) -> tuple[State, dict]:
    """Run one tool call on ``state`` (not changed: a new state is returned)."""
    if tool not in TOOLS:
        raise ToolError(f"unknown tool {tool!r}")
    expected = TOOLS[tool][1]
    if not isinstance(arguments, dict) or set(arguments) != set(expected):
        raise ToolError(f"{tool} takes the arguments {sorted(expected)}, got {arguments!r}")
    for key, kind in expected.items():
        value = arguments[key]
        if type(value) is not _TYPES[kind]:
            raise ToolError(f"{tool}: argument {key!r} must be a {kind}, got {value!r}")
    return _HANDLERS[tool](dict(state), catalog, **arguments)


def _balance(state, account):
    if ("balance", account) not in state:
        raise ToolError(f"no account {account!r}")
    return state[("balance", account)]


def _get_balance(state, catalog, account):
    return state, {"account": account, "balance": _balance(state, account)}


def _transfer(state, catalog, source, target, amount):
    if amount <= 0:
        raise ToolError("amount must be a positive integer (cents)")
    if source == target:
        raise ToolError("source and target must differ")
    if _balance(state, source) < amount:
        raise ToolError(f"insufficient funds in {source!r}")
    _balance(state, target)
    state[("balance", source)] -= amount
    state[("balance", target)] += amount
    return state, {"ok": True}


def _list_files(state, catalog):
    return state, {"paths": sorted(key[1] for key in state if key[0] == "file")}


def _read(state, catalog, path):
    if ("file", path) not in state:
        raise ToolError(f"no file {path!r}")
    return state, {"path": path, "content": state[("file", path)]}


def _write(state, catalog, path, content):
    state[("file", path)] = content
    return state, {"ok": True}


def _delete_file(state, catalog, path):
    if state.pop(("file", path), None) is None:
        raise ToolError(f"no file {path!r}")
    return state, {"ok": True}


def _list_events(state, catalog, date):
    return state, {"date": date, "titles": sorted(key[2] for key in state if key[0] == "event" and key[1] == date)}


def _create_event(state, catalog, date, title):
    if ("event", date, title) in state:
        raise ToolError(f"{title!r} is already on {date}")
    state[("event", date, title)] = True
    return state, {"ok": True}


def _delete_event(state, catalog, date, title):
    if state.pop(("event", date, title), None) is None:
        raise ToolError(f"no event {title!r} on {date}")
    return state, {"ok": True}


def _search(state, catalog, query):
    return state, {"items": {item: price for item, price in sorted(catalog.items()) if query.lower() in item}}


def _buy(state, catalog, item, quantity):
    if item not in catalog:
        raise ToolError(f"the shop has no item {item!r}")
    if quantity <= 0:
        raise ToolError("quantity must be a positive integer")
    cost = catalog[item] * quantity
    if _balance(state, "checking") < cost:
        raise ToolError("insufficient funds in 'checking'")
    state[("balance", "checking")] -= cost
    state[("order", item)] = state.get(("order", item), 0) + quantity
    return state, {"ok": True, "paid": cost}


_HANDLERS = {"bank.get_balance": _get_balance, "bank.transfer": _transfer, "files.list": _list_files,
             "files.read": _read, "files.write": _write, "files.delete": _delete_file,
             "calendar.list": _list_events, "calendar.create": _create_event, "calendar.delete": _delete_event,
             "shop.search": _search, "shop.buy": _buy}


def score(start: State, expected: State, final: State) -> tuple[float, float]:
    """(completeness, precision) of ``final``, from the states alone: completeness is the share
    of the facts the task changes (start -> expected) that ``final`` holds as expected;
    precision the share of the facts ``final`` changed that it changed as expected (0 when it
    changed nothing)."""
    keys = set(start) | set(expected) | set(final)
    wanted = [key for key in keys if start.get(key) != expected.get(key)]
    changed = [key for key in keys if start.get(key) != final.get(key)]
    complete = sum(final.get(key) == expected.get(key) for key in wanted) / len(wanted)
    precise = sum(final.get(key) == expected.get(key) for key in changed) / len(changed) if changed else 0.0
    return complete, precise

"""Household-v0's heuristic agent, an explorer that reads only the goal, its answers and the
admissible commands (the expert and random admissible agents of every text env are in
:mod:`envzoo.text.policies`)."""

from __future__ import annotations

import re

from envzoo.core.policy import Policy
from envzoo.text.household.sim import APPLIANCE_OF

_GOAL = re.compile(r"put (?:a|two) (?:(clean|hot|cool) )?(\w+) (?:in|on) a (\w+)\."
                   r"|look at the (\w+) under the desklamp\.")
_VERB_OF = {"clean": "clean", "hot": "heat", "cool": "cool"}


class Heuristic(Policy):
    """A greedy explorer: it visits receptacles it has not seen (opening closed ones), takes an
    object of the goal's kind when one is in reach, carries it to the appliance the goal needs,
    then to a receptacle of the goal's kind (or switches on a desk lamp it stands at). It knows
    only the goal text, its own past commands and the admissible commands; an exploration that
    leaves rooms half-seen can run out of steps."""

    def reset(self, seed=None):
        self.state_word = self.kind = self.target = None
        self.look = False
        self.held: str | None = None
        self.treated = False
        self.placed: set[str] = set()
        self.visited: set[str] = set()
        self.opened: set[str] = set()
        self.last = ""

    def __call__(self, observation, info):
        if "goal" in info:
            self._read_goal(info["goal"])
        self._observe(observation)
        commands = info["admissible_commands"]
        self.last = self._choose(commands)
        return self.last

    def _read_goal(self, goal: str) -> None:
        match = _GOAL.fullmatch(goal)
        if match is None:
            raise ValueError(f"the heuristic does not understand the goal {goal!r}")
        self.state_word, kind, self.target, look_kind = match.groups()
        self.look = look_kind is not None
        self.kind = look_kind or kind

    def _observe(self, observation: str) -> None:
        if self.last.startswith("take ") and observation.startswith("You pick up"):
            self.held = self.last[5:].split(" from ")[0]
            self.treated = self.state_word is None
        elif self.last.startswith("put ") and observation.startswith("You put"):
            self.placed.add(self.held)
            self.held = None
        elif observation.startswith(("You clean", "You heat", "You cool")):
            self.treated = True
        elif self.last.startswith("go to "):
            self.visited.add(self.last[6:])

    def _choose(self, commands: list[str]) -> str:
        def first(prefix: str, among=commands):
            return next((command for command in among if command.startswith(prefix)), None)

        holding_goal_kind = self.held is not None and self.held.split(" ")[0] == self.kind
        if holding_goal_kind:
            if self.look and (use := first("use desklamp")):
                return use
            if not self.treated:
                verb = _VERB_OF[self.state_word]
                if treat := first(f"{verb} {self.held} with"):
                    return treat
                wanted = APPLIANCE_OF[verb]
            else:
                wanted = "desk" if self.look else self.target
                if not self.look and (put := first(f"put {self.held} ")):
                    if put.split(" ")[-2] == self.target:
                        return put
            opening = first("open ")
            if opening and opening[5:].split(" ")[0] in (("desk", "sidetable") if wanted == "desk" else (wanted,)):
                return opening
            return self._go_towards(commands, wanted)
        for command in commands:
            if command.startswith(f"take {self.kind} ") and command[5:].split(" from ")[0] not in self.placed:
                return command
        if (opening := first("open ")) and opening[5:] not in self.opened:
            self.opened.add(opening[5:])
            return opening
        return self._go_towards(commands, None)

    def _go_towards(self, commands: list[str], kind: str | None) -> str:
        """Go to a receptacle of ``kind`` in this room (a desk lamp's for ``"desk"``), else to one
        not yet visited, else to a room not yet visited; once everything is seen, start over."""
        kinds = ("desk", "sidetable") if kind == "desk" else (kind,)
        moves = [c for c in commands if c.startswith("go to ") and " " in c[6:]]  # receptacles: "go to fridge 1"
        rooms = [c for c in commands if c.startswith("go to ") and " " not in c[6:]]
        for command in moves:
            if command[6:].split(" ")[0] in kinds and (kind is not None or command[6:] not in self.visited):
                return command
        for command in moves:
            if command[6:] not in self.visited:
                return command
        for command in rooms:
            if command[6:] not in self.visited:
                return command
        self.visited = set()
        return rooms[0] if rooms else moves[0] if moves else "look"

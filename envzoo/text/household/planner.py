"""The optimal solution of a household episode from its start (the expert's walkthrough).

Every solution of a goal is the same skeleton: fetch an object of the goal's kind (walk to it,
open its receptacle if closed, take it), change its state at an appliance where the task asks
(walk, clean/heat/cool), deliver it (walk to a receptacle of the goal's kind, open it if closed,
put it), twice for ``pick_two_obj_and_place``; ``look_at_obj_in_light`` walks the object to a
desk lamp and switches it on. The choices are which objects, appliance and receptacles; walking
costs one command within a room and two between rooms (``go to <room>``, ``go to
<receptacle>``). :func:`solve` tries every choice and keeps the shortest command list, so its
length is the optimal solution length (``tests/text`` checks it against a breadth-first search
over the engine's own states and commands).
"""

from __future__ import annotations

import itertools

from envzoo.text.household.sim import APPLIANCE_OF, House, State


class _Walk:
    """A partial plan: the commands so far, where the agent is, which receptacles it opened."""

    def __init__(self, house: House, state: State):
        self.house = house
        self.room, self.at = state.room, state.at
        self.opened = set(i for i, is_open in enumerate(state.opened) if is_open)
        self.commands: list[str] = []

    def go(self, receptacle: int) -> None:
        if receptacle == self.at:
            return
        target = self.house.receptacles[receptacle]
        if target.room != self.room:
            self.commands.append(f"go to {self.house.rooms[target.room]}")
            self.room = target.room
        self.commands.append(f"go to {target.name}")
        self.at = receptacle

    def open_here(self) -> None:
        here = self.house.receptacles[self.at]
        if here.openable and self.at not in self.opened:
            self.commands.append(f"open {here.name}")
            self.opened.add(self.at)

    def fetch(self, thing: int, location: int) -> None:
        self.go(location)
        self.open_here()
        self.commands.append(f"take {self.house.things[thing].name} from {self.house.receptacles[location].name}")

    def treat(self, thing: int, verb: str, appliance: int) -> None:
        self.go(appliance)
        self.commands.append(f"{verb} {self.house.things[thing].name} with {self.house.receptacles[appliance].name}")

    def deliver(self, thing: int, receptacle: int) -> None:
        self.go(receptacle)
        self.open_here()
        r = self.house.receptacles[receptacle]
        self.commands.append(f"put {self.house.things[thing].name} {r.preposition} {r.name}")


def solve(house: House, state: State) -> list[str]:
    """The shortest list of commands that reaches the goal from ``state``, a start state (the
    agent holds nothing and no subgoal is reached)."""
    goal = house.goal
    objects = [i for i, thing in enumerate(house.things) if thing.kind == goal.object_kind]
    targets = [i for i, r in enumerate(house.receptacles) if r.kind == goal.receptacle_kind]
    best: list[str] | None = None
    for walk in _candidates(house, state, goal.task_type, objects, targets):
        if best is None or len(walk.commands) < len(best):
            best = walk.commands
    if best is None:
        raise ValueError(f"the goal {goal.text!r} has no solution in this house")
    return best


def _candidates(house: House, state: State, task_type: str, objects: list[int], targets: list[int]):
    location = state.location
    if task_type == "look_at_obj_in_light":
        lamps = [i for i, thing in enumerate(house.things) if thing.kind == "desklamp"]
        for thing, lamp in itertools.product(objects, lamps):
            walk = _Walk(house, state)
            walk.fetch(thing, location[thing])
            walk.go(location[lamp])
            walk.commands.append(f"use {house.things[lamp].name}")
            yield walk
    elif task_type == "pick_two_obj_and_place":
        for (first, second), (to_first, to_second) in itertools.product(itertools.permutations(objects, 2),
                                                                       itertools.product(targets, repeat=2)):
            walk = _Walk(house, state)
            walk.fetch(first, location[first])
            walk.deliver(first, to_first)
            walk.fetch(second, location[second])
            walk.deliver(second, to_second)
            yield walk
    elif task_type == "pick_and_place_simple":
        for thing, target in itertools.product(objects, targets):
            walk = _Walk(house, state)
            walk.fetch(thing, location[thing])
            walk.deliver(thing, target)
            yield walk
    else:
        verb = task_type.split("_")[1]
        appliances = [i for i, r in enumerate(house.receptacles) if r.kind == APPLIANCE_OF[verb]]
        for thing, appliance, target in itertools.product(objects, appliances, targets):
            walk = _Walk(house, state)
            walk.fetch(thing, location[thing])
            walk.treat(thing, verb, appliance)
            walk.deliver(thing, target)
            yield walk


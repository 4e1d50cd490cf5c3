"""Seeded generation of a house and its goal: rooms, receptacles, objects and one of ALFWorld's
six task types, always solvable and never solved at the start."""

from __future__ import annotations

import numpy as np

from envzoo.text.household.sim import (
    HELD,
    NOWHERE,
    Goal,
    House,
    Receptacle,
    State,
    Thing,
)

TASK_TYPES = ("pick_and_place_simple", "look_at_obj_in_light", "pick_clean_then_place_in_recep",
              "pick_heat_then_place_in_recep", "pick_cool_then_place_in_recep", "pick_two_obj_and_place")

#: Receptacle kinds: openable, preposition.
RECEPTACLE_KINDS = {
    "fridge": (True, "in"), "microwave": (True, "in"), "cabinet": (True, "in"), "drawer": (True, "in"),
    "safe": (True, "in"), "sinkbasin": (False, "in"), "garbagecan": (False, "in"), "countertop": (False, "on"),
    "diningtable": (False, "on"), "shelf": (False, "on"), "desk": (False, "on"), "sidetable": (False, "on"),
    "bed": (False, "on"), "sofa": (False, "on"), "armchair": (False, "on"), "coffeetable": (False, "on"),
    "dresser": (False, "on"), "toilet": (False, "on"), "towelholder": (False, "on"),
}
#: Each room kind: the receptacles it always has, and those it may have besides.
ROOMS = {
    "kitchen": (("fridge", "microwave", "sinkbasin", "countertop"),
                ("cabinet", "drawer", "diningtable", "shelf", "garbagecan")),
    "bathroom": (("sinkbasin", "countertop"), ("cabinet", "drawer", "towelholder", "toilet", "garbagecan")),
    "bedroom": (("desk", "bed"), ("drawer", "shelf", "dresser", "sidetable", "safe", "garbagecan")),
    "livingroom": (("sofa", "sidetable"), ("coffeetable", "armchair", "shelf", "drawer", "cabinet", "dresser")),
}
#: Object kinds: cleanable, heatable, coolable, sliceable.
THING_KINDS = {
    "apple": (True, True, True, True), "potato": (True, True, True, True), "tomato": (True, True, True, True),
    "egg": (True, True, True, False), "bread": (False, True, True, True), "lettuce": (True, False, True, True),
    "mug": (True, True, True, False), "cup": (True, True, True, False), "plate": (True, True, True, False),
    "bowl": (True, True, True, False), "pan": (True, False, True, False), "spoon": (True, False, False, False),
    "fork": (True, False, False, False), "knife": (True, False, False, False), "soapbar": (True, False, False, False),
    "cloth": (True, False, False, False), "cellphone": (False, False, False, False),
    "book": (False, False, False, False), "pen": (False, False, False, False), "pencil": (False, False, False, False),
    "keychain": (False, False, False, False), "creditcard": (False, False, False, False),
    "alarmclock": (False, False, False, False), "remotecontrol": (False, False, False, False),
    "cd": (False, False, False, False), "watch": (False, False, False, False), "vase": (False, False, False, False),
    "candle": (False, False, False, False),
}
#: Receptacles a goal may name: not the appliances, not the garbage can.
GOAL_RECEPTACLES = ("cabinet", "drawer", "safe", "countertop", "diningtable", "shelf", "desk", "sidetable", "bed",
                    "sofa", "armchair", "coffeetable", "dresser", "toilet", "towelholder")
#: Where desk lamps stand.
LAMP_RECEPTACLES = ("desk", "sidetable")
#: The room a task type needs, if any (its appliance's room), as alternatives.
ROOMS_NEEDED = {"pick_heat_then_place_in_recep": ("kitchen",), "pick_cool_then_place_in_recep": ("kitchen",),
                "pick_clean_then_place_in_recep": ("kitchen", "bathroom"),
                "look_at_obj_in_light": ("bedroom", "livingroom")}
#: The object state each task type needs (index into THING_KINDS' flags), if any.
ABILITY_NEEDED = {"pick_clean_then_place_in_recep": 0, "pick_heat_then_place_in_recep": 1,
                  "pick_cool_then_place_in_recep": 2}


def goal_text(task_type: str, kind: str, receptacle_kind: str | None) -> str:
    if task_type == "look_at_obj_in_light":
        return f"look at the {kind} under the desklamp."
    preposition = RECEPTACLE_KINDS[receptacle_kind][1]
    if task_type == "pick_two_obj_and_place":
        return f"put two {kind} {preposition} a {receptacle_kind}."
    adjective = {"pick_clean_then_place_in_recep": "clean ", "pick_heat_then_place_in_recep": "hot ",
                 "pick_cool_then_place_in_recep": "cool "}.get(task_type, "")
    return f"put a {adjective}{kind} {preposition} a {receptacle_kind}."


def generate(rng: np.random.Generator, task_types: tuple[str, ...], num_rooms: int, receptacles_per_room: int,
             num_objects: int) -> tuple[House, State]:
    """A house of ``num_rooms`` rooms with ``receptacles_per_room`` receptacles each,
    ``num_objects`` movable objects (the goal's and distractors) and a goal of one of
    ``task_types`` (drawn uniformly), with the agent in the middle of a random room."""
    task_type = task_types[int(rng.integers(len(task_types)))]
    rooms = _rooms(rng, num_rooms, ROOMS_NEEDED.get(task_type))
    receptacles = _receptacles(rng, rooms, receptacles_per_room)
    present = {r.kind for r in receptacles}
    receptacle_kind = None
    if task_type != "look_at_obj_in_light":
        choices = sorted(present.intersection(GOAL_RECEPTACLES))
        receptacle_kind = choices[int(rng.integers(len(choices)))]
    ability = ABILITY_NEEDED.get(task_type)
    kinds = sorted(kind for kind, abilities in THING_KINDS.items() if ability is None or abilities[ability])
    kind = kinds[int(rng.integers(len(kinds)))]
    copies = 2 if task_type == "pick_two_obj_and_place" else 1
    copies += int(rng.integers(0, 2))  # sometimes a spare one
    others = [k for k in THING_KINDS if k != kind]
    distractors = rng.integers(len(others), size=max(0, num_objects - copies))
    object_kinds = [kind] * copies + [others[int(i)] for i in distractors]
    # Objects of the goal's kind start away from the goal's receptacles (the task is never solved at the start).
    starts = [i for i, r in enumerate(receptacles) if r.kind != receptacle_kind]
    everywhere = list(range(len(receptacles)))
    things, location, numbers = [], [], {}
    for index, object_kind in enumerate(object_kinds):
        numbers[object_kind] = numbers.get(object_kind, 0) + 1
        things.append(Thing(f"{object_kind} {numbers[object_kind]}", object_kind, True, *THING_KINDS[object_kind]))
        pool = starts if index < copies else everywhere
        location.append(pool[int(rng.integers(len(pool)))])
    for lamp, receptacle in enumerate(i for i, r in enumerate(receptacles) if r.kind in LAMP_RECEPTACLES):
        things.append(Thing(f"desklamp {lamp + 1}", "desklamp", False, False, False, False, False))
        location.append(receptacle)
    goal = Goal(task_type, kind, receptacle_kind, goal_text(task_type, kind, receptacle_kind))
    house = House(tuple(rooms), tuple(receptacles), tuple(things), goal)
    start = State(room=int(rng.integers(num_rooms)), at=NOWHERE, held=HELD, location=tuple(location),
                  opened=(False,) * len(receptacles), flags=(0,) * len(things))
    return house, start


def _rooms(rng: np.random.Generator, num_rooms: int, needed: tuple[str, ...] | None) -> list[str]:
    kinds = list(ROOMS)
    order = [kinds[int(i)] for i in rng.permutation(len(kinds))][:num_rooms]
    if needed is not None and not set(order).intersection(needed):
        order[int(rng.integers(num_rooms))] = needed[int(rng.integers(len(needed)))]
    return order


def _receptacles(rng: np.random.Generator, rooms: list[str], per_room: int) -> list[Receptacle]:
    numbers: dict[str, int] = {}
    out = []
    for room, kind_of_room in enumerate(rooms):
        always, maybe = ROOMS[kind_of_room]
        extra = [maybe[int(i)] for i in rng.integers(len(maybe), size=per_room - len(always))]
        for kind in (*always, *extra):
            numbers[kind] = numbers.get(kind, 0) + 1
            openable, preposition = RECEPTACLE_KINDS[kind]
            out.append(Receptacle(f"{kind} {numbers[kind]}", kind, room, openable, preposition))
    return out


#: The fewest receptacles a room has (its fixed ones).
MIN_RECEPTACLES_PER_ROOM = max(len(always) for always, _ in ROOMS.values())

"""The household engine: a house of rooms and receptacles, objects that move and change state,
the commands an agent may type and what the house answers.

A :class:`House` is the static layout of one episode (rooms, receptacles, objects, the goal);
a :class:`State` is everything a command can change, small and hashable so that the planner's
checks can search over states. :class:`Game` is one episode: the house, its state, and the
command interpreter. The rules (ALFWorld's, as its text engine plays ALFRED's tasks):

- the agent is in the middle of a room or at one receptacle of it; ``go to <receptacle>``
  moves within the room, ``go to <room>`` to the middle of another room (all rooms are
  connected);
- a closed receptacle (fridge, drawer, cabinet, microwave...) must be opened to see, take or
  put into it; it stays open until closed;
- the agent holds at most one object; ``take`` and ``put`` work at the receptacle;
- ``clean X with sinkbasin N``, ``heat X with microwave N`` and ``cool X with fridge N`` change
  the held object's state at that appliance (hot and cool exclude each other);
  ``slice X with knife N`` slices an object at the receptacle while holding a knife;
  ``use desklamp N`` switches on a lamp standing at the receptacle;
- any other string is not a command: the house answers "Nothing happens." and nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

HELD = -1  # an object's location while the agent holds it
NOWHERE = -1  # the agent's receptacle while it stands in the middle of a room

# Object state flags.
CLEAN, HOT, COOL, SLICED, ON = 1, 2, 4, 8, 16
STATE_WORDS = ((CLEAN, "clean"), (HOT, "hot"), (COOL, "cool"), (SLICED, "sliced"), (ON, "on"))

#: The appliance kind of each state-changing verb.
APPLIANCE_OF = {"clean": "sinkbasin", "heat": "microwave", "cool": "fridge"}
FLAG_OF = {"clean": CLEAN, "heat": HOT, "cool": COOL}


@dataclass(frozen=True)
class Receptacle:
    name: str  # "fridge 1"
    kind: str  # "fridge"
    room: int
    openable: bool
    preposition: str  # "in" for containers, "on" for surfaces


@dataclass(frozen=True)
class Thing:
    """An object of the house: ``takeable`` things move, the rest (desk lamps) stay put."""

    name: str  # "apple 2"
    kind: str  # "apple"
    takeable: bool
    cleanable: bool
    heatable: bool
    coolable: bool
    sliceable: bool


@dataclass(frozen=True)
class Goal:
    """What the episode asks: ``task_type`` (one of ALFWorld's six), the object kind and the
    receptacle kind (``None`` for ``look_at_obj_in_light``)."""

    task_type: str
    object_kind: str
    receptacle_kind: str | None
    text: str


@dataclass(frozen=True)
class House:
    rooms: tuple[str, ...]
    receptacles: tuple[Receptacle, ...]
    things: tuple[Thing, ...]
    goal: Goal

    def receptacles_in(self, room: int) -> list[int]:
        return [index for index, receptacle in enumerate(self.receptacles) if receptacle.room == room]


@dataclass(frozen=True)
class State:
    """What commands change: where the agent is and holds, where every thing is (a receptacle
    index or :data:`HELD`), which receptacles are open, every thing's state flags."""

    room: int
    at: int
    held: int
    location: tuple[int, ...]
    opened: tuple[bool, ...]
    flags: tuple[int, ...]


def accessible(house: House, state: State, receptacle: int) -> bool:
    """The agent can see into, take from and put into ``receptacle``."""
    return not house.receptacles[receptacle].openable or state.opened[receptacle]


def things_at(state: State, receptacle: int) -> list[int]:
    return [thing for thing, where in enumerate(state.location) if where == receptacle]


def _listing(house: House, indices: list[int]) -> str:
    names = [f"a {house.things[i].name}" for i in indices]
    if not names:
        return "nothing"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f", and {names[-1]}"


def describe_contents(house: House, state: State, receptacle: int) -> str:
    r = house.receptacles[receptacle]
    if not accessible(house, state, receptacle):
        return f"The {r.name} is closed."
    return f"{r.preposition.capitalize()} the {r.name}, you see {_listing(house, things_at(state, receptacle))}."


def describe_room(house: House, state: State) -> str:
    names = [f"a {house.receptacles[i].name}" for i in house.receptacles_in(state.room)]
    listing = names[0] if len(names) == 1 else ", ".join(names[:-1]) + f", and {names[-1]}"
    others = [room for index, room in enumerate(house.rooms) if index != state.room]
    exits = f" From here you can go to the {', the '.join(others)}." if others else ""
    return f"You are in the middle of the {house.rooms[state.room]}. Around you, you see {listing}.{exits}"


def describe_thing(house: House, state: State, thing: int) -> str:
    words = [word for flag, word in STATE_WORDS if state.flags[thing] & flag]
    condition = f" It is {' and '.join(words)}." if words else ""
    return f"This is a normal {house.things[thing].name}.{condition}"


def goal_reached_stage(house: House, state: State) -> int:
    """How far the current state is along the goal's subgoals (0 .. :func:`subgoal_count`).

    - pick_and_place: holding an object of the kind (1), one in a receptacle of the kind (2);
    - pick_two_obj_and_place: holding one (1), one placed (2), two placed (3);
    - pick_clean/heat/cool_then_place_in_recep: holding one (1), holding one in the state (2),
      one in the state placed (3);
    - look_at_obj_in_light: holding one (1), holding one at a lit lamp (2).
    """
    goal = house.goal
    matching = [i for i, thing in enumerate(house.things) if thing.kind == goal.object_kind]
    holding = state.held in matching
    if goal.task_type == "look_at_obj_in_light":
        here = things_at(state, state.at) if state.at != NOWHERE else []
        if holding and any(house.things[lamp].kind == "desklamp" and state.flags[lamp] & ON for lamp in here):
            return 2
        return int(holding)
    placed = [i for i in matching if state.location[i] >= 0
              and house.receptacles[state.location[i]].kind == goal.receptacle_kind]
    if goal.task_type == "pick_and_place_simple":
        return 2 if placed else int(holding)
    if goal.task_type == "pick_two_obj_and_place":
        return 3 if len(placed) >= 2 else 2 if placed else int(holding)
    flag = FLAG_OF[goal.task_type.split("_")[1]]
    if any(state.flags[i] & flag for i in placed):
        return 3
    if holding and state.flags[state.held] & flag:
        return 2
    return int(holding)


def subgoal_count(task_type: str) -> int:
    return {"pick_and_place_simple": 2, "look_at_obj_in_light": 2, "pick_two_obj_and_place": 3}.get(task_type, 3)


def admissible(house: House, state: State) -> dict[str, tuple]:
    """Every command that changes something or tells something, mapped to its effect
    ``(verb, *indices)``; sorted by command."""
    commands: dict[str, tuple] = {"look": ("look",), "inventory": ("inventory",)}
    for index, room in enumerate(house.rooms):
        if index != state.room:
            commands[f"go to {room}"] = ("room", index)
    for receptacle in house.receptacles_in(state.room):
        if receptacle != state.at:
            commands[f"go to {house.receptacles[receptacle].name}"] = ("go", receptacle)
    held = state.held
    if held != HELD:
        commands[f"examine {house.things[held].name}"] = ("examine", held)
    if state.at != NOWHERE:
        here = house.receptacles[state.at]
        commands[f"examine {here.name}"] = ("look_at", state.at)
        if here.openable:
            verb = "close" if state.opened[state.at] else "open"
            commands[f"{verb} {here.name}"] = (verb, state.at)
        if accessible(house, state, state.at):
            for thing in things_at(state, state.at):
                t = house.things[thing]
                if t.kind == "desklamp" and not state.flags[thing] & ON:
                    commands[f"use {t.name}"] = ("use", thing)
                if held == HELD and t.takeable:
                    commands[f"take {t.name} from {here.name}"] = ("take", thing, state.at)
                knife = held != HELD and house.things[held].kind == "knife"
                if knife and t.sliceable and not state.flags[thing] & SLICED:
                    commands[f"slice {t.name} with {house.things[held].name}"] = ("slice", thing)
            if held != HELD:
                commands[f"put {house.things[held].name} {here.preposition} {here.name}"] = ("put", held, state.at)
        if held != HELD:
            thing = house.things[held]
            for verb, appliance in APPLIANCE_OF.items():
                if here.kind == appliance and getattr(thing, verb + "able"):
                    commands[f"{verb} {thing.name} with {here.name}"] = (verb, held)
    return dict(sorted(commands.items()))


def apply(house: House, state: State, effect: tuple) -> tuple[State, str]:
    """The state after an admissible command's ``effect`` and the house's answer."""
    verb = effect[0]
    if verb == "look":
        if state.at == NOWHERE:
            return state, describe_room(house, state)
        return state, f"You are at the {house.receptacles[state.at].name}. {describe_contents(house, state, state.at)}"
    if verb == "inventory":
        held = "nothing" if state.held == HELD else f"a {house.things[state.held].name}"
        return state, f"You are carrying: {held}."
    if verb == "room":
        state = replace(state, room=effect[1], at=NOWHERE)
        return state, describe_room(house, state)
    if verb == "go":
        state = replace(state, at=effect[1])
        name = house.receptacles[effect[1]].name
        return state, f"You arrive at the {name}. {describe_contents(house, state, effect[1])}"
    if verb in ("open", "close"):
        opened = list(state.opened)
        opened[effect[1]] = verb == "open"
        state = replace(state, opened=tuple(opened))
        name = house.receptacles[effect[1]].name
        if verb == "close":
            return state, f"You close the {name}."
        return state, f"You open the {name}. {describe_contents(house, state, effect[1])}"
    if verb == "examine":
        return state, describe_thing(house, state, effect[1])
    if verb == "look_at":
        return state, describe_contents(house, state, effect[1])
    if verb == "take":
        location = list(state.location)
        location[effect[1]] = HELD
        state = replace(state, held=effect[1], location=tuple(location))
        return state, f"You pick up the {house.things[effect[1]].name} from the {house.receptacles[effect[2]].name}."
    if verb == "put":
        location = list(state.location)
        location[effect[1]] = effect[2]
        state = replace(state, held=HELD, location=tuple(location))
        r = house.receptacles[effect[2]]
        return state, f"You put the {house.things[effect[1]].name} {r.preposition} the {r.name}."
    flags = list(state.flags)
    thing = effect[1]
    if verb == "use":
        flags[thing] |= ON
        answer = f"You turn on the {house.things[thing].name}."
    elif verb == "slice":
        flags[thing] |= SLICED
        answer = f"You slice the {house.things[thing].name} with the {house.things[state.held].name}."
    else:  # clean, heat, cool
        if verb == "heat":
            flags[thing] = (flags[thing] | HOT) & ~COOL
        elif verb == "cool":
            flags[thing] = (flags[thing] | COOL) & ~HOT
        else:
            flags[thing] |= CLEAN
        answer = f"You {verb} the {house.things[thing].name} using the {house.receptacles[state.at].name}."
    return replace(state, flags=tuple(flags)), answer


class Game:
    """One episode: the house, its state, the stage reached along the goal's subgoals and the
    counts the metrics need. ``command(text)`` plays one command and returns the answer."""

    def __init__(self, house: House, start: State):
        self.house = house
        self.state = start
        self.commands = admissible(house, start)
        self.stage = goal_reached_stage(house, start)
        self.best_stage = self.stage
        self.subgoals = subgoal_count(house.goal.task_type)
        self.steps = 0
        self.invalid = 0
        self.last_answer = ""

    @property
    def won(self) -> bool:
        return self.stage == self.subgoals

    def command(self, text: str) -> str:
        """Play ``text`` (already normalized); an unknown command changes nothing."""
        self.steps += 1
        effect = self.commands.get(text)
        if effect is None:
            self.invalid += 1
            self.last_answer = "Nothing happens."
            return self.last_answer
        self.state, self.last_answer = apply(self.house, self.state, effect)
        self.commands = admissible(self.house, self.state)
        self.stage = goal_reached_stage(self.house, self.state)
        self.best_stage = max(self.best_stage, self.stage)
        return self.last_answer

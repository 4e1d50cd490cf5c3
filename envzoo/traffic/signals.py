"""Traffic-light control: the green phases of each light, the yellow and red-clearance states
between them, and the min-green / max-green rules, as pure functions of a small status.

A light is controlled by choosing one of its green phases every decision interval (``delta``
seconds). Changing green shows ``yellow`` seconds of yellow on the links that lose green, then
``all_red`` seconds of red clearance (those links red, links green in both phases stay green),
then the new green for the rest of the interval, so decisions stay synchronous across lights
and every decision starts in a green phase. Each change is a small SUMO program
(:func:`transition_program`) that SUMO plays by itself, so a decision interval is one call into
SUMO whatever the lights do.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

GREEN = "Gg"
YELLOW = "yY"

# Seconds: green times are sums of interval lengths, so equal times may differ in the last bits.
TIME_TOLERANCE = 1e-9


@dataclass(frozen=True)
class SignalTiming:
    """Seconds: decision interval, yellow, red clearance, minimum and maximum green."""

    delta: float = 5.0
    yellow: float = 2.0
    all_red: float = 0.0
    min_green: float = 5.0
    max_green: float = 50.0

    def __post_init__(self):
        for name in ("delta", "yellow", "min_green", "max_green"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0 seconds, got {getattr(self, name)!r}")
        if self.all_red < 0:
            raise ValueError(f"all_red must be >= 0 seconds, got {self.all_red!r}")
        if self.yellow + self.all_red >= self.delta:
            raise ValueError(f"yellow + all_red ({self.yellow} + {self.all_red} s) must be shorter than the "
                             f"decision interval delta ({self.delta} s): the new green starts within the interval")
        if self.min_green > self.max_green:
            raise ValueError(f"min_green ({self.min_green} s) must not exceed max_green ({self.max_green} s)")
        if self.max_green < self.delta - self.yellow - self.all_red:
            raise ValueError(f"max_green ({self.max_green} s) is shorter than the green part of one decision "
                             f"interval ({self.delta - self.yellow - self.all_red} s)")

    @property
    def green_after_change(self) -> float:
        """Seconds of the new green shown in the interval in which it was chosen."""
        return self.delta - self.yellow - self.all_red


@dataclass(frozen=True)
class SignalPlan:
    """The controllable greens of one traffic light (signal states, one character per link)."""

    light: str
    greens: tuple[str, ...]
    green_durations: tuple[float, ...]  # seconds each green lasts in the network's own program

    def yellow_state(self, origin: int, target: int) -> str:
        """Links green now and not in the target green turn yellow; the others keep their state."""
        return "".join("y" if a in GREEN and b not in GREEN else a
                       for a, b in zip(self.greens[origin], self.greens[target]))

    def clearance_state(self, origin: int, target: int) -> str:
        """Links that lost green are red; links green in both phases stay green."""
        return "".join(a if a in GREEN and b in GREEN else "r"
                       for a, b in zip(self.greens[origin], self.greens[target]))


def is_green_phase(state: str) -> bool:
    return any(c in GREEN for c in state) and not any(c in YELLOW for c in state)


def plan_from_logics(light: str, logics, active_program: str) -> SignalPlan | None:
    """The plan of a light from its SUMO program logics (``trafficlight.getAllProgramLogics``):
    the distinct greens of the active program, then those of its other programs (SUMO's game
    scenarios give each green its own program). ``None`` when there are fewer than two greens
    (nothing to choose). Actuated and other adaptive programs are replaced by envzoo's control,
    with a warning naming the light."""
    static_type = 0  # SUMO's TRAFFICLIGHT_TYPE_STATIC
    ordered = sorted(logics, key=lambda logic: logic.programID != active_program)
    greens, durations = [], []
    for logic in ordered:
        for phase in logic.phases:
            if is_green_phase(phase.state) and phase.state not in greens:
                greens.append(phase.state)
                durations.append(float(phase.duration))
    if len(greens) < 2:
        return None
    active = ordered[0]
    if active.type != static_type:
        warnings.warn(f"traffic light {light!r} runs an actuated (type {active.type}) program {active.programID!r}; "
                      f"envzoo controls it as a static light with its {len(greens)} green phases "
                      "(their programmed durations serve the fixed-time policy)", UserWarning, stacklevel=2)
    return SignalPlan(light, tuple(greens), tuple(durations))


# ---------------------------------------------------------------------- decisions
@dataclass(frozen=True)
class SignalStatus:
    """A light at a decision time: which green it shows and for how long it has shown it."""

    green: int = 0
    green_time: float = 0.0

    def can_change(self, timing: SignalTiming) -> bool:
        return self.green_time >= timing.min_green - TIME_TOLERANCE


def decide(status: SignalStatus, requested: int, n_greens: int, timing: SignalTiming) -> tuple[int, bool]:
    """The green to show in the coming interval and whether it is a change.

    - a request for another green before ``min_green`` seconds of the current one is refused
      (the light keeps its green; the observation's min-green flag tells the agent);
    - keeping a green that would then exceed ``max_green`` moves to the next green in order.
    """
    if not 0 <= requested < n_greens:
        raise ValueError(f"green phase {requested} does not exist; this light has {n_greens} (0..{n_greens - 1})")
    if requested != status.green:
        if status.can_change(timing):
            return requested, True
        return status.green, False
    if status.green_time + timing.delta > timing.max_green + TIME_TOLERANCE:
        return (status.green + 1) % n_greens, True
    return status.green, False


def advance_status(status: SignalStatus, new_green: int, changed: bool, timing: SignalTiming) -> SignalStatus:
    if changed:
        return SignalStatus(new_green, timing.green_after_change)
    return SignalStatus(status.green, status.green_time + timing.delta)


# A program's last phase lasts until the next decision switches programs: longer than any episode.
HOLD_SECONDS = 1e7


def transition_program(plan: SignalPlan, origin: int, target: int, timing: SignalTiming) -> list[tuple[str, float]]:
    """The SUMO program (signal states, seconds) that leaves green ``origin`` for green ``target``
    (or holds it, when they are equal): yellow, red clearance when ``all_red`` > 0, then the
    target green held until the next change. SUMO runs the whole transition inside one decision
    interval on its own.

    The program then goes on through every green and back to ``origin`` (each change with its
    yellow and clearance), which an episode never reaches (the held green lasts
    ``HOLD_SECONDS``): SUMO checks that every link of a program gets green and that no green
    turns red without yellow, and warns for each program that does not."""
    phases = [] if origin == target else _change(plan, origin, target, timing)
    phases.append((plan.greens[target], HOLD_SECONDS))
    n = len(plan.greens)
    tour = [(target + k) % n for k in range(1, n)]  # every other green, in order
    if origin != target and tour[-1] != origin:
        tour.append(origin)  # so that the last phase leads back into the first
    previous = target
    for green in tour:
        phases += _change(plan, previous, green, timing) + [(plan.greens[green], plan.green_durations[green])]
        previous = green
    if origin == target:
        phases += _change(plan, previous, origin, timing)
    return phases


def _change(plan: SignalPlan, origin: int, target: int, timing: SignalTiming) -> list[tuple[str, float]]:
    phases = [(plan.yellow_state(origin, target), timing.yellow)]
    if timing.all_red > 0:
        phases.append((plan.clearance_state(origin, target), timing.all_red))
    return phases

"""What every single-agent face shares: one agent (a control center) sets the green of every light
of the network at each decision (``MultiDiscrete``), over :class:`SignalControlCore`. Faces
subclass :class:`CentralControlEnv` and say what the agent observes and is rewarded for."""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

from envzoo.core.spaces import check_action
from envzoo.traffic.core import MAX_SUMO_SEED, SignalControlCore
from envzoo.traffic.scenarios import make_scenario
from envzoo.traffic.signals import SignalTiming


class CentralControlEnv(gymnasium.Env):
    """Base of the single-agent faces; subclasses define ``observation_space``, :meth:`_observation`
    and :meth:`_reward`, and may extend :meth:`_draw_seeds` / :meth:`_start_episode`, or replace
    :meth:`_check_action` / :meth:`_requests` (an action that spans several decision intervals)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, scenario="grid4x4", delta: float = 5.0, yellow: float = 2.0, all_red: float = 0.0,
                 min_green: float = 5.0, max_green: float = 50.0, backend: str = "auto", gui: bool = False,
                 sumo_warnings: bool = False, sumo_options: dict | None = None, measure_co2: bool = True,
                 render_mode: str | None = None, face_arguments: dict | None = None):
        # Every argument (a subclass's own ones in face_arguments), for copies (pickle) that
        # rebuild the env and replay its episode.
        self._init_kwargs = dict(scenario=scenario, delta=delta, yellow=yellow, all_red=all_red, min_green=min_green,
                                 max_green=max_green, backend=backend, gui=gui, sumo_warnings=sumo_warnings,
                                 sumo_options=sumo_options, measure_co2=measure_co2, render_mode=render_mode,
                                 **(face_arguments or {}))
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self.core = SignalControlCore(make_scenario(scenario), SignalTiming(delta, yellow, all_red, min_green, max_green),
                                      backend=backend, gui=gui, sumo_warnings=sumo_warnings, sumo_options=sumo_options,
                                      measure_co2=measure_co2)
        self.lights = list(self.core.lights)
        self.action_space = spaces.MultiDiscrete([self.core.intersections[light].n_greens for light in self.lights])
        # (the episode's seeds, its actions so far): enough to replay it in a copy.
        self._episode: tuple[tuple[int, ...], list] | None = None

    def reset(self, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._start_episode(self._draw_seeds())
        return self._observation(), {}

    def _draw_seeds(self) -> tuple[int, ...]:
        """The episode's random draws, taken from ``np_random`` (SUMO's seed)."""
        return (int(self.np_random.integers(MAX_SUMO_SEED)),)

    def _start_episode(self, seeds: tuple[int, ...]) -> None:
        self.core.start_episode(seeds[0])
        self._episode = (seeds, [])
        self._previous = self.core.metrics()

    def step(self, action):
        if self._episode is None:
            raise RuntimeError("call reset() before step()")
        action = self._check_action(action)
        self._episode[1].append(np.array(action))
        try:
            for requested in self._requests(action):
                self.core.apply(requested)
                self._after_interval()
                if self.core.at_scenario_end():
                    break
        except Exception:
            self._episode = None
            raise
        metrics = self.metrics()
        reward = self._reward(metrics)
        self._previous = metrics
        truncated = self.core.at_scenario_end()
        greens = {light: self.core.status[light].green for light in self.lights}
        return self._observation(), reward, False, truncated, {"metrics": metrics, "green": greens, **self._info()}

    def _check_action(self, action):
        """``action`` as the action space's type, or :class:`InvalidActionError`."""
        return check_action(self.action_space, action, f"(one green index per light, lights {self.lights})")

    def _requests(self, action) -> list[dict[str, int]]:
        """The green each light requests in each decision interval of the step (the step ends
        early at the scenario's end): here one interval, the action's greens."""
        return [dict(zip(self.lights, (int(a) for a in action)))]

    def _after_interval(self) -> None:
        """Called after each decision interval of the step, before the reward is computed."""

    def metrics(self) -> dict[str, float]:
        return self.core.metrics()

    def _info(self) -> dict:
        return {}

    def _observation(self) -> np.ndarray:
        raise NotImplementedError

    def _reward(self, metrics: dict[str, float]):
        raise NotImplementedError

    def render(self):
        if self.render_mode != "ansi" or not self.core.running or self._episode is None:
            return None
        return self.core.render_text()

    def close(self):
        self.core.close()
        self._episode = None

    # Copies start their own SUMO and replay the episode so far (SUMO's state cannot be shared).
    def __getstate__(self):
        return {"kwargs": self._init_kwargs, "rng": self.np_random.bit_generator.state,
                "episode": (self._episode[0], list(self._episode[1])) if self._episode else None}

    def __setstate__(self, state):
        self.__init__(**state["kwargs"])
        if state["episode"] is not None:
            seeds, actions = state["episode"]
            self._start_episode(tuple(seeds))
            for action in actions:
                self.step(action)
        self.np_random.bit_generator.state = state["rng"]

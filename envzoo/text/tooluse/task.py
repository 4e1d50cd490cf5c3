"""ToolUse-v0's decision problem: B scenarios, one per row; each reply is one JSON tool call run
on the row's services, and the reward is verified from the services' state alone."""

from __future__ import annotations

import json

import numpy as np

from envzoo.core.contract import Task, Transition
from envzoo.core.rng import keys_from
from envzoo.text.metrics import object_array
from envzoo.text.picture import TextPicture
from envzoo.text.spaces import text_space
from envzoo.text.tooluse.generator import Scenario, generate
from envzoo.text.tooluse.params import ToolUseParams, make_params
from envzoo.text.tooluse.sim import FINISH, TOOLS, ToolError, call, score, tool_schema

MAX_OBSERVATION_LENGTH = 4096
MAX_CALL_LENGTH = 2048
METRICS = ("success", "completeness", "precision", "calls", "optimal_calls", "invalid_rate")


def tool_listing(tools) -> str:
    lines = [f"- {name}({', '.join(f'{k}: {t}' for k, t in TOOLS[name][1].items())}): {TOOLS[name][0]}"
             for name in tools]
    return "Tools:\n" + "\n".join(lines)


class ToolUseTask(TextPicture, Task):
    """B tool-use scenarios; see ``ToolUse-v0``'s docstring."""

    picture_title = "Tool use"
    picture_progress = ("completeness", 100.0)
    picture_steps = "calls"

    def __init__(self, params: ToolUseParams, batch: int):
        super().__init__(params, batch)
        self.observation_space = text_space(MAX_OBSERVATION_LENGTH)
        self.action_space = text_space(MAX_CALL_LENGTH)
        self.action_hint = 'Send one JSON tool call, e.g. {"tool": "files.list", "arguments": {}}.'
        self.scenarios: list[Scenario | None] = [None] * batch
        self.states: list[dict] = [{} for _ in range(batch)]
        self.observations = [""] * batch
        self.scores = np.zeros(batch)
        self.complete = np.zeros(batch)
        self.precise = np.zeros(batch)
        self.calls = np.zeros(batch, dtype=np.int64)
        self.invalid = np.zeros(batch, dtype=np.int64)

    make_params = staticmethod(make_params)

    def reset(self, rows, generators, options) -> dict:
        p = self.params
        for row, key in zip(rows, keys_from(generators)):
            scenario = generate(np.random.default_rng(int(key)), p.num_subtasks, p.num_tools, p.num_distractors)
            self.scenarios[row] = scenario
            self.states[row] = dict(scenario.start)
            self.observations[row] = f"{scenario.task}\n\n{tool_listing(scenario.tools)}"
        self.scores[rows] = self.complete[rows] = self.precise[rows] = 0.0
        self.calls[rows] = self.invalid[rows] = 0
        return {"tools": object_array([[tool_schema(name) for name in self.scenarios[row].tools] for row in rows]),
                "walkthrough": object_array([list(self.scenarios[row].walkthrough) for row in rows])}

    def _play(self, row: int, text: str) -> bool:
        """Run one reply in ``row``; whether it called finish."""
        scenario = self.scenarios[row]
        self.calls[row] += 1
        try:
            request = json.loads(text)
            if not isinstance(request, dict) or not isinstance(request.get("tool"), str):
                raise ToolError('a call is a JSON object {"tool": NAME, "arguments": {...}}')
            if request["tool"] == FINISH:
                self.observations[row] = "Finished."
                return True
            if request["tool"] not in scenario.tools:
                raise ToolError(f"tool {request['tool']!r} is not available; the tools are {list(scenario.tools)}")
            self.states[row], result = call(self.states[row], scenario.catalog, request["tool"],
                                            request.get("arguments", {}))
            self.observations[row] = json.dumps(result)
        except (ToolError, json.JSONDecodeError) as error:
            self.invalid[row] += 1
            self.observations[row] = f"Error: {error}"
        return False

    def step(self, actions) -> Transition:
        finished = np.array([self._play(row, action) for row, action in enumerate(actions)])
        before = self.scores.copy()
        for row, scenario in enumerate(self.scenarios):
            self.complete[row], self.precise[row] = score(scenario.start, scenario.expected, self.states[row])
        self.scores = (self.complete + self.precise) / 2
        return Transition(reward=self.scores - before, terminated=finished,
                          truncated=np.zeros(self.batch, dtype=bool), cost=None, info={})

    def observe(self) -> tuple[str, ...]:
        return tuple(self.observations)

    def metrics(self) -> dict[str, np.ndarray]:
        return {"success": ((self.complete == 1.0) & (self.precise == 1.0)).astype(np.float64),
                "completeness": self.complete.copy(), "precision": self.precise.copy(),
                "calls": self.calls.astype(np.float64),
                "optimal_calls": np.array([len(s.walkthrough) for s in self.scenarios], dtype=np.float64),
                "invalid_rate": self.invalid / np.maximum(self.calls, 1)}

    def render_text(self, row: int = 0) -> str:
        return (f"[call {self.calls[row]}, completeness {self.complete[row]:.2f}, precision "
                f"{self.precise[row]:.2f}]\n{self.observations[row]}\n")

"""Reasoning-v0's decision problem: B questions, one per row; each answer is read from the
reply's text and verified against the exact answer, never judged by text similarity."""

from __future__ import annotations

import numpy as np

from envzoo.core.contract import Task, Transition
from envzoo.core.rng import keys_from
from envzoo.core.sandbox import require_sandbox
from envzoo.text.metrics import object_array
from envzoo.text.picture import TextPicture
from envzoo.text.reasoning.generator import Question, make_question, verify_all
from envzoo.text.reasoning.params import ReasoningParams, make_params
from envzoo.text.spaces import text_space

MAX_OBSERVATION_LENGTH = 2048
#: Longest reply (characters): room for the reasoning before the answer.
MAX_REPLY_LENGTH = 8192
METRICS = ("success", "attempts", "unparsed_rate")


class ReasoningTask(TextPicture, Task):
    """B questions; see ``Reasoning-v0``'s docstring."""

    picture_title = "Reasoning"
    picture_progress = ("success", 100.0)
    picture_steps = "attempts"

    def __init__(self, params: ReasoningParams, batch: int):
        super().__init__(params, batch)
        if "code" in params.families:  # its replies are programs: refuse now if no sandbox can run them
            require_sandbox()
        self.observation_space = text_space(MAX_OBSERVATION_LENGTH)
        self.action_space = text_space(MAX_REPLY_LENGTH)
        self.action_hint = "Reply with text ending in 'Answer: ...' (or \\boxed{...})."
        self.questions: list[Question | None] = [None] * batch
        self.observations = [""] * batch
        self.attempts = np.zeros(batch, dtype=np.int64)
        self.unparsed = np.zeros(batch, dtype=np.int64)
        self.solved = np.zeros(batch, dtype=bool)

    make_params = staticmethod(make_params)

    def reset(self, rows, generators, options) -> dict:
        families = self.params.families
        for row, key in zip(rows, keys_from(generators)):
            rng = np.random.default_rng(int(key))
            question = make_question(rng, families[int(rng.integers(len(families)))], self.params.level)
            self.questions[row] = question
            self.observations[row] = question.text
        self.attempts[rows] = self.unparsed[rows] = 0
        self.solved[rows] = False
        return {"family": object_array([self.questions[row].family for row in rows]),
                "walkthrough": object_array([[self.questions[row].expert_reply] for row in rows])}

    def step(self, actions) -> Transition:
        reward = np.zeros(self.batch)
        for row, verdict in enumerate(verify_all(self.questions, actions)):
            question = self.questions[row]
            self.attempts[row] += 1
            self.unparsed[row] += not verdict.given
            self.solved[row] = verdict.correct
            reward[row] = float(self.solved[row])
            left = self.params.attempts - self.attempts[row]
            if self.solved[row]:
                self.observations[row] = "Correct."
            elif not verdict.given:
                how = "reply with the code in a ```python block" if question.code else "end with 'Answer: ...'"
                self.observations[row] = f"No answer found: {how}. Attempts left: {left}."
            else:
                detail = f": {verdict.detail}" if verdict.detail else ""
                self.observations[row] = f"Incorrect{detail}. Attempts left: {left}."
        terminated = self.solved | (self.attempts >= self.params.attempts)
        return Transition(reward=reward, terminated=terminated, truncated=np.zeros(self.batch, dtype=bool),
                          cost=None, info={"won": self.solved.copy()})

    def observe(self) -> tuple[str, ...]:
        return tuple(self.observations)

    def metrics(self) -> dict[str, np.ndarray]:
        return {"success": self.solved.astype(np.float64), "attempts": self.attempts.astype(np.float64),
                "unparsed_rate": self.unparsed / np.maximum(self.attempts, 1)}

    def render_text(self, row: int = 0) -> str:
        question = self.questions[row]
        return f"[{question.family}, level {question.level}, attempt {self.attempts[row]}]\n{self.observations[row]}\n"

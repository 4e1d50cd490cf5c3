"""Reference policies for Chase: head for the target (the game's obvious controller)."""

from __future__ import annotations

from envzoo.core.policy import Policy


def greedy_move(offset_x: float, offset_y: float) -> int:
    """The Chase move that closes the larger of the two offsets to a target (0 when on it)."""
    if offset_x == 0 and offset_y == 0:
        return 0
    if abs(offset_x) >= abs(offset_y):
        return 1 if offset_x > 0 else 2
    return 3 if offset_y > 0 else 4


def nearest_target_move(observation) -> int:
    """Greedy move toward the nearest target (Manhattan distance) of a Chase observation."""
    offsets = [(observation[k], observation[k + 1]) for k in range(2, len(observation), 2)]
    return greedy_move(*min(offsets, key=lambda offset: abs(offset[0]) + abs(offset[1])))


class Greedy(Policy):
    """Every agent moves toward its nearest target, the larger offset first."""

    def __call__(self, observation, info):
        if hasattr(self.env, "possible_agents"):
            live = set(self.env.agents)  # an agent that just finished still has an observation
            return {agent: nearest_target_move(obs) for agent, obs in observation.items() if agent in live}
        return nearest_target_move(observation)

"""Reference policies of the swarm envs: the swarm-robotics literature's controllers
(:mod:`envzoo.swarm.controls`) applied to what each robot observes. Each works on the
representative-agent, multi-objective and parallel faces, continuous or discrete actions."""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy
from envzoo.swarm import controls
from envzoo.swarm.controls import OWN


class _ObservedController(Policy):
    """Apply ``control(own, mean_field, params, **gains)`` to the observation(s)."""

    control = staticmethod(controls.reference_control)

    def __init__(self, env, **gains):
        super().__init__(env)
        self.params = getattr(env, "params", None) or env.unwrapped.params
        self.gains = gains

    def _act(self, observations: np.ndarray):
        observations = np.asarray(observations, dtype=np.float64)
        control = type(self).control(observations[..., :len(OWN)], observations[..., len(OWN):], self.params,
                                     **self.gains)
        if self.params.actions == "discrete":
            return controls.nearest_direction(control)
        return control.astype(np.float32)

    def __call__(self, observation, info):
        if hasattr(self.env, "possible_agents"):
            agents = list(observation)
            actions = self._act(np.stack([observation[agent] for agent in agents]))
            return {agent: (int(action) if np.ndim(action) == 0 else action) for agent, action in zip(agents, actions)}
        action = self._act(observation)
        return int(action) if np.ndim(action) == 0 else action


class LinearConsensus(_ObservedController):
    """Consensus averaging toward one's graphon neighbours (Olfati-Saber & Murray 2004), the
    reference of ``rendezvous``; ``gain`` (default 4 /s), and ``separation`` > 0 to keep the
    robots from touching (the registry's ``consensus-separation``: 1)."""

    control = staticmethod(controls.linear_consensus)


class ReynoldsFlocking(_ObservedController):
    """Reynolds' boids: alignment, cohesion, separation and a cruise speed, the reference of
    ``flocking``; gains ``alignment``, ``cohesion``, ``separation``, ``cruise``."""

    control = staticmethod(controls.reynolds_flocking)


class PotentialFieldCoverage(_ObservedController):
    """Potential-field deployment (Howard, Matarić & Sukhatme 2002), the reference of
    ``coverage``; gains ``gain``, ``wall``."""

    control = staticmethod(controls.potential_field_coverage)


class Still(Policy):
    """No control: the robot(s) coast (stand still under the single integrator)."""

    def __call__(self, observation, info):
        params = getattr(self.env, "params", None) or self.env.unwrapped.params
        still = 0 if params.actions == "discrete" else np.zeros(2, dtype=np.float32)
        if hasattr(self.env, "possible_agents"):
            return {agent: still for agent in observation}
        return still

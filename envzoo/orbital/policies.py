"""Reference policies for the collision-avoidance envs: no manoeuvre, and the operator's rule
(burn along-track when the Pc exceeds a threshold within a lead time of TCA, return to the
slot once the risk has passed) with an early-cautious and a late variant.

They read only the observation (back in physical units, :func:`envzoo.orbital.task.physical`)
and the env's documented configuration (``env.unwrapped.params``).
"""

from __future__ import annotations

import numpy as np

from envzoo.core.policy import Policy
from envzoo.orbital import task
from envzoo.orbital.params import NO_OP, RETURN_TO_SLOT, CollisionAvoidanceParams
from envzoo.orbital.physics.relative_motion import cw_transition

_OWN = len(task.OWN_COLUMNS)
_SLOT_POSITION = slice(task.OWN_COLUMNS.index("slot_dr_km"), task.OWN_COLUMNS.index("slot_dn_km") + 1)
_RETURN_PENDING = task.OWN_COLUMNS.index("return_pending")
_COLUMN = {name: index for index, name in enumerate(task.DEBRIS_COLUMNS)}
_ALONG_PLUS = 1
_ALONG_MINUS = 2


def _params(env) -> CollisionAvoidanceParams:
    """The settings of one satellite's task (also of every satellite of a constellation)."""
    params = env.unwrapped.params
    return getattr(params, "avoidance", params)


class _DiscretePolicy(Policy):
    """Chooses among the discrete actions; on the continuous face, returns the same burn as a
    Δv vector (return-to-slot is then a no-op, the continuous face having no such order)."""

    def __init__(self, env):
        super().__init__(env)
        self.params = _params(env)
        self._delta_v = self.params.discrete_delta_v().astype(np.float32)

    def act(self, index: int):
        if self.params.action_type == "discrete":
            return index
        return self._delta_v[index].copy()


class NoManeuver(_DiscretePolicy):
    """Never burn: the baseline every avoidance strategy is measured against."""

    def __call__(self, observation, info):
        return self.act(NO_OP)


class OperatorRule(_DiscretePolicy):
    """The operator's rule of thumb.

    - If an object's estimated Pc exceeds ``pc_threshold`` and its TCA is at most
      ``lead_time_h`` ahead, burn along-track (one ``maneuver_mps`` step) in the direction
      that maximises the predicted miss in the encounter plane (Clohessy–Wiltshire prediction
      of the burn's displacement at TCA from the observed relative state). Repeated at the next
      step if the Pc is still too high.
    - Otherwise, if the primary is more than ``slot_tolerance_m`` from its slot, no return is
      under way, and no TCA is due within the lead time plus the return's duration (so that the
      return cannot bring back an encounter just avoided), order the return to slot.
    - Otherwise do nothing.
    """

    def __init__(self, env, pc_threshold: float = 1e-4, lead_time_h: float = 2.0):
        super().__init__(env)
        if not 0 < pc_threshold < 1:
            raise ValueError(f"pc_threshold must be a probability in (0, 1), got {pc_threshold}")
        if not lead_time_h > 0:
            raise ValueError(f"lead_time_h must be > 0 hours, got {lead_time_h}")
        self.log_threshold = np.log10(pc_threshold)
        self.lead_time_h = lead_time_h
        self.quiet_h = lead_time_h + self.params.return_steps * self.params.decision_step_s / 3600.0
        scenario = self.params.scenario
        self.mean_motion = float(np.sqrt(scenario.gravity.mu / scenario.primary.semi_major_axis[0] ** 3))

    def _along_track_direction(self, debris_row: np.ndarray) -> int:
        """The along-track action whose CW displacement at TCA leaves the larger miss across
        the relative velocity."""
        relative = debris_row[[_COLUMN["rel_r_km"], _COLUMN["rel_t_km"], _COLUMN["rel_n_km"]]] * 1000.0
        velocity = debris_row[[_COLUMN["rel_vr_kmps"], _COLUMN["rel_vt_kmps"], _COLUMN["rel_vn_kmps"]]]
        along = velocity / np.linalg.norm(velocity)
        lead = debris_row[_COLUMN["time_to_tca_h"]] * 3600.0
        displacement = cw_transition(self.mean_motion, lead)[:3, 4] * self.params.maneuver_mps[1]
        misses = []
        for sign in (1.0, -1.0):
            after = relative - sign * displacement  # debris − primary, primary displaced
            misses.append(np.linalg.norm(after - (after @ along) * along))
        return _ALONG_PLUS if misses[0] >= misses[1] else _ALONG_MINUS

    def __call__(self, observation, info):
        observation = task.physical(self.params, observation, task.observation_columns(self.params))
        debris = observation[_OWN:].reshape(self.params.n_debris, len(task.DEBRIS_COLUMNS))
        time_to_tca = debris[:, _COLUMN["time_to_tca_h"]]
        ahead = time_to_tca > 0
        log_pc = debris[:, _COLUMN["log10_pc"]]
        urgent = ahead & (log_pc > self.log_threshold) & (time_to_tca <= self.lead_time_h)
        if urgent.any():
            worst = int(np.argmax(np.where(urgent, log_pc, -np.inf)))
            return self.act(self._along_track_direction(debris[worst]))
        off_slot = np.linalg.norm(observation[_SLOT_POSITION]) * 1000.0 > self.params.slot_tolerance_m
        return_pending = observation[_RETURN_PENDING] > 0
        if off_slot and not return_pending and not np.any(ahead & (time_to_tca <= self.quiet_h)):
            return self.act(RETURN_TO_SLOT)
        return self.act(NO_OP)


class EarlyCautious(OperatorRule):
    """The operator rule with a ten times lower threshold (1e-5, Starlink's) and a 4 h lead."""

    def __init__(self, env, pc_threshold: float = 1e-5, lead_time_h: float = 4.0):
        super().__init__(env, pc_threshold, lead_time_h)


class LateManeuver(OperatorRule):
    """The operator rule acting only in the last 30 minutes before TCA."""

    def __init__(self, env, pc_threshold: float = 1e-4, lead_time_h: float = 0.5):
        super().__init__(env, pc_threshold, lead_time_h)


class ConstellationNoManeuver(Policy):
    """No satellite of ``Constellation-v1`` ever burns."""

    def __call__(self, observations, infos):
        return {agent: NO_OP for agent in observations}


class ConstellationOperatorRule(Policy):
    """The operator rule on every satellite of ``Constellation-v1``: each treats its debris as
    :class:`OperatorRule` does; a sibling conjunction (sat_0, sat_j) above the threshold within
    the lead time is avoided by sat_j alone (the convention that one party of a pair gives
    way, so the two burns cannot cancel), with the along-track burn of the larger predicted
    miss. Arguments as :class:`OperatorRule`."""

    def __init__(self, env, pc_threshold: float = 1e-4, lead_time_h: float = 2.0):
        super().__init__(env)
        self.rule = OperatorRule(env, pc_threshold, lead_time_h)
        self.size = task.observation_size(self.rule.params)
        self.sibling = {name: index for index, name in enumerate(task.SIBLING_COLUMNS)}
        self.width = len(task.SIBLING_COLUMNS)

    def _sibling_action(self, agent: str, siblings: np.ndarray) -> int | None:
        """The burn that avoids this agent's riskiest sibling conjunction, if it must give way."""
        column = self.sibling
        gives_way = (siblings[:, column["involves_me"]] > 0) & (agent != "sat_0")
        time_to_tca = siblings[:, column["time_to_tca_h"]]
        log_pc = siblings[:, column["log10_pc"]]
        urgent = (gives_way & (time_to_tca > 0) & (time_to_tca <= self.rule.lead_time_h)
                  & (log_pc > self.rule.log_threshold))
        if not urgent.any():
            return None
        worst = siblings[int(np.argmax(np.where(urgent, log_pc, -np.inf)))]
        row = np.zeros(len(task.DEBRIS_COLUMNS))  # the pair in the layout of a debris block
        for name in ("rel_r_km", "rel_t_km", "rel_n_km", "rel_vr_kmps", "rel_vt_kmps", "rel_vn_kmps",
                     "time_to_tca_h", "log10_pc"):
            row[_COLUMN[name]] = worst[column[name]]
        return self.rule._along_track_direction(row)

    def __call__(self, observations, infos):
        actions = {}
        for agent, observation in observations.items():
            action = self.rule(observation[:self.size], {})
            if action in (NO_OP, RETURN_TO_SLOT):
                block = observation[self.size:]
                columns = task.SIBLING_COLUMNS * (len(block) // self.width)
                siblings = task.physical(self.rule.params, block, columns).reshape(-1, self.width)
                avoid = self._sibling_action(agent, siblings)
                action = action if avoid is None else avoid
            actions[agent] = action
        return actions

"""Several satellites of a constellation, one agent each: their own debris and each other."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.parallel import SeededParallelEnv
from envzoo.core.spaces import check_agent_actions
from envzoo.core.rng import key_from_generator
from envzoo.orbital import task
from envzoo.orbital.conjunctions import ConjunctionParams, generate_conjunctions
from envzoo.orbital.elements import covariance_from_rtn, rtn_basis
from envzoo.orbital.env import validate_action
from envzoo.orbital.relative_motion import cw_transition, from_hill
from envzoo.orbital.sim import CollisionAvoidanceSim, assess_encounters, straight_line_shift

#: Observation columns of each sibling conjunction (pairs (sat_0, sat_j), j = 1 … K − 1).
SIBLING_COLUMNS = ("involves_me", "rel_r_km", "rel_t_km", "rel_n_km", "rel_vr_kmps", "rel_vt_kmps",
                   "rel_vn_kmps", "time_to_tca_h", "log10_pc")


class ConstellationEnv(SeededParallelEnv):
    """
    ## Description

    ``n_satellites`` manoeuvrable satellites of a constellation, one agent each, each with its
    own station-keeping slot and its own debris conjunctions as in ``CollisionAvoidance-v0``
    (the same simulator core, one row per satellite). The slots cross: satellite ``sat_j``
    (j ≥ 1) is designed on a conjunction with ``sat_0`` (TCA in ``scenario.tca_window``, miss
    in ``sibling_miss_range``, crossing angle and speed ratio as for debris), so the satellites
    share each other's conjunctions: a burn that avoids a debris object can create a risk with
    a sibling, and a sibling conjunction can be solved by either satellite. Both satellites of
    a pair are tracked by GNSS (``tracking.primary_sigma_m`` each), their Pc is Foster's with
    both covariances; the truth decides collisions as for debris (straight-line closest
    approach of the propagated states at TCA).

    ## Agents

    ``sat_0 … sat_{K-1}``.

    ## Action Space

    Per agent, as ``CollisionAvoidance-v0`` (``Discrete(8)`` by default).

    ## Observation Space

    Per agent, ``Box(-inf, inf, (14 + 11 · n_debris + 9 · (K − 1),), float32)``: the
    ``CollisionAvoidance-v0`` observation of the satellite (its orbit, slot deviation, budget,
    its debris), then for each sibling conjunction (sat_0, sat_j), j = 1 … K − 1:
    ``involves_me`` (1 or 0), the partner's position (km) and velocity (km/s) relative to the
    agent at the predicted TCA in the agent's RTN frame (for a pair without the agent, sat_j
    relative to sat_0 in sat_0's frame), time to TCA (h), log10 Pc (−30 below 1e-30 and after
    TCA).

    ## Rewards

    Per agent, the ``CollisionAvoidance-v0`` reward of its own debris, fuel and slot, plus
    ``risk_weight`` times the risk term (decades of Pc above ``pc_threshold``) of the sibling
    conjunctions it is in, and ``− risk_weight · collision_penalty`` if it collides with a
    sibling.

    ## Costs

    ``infos[agent]["cost"]``: Δv burnt by the agent in the step, m/s.

    ## Starting State

    Every satellite in its slot; the slots and debris are drawn from the seed.

    ## Episode End

    Any collision (with debris or between satellites) terminates every agent: the episode is
    the constellation operator's. Otherwise all terminate after ``episode_s`` (48 steps by
    default); ``max_cycles`` truncates earlier.

    ## Metrics

    ``infos[agent]["metrics"]``, the agent's own, over the episode so far: as
    ``CollisionAvoidance-v0``, with sibling conjunctions counted in ``collisions``,
    ``min_true_miss_m`` and ``max_pc``.

    ## Arguments

    - ``n_satellites`` (3), ``sibling_miss_range`` ((0, 500) m: sibling collisions happen
      unless someone burns).
    - ``max_cycles``: truncation horizon (None: the episode's 48 steps).
    - every argument of ``CollisionAvoidance-v0`` (``n_debris`` per satellite, 1 by default
      here) except ``cdm``, with ``backend="numpy"`` only (the siblings' encounters are designed
      with it); ``render_mode`` (``"ansi"``).

    ## References

    As ``CollisionAvoidance-v0``; OrbitZoo (a multi-agent orbital environment on Orekit).

    ## Version History

    - v0: initial version.
    """

    metadata = {"name": "envzoo/Constellation-v0", "render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(self, n_satellites: int = 3, sibling_miss_range=(0.0, 500.0), max_cycles: int | None = None,
                 render_mode: str | None = None, **kwargs):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        if isinstance(n_satellites, bool) or not isinstance(n_satellites, int) or n_satellites < 2:
            raise ValueError(f"n_satellites must be an integer >= 2, got {n_satellites!r}")
        if max_cycles is not None and max_cycles < 1:
            raise ValueError(f"max_cycles must be >= 1 or None, got {max_cycles}")
        kwargs.setdefault("scenario", {"n_debris": 1})
        self.params = task.make_params(**kwargs)
        # The siblings' encounters are designed with the numpy propagator, and their slots replace
        # the primary's: neither an Orekit core nor a CDM's encounter would fit them.
        if self.params.backend != "numpy" or self.params.cdm is not None:
            raise ValueError(f"Constellation-v0 runs backend='numpy' without a cdm, got backend="
                             f"{self.params.backend!r}, cdm={self.params.cdm!r}; CollisionAvoidance-v0 takes both")
        scenario = self.params.scenario
        self.siblings = ConjunctionParams(
            primary=scenario.primary, n_debris=n_satellites - 1, tca_window=scenario.tca_window,
            miss_distance_range=tuple(sibling_miss_range), crossing_angle_range=scenario.crossing_angle_range,
            speed_ratio_range=scenario.speed_ratio_range, gravity=scenario.gravity, max_step=scenario.max_step)
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.K = n_satellites
        agents = [f"sat_{i}" for i in range(n_satellites)]
        size = self.params.observation_size + len(SIBLING_COLUMNS) * (n_satellites - 1)
        observation_space = spaces.Box(-np.inf, np.inf, (size,), np.float32)
        action_space = task.action_space(self.params)
        super().__init__(agents, dict.fromkeys(agents, observation_space), dict.fromkeys(agents, action_space))
        self._hint = task.action_hint(self.params)
        self.sim = CollisionAvoidanceSim(self.params, n_satellites)
        # Pair j − 1 is (sat_0, sat_j).
        self._pair_rows = np.arange(1, n_satellites)
        self._pair_tca = np.zeros(n_satellites - 1)
        self._pair_passed = np.zeros(n_satellites - 1, dtype=bool)
        self._slot_at_tca = None
        self._pair_view = {}
        self._sibling_collisions = np.zeros(n_satellites)
        self._sibling_min_miss = np.full(n_satellites, np.inf)
        self._sibling_max_pc = np.zeros(n_satellites)

    def reset(self, seed: int | None = None, options: dict | None = None):
        slots = generate_conjunctions(self.siblings, self._generator(seed))
        self.sim.use_slots(np.vstack([slots.primary.position, slots.debris.position]),
                           np.vstack([slots.primary.velocity, slots.debris.velocity]))
        self.sim.reset(np.arange(self.K), key_from_generator(self._np_random, self.K))
        self._pair_tca = slots.tca
        both = np.concatenate([np.zeros(self.K - 1, dtype=np.int64), self._pair_rows])
        self._slot_at_tca = self.sim.slot_states_at(both, np.tile(slots.tca, 2))
        self._pair_passed[:] = False
        self._sibling_collisions[:] = 0.0
        self._sibling_min_miss[:] = np.inf
        self._pair_view = self._assess_pairs()
        self._sibling_max_pc = self._pair_pc_per_satellite()
        self.agents = list(self.possible_agents)
        return self._observations(), {agent: {} for agent in self.agents}

    def step(self, actions):
        if not self.agents:
            raise RuntimeError("the episode is over (or reset() was not called): call reset()")
        check_agent_actions(self.agents, actions)
        # Check every action before changing any state.
        checked = [validate_action(self.params, self.action_space(agent), actions[agent],
                                   f"(agent {agent}) {self._hint}") for agent in self.possible_agents]
        result = self.sim.step(*task.orders(self.params, np.asarray(checked)))
        sibling_hit = self._decide_pairs()
        self._pair_view = self._assess_pairs()
        pair_pc = self._pair_pc_per_satellite()
        self._sibling_max_pc = np.maximum(self._sibling_max_pc, pair_pc)
        p = self.params
        decades = np.zeros(self.K)  # sat_0 is in every pair, sat_j in pair j − 1
        decades[0] = self._pair_view["decades"].sum()
        decades[self._pair_rows] = self._pair_view["decades"]
        rewards = (task.scalar_reward(p, result["objectives"])
                   - p.risk_weight * (decades + p.collision_penalty * sibling_hit))
        ended = bool(result["collision"].any() or sibling_hit.any() or result["done"].any())
        truncated = self.max_cycles is not None and int(self.sim.step_index[0]) >= self.max_cycles
        metrics = self._metrics()
        observations = self._observations()
        infos = {agent: {"cost": float(result["delta_v"][i]),
                         "metrics": {name: float(value[i]) for name, value in metrics.items()},
                         "maneuver_refused": bool(result["refused"][i])}
                 for i, agent in enumerate(self.possible_agents)}
        terminations = {agent: ended for agent in self.agents}
        truncations = {agent: truncated for agent in self.agents}
        rewards = {agent: float(rewards[i]) for i, agent in enumerate(self.possible_agents)}
        if ended or truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    # ------------------------------------------------------------------ sibling conjunctions
    def _decide_pairs(self) -> np.ndarray:
        """True misses of the sibling conjunctions whose TCA fell in the step; (K,) hits."""
        now = self.sim.time[0]
        inside = ~self._pair_passed & (self._pair_tca <= now)
        hit = np.zeros(self.K, dtype=bool)
        if not inside.any():
            return hit
        partners = self._pair_rows[inside]
        back = self._pair_tca[inside] - now  # ≤ 0: from the step's end back to TCA
        rows = np.concatenate([np.zeros(len(partners), dtype=np.int64), partners])
        position, velocity = self.sim.propagate_primaries(rows, np.tile(back, 2))
        count = len(partners)
        relative, relative_velocity = position[count:] - position[:count], velocity[count:] - velocity[:count]
        miss = np.linalg.norm(relative + straight_line_shift(relative, relative_velocity)[:, None]
                              * relative_velocity, axis=1)
        collided = miss < self.params.hard_body_radius_m
        for pair_miss, partner, crash in zip(miss, partners, collided):
            for row in (0, partner):
                self._sibling_min_miss[row] = min(self._sibling_min_miss[row], pair_miss)
                self._sibling_collisions[row] += crash
                hit[row] |= crash
        self._pair_passed |= inside
        return hit

    def _assess_pairs(self) -> dict:
        """Each pair's predicted encounter (CW prediction of both satellites about their slots
        at TCA), seen from sat_0, and its Pc with both GNSS covariances."""
        p, sim, pairs = self.params, self.sim, self.K - 1
        deviation = sim.slot_deviation()
        rows = np.concatenate([np.zeros(pairs, dtype=np.int64), self._pair_rows])
        lead = np.tile(self._pair_tca, 2) - sim.time[rows]
        hill = np.einsum("nij,nj->ni", cw_transition(sim.slot_mean_motion[rows], lead), deviation[rows])
        position, velocity = from_hill(*self._slot_at_tca, hill)
        partner_covariance = covariance_from_rtn(np.broadcast_to(p.tracking.primary_covariance, (pairs, 3, 3)),
                                                 rtn_basis(position[pairs:], velocity[pairs:]))
        view = assess_encounters(position[:pairs], velocity[:pairs], position[pairs:], velocity[pairs:],
                                 partner_covariance, p.tracking.primary_covariance, p.hard_body_radius_m)
        view["pc"] = np.where(self._pair_passed, 0.0, view["pc"])
        view["lead"] = lead[:pairs]
        view["decades"] = np.log10(np.maximum(view["pc"], p.pc_threshold) / p.pc_threshold)
        # The partner's view: the same encounter from sat_j, in sat_j's RTN frame.
        partner_basis = rtn_basis(position[pairs:], velocity[pairs:])
        sat0_basis = rtn_basis(position[:pairs], velocity[:pairs])
        for name in ("relative_rtn", "relative_velocity_rtn"):
            inertial = np.einsum("nji,nj->ni", sat0_basis, view[name])
            view[f"partner_{name}"] = -np.einsum("nij,nj->ni", partner_basis, inertial)
        return view

    def _pair_pc_per_satellite(self) -> np.ndarray:
        pc = np.zeros(self.K)
        pc[0] = self._pair_view["pc"].max(initial=0.0)
        pc[self._pair_rows] = self._pair_view["pc"]
        return pc

    def _metrics(self) -> dict[str, np.ndarray]:
        metrics = self.sim.metrics()
        metrics["collisions"] = metrics["collisions"] + self._sibling_collisions
        debris_miss = np.where(metrics["min_true_miss_m"] < 0, np.inf, metrics["min_true_miss_m"])
        smallest = np.minimum(debris_miss, self._sibling_min_miss)
        metrics["min_true_miss_m"] = np.where(np.isfinite(smallest), smallest, -1.0)
        metrics["max_pc"] = np.maximum(metrics["max_pc"], self._sibling_max_pc)
        return metrics

    def _observations(self) -> dict[str, np.ndarray]:
        own = self.sim.observe()
        view, pairs = self._pair_view, self.K - 1
        log_pc = np.log10(np.maximum(view["pc"], 10.0**task.LOG10_PC_FLOOR))
        out = {}
        for i, agent in enumerate(self.possible_agents):
            involved = (np.full(pairs, i == 0) | (self._pair_rows == i)).astype(np.float64)
            partner = (self._pair_rows == i)[:, None]
            relative = np.where(partner, view["partner_relative_rtn"], view["relative_rtn"])
            velocity = np.where(partner, view["partner_relative_velocity_rtn"], view["relative_velocity_rtn"])
            block = np.column_stack([involved, relative / 1000.0, velocity / 1000.0, view["lead"] / 3600.0, log_pc])
            out[agent] = np.concatenate([own[i], block.reshape(-1)]).astype(np.float32)
        return {agent: out[agent] for agent in self.agents} if self.agents else out

    def render(self):
        if self.render_mode != "ansi":
            return None
        lines = [f"t={self.sim.time[0] / 3600:5.2f}h"]
        for j, row in enumerate(self._pair_rows):
            lines.append(f"  sat_0/sat_{row}: tca{self._pair_view['lead'][j] / 60:+7.1f}min "
                         f"pc={self._pair_view['pc'][j]:.1e}")
        for i, agent in enumerate(self.possible_agents):
            lines.append(f"  {agent}: slot {np.linalg.norm(self.sim.view['deviation'][i, :3]):7.0f}m "
                         f"dv={self.sim.delta_v_used[i]:.2f}m/s max debris pc={self.sim.view['pc'][i].max():.1e}")
        return "\n".join(lines) + "\n"

    def close(self):
        pass

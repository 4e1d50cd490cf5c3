"""Batched collision-avoidance simulator: B independent episodes advanced with array operations.

An episode is a primary satellite in its station-keeping *slot* (the orbit of
``scenario.primary``, propagated without manoeuvres) and ``n_debris`` debris objects on designed
encounters with that slot (:mod:`envzoo.orbital.generator`). Time advances in decision steps
of ``decision_step_s``; in one step, for every episode at once:

1. the manoeuvre of the step (an RTN impulse) is applied to the primary at the step's start,
   if the Δv budget left covers it; otherwise nothing is burnt (see *return to slot* below);
2. the primary is propagated over the step by the backend's propagator
   (:mod:`envzoo.orbital.backends`: numpy two-body + J2, ⌈step / ``scenario.max_step``⌉ order-8
   substeps, or Orekit); so are copies of it to each TCA that falls inside the step;
3. each encounter whose TCA fell inside the step is decided by the truth: with the primary's
   propagated state and the debris' true state at TCA, the closest approach of the straight
   relative motion (a correction of well under a second) gives the true miss; below
   ``hard_body_radius_m`` it is a collision, which ends the episode;
4. the debris' true TCA states drift with process noise and tracking updates refresh the
   estimates (:mod:`envzoo.orbital.tracking`);
5. the agent's view is computed: the primary's state at each TCA is predicted from its current
   deviation from the slot by Clohessy–Wiltshire motion about the slot's exact state at TCA
   (:mod:`envzoo.orbital.relative_motion`; exact without manoeuvres, meters off for km
   deviations), the estimated miss follows, and Foster's Pc of the estimate with the combined
   covariance (:mod:`envzoo.orbital.collision`).

The debris are described at TCA only (as in a CDM): their designed states at TCA come from the
slot's exact states there (with a CDM: the slot's state plus the CDM's offset of the debris from
the primary, :mod:`envzoo.orbital.data`), so without manoeuvres and noise the true miss
is the designed one.
The slot's states at every decision time are computed once per simulator (every episode shares
the slot, or each row has its own: :meth:`CollisionAvoidanceSim.use_slots`); without manoeuvres
the primary reproduces them bit for bit.

Return to slot. The ``return_to_slot`` order burns the impulse that brings the primary back to
the slot in ``return_steps`` decision steps under Clohessy–Wiltshire motion, and plans a second
impulse at arrival that cancels the remaining relative velocity. Any other manoeuvre, or a new
return order, cancels a planned burn; so does a burn the budget cannot pay.

Randomness: an episode's scenario and first estimate come from ``numpy.random.default_rng(key)``
with the episode's 64-bit key; process noise and tracking updates come from the counter-based
generator of :mod:`envzoo.core.rng` (one draw per step). An episode thus depends only on its
key and its actions, never on the batch it runs in.
"""

from __future__ import annotations

import numpy as np

from envzoo.core import rng
from envzoo.orbital.backends import make_propagation
from envzoo.orbital.collision import encounter_plane_basis, foster_probability_2d, project_to_encounter_plane
from envzoo.orbital.data import load_cdm_encounter
from envzoo.orbital.elements import covariance_from_rtn, rtn_basis
from envzoo.orbital.generator import EncounterDesign, debris_at_encounter, draw_design, generate_conjunctions
from envzoo.orbital.orekit.propagation import tle_state
from envzoo.orbital.params import CollisionAvoidanceParams, ConjunctionParams
from envzoo.orbital.propagation import OrbitState, apply_impulse
from envzoo.orbital.relative_motion import cw_transition, frame_rate, from_hill, rendezvous_impulse, to_hill
from envzoo.orbital.tracking import kick_covariance, kick_response, plane_sigmas

# Foster quadrature nodes: the default tracking gives plane σ's of tens of metres or more
# against a 20 m radius, where 16 × 24 nodes agree with 64 × 64 to ~1e-9 relative (tested).
PC_RADIAL_NODES = 16
PC_ANGULAR_NODES = 24
_UNIFORMS_PER_OBJECT = 7  # three Box–Muller pairs (kick, estimate error) and one update draw


def _normals(u: np.ndarray) -> np.ndarray:
    """Standard normals (..., 2k) from uniforms (..., 2k) by Box–Muller, pair by pair."""
    radius = np.sqrt(-2 * np.log(u[..., 0::2]))
    angle = 2 * np.pi * u[..., 1::2]
    return np.concatenate([radius * np.cos(angle), radius * np.sin(angle)], axis=-1)


def straight_line_shift(relative_position: np.ndarray, relative_velocity: np.ndarray) -> np.ndarray:
    """Time (...,) from states (..., 3) to the closest approach of straight relative motion,
    −d·w / |w|²: the correction from a nominal TCA to the actual one (fractions of a second
    here, where the straight line is exact to far below a millimetre)."""
    return -np.einsum("...i,...i->...", relative_position, relative_velocity) / np.einsum(
        "...i,...i->...", relative_velocity, relative_velocity)


def _rotate_back(basis: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """RTN components (..., 3) to inertial vectors with bases (..., 3, 3)."""
    return np.einsum("...ji,...j->...i", basis, vectors)


def assess_encounters(primary_position, primary_velocity, secondary_position, secondary_velocity,
                      secondary_covariance, primary_covariance_rtn, hard_body_radius) -> dict[str, np.ndarray]:
    """What an operator sees of N encounters, from predicted states (N, 3) near their TCAs and
    the secondaries' inertial position covariances (N, 3, 3): the relative position and
    velocity at the closest approach of the straight relative motion, in the primary's RTN
    frame; the 1-σ's of the combined covariance (primary's RTN covariance (3, 3) added) in the
    encounter plane; and Foster's Pc."""
    relative = secondary_position - primary_position
    relative_velocity = secondary_velocity - primary_velocity
    shift = straight_line_shift(relative, relative_velocity)
    relative = relative + shift[:, None] * relative_velocity
    primary_position = primary_position + shift[:, None] * primary_velocity
    primary_basis = rtn_basis(primary_position, primary_velocity)
    combined = secondary_covariance + covariance_from_rtn(
        np.broadcast_to(primary_covariance_rtn, secondary_covariance.shape), primary_basis)
    combined = (combined + np.swapaxes(combined, 1, 2)) / 2
    plane = encounter_plane_basis(primary_position, relative_velocity)
    miss, plane_covariance = project_to_encounter_plane(relative, combined, plane)
    return {
        "relative_rtn": np.einsum("nij,nj->ni", primary_basis, relative),
        "relative_velocity_rtn": np.einsum("nij,nj->ni", primary_basis, relative_velocity),
        "plane_sigmas": plane_sigmas(plane_covariance),
        "pc": foster_probability_2d(miss, plane_covariance, hard_body_radius, PC_RADIAL_NODES, PC_ANGULAR_NODES),
    }


class CollisionAvoidanceSim:
    """B collision-avoidance episodes; see the module docstring.

    Per-episode state (arrays with a leading axis B; n = ``n_debris``): ``step_index``,
    ``primary_position``/``primary_velocity`` (B, 3), the debris ``tca`` (B, n), true TCA states
    ``true_position``/``true_velocity`` (B, n, 3), estimates ``estimate_position`` (B, n, 3),
    covariances ``covariance`` (B, n, 3, 3) in each debris' RTN frame at TCA, ``last_update``,
    ``passed`` (TCA already behind), the planned burn (``pending_step``, −1 for none), the
    outcomes so far (``collisions``, ``min_true_miss``, ``maneuvers``, ``delta_v_used``) and
    :attr:`view`, the agent's view of every encounter (:meth:`predict`).
    """

    def __init__(self, params: CollisionAvoidanceParams, batch: int):
        if batch < 1:
            raise ValueError(f"batch must be >= 1, got {batch}")
        self.params = params
        self.B, self.n = batch, params.n_debris
        scenario = params.scenario
        self.gravity = scenario.gravity
        # A TLE's or a CDM's episode starts at its date, which drag and the 4x4 field need.
        tle_slot = None if params.tle is None else tle_state(*params.tle)
        self.cdm = None if params.cdm is None else load_cdm_encounter(params.cdm, params.cdm_tca_s)
        dated = tle_slot if tle_slot is not None else self.cdm
        epoch = {} if dated is None else {"epoch_utc": dated.epoch_utc}
        self.propagation = make_propagation(params.backend, self.gravity, scenario.max_step, params.decision_step_s,
                                            params.force_model, **epoch)
        self.primary_covariance = params.tracking.primary_covariance
        if tle_slot is not None:
            self.use_slots(tle_slot.position[None], tle_slot.velocity[None])
        elif self.cdm is None:
            slot = OrbitState.from_elements(scenario.primary, mu=self.gravity.mu)
            self.use_slots(slot.position, slot.velocity)
        else:
            self.primary_covariance = self.cdm.primary_covariance_rtn
            self.use_slots(*self.propagation.advance(self.cdm.primary_position[None], self.cdm.primary_velocity[None],
                                                     np.array([-self.cdm.tca_s]), start_s=self.cdm.tca_s))
        self._kick_covariance = kick_covariance(params.tracking, params.decision_step_s)
        self._kick_sigma = np.sqrt(np.diag(self._kick_covariance))
        self._measurement_factor = np.sqrt(np.diag(params.tracking.measurement_covariance))

        B, n = batch, self.n

        def zeros(*shape, dtype=np.float64):
            return np.zeros((B,) + shape, dtype=dtype)

        self.keys, self.draws = zeros(dtype=np.uint64), zeros(dtype=np.uint64)
        self.step_index = zeros(dtype=np.int64)
        self.primary_position, self.primary_velocity = zeros(3), zeros(3)
        self.tca = zeros(n)
        self.slot_tca_position, self.slot_tca_velocity = zeros(n, 3), zeros(n, 3)
        self.true_position, self.true_velocity = zeros(n, 3), zeros(n, 3)
        self.debris_basis = zeros(n, 3, 3)
        self.debris_mean_motion = zeros(n)
        self.estimate_position, self.estimate_velocity = zeros(n, 3), zeros(n, 3)
        self.covariance = zeros(n, 3, 3)
        self.last_update = zeros(n)
        self.passed = zeros(n, dtype=bool)
        self.pending_step = np.full(B, -1, dtype=np.int64)
        self.collisions, self.maneuvers, self.delta_v_used = zeros(), zeros(), zeros()
        self.min_true_miss = np.full(B, np.inf)
        self.view: dict[str, np.ndarray] = {}

    # ------------------------------------------------------------------ propagation
    def use_slots(self, position: np.ndarray, velocity: np.ndarray) -> None:
        """Set the slots at epoch 0: one state (1, 3) shared by every row, or one per row
        (B, 3) (the satellites of a constellation). Their states at every decision time of an
        episode, ``slot_position``/``slot_velocity`` (slots, n_steps + 1, 3), are computed
        here; rows use slot ``slot_rows[row]``. Takes effect at the next reset."""
        if len(position) not in (1, self.B):
            raise ValueError(f"give one slot for every row or one for all ({self.B} rows), got {len(position)}")
        count = self.params.n_steps + 1
        self.slot_position, self.slot_velocity = np.empty((len(position), count, 3)), np.empty((len(position), count, 3))
        self.slot_position[:, 0], self.slot_velocity[:, 0] = position, velocity
        step = np.full(len(position), self.params.decision_step_s)
        for k in range(1, count):
            self.slot_position[:, k], self.slot_velocity[:, k] = self.propagation.advance(
                self.slot_position[:, k - 1], self.slot_velocity[:, k - 1], step,
                start_s=(k - 1) * self.params.decision_step_s)
        self.slot_rows = np.arange(self.B) if len(position) == self.B > 1 else np.zeros(self.B, dtype=np.int64)
        # The CW rate: each slot's angular rate averaged along its track, which absorbs the few
        # 1e-3 by which J2 changes the rate from √(μ/a³) (5 % of a return's offset otherwise).
        rates = frame_rate(self.slot_position.reshape(-1, 3), self.slot_velocity.reshape(-1, 3))
        self.slot_mean_motion = rates.reshape(len(position), count).mean(axis=1)[self.slot_rows]

    # ------------------------------------------------------------------ reset
    def reset(self, rows, keys: np.ndarray) -> None:
        """Start new episodes in ``rows`` (indices or a bool mask) with episode ``keys``."""
        rows = np.arange(self.B)[rows]
        if rows.size == 0:
            return
        n = self.n
        keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
        generators = [np.random.default_rng(int(key)) for key in keys]
        design = None
        if self.cdm is None:
            designs = [draw_design(self.params.scenario, generator) for generator in generators]
            design = EncounterDesign(*(np.concatenate([getattr(d, name) for d in designs])
                                       for name in EncounterDesign.__dataclass_fields__))
            tca = design.tca
        else:
            tca = np.full(rows.size * n, self.cdm.tca_s)
        errors = np.stack([generator.standard_normal((n, 3)) for generator in generators])
        slot_position, slot_velocity = self.slot_states_at(np.repeat(rows, n), tca)
        if design is not None:
            encounter = debris_at_encounter(design, slot_position, slot_velocity, self.gravity.mu)
            debris_position, debris_velocity = encounter.debris_position, encounter.debris_velocity
        else:  # the CDM's object 2, at the CDM's offset from the slot at TCA
            debris_position = slot_position + (self.cdm.debris_position - self.cdm.primary_position)
            debris_velocity = slot_velocity + (self.cdm.debris_velocity - self.cdm.primary_velocity)
        shape = (rows.size, n)
        self.keys[rows], self.draws[rows], self.step_index[rows] = keys, 0, 0
        self.primary_position[rows] = self.slot_position[self.slot_rows[rows], 0]
        self.primary_velocity[rows] = self.slot_velocity[self.slot_rows[rows], 0]
        self.tca[rows] = tca.reshape(shape)
        self.slot_tca_position[rows] = slot_position.reshape(shape + (3,))
        self.slot_tca_velocity[rows] = slot_velocity.reshape(shape + (3,))
        self.true_position[rows] = debris_position.reshape(shape + (3,))
        self.true_velocity[rows] = debris_velocity.reshape(shape + (3,))
        self.debris_basis[rows] = rtn_basis(debris_position, debris_velocity).reshape(shape + (3, 3))
        radius = np.linalg.norm(debris_position, axis=1)
        speed_sq = np.einsum("ij,ij->i", debris_velocity, debris_velocity)
        semi_major_axis = 1.0 / (2.0 / radius - speed_sq / self.gravity.mu)
        self.debris_mean_motion[rows] = np.sqrt(self.gravity.mu / semi_major_axis**3).reshape(shape)
        self.estimate_velocity[rows] = self.true_velocity[rows]
        if self.cdm is None:
            self._measure(rows, np.ones(shape, dtype=bool), errors, time=0.0)
        else:  # the CDM is the estimate; the truth is off by a draw from its covariance
            root = np.linalg.cholesky(self.cdm.debris_covariance_rtn)
            self.estimate_position[rows] = self.true_position[rows]
            self.true_position[rows] -= _rotate_back(self.debris_basis[rows], np.einsum("ij,bnj->bni", root, errors))
            self.covariance[rows] = self.cdm.debris_covariance_rtn
            self.last_update[rows] = 0.0
        self.passed[rows] = False
        self.pending_step[rows] = -1
        for array in (self.collisions, self.maneuvers, self.delta_v_used):
            array[rows] = 0.0
        self.min_true_miss[rows] = np.inf
        self.view = self.predict()

    def slot_states_at(self, rows: np.ndarray, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Exact states (N, 3) of the slots of ``rows`` (N,) at ``times`` (N,) within the
        episode, propagated from the decision time just before each."""
        before = np.floor(times / self.params.decision_step_s).astype(np.int64)
        slot = self.slot_rows[rows]
        start = before * self.params.decision_step_s
        return self.propagation.advance(self.slot_position[slot, before], self.slot_velocity[slot, before],
                                        times - start, start_s=start)

    def propagate_primaries(self, rows: np.ndarray, durations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """States (N, 3) of the primaries of ``rows`` (N,) propagated by ``durations`` (N,)
        seconds from now (at most one decision step either way, for the same accuracy)."""
        return self.propagation.advance(self.primary_position[rows], self.primary_velocity[rows], durations,
                                        start_s=self.time[rows])

    def _measure(self, rows, mask, normals, time) -> None:
        """A tracking update of the objects ``mask`` (len(rows), n) in ``rows``: the estimate
        is the truth plus an error drawn from the measurement covariance, which it takes."""
        error = _rotate_back(self.debris_basis[rows], self._measurement_factor * normals)
        updated = mask[..., None]
        self.estimate_position[rows] = np.where(updated, self.true_position[rows] + error,
                                                self.estimate_position[rows])
        self.covariance[rows] = np.where(updated[..., None], self.params.tracking.measurement_covariance,
                                         self.covariance[rows])
        self.last_update[rows] = np.where(mask, time, self.last_update[rows])

    # ------------------------------------------------------------------ step
    @property
    def time(self) -> np.ndarray:
        return self.step_index * self.params.decision_step_s

    @property
    def done(self) -> np.ndarray:
        return (self.step_index >= self.params.n_steps) | (self.collisions > 0)

    def slot_deviation(self) -> np.ndarray:
        """Hill states (B, 6) of the primary relative to its slot now (m, m/s)."""
        slot, k = self.slot_rows, self.step_index
        return to_hill(self.slot_position[slot, k], self.slot_velocity[slot, k], self.primary_position,
                       self.primary_velocity)

    def _burns(self, delta_v: np.ndarray, return_to_slot: np.ndarray) -> np.ndarray:
        """The impulse (B, 3) to burn now: the order of the step, or a planned second burn."""
        burn = np.array(delta_v, dtype=np.float64)
        ordered = np.any(burn != 0, axis=1) | return_to_slot
        due = (self.pending_step == self.step_index) & ~ordered
        self.pending_step[ordered | due] = -1
        if not (due.any() or return_to_slot.any()):
            return burn
        deviation = self.slot_deviation()
        burn[due] = -deviation[due, 3:]
        if return_to_slot.any():
            duration = self.params.return_steps * self.params.decision_step_s
            burn[return_to_slot] = rendezvous_impulse(self.slot_mean_motion[return_to_slot],
                                                      deviation[return_to_slot], duration)
            self.pending_step[return_to_slot] = self.step_index[return_to_slot] + self.params.return_steps
        return burn

    def step(self, delta_v: np.ndarray, return_to_slot: np.ndarray | None = None) -> dict:
        """Advance every episode by one decision step (see the module docstring).

        ``delta_v`` (B, 3): the RTN impulse ordered now, m/s (zeros for none);
        ``return_to_slot`` (B,) bool: rows that order a return to the slot instead.
        Returns ``delta_v`` burnt (B,), ``refused`` (B,) bool (a burn beyond the budget, not
        executed), ``collision`` (B,) bool and ``done`` (B,) bool; :attr:`view` then holds the
        agent's view after the step.
        """
        p, B, n = self.params, self.B, self.n
        if return_to_slot is None:
            return_to_slot = np.zeros(B, dtype=bool)
        burn = self._burns(delta_v, return_to_slot)
        size = np.linalg.norm(burn, axis=1)
        budget_left = p.delta_v_budget_mps - self.delta_v_used
        executed = (size > 0) & (size <= budget_left + 1e-12)
        refused = (size > 0) & ~executed
        self.pending_step[refused] = -1
        if executed.any():
            state = apply_impulse(OrbitState(self.primary_position, self.primary_velocity), burn[executed], executed)
            self.primary_velocity = state.velocity
        burnt = np.where(executed, size, 0.0)
        self.delta_v_used += burnt
        self.maneuvers += executed

        # Propagate the primary over the step, and copies of it to each TCA inside the step.
        start = self.time
        lead = self.tca - start[:, None]
        in_step = ~self.passed & (lead <= p.decision_step_s)
        position, velocity = self.propagation.advance(
            np.concatenate([self.primary_position, np.repeat(self.primary_position, n, axis=0)]),
            np.concatenate([self.primary_velocity, np.repeat(self.primary_velocity, n, axis=0)]),
            np.concatenate([np.full(B, p.decision_step_s), np.where(in_step, lead, 0.0).reshape(-1)]),
            start_s=np.concatenate([start, np.repeat(start, n)]))
        self.primary_position, self.primary_velocity = position[:B], velocity[:B]
        self.step_index += 1

        collision = self._decide_encounters(in_step, position[B:].reshape(B, n, 3), velocity[B:].reshape(B, n, 3))
        self._perturb_and_track()
        self.view = self.predict()
        return {"delta_v": burnt, "refused": refused, "collision": collision, "done": self.done.copy()}

    def _decide_encounters(self, in_step, primary_position, primary_velocity) -> np.ndarray:
        """True misses of the encounters in the step; returns the rows that collided."""
        relative = self.true_position - primary_position
        relative_velocity = self.true_velocity - primary_velocity
        shift = straight_line_shift(relative, relative_velocity)
        miss = np.linalg.norm(relative + shift[..., None] * relative_velocity, axis=2)
        miss = np.where(in_step, miss, np.inf)
        hit = miss < self.params.hard_body_radius_m
        self.collisions += hit.sum(axis=1)
        self.min_true_miss = np.minimum(self.min_true_miss, miss.min(axis=1))
        self.passed |= in_step
        return hit.any(axis=1)

    def _perturb_and_track(self) -> None:
        """Process noise on the true TCA states, then the tracking updates of this time."""
        p = self.params
        u = rng.uniforms(self.keys, self.draws, (self.n, _UNIFORMS_PER_OBJECT))
        self.draws += np.uint64(1)
        normals = _normals(u[..., :6])
        active = ~self.passed
        lead = np.maximum(self.tca - self.time[:, None], 0.0)
        position_response, velocity_response = kick_response(self.debris_mean_motion, lead)
        kick = self._kick_sigma * normals[..., :3]
        moved = active[..., None]
        self.true_position += np.where(moved, _rotate_back(self.debris_basis, np.einsum(
            "bnij,bnj->bni", position_response, kick)), 0.0)
        self.true_velocity += np.where(moved, _rotate_back(self.debris_basis, np.einsum(
            "bnij,bnj->bni", velocity_response, kick)), 0.0)
        growth = position_response @ self._kick_covariance @ np.swapaxes(position_response, -1, -2)
        self.covariance += np.where(moved[..., None], growth, 0.0)
        updated = active & (u[..., 6] < p.tracking.update_probability(p.decision_step_s))
        self._measure(np.arange(self.B), updated, normals[..., 3:], self.time[:, None])

    # ------------------------------------------------------------------ what the agent sees
    def predict(self) -> dict:
        """The agent's view of every encounter, from estimates only (never the truth)."""
        p, B, n = self.params, self.B, self.n
        deviation = self.slot_deviation()
        lead = self.tca - self.time[:, None]
        predicted = np.einsum("bnij,bj->bni", cw_transition(self.slot_mean_motion[:, None], lead), deviation)
        primary_position, primary_velocity = from_hill(
            self.slot_tca_position.reshape(-1, 3), self.slot_tca_velocity.reshape(-1, 3), predicted.reshape(-1, 6))
        debris_covariance = covariance_from_rtn(self.covariance.reshape(-1, 3, 3), self.debris_basis.reshape(-1, 3, 3))
        view = assess_encounters(primary_position, primary_velocity, self.estimate_position.reshape(-1, 3),
                                 self.estimate_velocity.reshape(-1, 3), debris_covariance,
                                 self.primary_covariance, p.hard_body_radius_m)
        view = {name: value.reshape((B, n) + value.shape[1:]) for name, value in view.items()}
        view["pc"] = np.where(self.passed, 0.0, view["pc"])
        return {"deviation": deviation, "lead": lead, **view}


class ConstellationSim(CollisionAvoidanceSim):
    """The satellites of a constellation (one row each, each with its own slot and debris) and the
    conjunctions between them: the slot of ``sat_j`` (j ≥ 1) is designed on a conjunction with
    ``sat_0``'s (pair j − 1 is (sat_0, sat_j)), drawn per episode like a debris encounter from
    ``siblings``. Episodes of all rows start together (:meth:`start`).

    Besides the base state: ``pair_tca`` and ``pair_passed`` (K − 1,), the pairs' view
    ``pair_view`` (see :meth:`assess_pairs`), and per satellite ``sibling_collisions`` and
    ``sibling_min_miss`` (K,).
    """

    def __init__(self, params: CollisionAvoidanceParams, siblings: ConjunctionParams):
        super().__init__(params, siblings.n_debris + 1)
        self.siblings = siblings
        K = self.B
        self.pair_rows = np.arange(1, K)
        self.pair_tca = np.zeros(K - 1)
        self.pair_passed = np.zeros(K - 1, dtype=bool)
        self.slot_at_tca = None
        self.pair_view: dict[str, np.ndarray] = {}
        self.sibling_collisions = np.zeros(K)
        self.sibling_min_miss = np.full(K, np.inf)

    def start(self, generator: np.random.Generator) -> None:
        """A new episode of every satellite: slots and sibling encounters, then each row's debris."""
        K = self.B
        slots = generate_conjunctions(self.siblings, generator)
        self.use_slots(np.vstack([slots.primary.position, slots.debris.position]),
                       np.vstack([slots.primary.velocity, slots.debris.velocity]))
        self.reset(np.arange(K), rng.key_from_generator(generator, K))
        self.pair_tca = slots.tca
        both = np.concatenate([np.zeros(K - 1, dtype=np.int64), self.pair_rows])
        self.slot_at_tca = self.slot_states_at(both, np.tile(slots.tca, 2))
        self.pair_passed[:] = False
        self.sibling_collisions[:] = 0.0
        self.sibling_min_miss[:] = np.inf
        self.pair_view = self.assess_pairs()

    def step(self, delta_v: np.ndarray, return_to_slot: np.ndarray | None = None) -> dict:
        """:meth:`CollisionAvoidanceSim.step`, then the sibling conjunctions of the step:
        ``sibling_collision`` (K,) bool is added to the result."""
        result = super().step(delta_v, return_to_slot)
        result["sibling_collision"] = self._decide_pairs()
        self.pair_view = self.assess_pairs()
        return result

    def _decide_pairs(self) -> np.ndarray:
        """True misses of the sibling conjunctions whose TCA fell in the step; (K,) hits."""
        now = self.time[0]
        inside = ~self.pair_passed & (self.pair_tca <= now)
        hit = np.zeros(self.B, dtype=bool)
        if not inside.any():
            return hit
        partners = self.pair_rows[inside]
        back = self.pair_tca[inside] - now  # ≤ 0: from the step's end back to TCA
        rows = np.concatenate([np.zeros(len(partners), dtype=np.int64), partners])
        position, velocity = self.propagate_primaries(rows, np.tile(back, 2))
        count = len(partners)
        relative, relative_velocity = position[count:] - position[:count], velocity[count:] - velocity[:count]
        miss = np.linalg.norm(relative + straight_line_shift(relative, relative_velocity)[:, None]
                              * relative_velocity, axis=1)
        collided = miss < self.params.hard_body_radius_m
        for pair_miss, partner, crash in zip(miss, partners, collided):
            for row in (0, partner):
                self.sibling_min_miss[row] = min(self.sibling_min_miss[row], pair_miss)
                self.sibling_collisions[row] += crash
                hit[row] |= crash
        self.pair_passed |= inside
        return hit

    def assess_pairs(self) -> dict:
        """Each pair's predicted encounter (CW prediction of both satellites about their slots
        at TCA), seen from sat_0 (``relative_rtn``, ``relative_velocity_rtn``) and from sat_j
        (``partner_...``), its ``lead`` and its Pc with both GNSS covariances (0 once passed)."""
        p, pairs = self.params, self.B - 1
        deviation = self.slot_deviation()
        rows = np.concatenate([np.zeros(pairs, dtype=np.int64), self.pair_rows])
        lead = np.tile(self.pair_tca, 2) - self.time[rows]
        hill = np.einsum("nij,nj->ni", cw_transition(self.slot_mean_motion[rows], lead), deviation[rows])
        position, velocity = from_hill(*self.slot_at_tca, hill)
        partner_covariance = covariance_from_rtn(np.broadcast_to(p.tracking.primary_covariance, (pairs, 3, 3)),
                                                 rtn_basis(position[pairs:], velocity[pairs:]))
        view = assess_encounters(position[:pairs], velocity[:pairs], position[pairs:], velocity[pairs:],
                                 partner_covariance, p.tracking.primary_covariance, p.hard_body_radius_m)
        view["pc"] = np.where(self.pair_passed, 0.0, view["pc"])
        view["lead"] = lead[:pairs]
        partner_basis = rtn_basis(position[pairs:], velocity[pairs:])
        sat0_basis = rtn_basis(position[:pairs], velocity[:pairs])
        for name in ("relative_rtn", "relative_velocity_rtn"):
            inertial = np.einsum("nji,nj->ni", sat0_basis, view[name])
            view[f"partner_{name}"] = -np.einsum("nij,nj->ni", partner_basis, inertial)
        return view

    def pair_pc_per_satellite(self) -> np.ndarray:
        """(K,) the largest Pc of a sibling conjunction each satellite is part of."""
        pc = np.zeros(self.B)
        pc[0] = self.pair_view["pc"].max(initial=0.0)
        pc[self.pair_rows] = self.pair_view["pc"]
        return pc

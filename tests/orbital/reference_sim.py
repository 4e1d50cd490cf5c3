"""The numpy collision-avoidance simulator that the compiled one replaced, kept as the test oracle:
the same dynamics as envzoo.orbital.sim (see its docstring) as whole-batch array operations over
(B, n, ...) arrays, on the numpy mechanics of tests/orbital/reference_mechanics.py, with the
task's observation, reward components and running outcomes of envzoo.orbital.task as they were.
It runs the numpy backend only (no Orekit), from the scenario's Keplerian slot or a given CDM
encounter (:class:`envzoo.orbital.data.CdmEncounter`)."""

from __future__ import annotations

import math

import numpy as np

from envzoo.core import rng
from envzoo.orbital.physics.constants import EQUATORIAL_RADIUS
from envzoo.orbital.params import CollisionAvoidanceParams, ConjunctionParams
from envzoo.orbital.physics.propagation import OrbitState
from envzoo.orbital.task import LOG10_PC_FLOOR, _column_scales, observation_columns
from envzoo.orbital.physics.tracking import kick_covariance

from . import reference_mechanics as mech

PC_RADIAL_NODES, PC_ANGULAR_NODES = 16, 24
_UNIFORMS_PER_OBJECT = 7


class _Design:
    def __init__(self, tca, miss_distance, miss_direction, crossing_angle, speed_ratio):
        self.tca, self.miss_distance, self.miss_direction = tca, miss_distance, miss_direction
        self.crossing_angle, self.speed_ratio = crossing_angle, speed_ratio


def _normals(u):
    radius = np.sqrt(-2 * np.log(u[..., 0::2]))
    angle = 2 * np.pi * u[..., 1::2]
    return np.concatenate([radius * np.cos(angle), radius * np.sin(angle)], axis=-1)


def straight_line_shift(relative_position, relative_velocity):
    return -np.einsum("...i,...i->...", relative_position, relative_velocity) / np.einsum(
        "...i,...i->...", relative_velocity, relative_velocity)


def _rotate_back(basis, vectors):
    return np.einsum("...ji,...j->...i", basis, vectors)


def assess_encounters(primary_position, primary_velocity, secondary_position, secondary_velocity,
                      secondary_covariance, primary_covariance_rtn, hard_body_radius):
    relative = secondary_position - primary_position
    relative_velocity = secondary_velocity - primary_velocity
    shift = straight_line_shift(relative, relative_velocity)
    relative = relative + shift[:, None] * relative_velocity
    primary_position = primary_position + shift[:, None] * primary_velocity
    primary_basis = mech.rtn_basis(primary_position, primary_velocity)
    combined = secondary_covariance + mech.covariance_from_rtn(
        np.broadcast_to(primary_covariance_rtn, secondary_covariance.shape), primary_basis)
    combined = (combined + np.swapaxes(combined, 1, 2)) / 2
    plane = mech.encounter_plane_basis(primary_position, relative_velocity)
    miss, plane_covariance = mech.project_to_encounter_plane(relative, combined, plane)
    return {
        "relative_rtn": np.einsum("nij,nj->ni", primary_basis, relative),
        "relative_velocity_rtn": np.einsum("nij,nj->ni", primary_basis, relative_velocity),
        "plane_sigmas": mech.plane_sigmas(plane_covariance),
        "pc": mech.foster_probability_2d(miss, plane_covariance, hard_body_radius, PC_RADIAL_NODES, PC_ANGULAR_NODES),
    }


class ReferenceSim:
    """envzoo.orbital.sim.CollisionAvoidanceSim as it was (numpy backend)."""

    def __init__(self, params: CollisionAvoidanceParams, batch: int, cdm=None):
        self.params = params
        self.B, self.n = batch, params.n_debris
        scenario = params.scenario
        self.gravity = scenario.gravity
        self.cdm = cdm
        self.substeps = max(1, math.ceil(params.decision_step_s / scenario.max_step))
        self.primary_covariance = params.tracking.primary_covariance
        if cdm is None:
            slot = OrbitState.from_elements(scenario.primary, mu=self.gravity.mu)
            self.use_slots(slot.position, slot.velocity)
        else:
            self.primary_covariance = cdm.primary_covariance_rtn
            self.use_slots(*self.advance(cdm.primary_position[None], cdm.primary_velocity[None],
                                         np.array([-cdm.tca_s])))
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
        self.view = {}

    def advance(self, position, velocity, durations):
        g = self.gravity
        return mech.advance(position, velocity, durations, self.substeps, self.params.decision_step_s,
                            (g.mu, g.equatorial_radius, g.j2))

    def use_slots(self, position, velocity):
        count = self.params.n_steps + 1
        self.slot_position, self.slot_velocity = np.empty((len(position), count, 3)), np.empty((len(position), count, 3))
        self.slot_position[:, 0], self.slot_velocity[:, 0] = position, velocity
        step = np.full(len(position), self.params.decision_step_s)
        for k in range(1, count):
            self.slot_position[:, k], self.slot_velocity[:, k] = self.advance(
                self.slot_position[:, k - 1], self.slot_velocity[:, k - 1], step)
        self.slot_rows = np.arange(self.B) if len(position) == self.B > 1 else np.zeros(self.B, dtype=np.int64)
        rates = mech.frame_rate(self.slot_position.reshape(-1, 3), self.slot_velocity.reshape(-1, 3))
        self.slot_mean_motion = rates.reshape(len(position), count).mean(axis=1)[self.slot_rows]

    def reset(self, rows, keys):
        rows = np.arange(self.B)[rows]
        if rows.size == 0:
            return
        n = self.n
        keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
        generators = [np.random.default_rng(int(key)) for key in keys]
        design = None
        if self.cdm is None:
            designs = [mech.draw_design(self.params.scenario, generator) for generator in generators]
            design = _Design(*(np.concatenate(parts) for parts in zip(*designs)))
            tca = design.tca
        else:
            tca = np.full(rows.size * n, self.cdm.tca_s)
        errors = np.stack([generator.standard_normal((n, 3)) for generator in generators])
        slot_position, slot_velocity = self.slot_states_at(np.repeat(rows, n), tca)
        if design is not None:
            debris_position, debris_velocity, _ = mech.debris_at_encounter(design, slot_position, slot_velocity)
        else:
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
        self.debris_basis[rows] = mech.rtn_basis(debris_position, debris_velocity).reshape(shape + (3, 3))
        radius = np.linalg.norm(debris_position, axis=1)
        speed_sq = np.einsum("ij,ij->i", debris_velocity, debris_velocity)
        semi_major_axis = 1.0 / (2.0 / radius - speed_sq / self.gravity.mu)
        self.debris_mean_motion[rows] = np.sqrt(self.gravity.mu / semi_major_axis**3).reshape(shape)
        self.estimate_velocity[rows] = self.true_velocity[rows]
        if self.cdm is None:
            self._measure(rows, np.ones(shape, dtype=bool), errors, time=0.0)
        else:
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

    def slot_states_at(self, rows, times):
        before = np.floor(times / self.params.decision_step_s).astype(np.int64)
        slot = self.slot_rows[rows]
        start = before * self.params.decision_step_s
        return self.advance(self.slot_position[slot, before], self.slot_velocity[slot, before], times - start)

    def propagate_primaries(self, rows, durations):
        return self.advance(self.primary_position[rows], self.primary_velocity[rows], durations)

    def _measure(self, rows, mask, normals, time):
        error = _rotate_back(self.debris_basis[rows], self._measurement_factor * normals)
        updated = mask[..., None]
        self.estimate_position[rows] = np.where(updated, self.true_position[rows] + error, self.estimate_position[rows])
        self.covariance[rows] = np.where(updated[..., None], self.params.tracking.measurement_covariance,
                                         self.covariance[rows])
        self.last_update[rows] = np.where(mask, time, self.last_update[rows])

    @property
    def time(self):
        return self.step_index * self.params.decision_step_s

    @property
    def done(self):
        return (self.step_index >= self.params.n_steps) | (self.collisions > 0)

    def slot_deviation(self):
        slot, k = self.slot_rows, self.step_index
        return mech.to_hill(self.slot_position[slot, k], self.slot_velocity[slot, k], self.primary_position,
                            self.primary_velocity)

    def _burns(self, delta_v, return_to_slot):
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
            burn[return_to_slot] = mech.rendezvous_impulse(self.slot_mean_motion[return_to_slot],
                                                           deviation[return_to_slot], duration)
            self.pending_step[return_to_slot] = self.step_index[return_to_slot] + self.params.return_steps
        return burn

    def step(self, delta_v, return_to_slot=None):
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
            basis = mech.rtn_basis(self.primary_position[executed], self.primary_velocity[executed])
            self.primary_velocity = self.primary_velocity.copy()
            self.primary_velocity[executed] += mech.rtn_to_inertial(burn[executed], basis)
        burnt = np.where(executed, size, 0.0)
        self.delta_v_used += burnt
        self.maneuvers += executed
        start = self.time
        lead = self.tca - start[:, None]
        in_step = ~self.passed & (lead <= p.decision_step_s)
        position, velocity = self.advance(
            np.concatenate([self.primary_position, np.repeat(self.primary_position, n, axis=0)]),
            np.concatenate([self.primary_velocity, np.repeat(self.primary_velocity, n, axis=0)]),
            np.concatenate([np.full(B, p.decision_step_s), np.where(in_step, lead, 0.0).reshape(-1)]))
        self.primary_position, self.primary_velocity = position[:B], velocity[:B]
        self.step_index += 1
        collision = self._decide_encounters(in_step, position[B:].reshape(B, n, 3), velocity[B:].reshape(B, n, 3))
        self._perturb_and_track()
        self.view = self.predict()
        return {"delta_v": burnt, "refused": refused, "collision": collision, "done": self.done.copy()}

    def _decide_encounters(self, in_step, primary_position, primary_velocity):
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

    def _perturb_and_track(self):
        p = self.params
        u = rng.uniforms(self.keys, self.draws, (self.n, _UNIFORMS_PER_OBJECT))
        self.draws += np.uint64(1)
        normals = _normals(u[..., :6])
        active = ~self.passed
        lead = np.maximum(self.tca - self.time[:, None], 0.0)
        position_response, velocity_response = mech.kick_response(self.debris_mean_motion, lead)
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

    def predict(self):
        p, B, n = self.params, self.B, self.n
        deviation = self.slot_deviation()
        lead = self.tca - self.time[:, None]
        predicted = np.einsum("bnij,bj->bni", mech.cw_transition(self.slot_mean_motion[:, None], lead), deviation)
        primary_position, primary_velocity = mech.from_hill(
            self.slot_tca_position.reshape(-1, 3), self.slot_tca_velocity.reshape(-1, 3), predicted.reshape(-1, 6))
        debris_covariance = mech.covariance_from_rtn(self.covariance.reshape(-1, 3, 3),
                                                     self.debris_basis.reshape(-1, 3, 3))
        view = assess_encounters(primary_position, primary_velocity, self.estimate_position.reshape(-1, 3),
                                 self.estimate_velocity.reshape(-1, 3), debris_covariance,
                                 self.primary_covariance, p.hard_body_radius_m)
        view = {name: value.reshape((B, n) + value.shape[1:]) for name, value in view.items()}
        view["pc"] = np.where(self.passed, 0.0, view["pc"])
        return {"deviation": deviation, "lead": lead, **view}


def generate_conjunctions(params: ConjunctionParams, generator):
    """envzoo.orbital.generator.generate_conjunctions as it was: (primary state, debris states at
    epoch 0, TCAs)."""
    g = params.gravity
    design = _Design(*mech.draw_design(params, generator))
    count = params.n_debris
    primary = OrbitState.from_elements(params.primary, mu=g.mu)
    gravity = (g.mu, g.equatorial_radius, g.j2)
    primary_position, primary_velocity = mech.integrate(
        np.repeat(primary.position, count, axis=0), np.repeat(primary.velocity, count, axis=0), design.tca, gravity,
        params.max_step)
    debris_position, debris_velocity, _ = mech.debris_at_encounter(design, primary_position, primary_velocity)
    start_position, start_velocity = mech.integrate(debris_position, debris_velocity, -design.tca, gravity,
                                                    params.max_step)
    return primary, start_position, start_velocity, design.tca


class ReferenceConstellationSim(ReferenceSim):
    """envzoo.orbital.sim.ConstellationSim as it was."""

    def __init__(self, params, siblings):
        super().__init__(params, siblings.n_debris + 1)
        self.siblings = siblings
        K = self.B
        self.pair_rows = np.arange(1, K)
        self.pair_tca = np.zeros(K - 1)
        self.pair_passed = np.zeros(K - 1, dtype=bool)
        self.sibling_collisions = np.zeros(K)
        self.sibling_min_miss = np.full(K, np.inf)

    def start(self, generator):
        K = self.B
        primary, debris_position, debris_velocity, tca = generate_conjunctions(self.siblings, generator)
        self.use_slots(np.vstack([primary.position, debris_position]), np.vstack([primary.velocity, debris_velocity]))
        self.reset(np.arange(K), rng.key_from_generator(generator, K))
        self.pair_tca = tca
        both = np.concatenate([np.zeros(K - 1, dtype=np.int64), self.pair_rows])
        self.slot_at_tca = self.slot_states_at(both, np.tile(tca, 2))
        self.pair_passed[:] = False
        self.sibling_collisions[:] = 0.0
        self.sibling_min_miss[:] = np.inf
        self.pair_view = self.assess_pairs()

    def step(self, delta_v, return_to_slot=None):
        result = super().step(delta_v, return_to_slot)
        result["sibling_collision"] = self._decide_pairs()
        self.pair_view = self.assess_pairs()
        return result

    def _decide_pairs(self):
        now = self.time[0]
        inside = ~self.pair_passed & (self.pair_tca <= now)
        hit = np.zeros(self.B, dtype=bool)
        if not inside.any():
            return hit
        partners = self.pair_rows[inside]
        back = self.pair_tca[inside] - now
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

    def assess_pairs(self):
        p, pairs = self.params, self.B - 1
        deviation = self.slot_deviation()
        rows = np.concatenate([np.zeros(pairs, dtype=np.int64), self.pair_rows])
        lead = np.tile(self.pair_tca, 2) - self.time[rows]
        hill = np.einsum("nij,nj->ni", mech.cw_transition(self.slot_mean_motion[rows], lead), deviation[rows])
        position, velocity = mech.from_hill(*self.slot_at_tca, hill)
        partner_covariance = mech.covariance_from_rtn(np.broadcast_to(p.tracking.primary_covariance, (pairs, 3, 3)),
                                                      mech.rtn_basis(position[pairs:], velocity[pairs:]))
        view = assess_encounters(position[:pairs], velocity[:pairs], position[pairs:], velocity[pairs:],
                                 partner_covariance, p.tracking.primary_covariance, p.hard_body_radius_m)
        view["pc"] = np.where(self.pair_passed, 0.0, view["pc"])
        view["lead"] = lead[:pairs]
        partner_basis = mech.rtn_basis(position[pairs:], velocity[pairs:])
        sat0_basis = mech.rtn_basis(position[:pairs], velocity[:pairs])
        for name in ("relative_rtn", "relative_velocity_rtn"):
            inertial = np.einsum("nji,nj->ni", sat0_basis, view[name])
            view[f"partner_{name}"] = -np.einsum("nij,nj->ni", partner_basis, inertial)
        return view


# ---------------------------------------------------------------------- the task's numbers
def observe(params: CollisionAvoidanceParams, sim: ReferenceSim, normalize: bool = True) -> np.ndarray:
    view = sim.view
    elements = mech.cartesian_to_keplerian(sim.primary_position, sim.primary_velocity, sim.gravity.mu)
    latitude_argument = np.mod(elements.argument_of_perigee + elements.true_anomaly, 2 * np.pi)
    own = np.column_stack([
        (elements.semi_major_axis - EQUATORIAL_RADIUS) / 1000.0, elements.eccentricity, elements.inclination,
        elements.raan, latitude_argument, view["deviation"][:, :3] / 1000.0, view["deviation"][:, 3:],
        params.delta_v_budget_mps - sim.delta_v_used, sim.time / 3600.0, sim.pending_step >= 0,
    ])
    log_pc = np.log10(np.maximum(view["pc"], 10.0**LOG10_PC_FLOOR))
    debris = np.concatenate([
        view["relative_rtn"] / 1000.0, view["relative_velocity_rtn"] / 1000.0, view["plane_sigmas"] / 1000.0,
        view["lead"][..., None] / 3600.0, log_pc[..., None],
        (sim.time[:, None] - sim.last_update)[..., None] / 3600.0,
    ], axis=2)
    values = np.concatenate([own, debris.reshape(sim.B, -1)], axis=1)
    if not normalize:
        return values
    return normalized(params, values, observation_columns(params)).astype(np.float32)


def normalized(params, physical, columns):
    if params.observation == "physical":
        return physical
    offset, scale = _column_scales(params, columns)
    return (physical - offset) / scale


def risk_decades(params, pc):
    return np.log10(np.maximum(pc, params.pc_threshold) / params.pc_threshold)


def objectives(params, sim, result):
    decades = risk_decades(params, sim.view["pc"]).sum(axis=1)
    return np.stack([-decades - params.collision_penalty * result["collision"], -result["delta_v"],
                     -np.linalg.norm(sim.view["deviation"][:, :3], axis=1) / 1000.0], axis=1)


def scalar_reward(params, objectives):
    return (params.risk_weight * objectives[:, 0] + params.fuel_weight * objectives[:, 1]
            + params.slot_weight * objectives[:, 2])


class ReferenceOutcomes:
    """The task's running KPIs (largest Pc, time off the slot) and its metrics, as they were."""

    def __init__(self, batch):
        self.max_pc, self.off_slot_s = np.zeros(batch), np.zeros(batch)

    def start(self, rows, sim):
        self.off_slot_s[rows] = 0.0
        self.max_pc[rows] = sim.view["pc"][rows].max(axis=1)

    def record(self, params, sim):
        self.max_pc = np.maximum(self.max_pc, sim.view["pc"].max(axis=1))
        off_slot = np.linalg.norm(sim.view["deviation"][:, :3], axis=1) > params.slot_tolerance_m
        self.off_slot_s += np.where(off_slot, params.decision_step_s, 0.0)

    def metrics(self, sim):
        return {
            "collisions": sim.collisions.copy(),
            "min_true_miss_m": np.where(np.isfinite(sim.min_true_miss), sim.min_true_miss, -1.0),
            "max_pc": self.max_pc.copy(),
            "delta_v_used_mps": sim.delta_v_used.copy(),
            "maneuvers": sim.maneuvers.copy(),
            "time_off_slot_h": self.off_slot_s / 3600.0,
        }


def constellation_observe(params: CollisionAvoidanceParams, sim: ReferenceConstellationSim) -> np.ndarray:
    """ConstellationTask.observe as it was: each agent's own columns, then every sibling pair's."""
    view, pairs = sim.pair_view, sim.B - 1
    own = observe(params, sim, normalize=False)
    log_pc = np.log10(np.maximum(view["pc"], 10.0**LOG10_PC_FLOOR))
    rows = []
    for i in range(sim.B):
        involved = (np.full(pairs, i == 0) | (sim.pair_rows == i)).astype(np.float64)
        partner = (sim.pair_rows == i)[:, None]
        relative = np.where(partner, view["partner_relative_rtn"], view["relative_rtn"])
        velocity = np.where(partner, view["partner_relative_velocity_rtn"], view["relative_velocity_rtn"])
        block = np.column_stack([involved, relative / 1000.0, velocity / 1000.0, view["lead"] / 3600.0, log_pc])
        rows.append(np.concatenate([own[i], block.reshape(-1)]))
    return normalized(params, np.stack(rows), observation_columns(params, siblings=pairs)).astype(np.float32)


def constellation_rewards(params: CollisionAvoidanceParams, sim: ReferenceConstellationSim, result) -> np.ndarray:
    """ConstellationTask.step's rewards as they were: each satellite's own, less the risk of its
    sibling conjunctions (sat_0 is in every pair, sat_j in pair j − 1)."""
    pair_decades = risk_decades(params, sim.pair_view["pc"])
    decades = np.zeros(sim.B)
    decades[0] = pair_decades.sum()
    decades[sim.pair_rows] = pair_decades
    own = scalar_reward(params, objectives(params, sim, result))
    return own - params.risk_weight * (decades + params.collision_penalty * result["sibling_collision"])

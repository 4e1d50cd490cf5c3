"""Batched collision-avoidance simulator, compiled: B independent episodes, one kernel pass per row.

An episode is a primary satellite in its station-keeping *slot* (the orbit of
``scenario.primary``, propagated without manoeuvres) and ``n_debris`` debris objects on designed
encounters with that slot (:mod:`envzoo.orbital.generator`). Time advances in decision steps
of ``decision_step_s``; in one step, for every episode:

1. the manoeuvre of the step (an RTN impulse) is applied to the primary at the step's start,
   if the Δv budget left covers it; otherwise nothing is burnt (see *return to slot* below);
2. the primary is propagated over the step by the backend's propagator
   (:mod:`envzoo.orbital.physics.backends`: numpy two-body + J2, ⌈step / ``scenario.max_step``⌉ order-8
   substeps, or Orekit); so are copies of it to each TCA that falls inside the step;
3. each encounter whose TCA fell inside the step is decided by the truth: with the primary's
   propagated state and the debris' true state at TCA, the closest approach of the straight
   relative motion (a correction of well under a second) gives the true miss; below
   ``hard_body_radius_m`` it is a collision, which ends the episode;
4. the debris' true TCA states drift with process noise and tracking updates refresh the
   estimates (:mod:`envzoo.orbital.physics.tracking`);
5. the agent's view is computed: the primary's state at each TCA is predicted from its current
   deviation from the slot by Clohessy–Wiltshire motion about the slot's exact state at TCA
   (:mod:`envzoo.orbital.physics.relative_motion`; exact without manoeuvres, meters off for km
   deviations), the estimated miss follows, and Foster's Pc of the estimate with the combined
   covariance (:mod:`envzoo.orbital.physics.collision`).

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

Compiled. A row's step is one kernel (:func:`step_row`: the burn, the propagation, the
encounters, the noise and tracking, the view), over the row's state (:class:`~envzoo.orbital.state.SimRows`,
the simulator's arrays) and the constants (:class:`~envzoo.orbital.state.SimSettings`); the batch runs it over ranges of
rows on several threads (:func:`envzoo.core.compiled.over_row_ranges`), and the single env's
task calls it within one fused kernel. The row's parts are inlined into the kernels that loop
over rows (``@kernel(inline=True)``): numba counts the references of the arrays that every call
hands on, which took half the time of a step. With the Orekit backend the kernels stop before and
resume after the propagation, which Orekit does in between. Only an episode's start draws in
Python (numpy's generator, row by row). The kernels take numpy's order of operations, so the
trajectories are the array simulator's they replaced (kept as the test oracle in
``tests/orbital/reference_sim.py``; the test states where they agree bit for bit and where to
rounding).
"""

from __future__ import annotations

import numpy as np

from envzoo.core import rng
from envzoo.core.compiled import einsum_dot, kernel, over_row_ranges
from envzoo.orbital.data import load_cdm_encounter
from envzoo.orbital.generator import (
    DESIGN_DRAWS, debris_at_encounter, design_draws, design_from_draws, generate_conjunctions,
)
from envzoo.orbital.params import CollisionAvoidanceParams, ConjunctionParams
from envzoo.orbital.physics.backends import NumpyPropagation, make_propagation
from envzoo.orbital.physics.collision import (
    encounter_plane_of, foster_of, project_to_plane_of, quadrature_nodes, quadrature_work_size,
)
from envzoo.orbital.physics.elements import (
    add3, from_rtn, matrix_of, norm3, rtn_basis_of, scale3, subtract3, to_rtn, transform_covariance, vector_of,
)
from envzoo.orbital.physics.orekit.propagation import tle_state
from envzoo.orbital.physics.propagation import OrbitState, propagate_object
from envzoo.orbital.physics.relative_motion import (
    cw_transition_into, frame_rate, hill_state_of, inertial_state_of, rendezvous_gain, singular_rendezvous_message,
)
from envzoo.orbital.physics.tracking import kick_covariance, plane_sigmas_of
from envzoo.orbital.state import PairState, Scratch, SimRows, SimSettings

# Foster quadrature nodes: the default tracking gives plane σ's of tens of metres or more
# against a 20 m radius, where 16 × 24 nodes agree with 64 × 64 to ~1e-9 relative (tested).
PC_RADIAL_NODES = 16
PC_ANGULAR_NODES = 24
_ROWS_PER_THREAD = 32  # a row's step takes a few microseconds: fewer are not worth a thread


@kernel
def new_scratch(n, quadrature_size):
    return Scratch(np.empty((6, 6)), np.empty(quadrature_size), np.empty((5, 6)), np.empty((n, 3)), np.empty((n, 3)),
                   np.zeros(n, dtype=np.bool_))


# ---------------------------------------------------------------------- one encounter
@kernel(inline=True)
def straight_line_shift(relative_position, relative_velocity):
    """Time from a state to the closest approach of straight relative motion, −d·w / |w|²: the
    correction from a nominal TCA to the actual one (fractions of a second here, where the
    straight line is exact to far below a millimetre)."""
    return -einsum_dot(relative_position, relative_velocity) / einsum_dot(relative_velocity, relative_velocity)


@kernel(inline=True)
def true_miss(primary_position, primary_velocity, secondary_position, secondary_velocity):
    """The miss distance at the closest approach of the straight relative motion through two states."""
    relative = subtract3(secondary_position, primary_position)
    relative_velocity = subtract3(secondary_velocity, primary_velocity)
    return norm3(add3(relative, scale3(straight_line_shift(relative, relative_velocity), relative_velocity)))


@kernel(inline=True)
def _combined_covariance(secondary, primary):
    """The combined covariance (C + Cᵀ) / 2 of C = secondary + primary (3×3 inertial, rows as
    tuples): the sum made exactly symmetric, entry by entry as the array code took it."""
    total = ((secondary[0][0] + primary[0][0], secondary[0][1] + primary[0][1], secondary[0][2] + primary[0][2]),
             (secondary[1][0] + primary[1][0], secondary[1][1] + primary[1][1], secondary[1][2] + primary[1][2]),
             (secondary[2][0] + primary[2][0], secondary[2][1] + primary[2][1], secondary[2][2] + primary[2][2]))
    return (((total[0][0] + total[0][0]) / 2, (total[0][1] + total[1][0]) / 2, (total[0][2] + total[2][0]) / 2),
            ((total[1][0] + total[0][1]) / 2, (total[1][1] + total[1][1]) / 2, (total[1][2] + total[2][1]) / 2),
            ((total[2][0] + total[0][2]) / 2, (total[2][1] + total[1][2]) / 2, (total[2][2] + total[2][2]) / 2))


@kernel(inline=True)
def assess_encounter(primary_position, primary_velocity, secondary_position, secondary_velocity,
                     secondary_covariance, primary_covariance_rtn, passed, s, work, relative_rtn,
                     relative_velocity_rtn, plane_sigmas):
    """What an operator sees of one encounter, from predicted states (3-vectors) near its TCA and
    the secondary's inertial position covariance (3×3): into ``relative_rtn`` and
    ``relative_velocity_rtn`` (3,), the relative state at the closest approach of the straight
    relative motion in the primary's RTN frame there; into ``plane_sigmas`` (2,), the 1-σ's of
    the combined covariance (the primary's RTN covariance added) in the encounter plane; returns
    Foster's Pc (0 once ``passed``). ``secondary_covariance``: rows as tuples (see
    :func:`~envzoo.orbital.physics.elements.matrix_of`)."""
    relative = subtract3(secondary_position, primary_position)
    relative_velocity = subtract3(secondary_velocity, primary_velocity)
    shift = straight_line_shift(relative, relative_velocity)
    relative = add3(relative, scale3(shift, relative_velocity))
    primary_position = add3(primary_position, scale3(shift, primary_velocity))
    basis = rtn_basis_of(primary_position, primary_velocity)
    combined = _combined_covariance(secondary_covariance, transform_covariance(matrix_of(primary_covariance_rtn),
                                                                               basis, True))
    plane, _ = encounter_plane_of(primary_position, relative_velocity)
    miss, (c00, c01, c10, c11) = project_to_plane_of(plane, relative, combined)
    relative_rtn[0], relative_rtn[1], relative_rtn[2] = to_rtn(basis, relative)
    relative_velocity_rtn[0], relative_velocity_rtn[1], relative_velocity_rtn[2] = to_rtn(basis, relative_velocity)
    plane_sigmas[0], plane_sigmas[1] = plane_sigmas_of(c00, c10, c11)
    if passed:
        return 0.0
    return foster_of(miss[0], miss[1], c00, c01, c11, s.hard_body_radius, s.unit_nodes, s.unit_weights, s.cos_theta,
                     s.sin_theta, work)


# ---------------------------------------------------------------------- one row
@kernel(inline=True)
def slot_deviation(b, rows, s):
    """The Hill state (ρ, ρ̇) of row ``b``'s primary relative to its slot now (m, m/s)."""
    slot, k = rows.slot_rows[b], rows.step_index[b]
    return hill_state_of(vector_of(s.slot_position[slot, k]), vector_of(s.slot_velocity[slot, k]),
                         vector_of(rows.primary_position[b]), vector_of(rows.primary_velocity[b]))


@kernel(inline=True)
def predicted_state(b, lead, slot_position, slot_velocity, rows, phi):
    """Row ``b``'s primary ``lead`` seconds from now as CW motion predicts it (3-vectors: position,
    velocity): its deviation from the slot now (the view's), carried about the slot's exact
    state then (``slot_position``, ``slot_velocity``); ``phi`` is (6, 6) scratch."""
    cw_transition_into(rows.slot_mean_motion[b], lead, phi)
    deviation = rows.deviation[b]
    return inertial_state_of(
        slot_position, slot_velocity,
        (einsum_dot(phi[0], deviation), einsum_dot(phi[1], deviation), einsum_dot(phi[2], deviation)),
        (einsum_dot(phi[3], deviation), einsum_dot(phi[4], deviation), einsum_dot(phi[5], deviation)))


@kernel(inline=True)
def predict_row(b, rows, s, scratch):
    """Row ``b``'s view of every encounter, from estimates only (never the truth), into the
    view arrays of ``rows``."""
    rho, rho_dot = slot_deviation(b, rows, s)
    for k in range(3):
        rows.deviation[b, k], rows.deviation[b, 3 + k] = rho[k], rho_dot[k]
    time = rows.step_index[b] * s.decision_step_s
    for k in range(rows.tca.shape[1]):
        lead = rows.tca[b, k] - time
        rows.lead[b, k] = lead
        position, velocity = predicted_state(b, lead, vector_of(rows.slot_tca_position[b, k]),
                                             vector_of(rows.slot_tca_velocity[b, k]), rows, scratch.transition)
        debris = transform_covariance(matrix_of(rows.covariance[b, k]), matrix_of(rows.debris_basis[b, k]), True)
        rows.pc[b, k] = assess_encounter(
            position, velocity, vector_of(rows.estimate_position[b, k]), vector_of(rows.estimate_velocity[b, k]),
            debris, s.primary_covariance, rows.passed[b, k], s, scratch.quadrature, rows.relative_rtn[b, k],
            rows.relative_velocity_rtn[b, k], rows.plane_sigmas[b, k])


@kernel(inline=True)
def _measure(b, k, normals, time, rows, s):
    """A tracking update of debris ``k`` of row ``b``: the estimate is the truth plus an error
    drawn from the measurement covariance (``normals``: three standard normals), which it takes."""
    factor = s.measurement_factor
    error = from_rtn(matrix_of(rows.debris_basis[b, k]),
                     (factor[0] * normals[0], factor[1] * normals[1], factor[2] * normals[2]))
    estimate = add3(vector_of(rows.true_position[b, k]), error)
    for i in range(3):
        rows.estimate_position[b, k, i] = estimate[i]
    rows.covariance[b, k] = s.measurement_covariance
    rows.last_update[b, k] = time


@kernel
def start_row(b, key, encounter, rows, s, scratch):
    """A new episode in row ``b`` from its key and its ``encounter`` (n, 13) rows: the TCA, the
    slot's state at TCA (6), the debris' designed state at TCA (6); then ``encounter[:, 13:16]``:
    the standard normals of the first estimate's error (or of the truth's offset from a CDM's
    estimate)."""
    rows.keys[b], rows.draws[b], rows.step_index[b] = key, 0, 0
    slot = rows.slot_rows[b]
    rows.primary_position[b] = s.slot_position[slot, 0]
    rows.primary_velocity[b] = s.slot_velocity[slot, 0]
    for k in range(encounter.shape[0]):
        e = encounter[k]
        rows.tca[b, k] = e[0]
        rows.slot_tca_position[b, k], rows.slot_tca_velocity[b, k] = e[1:4], e[4:7]
        rows.true_position[b, k], rows.true_velocity[b, k] = e[7:10], e[10:13]
        rows.estimate_velocity[b, k] = e[10:13]
        debris_position, debris_velocity = vector_of(e[7:10]), vector_of(e[10:13])
        basis = rtn_basis_of(debris_position, debris_velocity)
        for i in range(3):
            for j in range(3):
                rows.debris_basis[b, k, i, j] = basis[i][j]
        semi_major_axis = 1.0 / (2.0 / norm3(debris_position) - einsum_dot(debris_velocity, debris_velocity) / s.mu)
        rows.debris_mean_motion[b, k] = np.sqrt(s.mu / semi_major_axis ** 3.0)
        normals = e[13:16]
        if s.from_cdm:  # the CDM is the estimate; the truth is off by a draw from its covariance
            offset = from_rtn(basis, (einsum_dot(s.cdm_root[0], normals), einsum_dot(s.cdm_root[1], normals),
                                      einsum_dot(s.cdm_root[2], normals)))
            truth = subtract3(debris_position, offset)
            for i in range(3):
                rows.estimate_position[b, k, i] = debris_position[i]
                rows.true_position[b, k, i] = truth[i]
            rows.covariance[b, k] = s.cdm_covariance
            rows.last_update[b, k] = 0.0
        else:
            _measure(b, k, normals, 0.0, rows, s)
        rows.passed[b, k] = False
    rows.pending_step[b] = -1
    rows.collisions[b], rows.maneuvers[b], rows.delta_v_used[b] = 0.0, 0.0, 0.0
    rows.min_true_miss[b] = np.inf
    predict_row(b, rows, s, scratch)


@kernel(inline=True)
def burn_row(b, delta_v, return_to_slot, rows, s):
    """Step 1 for row ``b``: the ordered impulse ``delta_v`` (3,), RTN m/s, or the return to the
    slot, or a planned second burn that is due; burnt if the budget covers it. Returns the Δv
    burnt and whether a burn was refused."""
    burn = vector_of(delta_v)
    ordered = burn[0] != 0.0 or burn[1] != 0.0 or burn[2] != 0.0 or return_to_slot
    due = rows.pending_step[b] == rows.step_index[b] and not ordered
    if ordered or due:
        rows.pending_step[b] = -1
    if due or return_to_slot:
        rho, rho_dot = slot_deviation(b, rows, s)
        if due:
            burn = (-rho_dot[0], -rho_dot[1], -rho_dot[2])
        else:
            burn = subtract3(to_rtn(matrix_of(rows.return_gain[b]), rho), rho_dot)
            rows.pending_step[b] = rows.step_index[b] + s.return_steps
    size = norm3(burn)
    executed = size > 0.0 and size <= s.delta_v_budget - rows.delta_v_used[b] + 1e-12
    refused = size > 0.0 and not executed
    if refused:
        rows.pending_step[b] = -1
    if not executed:
        return 0.0, refused
    velocity = vector_of(rows.primary_velocity[b])
    change = from_rtn(rtn_basis_of(vector_of(rows.primary_position[b]), velocity), burn)
    for i in range(3):
        rows.primary_velocity[b, i] = velocity[i] + change[i]
    rows.delta_v_used[b] += size
    rows.maneuvers[b] += 1.0
    return size, False


@kernel(inline=True)
def encounters_in_step(b, rows, s, in_step):
    """Which encounters of row ``b`` have their TCA inside the step that starts now."""
    start = rows.step_index[b] * s.decision_step_s
    for k in range(in_step.shape[0]):
        in_step[k] = not rows.passed[b, k] and rows.tca[b, k] - start <= s.decision_step_s


@kernel(inline=True)
def propagate_row(b, rows, s, scratch):
    """Step 2 for row ``b`` (the numpy backend): the primary over the step, and its copies in
    ``scratch`` to the TCAs inside it. Every propagation of a step is at most one decision step
    long, so each takes ``substeps`` order-8 steps."""
    start = rows.step_index[b] * s.decision_step_s
    for k in range(scratch.in_step.shape[0]):
        if scratch.in_step[k]:
            scratch.copy_position[k], scratch.copy_velocity[k] = rows.primary_position[b], rows.primary_velocity[b]
            propagate_object(scratch.copy_position[k], scratch.copy_velocity[k], (rows.tca[b, k] - start) / s.substeps,
                             s.substeps, s.mu, s.j2_factor, scratch.propagation)
    propagate_object(rows.primary_position[b], rows.primary_velocity[b], s.decision_step_s / s.substeps, s.substeps,
                     s.mu, s.j2_factor, scratch.propagation)


@kernel(inline=True)
def _decide_encounters(b, rows, s, scratch):
    """Step 3 for row ``b``: the true misses of the encounters inside the step, from the primary's
    copies at their TCAs. Returns whether one was a collision."""
    hits, smallest = 0, np.inf
    for k in range(scratch.in_step.shape[0]):
        if not scratch.in_step[k]:
            continue
        miss = true_miss(vector_of(scratch.copy_position[k]), vector_of(scratch.copy_velocity[k]),
                         vector_of(rows.true_position[b, k]), vector_of(rows.true_velocity[b, k]))
        hits += miss < s.hard_body_radius
        smallest = min(smallest, miss)
        rows.passed[b, k] = True
    rows.collisions[b] += hits
    rows.min_true_miss[b] = min(rows.min_true_miss[b], smallest)
    return hits > 0


@kernel(inline=True)
def _perturb_and_track(b, rows, s, scratch):
    """Step 4 for row ``b``: process noise on the true TCA states of the encounters ahead (a
    velocity kick mapped to TCA by CW motion, its spread added to the covariance), then the
    tracking updates of this time (one counter-based draw of the row)."""
    time = rows.step_index[b] * s.decision_step_s
    phi = scratch.transition
    for k in range(rows.tca.shape[1]):
        if rows.passed[b, k]:
            continue
        seed = rng.element_seed(rows.keys[b], rows.draws[b], k)
        # Box–Muller: uniforms (0, 1), (2, 3), (4, 5) give normals p (cosines) and 3 + p (sines).
        radius_0, angle_0 = np.sqrt(-2 * np.log(rng.uniform_at(seed, 0))), 2 * np.pi * rng.uniform_at(seed, 1)
        radius_1, angle_1 = np.sqrt(-2 * np.log(rng.uniform_at(seed, 2))), 2 * np.pi * rng.uniform_at(seed, 3)
        radius_2, angle_2 = np.sqrt(-2 * np.log(rng.uniform_at(seed, 4))), 2 * np.pi * rng.uniform_at(seed, 5)
        kick = (s.kick_sigma[0] * (radius_0 * np.cos(angle_0)), s.kick_sigma[1] * (radius_1 * np.cos(angle_1)),
                s.kick_sigma[2] * (radius_2 * np.cos(angle_2)))
        cw_transition_into(rows.debris_mean_motion[b, k], max(rows.tca[b, k] - time, 0.0), phi)
        basis = matrix_of(rows.debris_basis[b, k])
        moved = from_rtn(basis, (einsum_dot(phi[0, 3:], kick), einsum_dot(phi[1, 3:], kick),
                                 einsum_dot(phi[2, 3:], kick)))
        turned = from_rtn(basis, (einsum_dot(phi[3, 3:], kick), einsum_dot(phi[4, 3:], kick),
                                  einsum_dot(phi[5, 3:], kick)))
        for i in range(3):
            rows.true_position[b, k, i] += moved[i]
            rows.true_velocity[b, k, i] += turned[i]
        spread = transform_covariance(matrix_of(s.kick_covariance), matrix_of(phi[:3, 3:]), False)  # Φ_rv Q Φ_rvᵀ
        for i in range(3):
            for j in range(3):
                rows.covariance[b, k, i, j] += spread[i][j]
        if rng.uniform_at(seed, 6) < s.update_probability:
            _measure(b, k, (radius_0 * np.sin(angle_0), radius_1 * np.sin(angle_1), radius_2 * np.sin(angle_2)),
                     time, rows, s)
    rows.draws[b] += np.uint64(1)


@kernel(inline=True)
def finish_row(b, rows, s, scratch):
    """Steps 3 to 5 for row ``b``, once the primary has been propagated over the step (and its
    copies to the TCAs inside it, ``scratch``): the clock moves on, the encounters inside the
    step are decided, the noise and tracking act and the view is renewed. Returns whether the
    step was a collision."""
    rows.step_index[b] += 1
    collision = _decide_encounters(b, rows, s, scratch)
    _perturb_and_track(b, rows, s, scratch)
    predict_row(b, rows, s, scratch)
    return collision


@kernel(inline=True)
def step_row(b, delta_v, return_to_slot, rows, s, scratch):
    """One whole step of row ``b`` on the numpy backend (the module docstring's steps 1 to 5):
    returns the Δv burnt, whether a burn was refused and whether it was a collision."""
    burnt, refused = burn_row(b, delta_v, return_to_slot, rows, s)
    encounters_in_step(b, rows, s, scratch.in_step)
    propagate_row(b, rows, s, scratch)
    return burnt, refused, finish_row(b, rows, s, scratch)


@kernel(inline=True)
def row_done(b, rows, s):
    """Whether row ``b``'s episode is over: its last step, or a collision."""
    return rows.step_index[b] >= s.n_steps or rows.collisions[b] > 0


# ---------------------------------------------------------------------- the batch
@kernel
def _step_rows(start, stop, delta_v, return_to_slot, rows, s, burnt, refused, collision):
    scratch = new_scratch(rows.tca.shape[1], s.quadrature_size)
    for b in range(start, stop):
        burnt[b], refused[b], collision[b] = step_row(b, delta_v[b], return_to_slot[b], rows, s, scratch)


@kernel
def _burn_rows(delta_v, return_to_slot, rows, s, burnt, refused, in_step):
    for b in range(delta_v.shape[0]):
        burnt[b], refused[b] = burn_row(b, delta_v[b], return_to_slot[b], rows, s)
        encounters_in_step(b, rows, s, in_step[b])


@kernel
def _finish_rows(in_step, copy_position, copy_velocity, rows, s, collision):
    scratch = new_scratch(rows.tca.shape[1], s.quadrature_size)
    for b in range(in_step.shape[0]):
        scratch.in_step[:] = in_step[b]
        scratch.copy_position[:], scratch.copy_velocity[:] = copy_position[b], copy_velocity[b]
        collision[b] = finish_row(b, rows, s, scratch)


@kernel
def _start_rows(rows_to_start, keys, encounters, rows, s):
    scratch = new_scratch(rows.tca.shape[1], s.quadrature_size)
    for i in range(rows_to_start.shape[0]):
        start_row(rows_to_start[i], keys[i], encounters[i], rows, s, scratch)


@kernel
def _predict_rows(start, stop, rows, s):
    scratch = new_scratch(rows.tca.shape[1], s.quadrature_size)
    for b in range(start, stop):
        predict_row(b, rows, s, scratch)


class CollisionAvoidanceSim:
    """B collision-avoidance episodes; see the module docstring.

    Per-episode state (arrays with a leading axis B; n = ``n_debris``): ``step_index``,
    ``primary_position``/``primary_velocity`` (B, 3), the debris ``tca`` (B, n), true TCA states
    ``true_position``/``true_velocity`` (B, n, 3), estimates ``estimate_position`` (B, n, 3),
    covariances ``covariance`` (B, n, 3, 3) in each debris' RTN frame at TCA, ``last_update``,
    ``passed`` (TCA already behind), the planned burn (``pending_step``, −1 for none), the
    outcomes so far (``collisions``, ``min_true_miss``, ``maneuvers``, ``delta_v_used``) and
    :attr:`view`, the agent's view of every encounter (:meth:`predict`). The kernels change
    these arrays in place: change them in place too (``sim.true_position += ...``), never
    replace them.
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
        #: Whether the kernels propagate (the numpy backend) or Orekit does between them.
        self.compiled_propagation = isinstance(self.propagation, NumpyPropagation)

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
        self.view = {"deviation": zeros(6), "lead": zeros(n), "relative_rtn": zeros(n, 3),
                     "relative_velocity_rtn": zeros(n, 3), "plane_sigmas": zeros(n, 2), "pc": zeros(n)}

        primary_covariance = params.tracking.primary_covariance
        if tle_slot is not None:
            self.use_slots(tle_slot.position[None], tle_slot.velocity[None])
        elif self.cdm is None:
            slot = OrbitState.from_elements(scenario.primary, mu=self.gravity.mu)
            self.use_slots(slot.position, slot.velocity)
        else:
            primary_covariance = self.cdm.primary_covariance_rtn
            self.use_slots(*self.propagation.advance(self.cdm.primary_position[None], self.cdm.primary_velocity[None],
                                                     np.array([-self.cdm.tca_s]), start_s=self.cdm.tca_s))
        self.primary_covariance = primary_covariance
        self._bind()

    def _bind(self) -> None:
        """Gather the arrays into the kernels' :class:`SimRows` and :class:`SimSettings` (again
        after :meth:`use_slots` and unpickling)."""
        p, tracking = self.params, self.params.tracking
        kicks = kick_covariance(tracking, p.decision_step_s)
        cdm_covariance = np.zeros((3, 3)) if self.cdm is None else self.cdm.debris_covariance_rtn
        self.settings = SimSettings(
            float(p.decision_step_s), p.n_steps, self.propagation.substeps if self.compiled_propagation else 0,
            float(self.gravity.mu), float(self.gravity.j2_factor), float(p.hard_body_radius_m),
            float(p.delta_v_budget_mps), p.return_steps, float(tracking.update_probability(p.decision_step_s)),
            np.sqrt(np.diag(kicks)), kicks, np.sqrt(np.diag(tracking.measurement_covariance)),
            tracking.measurement_covariance, np.ascontiguousarray(self.primary_covariance, dtype=np.float64),
            self.cdm is not None, cdm_covariance, np.linalg.cholesky(cdm_covariance) if self.cdm else cdm_covariance,
            self.slot_position, self.slot_velocity, *quadrature_nodes(PC_RADIAL_NODES, PC_ANGULAR_NODES),
            quadrature_work_size(PC_RADIAL_NODES, PC_ANGULAR_NODES))
        view = self.view
        self.rows = SimRows(
            self.keys, self.draws, self.step_index, self.primary_position, self.primary_velocity, self.tca,
            self.slot_tca_position, self.slot_tca_velocity, self.true_position, self.true_velocity, self.debris_basis,
            self.debris_mean_motion, self.estimate_position, self.estimate_velocity, self.covariance, self.last_update,
            self.passed, self.pending_step, self.collisions, self.maneuvers, self.delta_v_used, self.min_true_miss,
            self.slot_rows, self.slot_mean_motion, self.return_gain, view["deviation"], view["lead"],
            view["relative_rtn"], view["relative_velocity_rtn"], view["plane_sigmas"], view["pc"])

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["rows"], state["settings"]  # views of the arrays pickled here: gathered again
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind()

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
        #: Each row's return-to-slot gain (B, 3, 3) and whether its return is well posed.
        self.return_gain, self.return_well_posed = rendezvous_gain(self.slot_mean_motion, self.return_duration_s)
        if hasattr(self, "rows"):
            self._bind()

    @property
    def return_duration_s(self) -> float:
        return self.params.return_steps * self.params.decision_step_s

    # ------------------------------------------------------------------ reset
    def reset(self, rows, keys: np.ndarray) -> None:
        """Start new episodes in ``rows`` (indices or a bool mask) with episode ``keys``."""
        rows = np.arange(self.B)[rows]
        if rows.size == 0:
            return
        n = self.n
        keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
        draws = np.empty((DESIGN_DRAWS, rows.size * n))
        normals = np.empty((rows.size, n, 3))
        for i, key in enumerate(keys.tolist()):
            generator = np.random.default_rng(key)
            if self.cdm is None:
                draws[:, i * n:(i + 1) * n] = design_draws(generator, n)
            normals[i] = generator.standard_normal((n, 3))
        if self.cdm is None:
            design = design_from_draws(self.params.scenario, draws)
            tca = design.tca
        else:
            tca = np.full(rows.size * n, self.cdm.tca_s)
        slot_position, slot_velocity = self.slot_states_at(np.repeat(rows, n), tca)
        if self.cdm is None:
            encounter = debris_at_encounter(design, slot_position, slot_velocity, self.gravity.mu)
            debris_position, debris_velocity = encounter.debris_position, encounter.debris_velocity
        else:  # the CDM's object 2, at the CDM's offset from the slot at TCA
            debris_position = slot_position + (self.cdm.debris_position - self.cdm.primary_position)
            debris_velocity = slot_velocity + (self.cdm.debris_velocity - self.cdm.primary_velocity)
        encounters = np.column_stack([tca, slot_position, slot_velocity, debris_position, debris_velocity,
                                      normals.reshape(-1, 3)]).reshape(rows.size, n, -1)
        _start_rows(rows, keys, encounters, self.rows, self.settings)

    def slot_states_at(self, rows: np.ndarray, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Exact states (N, 3) of the slots of ``rows`` (N,) at ``times`` (N,) within the
        episode, propagated from the decision time just before each."""
        before = np.floor(times / self.params.decision_step_s).astype(np.int64)
        slot = self.slot_rows[rows]
        start = before * self.params.decision_step_s
        return self.propagation.advance(self.slot_position[slot, before], self.slot_velocity[slot, before],
                                        times - start, start_s=start)

    # ------------------------------------------------------------------ step
    @property
    def time(self) -> np.ndarray:
        return self.step_index * self.params.decision_step_s

    @property
    def done(self) -> np.ndarray:
        return (self.step_index >= self.params.n_steps) | (self.collisions > 0)

    def check_returns(self, return_to_slot: np.ndarray) -> None:
        """Raise ``ValueError`` where a row orders a return to its slot that CW motion cannot
        solve (``return_steps`` near a whole number of orbits)."""
        singular = np.asarray(return_to_slot, dtype=bool) & ~self.return_well_posed
        if singular.any():
            raise ValueError(singular_rendezvous_message(self.slot_mean_motion[singular], self.return_duration_s))

    def _orders(self, delta_v, return_to_slot) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`step`'s orders as the kernels take them, checked."""
        delta_v = np.ascontiguousarray(delta_v, dtype=np.float64).reshape(self.B, 3)
        if return_to_slot is None:
            return delta_v, np.zeros(self.B, dtype=bool)
        return_to_slot = np.asarray(return_to_slot, dtype=bool)
        self.check_returns(return_to_slot)
        return delta_v, return_to_slot

    def step(self, delta_v: np.ndarray, return_to_slot: np.ndarray | None = None) -> dict:
        """Advance every episode by one decision step (see the module docstring).

        ``delta_v`` (B, 3): the RTN impulse ordered now, m/s (zeros for none);
        ``return_to_slot`` (B,) bool: rows that order a return to the slot instead.
        Returns ``delta_v`` burnt (B,), ``refused`` (B,) bool (a burn beyond the budget, not
        executed), ``collision`` (B,) bool and ``done`` (B,) bool; :attr:`view` then holds the
        agent's view after the step.
        """
        B, n = self.B, self.n
        delta_v, return_to_slot = self._orders(delta_v, return_to_slot)
        burnt, refused, collision = np.empty(B), np.empty(B, dtype=bool), np.empty(B, dtype=bool)
        if self.compiled_propagation:
            def step_rows(start, stop):
                _step_rows(start, stop, delta_v, return_to_slot, self.rows, self.settings, burnt, refused, collision)

            over_row_ranges(step_rows, B, _ROWS_PER_THREAD)
        else:
            in_step = np.empty((B, n), dtype=bool)
            _burn_rows(delta_v, return_to_slot, self.rows, self.settings, burnt, refused, in_step)
            start = self.time
            lead = self.tca - start[:, None]
            position, velocity = self.propagation.advance(
                np.concatenate([self.primary_position, np.repeat(self.primary_position, n, axis=0)]),
                np.concatenate([self.primary_velocity, np.repeat(self.primary_velocity, n, axis=0)]),
                np.concatenate([np.full(B, self.params.decision_step_s), np.where(in_step, lead, 0.0).reshape(-1)]),
                start_s=np.concatenate([start, np.repeat(start, n)]))
            self.primary_position[:], self.primary_velocity[:] = position[:B], velocity[:B]
            _finish_rows(in_step, position[B:].reshape(B, n, 3), velocity[B:].reshape(B, n, 3), self.rows,
                         self.settings, collision)
        return {"delta_v": burnt, "refused": refused, "collision": collision, "done": self.done}

    # ------------------------------------------------------------------ what the agent sees
    def predict(self) -> dict:
        """The agent's view of every encounter, from estimates only (never the truth), computed
        again from the state into :attr:`view` (which it returns): ``deviation`` (B, 6),
        ``lead`` (B, n), ``relative_rtn`` and ``relative_velocity_rtn`` (B, n, 3),
        ``plane_sigmas`` (B, n, 2), ``pc`` (B, n)."""
        over_row_ranges(lambda start, stop: _predict_rows(start, stop, self.rows, self.settings), self.B,
                        _ROWS_PER_THREAD)
        return self.view


# ---------------------------------------------------------------------- a constellation's pairs
@kernel
def _decide_pairs(rows, s, pairs, hit, scratch):
    """True misses of the sibling conjunctions whose TCA fell in the step just taken: both
    satellites propagated back to the TCA; ``hit`` (K,) the satellites that collided."""
    now = rows.step_index[0] * s.decision_step_s
    first, second = scratch.copy_position, scratch.copy_velocity  # (sat_0, partner) positions, velocities
    for j in range(pairs.pair_tca.shape[0]):
        tca = pairs.pair_tca[j]
        if pairs.pair_passed[j] or not tca <= now:
            continue
        partner = pairs.pair_rows[j]
        for side, row in enumerate((0, partner)):
            first[side], second[side] = rows.primary_position[row], rows.primary_velocity[row]
            propagate_object(first[side], second[side], (tca - now) / s.substeps, s.substeps, s.mu, s.j2_factor,
                             scratch.propagation)
        miss = true_miss(vector_of(first[0]), vector_of(second[0]), vector_of(first[1]), vector_of(second[1]))
        crash = miss < s.hard_body_radius
        for row in (0, partner):
            pairs.sibling_min_miss[row] = min(pairs.sibling_min_miss[row], miss)
            pairs.sibling_collisions[row] += crash
            hit[row] |= crash
        pairs.pair_passed[j] = True


@kernel
def _assess_pairs(rows, s, pairs, scratch):
    """Each pair's predicted encounter (:meth:`ConstellationSim.assess_pairs`) into the pair view's
    arrays of ``pairs``."""
    count = pairs.pair_tca.shape[0]
    for j in range(count):
        partner, tca = pairs.pair_rows[j], pairs.pair_tca[j]
        pairs.lead[j] = tca - rows.step_index[0] * s.decision_step_s
        position, velocity = predicted_state(0, pairs.lead[j], vector_of(pairs.slot_position[j]),
                                             vector_of(pairs.slot_velocity[j]), rows, scratch.transition)
        partner_position, partner_velocity = predicted_state(
            partner, tca - rows.step_index[partner] * s.decision_step_s, vector_of(pairs.slot_position[count + j]),
            vector_of(pairs.slot_velocity[count + j]), rows, scratch.transition)
        partner_basis = rtn_basis_of(partner_position, partner_velocity)
        partner_covariance = transform_covariance(matrix_of(s.primary_covariance), partner_basis, True)
        pairs.pc[j] = assess_encounter(position, velocity, partner_position, partner_velocity, partner_covariance,
                                       s.primary_covariance, pairs.pair_passed[j], s, scratch.quadrature,
                                       pairs.relative_rtn[j], pairs.relative_velocity_rtn[j], pairs.plane_sigmas[j])
        # The same relative state seen from the partner: −(its RTN frame) · (sat_0's frame)ᵀ · x.
        basis = rtn_basis_of(position, velocity)
        seen = to_rtn(partner_basis, from_rtn(basis, vector_of(pairs.relative_rtn[j])))
        moving = to_rtn(partner_basis, from_rtn(basis, vector_of(pairs.relative_velocity_rtn[j])))
        for i in range(3):
            pairs.partner_relative_rtn[j, i], pairs.partner_relative_velocity_rtn[j, i] = -seen[i], -moving[i]


@kernel
def _step_constellation(delta_v, return_to_slot, rows, s, pairs, burnt, refused, collision, hit, scratch):
    """Every satellite's step, then the sibling conjunctions inside it and the pairs' view."""
    # np.int64(0), not 0: a literal argument would compile _step_rows a second time, beside the batch's
    _step_rows(np.int64(0), rows.step_index.shape[0], delta_v, return_to_slot, rows, s, burnt, refused, collision)
    _decide_pairs(rows, s, pairs, hit, scratch)
    _assess_pairs(rows, s, pairs, scratch)


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
        if not self.compiled_propagation:
            raise ValueError(f"a constellation's kernels propagate as the numpy backend does, got "
                             f"backend={params.backend!r}")
        self.siblings = siblings
        K = self.B
        pairs = K - 1
        self.pair_rows = np.arange(1, K)
        self.pair_tca = np.zeros(pairs)
        self.pair_passed = np.zeros(pairs, dtype=bool)
        #: The slots at each pair's TCA: sat_0's (pairs), then the partners' (pairs); (2 pairs, 3) each.
        self.slot_at_tca = (np.zeros((2 * pairs, 3)), np.zeros((2 * pairs, 3)))
        self.pair_view = {name: np.zeros((pairs,) + shape) for name, shape in (
            ("relative_rtn", (3,)), ("relative_velocity_rtn", (3,)), ("plane_sigmas", (2,)), ("pc", ()),
            ("lead", ()), ("partner_relative_rtn", (3,)), ("partner_relative_velocity_rtn", (3,)))}
        self.sibling_collisions = np.zeros(K)
        self.sibling_min_miss = np.full(K, np.inf)
        view = self.pair_view
        self._pairs = PairState(
            self.pair_tca, self.pair_passed, self.pair_rows, *self.slot_at_tca, self.sibling_min_miss,
            self.sibling_collisions, view["relative_rtn"], view["relative_velocity_rtn"], view["plane_sigmas"],
            view["pc"], view["lead"], view["partner_relative_rtn"], view["partner_relative_velocity_rtn"])
        # The pairs' kernels' work arrays: copies of both satellites of a pair, a Pc's.
        self._pair_scratch = new_scratch(2, self.settings.quadrature_size)

    def start(self, generator: np.random.Generator) -> None:
        """A new episode of every satellite: slots and sibling encounters, then each row's debris."""
        K = self.B
        slots = generate_conjunctions(self.siblings, generator)
        self.use_slots(np.vstack([slots.primary.position, slots.debris.position]),
                       np.vstack([slots.primary.velocity, slots.debris.velocity]))
        self.reset(np.arange(K), rng.key_from_generator(generator, K))
        self.pair_tca[:] = slots.tca
        both = np.concatenate([np.zeros(K - 1, dtype=np.int64), self.pair_rows])
        self.slot_at_tca[0][:], self.slot_at_tca[1][:] = self.slot_states_at(both, np.tile(slots.tca, 2))
        self.pair_passed[:] = False
        self.sibling_collisions[:] = 0.0
        self.sibling_min_miss[:] = np.inf
        self.assess_pairs()

    def step(self, delta_v: np.ndarray, return_to_slot: np.ndarray | None = None) -> dict:
        """:meth:`CollisionAvoidanceSim.step`, then the sibling conjunctions of the step and the
        pairs' view, in one kernel call (a constellation's few rows are not worth threads):
        ``sibling_collision`` (K,) bool is added to the result."""
        delta_v, return_to_slot = self._orders(delta_v, return_to_slot)
        K = self.B
        burnt, refused, collision = np.empty(K), np.empty(K, dtype=bool), np.empty(K, dtype=bool)
        hit = np.zeros(K, dtype=bool)
        _step_constellation(delta_v, return_to_slot, self.rows, self.settings, self._pairs, burnt, refused, collision,
                            hit, self._pair_scratch)
        return {"delta_v": burnt, "refused": refused, "collision": collision, "done": self.done,
                "sibling_collision": hit}

    def assess_pairs(self) -> dict:
        """Each pair's predicted encounter (CW prediction of both satellites about their slots
        at TCA), seen from sat_0 (``relative_rtn``, ``relative_velocity_rtn``) and from sat_j
        (``partner_...``), its ``lead`` and its Pc with both GNSS covariances (0 once passed),
        into :attr:`pair_view` (which it returns)."""
        _assess_pairs(self.rows, self.settings, self._pairs, self._pair_scratch)
        return self.pair_view

    def pair_pc_per_satellite(self) -> np.ndarray:
        """(K,) the largest Pc of a sibling conjunction each satellite is part of."""
        pc = np.zeros(self.B)
        pc[0] = self.pair_view["pc"].max(initial=0.0)
        pc[self.pair_rows] = self.pair_view["pc"]
        return pc

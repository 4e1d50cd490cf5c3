"""``CollisionAvoidance-v1`` and ``CollisionAvoidanceMO-v1`` in JAX: the simulator of :mod:`.sim`
(the propagator of :mod:`.physics.propagation`, the encounters of :mod:`.generator` and
:mod:`.physics.collision`, the CW prediction of :mod:`.physics.relative_motion`, the tracking of
:mod:`.physics.tracking`) and the task of :mod:`.task` as pure functions of one instance (``jax.vmap``
batches them); see :mod:`envzoo.jax.env` for the API.

Each function here and the compiled function it twins (a change to one is a change to both; the
parity tests name the pair that fails):

| JAX twin (this file) | compiled twin (file: function) |
|---|---|
| ``CollisionAvoidanceJaxEnv.numbers`` | ``sim.py: CollisionAvoidanceSim._bind, task.py: task_settings`` |
| ``CollisionAvoidanceJaxEnv._slot_states_at`` | ``sim.py: CollisionAvoidanceSim.slot_states_at`` |
| ``CollisionAvoidanceJaxEnv.reset_episode`` | ``sim.py: CollisionAvoidanceSim.reset, sim.py: start_row, generator.py: debris_at_encounter_of`` |
| ``CollisionAvoidanceJaxEnv._predict`` | ``sim.py: predict_row`` |
| ``CollisionAvoidanceJaxEnv._orders`` | ``task.py: orders`` |
| ``CollisionAvoidanceJaxEnv._burn`` | ``sim.py: burn_row`` |
| ``CollisionAvoidanceJaxEnv._perturb_and_track`` | ``sim.py: _perturb_and_track`` |
| ``CollisionAvoidanceJaxEnv.transition`` | ``sim.py: step_row, task.py: account_row`` |
| ``CollisionAvoidanceJaxEnv.observe`` | ``task.py: observe_row`` |
| ``CollisionAvoidanceJaxEnv.metrics`` | ``task.py: metrics_row`` |
| ``_einsum_dot`` | ``../core/compiled.py: einsum_dot`` |
| ``_in_sequence`` | ``physics/elements.py: in_sequence3`` |
| ``_norm`` | ``physics/elements.py: norm3`` |
| ``_cross`` | ``physics/elements.py: cross3`` |
| ``_to_rtn`` | ``physics/elements.py: to_rtn`` |
| ``_from_rtn`` | ``physics/elements.py: from_rtn`` |
| ``_matrix_product`` | ``physics/elements.py: matrix_product3`` |
| ``_transform_covariance`` | ``physics/elements.py: transform_covariance`` |
| ``_rtn_basis`` | ``physics/elements.py: rtn_basis_of`` |
| ``_frame_rate`` | ``physics/relative_motion.py: frame_rate_of`` |
| ``_hill_state`` | ``physics/relative_motion.py: hill_state_of`` |
| ``_inertial_state`` | ``physics/relative_motion.py: inertial_state_of`` |
| ``_cw_transition`` | ``physics/relative_motion.py: cw_transition_into`` |
| ``_wrap_angle`` | ``physics/elements.py: wrap_angle`` |
| ``_angle_between`` | ``physics/elements.py: _angle_between`` |
| ``_orbit_elements`` | ``physics/elements.py: orbit_elements_of`` |
| ``_acceleration`` | ``physics/propagation.py: acceleration_of`` |
| ``_modified_midpoint`` | ``physics/propagation.py: _modified_midpoint`` |
| ``_propagate`` | ``physics/propagation.py: propagate_object`` |
| ``_encounter_plane`` | ``physics/collision.py: encounter_plane_of`` |
| ``_plane_sigmas`` | ``physics/tracking.py: plane_sigmas_of`` |
| ``_foster`` | ``physics/collision.py: foster_of`` |
| ``_assess`` | ``sim.py: assess_encounter`` |

(``_rounded`` and ``_divide`` have no twin: they make XLA round and divide as the CPU does, see
below.) The state mirrors :mod:`envzoo.orbital.state`'s ``SimRows`` (:class:`OrbitalState`).

Every formula follows the compiled kernels (``sim.start_row``, ``sim.step_row``,
``task.account_row``, ``task.observe_row``) operation for operation, with their orders of
summation (:func:`_einsum_dot`, :func:`_in_sequence`, numpy's block sum of a Pc ring): the
integrator's order-8 steps and Foster's 16 × 24 nodes are all taken (the nodes as one array).
Foster's underflow skip needs no branch: a node whose exponent is below ``-746`` counts 0, as in
the kernel, and an encounter whose nodes all underflow sums to 0, which is what the kernel's
early exits return. No decision of the core sits on a rounding (a collision is a miss below the
hard-body radius, a tracking update a bit-exact uniform against a probability, an encounter
inside a step a drawn time against whole steps).

XLA rounds differently from the kernels in two ways that matter here. It fuses ``a + b · c``
into one fused multiply-add, and it divides by a constant as a multiplication by its rounded
reciprocal. Each moves a result by an ulp, and an ulp of a position of 7,000 km is a nanometre,
which the simulator turns into 1e-11 of a 100 m miss by subtracting positions (the primary from
its slot, the debris from the primary's prediction): enough to move float32 observations across
a rounding. So the integrator's and the encounter design's products go through
:func:`_rounded` and their divisions through :func:`_divide`; elsewhere an ulp stays an ulp of
a small number. On the CPU in float64 a trajectory then equals the compiled core's to about
1e-15 (the rounding of ``exp``, ``log`` and of the fused products left in small numbers).
:func:`_rounded` needs a zero that XLA cannot see, ``params.zero``: where ``params`` are
arguments of the jitted function (the vector face, the tests) it holds; where they are closed
over as constants XLA folds it and fuses again, which changes nothing but the last bits.

The episode's scenario and first estimate come, as on the CPU, from
``numpy.random.default_rng(episode_key)``: :mod:`envzoo.jax.pcg64` draws the same
numbers on the device (the uniforms bit for bit, the normals to 4e-14). Process noise and
tracking updates come from the counter-based stream of :mod:`envzoo.jax.rng`.

The slot's track (its states at every decision time), its CW rate and its return-to-slot gain
are the same for every episode of a configuration: they are computed once on the host by the
CPU simulator and enter ``params`` as arrays. ``backend="orekit"`` and a ``cdm`` scenario are
refused at construction (Orekit is Java, and a CDM's episode start is not written here); so is a
discrete action space whose return to the slot is singular (the CPU env raises only when the
action is taken, which nothing can do inside ``jit``). A designed debris orbit that is not
bound (the CPU core's ``ValueError`` at reset, for a ``speed_ratio_range`` far from 1) is not
checked here.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from envzoo.jax import pcg64 as jax_pcg64, rng as jax_rng
from envzoo.jax.arithmetic import numpy_sum
from envzoo.jax.env import JaxEnv, Outcome
from envzoo.orbital.params import RETURN_TO_SLOT
from envzoo.orbital.physics.collision import _EXP_UNDERFLOW, quadrature_nodes
from envzoo.orbital.physics.constants import EQUATORIAL_RADIUS
from envzoo.orbital.physics.elements import _SINGULAR_ECCENTRICITY, _SINGULAR_INCLINATION
from envzoo.orbital.physics.propagation import _NEVILLE_RATIOS, _SUBSTEP_SEQUENCE
from envzoo.orbital.physics.tracking import _EPS, _EPS2
from envzoo.orbital.sim import PC_ANGULAR_NODES, PC_RADIAL_NODES, CollisionAvoidanceSim
from envzoo.orbital.task import REWARD_SPACE, CollisionAvoidanceTask, action_space, observation_space, task_settings

_TWO_PI = 2 * np.pi


class OrbitalNumbers(NamedTuple):
    """The numbers of a configuration (:class:`~envzoo.orbital.sim.SimSettings` and
    :class:`~envzoo.orbital.task.TaskSettings`, read with their names, and the ranges the
    encounters are drawn from)."""

    slot_position: Any        # (n_steps + 1, 3) the slot at every decision time
    slot_velocity: Any
    slot_mean_motion: Any     # the CW rate
    return_gain: Any          # (3, 3)
    mu: Any
    j2_factor: Any
    hard_body_radius: Any
    delta_v_budget: Any
    update_probability: Any
    kick_sigma: Any           # (3,)
    kick_covariance: Any      # (3, 3)
    measurement_factor: Any   # (3,)
    measurement_covariance: Any
    primary_covariance: Any   # (3, 3) RTN
    tca_window: Any           # (2,) low, high: the scenario's ranges
    miss_distance_range: Any
    crossing_angle_range: Any
    speed_ratio_range: Any
    discrete_delta_v: Any     # (actions, 3)
    offset: Any               # (columns,) of the observation
    scale: Any
    pc_floor: Any
    pc_threshold: Any
    collision_penalty: Any
    risk_weight: Any
    fuel_weight: Any
    slot_weight: Any
    slot_tolerance: Any
    zero: Any                 # uint64 0, for _rounded


class OrbitalState(NamedTuple):
    """One episode: the arrays of :class:`~envzoo.orbital.state.SimRows` for one row (n debris),
    field for field under the same names (``key`` its ``keys``), less the slot's (``slot_rows``,
    ``slot_mean_motion``, ``return_gain``, here in :class:`OrbitalNumbers`); then the task's
    running outcomes (``max_pc``, ``off_slot_s``). A test checks the fields against ``SimRows``."""

    key: Any
    draws: Any
    step_index: Any
    primary_position: Any
    primary_velocity: Any
    tca: Any                      # (n,)
    slot_tca_position: Any        # (n, 3)
    slot_tca_velocity: Any
    true_position: Any
    true_velocity: Any
    debris_basis: Any             # (n, 3, 3)
    debris_mean_motion: Any       # (n,)
    estimate_position: Any
    estimate_velocity: Any
    covariance: Any               # (n, 3, 3) RTN
    last_update: Any
    passed: Any
    pending_step: Any
    collisions: Any
    maneuvers: Any
    delta_v_used: Any
    min_true_miss: Any
    deviation: Any                # (6,) the view, as SimRows holds it
    lead: Any
    relative_rtn: Any
    relative_velocity_rtn: Any
    plane_sigmas: Any             # (n, 2)
    pc: Any
    max_pc: Any
    off_slot_s: Any


# ---------------------------------------------------------------------- vectors, in the kernels' orders
# 3-vectors are arrays (..., 3), 3×3 matrices (..., 3, 3) with rows as the kernels' tuples.
def _einsum_dot(a, b):
    """:func:`envzoo.core.compiled.einsum_dot` over the last axis (static length): the even and
    odd products in two lanes, eight at a time from the last pair down, then pair by pair."""
    n = a.shape[-1]
    even = odd = None

    def add(total, value):
        return value if total is None else total + value

    k = 0
    while n - k >= 8:
        for pair in range(3, -1, -1):
            even = add(even, a[..., k + 2 * pair] * b[..., k + 2 * pair])
            odd = add(odd, a[..., k + 2 * pair + 1] * b[..., k + 2 * pair + 1])
        k += 8
    while k + 1 < n:
        even = add(even, a[..., k] * b[..., k])
        odd = add(odd, a[..., k + 1] * b[..., k + 1])
        k += 2
    if k < n:
        even = add(even, a[..., k] * b[..., k])
    return even + odd


def _in_sequence(a, b):
    """:func:`envzoo.orbital.physics.elements.in_sequence3`: (a0 b0 + a1 b1) + a2 b2."""
    return (a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]) + a[..., 2] * b[..., 2]


def _norm(v):
    return jnp.sqrt((v[..., 0] * v[..., 0] + v[..., 1] * v[..., 1]) + v[..., 2] * v[..., 2])


def _cross(a, b):
    return jnp.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1], a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                      a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def _to_rtn(basis, v):
    """``basis @ v``, each row in einsum's order."""
    return _einsum_dot(basis, v[..., None, :])


def _from_rtn(basis, v):
    """``basis.T @ v``, each entry in sequence."""
    return _in_sequence(jnp.swapaxes(basis, -1, -2), v[..., None, :])


def _matrix_product(a, b):
    """a @ b of 3×3 matrices, each entry in sequence (:func:`~envzoo.orbital.physics.elements.matrix_product3`)."""
    return _in_sequence(a[..., :, None, :], jnp.swapaxes(b, -1, -2)[..., None, :, :])


def _transform_covariance(covariance, basis, to_inertial: bool):
    """Bᵀ C B (``to_inertial``) or B C Bᵀ, products in the kernels' order."""
    transposed = jnp.swapaxes(basis, -1, -2)
    if to_inertial:
        return _matrix_product(_matrix_product(transposed, covariance), basis)
    return _matrix_product(_matrix_product(basis, covariance), transposed)


def _rtn_basis(position, velocity):
    momentum = _cross(position, velocity)
    radial = position / _norm(position)[..., None]
    normal = momentum / _norm(momentum)[..., None]
    return jnp.stack([radial, _cross(normal, radial), normal], axis=-2)


def _frame_rate(position, velocity):
    return _norm(_cross(position, velocity)) / _einsum_dot(position, position)


def _hill_state(reference_position, reference_velocity, position, velocity):
    """:func:`~envzoo.orbital.physics.relative_motion.hill_state_of`: (ρ, ρ̇) as one (..., 6) array."""
    basis = _rtn_basis(reference_position, reference_velocity)
    rate = _frame_rate(reference_position, reference_velocity)
    rho = _to_rtn(basis, position - reference_position)
    seen = _to_rtn(basis, velocity - reference_velocity)
    rho_dot = jnp.stack([seen[..., 0] - (-rate) * rho[..., 1], seen[..., 1] - rate * rho[..., 0],
                         seen[..., 2] - 0.0], axis=-1)
    return jnp.concatenate([rho, rho_dot], axis=-1)


def _inertial_state(reference_position, reference_velocity, rho, rho_dot):
    """:func:`~envzoo.orbital.physics.relative_motion.inertial_state_of`."""
    basis = _rtn_basis(reference_position, reference_velocity)
    rate = _frame_rate(reference_position, reference_velocity)
    inertial_rate = jnp.stack([rho_dot[..., 0] + (-rate) * rho[..., 1], rho_dot[..., 1] + rate * rho[..., 0],
                               rho_dot[..., 2] + 0.0], axis=-1)
    return reference_position + _from_rtn(basis, rho), reference_velocity + _from_rtn(basis, inertial_rate)


def _cw_transition(n, duration):
    """:func:`~envzoo.orbital.physics.relative_motion.cw_transition_into`: Φ (..., 6, 6)."""
    phase = n * duration
    s, c = jnp.sin(phase), jnp.cos(phase)
    zero, one = jnp.zeros_like(phase), jnp.ones_like(phase)
    rows = [
        [4 - 3 * c, zero, zero, s / n, 2 * (1 - c) / n, zero],
        [6 * (s - phase), one, zero, -2 * (1 - c) / n, (4 * s - 3 * phase) / n, zero],
        [zero, zero, c, zero, zero, s / n],
        [3 * n * s, zero, zero, c, 2 * s, zero],
        [-6 * n * (1 - c), zero, zero, -2 * s, 4 * c - 3, zero],
        [zero, zero, -n * s, zero, zero, c],
    ]
    return jnp.stack([jnp.stack(row, axis=-1) for row in rows], axis=-2)


def _wrap_angle(angle):
    """``np.mod(angle, 2π)`` as :func:`~envzoo.orbital.physics.elements.wrap_angle` takes it."""
    remainder = jnp.fmod(angle, _TWO_PI)
    return jnp.where(remainder == 0.0, 0.0, jnp.where(remainder < 0.0, remainder + _TWO_PI, remainder))


def _angle_between(from_unit, to_vector, normal_unit):
    sine = _einsum_dot(_cross(from_unit, to_vector), normal_unit)
    return _wrap_angle(jnp.arctan2(sine, _einsum_dot(from_unit, to_vector)))


def _orbit_elements(position, velocity, mu):
    """(a, e, i, Ω, ω, ν) of :func:`~envzoo.orbital.physics.elements.orbit_elements_of` for a bound
    orbit with angular momentum (the primary's)."""
    radius = _norm(position)
    speed_sq = _einsum_dot(velocity, velocity)
    momentum = _cross(position, velocity)
    momentum_norm = _norm(momentum)
    energy = speed_sq / 2 - mu / radius
    semi_major_axis = -mu / (2 * energy)
    normal = momentum / momentum_norm
    inclination = jnp.arccos(jnp.clip(normal[2], -1.0, 1.0))
    node = jnp.stack([-momentum[1], momentum[0], 0.0])
    node_norm = _norm(node)
    equatorial = node_norm <= _SINGULAR_INCLINATION * momentum_norm
    node_unit = jnp.where(equatorial, jnp.array([1.0, 0.0, 0.0]), node / jnp.where(equatorial, 1.0, node_norm))
    raan = jnp.where(equatorial, 0.0, _wrap_angle(jnp.arctan2(node_unit[1], node_unit[0])))
    radial_velocity = _einsum_dot(position, velocity)
    energy_term = speed_sq - mu / radius
    eccentricity_vector = (energy_term * position - radial_velocity * velocity) / mu
    eccentricity = _norm(eccentricity_vector)
    circular = eccentricity <= _SINGULAR_ECCENTRICITY
    perigee = jnp.where(circular, 0.0, _angle_between(node_unit, eccentricity_vector, normal))
    anomaly = _wrap_angle(_angle_between(node_unit, position, normal) - perigee)
    return semi_major_axis, jnp.where(circular, 0.0, eccentricity), inclination, raan, perigee, anomaly


# ---------------------------------------------------------------------- propagation
def _rounded(product, zero):
    """``product`` rounded to float64 on its own, never fused into the addition that takes it.

    XLA's CPU backend fuses ``a + b · c`` into one fused multiply-add, rounding once where numba
    rounds twice. Over a position of 7,000 km that moves the sum by an ulp (a nanometre) at
    most of the integrator's additions, and the simulator subtracts such positions from one
    another (the primary from its slot, the debris from the primary): a nanometre in 100 m is
    1e-11 relative, enough to move float32 observations across a rounding. Handing the product
    through its bits, xor'd with a zero that XLA cannot see (``zero``, a number of ``params``),
    makes it a value of its own; neither ``optimization_barrier`` nor a constant zero survives
    XLA's simplifier."""
    return lax.bitcast_convert_type(lax.bitcast_convert_type(product, jnp.uint64) ^ zero, jnp.float64)


def _divide(numerator, denominator):
    """``numerator / denominator``, the IEEE division of the kernels: XLA turns a division by a
    constant into a multiplication by its rounded reciprocal (:func:`envzoo.serverless.jax_core._divide`)."""
    numerator = lax.optimization_barrier(numerator)
    return numerator / (denominator + 0.0 * numerator)


def _acceleration(position, mu, j2_factor, zero):
    """:func:`~envzoo.orbital.physics.propagation.acceleration_of` at positions (..., 3) (J2 always on:
    with ``j2_factor`` 0 its terms vanish exactly)."""
    x, y, z = position[..., 0], position[..., 1], position[..., 2]
    inverse_radius_sq = 1.0 / ((_rounded(x * x, zero) + _rounded(y * y, zero)) + _rounded(z * z, zero))
    central = (-mu * jnp.sqrt(inverse_radius_sq)) * inverse_radius_sq
    j2_scale = j2_factor * inverse_radius_sq
    scale = central * (1 + _rounded(j2_scale * (1 - _rounded(5 * z * z * inverse_radius_sq, zero)), zero))
    return jnp.stack([scale * x, scale * y, _rounded(scale * z, zero) + _rounded((2 * j2_scale * central) * z, zero)],
                     axis=-1)


def _modified_midpoint(position, velocity, start_acceleration, step, substeps, mu, j2_factor, zero):
    """Gragg's rule with ``substeps`` substeps (``propagation._modified_midpoint``) over states
    (..., 3): the position and velocity as one (..., 6) array."""
    h = _divide(step, substeps)[..., None]
    double_h = 2 * h

    def leapfrog(_, points):
        p, v, q, w = points
        return q, w, p + _rounded(double_h * w, zero), v + _rounded(double_h * _acceleration(q, mu, j2_factor, zero),
                                                                     zero)

    p, v, q, w = lax.fori_loop(0, substeps - 1, leapfrog, (position, velocity,
                                                           position + _rounded(h * velocity, zero),
                                                           velocity + _rounded(h * start_acceleration, zero)))
    a = _acceleration(q, mu, j2_factor, zero)
    return jnp.concatenate([(q + p + _rounded(h * w, zero)) / 2, (w + v + _rounded(h * a, zero)) / 2], axis=-1)


def _propagate(position, velocity, step, count: int, mu, j2_factor, zero):
    """:func:`~envzoo.orbital.physics.propagation.propagate_object` of objects (..., 3) each by ``count``
    order-8 steps of its own ``step`` (...,) seconds: Neville's table over the six components."""
    def one_step(_, state):
        position, velocity = state
        start_acceleration = _acceleration(position, mu, j2_factor, zero)
        table = [None] * len(_SUBSTEP_SEQUENCE)
        for row, substeps in enumerate(_SUBSTEP_SEQUENCE):
            finer = _modified_midpoint(position, velocity, start_acceleration, step, substeps, mu, j2_factor, zero)
            for k in range(1, row + 1):
                extrapolated = finer + _divide(finer - table[k - 1], _NEVILLE_RATIOS[row, k])
                table[k - 1] = finer
                finer = extrapolated
            table[row] = finer
        return table[-1][..., :3], table[-1][..., 3:]

    return lax.fori_loop(0, count, one_step, (position, velocity))


# ---------------------------------------------------------------------- encounters
def _encounter_plane(primary_position, relative_velocity):
    """:func:`~envzoo.orbital.physics.collision.encounter_plane_of`: rows (radial, cross, along)."""
    along = relative_velocity / _norm(relative_velocity)[..., None]
    radial_direction = primary_position / _norm(primary_position)[..., None]
    radial = radial_direction - _einsum_dot(radial_direction, along)[..., None] * along
    radial = radial / _norm(radial)[..., None]
    return jnp.stack([radial, _cross(along, radial), along], axis=-2)


def _plane_sigmas(c00, c10, c11):
    """:func:`~envzoo.orbital.physics.tracking.plane_sigmas_of`, both branches taken, one kept."""
    coupled = ((c10 != 0.0) & (jnp.abs(c10) > jnp.sqrt(jnp.abs(c00)) * jnp.sqrt(jnp.abs(c11)) * _EPS)
               & (c10 * c10 > _EPS2 * jnp.abs(c00 * c11)))
    total, difference, twice_off = c00 + c11, jnp.abs(c00 - c11), jnp.abs(c10 + c10)
    larger = jnp.where(jnp.abs(c00) > jnp.abs(c11), c00, c11)
    smaller = jnp.where(jnp.abs(c00) > jnp.abs(c11), c11, c00)
    safe_difference = jnp.where(difference > 0.0, difference, 1.0)
    safe_twice = jnp.where(twice_off > 0.0, twice_off, 1.0)
    root = jnp.where(difference > twice_off,
                     difference * jnp.sqrt(1.0 + (twice_off / safe_difference) * (twice_off / safe_difference)),
                     jnp.where(difference < twice_off,
                               twice_off * jnp.sqrt(1.0 + (difference / safe_twice) * (difference / safe_twice)),
                               twice_off * jnp.sqrt(2.0)))
    off = jnp.sqrt(c10 * c10)
    first = jnp.where(total < 0.0, 0.5 * (total - root), jnp.where(total > 0.0, 0.5 * (total + root), 0.5 * root))
    safe_first = jnp.where(first != 0.0, first, 1.0)
    second = jnp.where(total != 0.0, (larger / safe_first) * smaller - (off / safe_first) * off, -0.5 * root)
    low = jnp.where(coupled, jnp.minimum(first, second), jnp.minimum(c00, c11))
    high = jnp.where(coupled, jnp.maximum(first, second), jnp.maximum(c00, c11))
    return jnp.sqrt(high), jnp.sqrt(low)


_UNIT_NODES, _UNIT_WEIGHTS, _COS_THETA, _SIN_THETA = (np.asarray(a) for a in quadrature_nodes(PC_RADIAL_NODES,
                                                                                               PC_ANGULAR_NODES))


def _foster(miss_radial, miss_cross, c00, c01, c11, radius):
    """:func:`~envzoo.orbital.physics.collision.foster_of` over the (radial, angular) nodes at once."""
    determinant = c00 * c11 - c01 * c01
    inverse_xx, inverse_yy, inverse_xy = c11 / determinant, c00 / determinant, -c01 / determinant
    normalisation = 2 * np.pi * jnp.sqrt(determinant)
    rho = (_UNIT_NODES + 1) / 2 * radius[..., None]                       # (..., radial)
    rho_weights = _UNIT_WEIGHTS / 2 * radius[..., None] * rho
    dx = rho[..., :, None] * _COS_THETA - miss_radial[..., None, None]   # (..., radial, angular)
    dy = rho[..., :, None] * _SIN_THETA - miss_cross[..., None, None]
    quadratic = (inverse_xx[..., None, None] * (dx * dx) + 2 * inverse_xy[..., None, None] * dx * dy
                 + inverse_yy[..., None, None] * (dy * dy))
    exponent = -quadratic / 2
    kept = exponent >= _EXP_UNDERFLOW
    density = jnp.where(kept, jnp.exp(jnp.where(kept, exponent, 0.0)) / normalisation[..., None, None], 0.0)
    angular_sums = numpy_sum(density) * (2 * np.pi / PC_ANGULAR_NODES)
    return _einsum_dot(angular_sums, rho_weights)


def _assess(primary_position, primary_velocity, secondary_position, secondary_velocity, secondary_covariance,
            primary_covariance_rtn, passed, radius):
    """:func:`~envzoo.orbital.sim.assess_encounter` of every encounter (leading axis n): the
    relative state at closest approach in the primary's RTN frame, the plane σ's, the Pc."""
    relative = secondary_position - primary_position
    relative_velocity = secondary_velocity - primary_velocity
    shift = -_einsum_dot(relative, relative_velocity) / _einsum_dot(relative_velocity, relative_velocity)
    relative = relative + shift[..., None] * relative_velocity
    primary_position = primary_position + shift[..., None] * primary_velocity
    basis = _rtn_basis(primary_position, primary_velocity)
    total = secondary_covariance + _transform_covariance(primary_covariance_rtn, basis, True)
    combined = (total + jnp.swapaxes(total, -1, -2)) / 2
    plane = _encounter_plane(primary_position, relative_velocity)
    miss_radial, miss_cross = _einsum_dot(plane[..., 0, :], relative), _einsum_dot(plane[..., 1, :], relative)
    columns = jnp.swapaxes(combined, -1, -2)
    radial = _in_sequence(plane[..., None, 0, :], columns)  # (..., 3): plane row 0 against each column
    cross = _in_sequence(plane[..., None, 1, :], columns)
    c00, c01 = _in_sequence(radial, plane[..., 0, :]), _in_sequence(radial, plane[..., 1, :])
    c10, c11 = _in_sequence(cross, plane[..., 0, :]), _in_sequence(cross, plane[..., 1, :])
    major, minor = _plane_sigmas(c00, c10, c11)
    pc = jnp.where(passed, 0.0, _foster(miss_radial, miss_cross, c00, c01, c11, radius))
    return _to_rtn(basis, relative), _to_rtn(basis, relative_velocity), jnp.stack([major, minor], axis=-1), pc


# ---------------------------------------------------------------------- the env
class CollisionAvoidanceJaxEnv(JaxEnv):
    """The JAX twin of ``CollisionAvoidance-v1`` (same arguments, spaces, rewards, costs,
    metrics) on the numpy backend's model; see the module docstring for what it refuses."""

    task_class = CollisionAvoidanceTask

    def __init__(self, max_episode_steps: int | None = None, **kwargs):
        super().__init__(max_episode_steps, **kwargs)
        p = self.config
        if p.backend != "numpy":
            raise ValueError(f"the JAX core models the numpy backend (two-body + J2), got backend={p.backend!r}: "
                             "use backend='numpy', or the CPU env for Orekit")
        if p.cdm is not None:
            raise ValueError("the JAX core draws synthetic encounters only, got a cdm: use the CPU env for a CDM's "
                             "encounter")
        self.observation_space = observation_space(p)
        self.action_space = action_space(p)
        sim = CollisionAvoidanceSim(p, 1)  # the slot's track, rate and gain, and the kernels' constants
        if p.action_type == "discrete" and not sim.return_well_posed[0]:
            raise ValueError(f"return_steps={p.return_steps} makes the return to the slot singular (a whole "
                             f"number of half orbits): the JAX core cannot refuse the action inside jit; choose "
                             f"another return_steps")
        self._sim = sim
        self.n = p.n_debris
        self.n_steps = p.n_steps
        self.decision_step_s = float(p.decision_step_s)
        self.substeps = sim.settings.substeps
        self.return_steps = p.return_steps

    def numbers(self) -> OrbitalNumbers:
        p, s, sim = self.config, self._sim.settings, self._sim
        t = task_settings(p)
        scenario = p.scenario
        f64 = jnp.float64
        return OrbitalNumbers(
            slot_position=jnp.asarray(sim.slot_position[0]), slot_velocity=jnp.asarray(sim.slot_velocity[0]),
            slot_mean_motion=f64(sim.slot_mean_motion[0]), return_gain=jnp.asarray(sim.return_gain[0]),
            mu=f64(s.mu), j2_factor=f64(s.j2_factor), hard_body_radius=f64(s.hard_body_radius),
            delta_v_budget=f64(s.delta_v_budget), update_probability=f64(s.update_probability),
            kick_sigma=jnp.asarray(s.kick_sigma), kick_covariance=jnp.asarray(s.kick_covariance),
            measurement_factor=jnp.asarray(s.measurement_factor),
            measurement_covariance=jnp.asarray(s.measurement_covariance, dtype=jnp.float64),
            primary_covariance=jnp.asarray(s.primary_covariance),
            tca_window=jnp.asarray(scenario.tca_window, dtype=jnp.float64),
            miss_distance_range=jnp.asarray(scenario.miss_distance_range, dtype=jnp.float64),
            crossing_angle_range=jnp.asarray(scenario.crossing_angle_range, dtype=jnp.float64),
            speed_ratio_range=jnp.asarray(scenario.speed_ratio_range, dtype=jnp.float64),
            discrete_delta_v=jnp.asarray(p.discrete_delta_v()), offset=jnp.asarray(t.offset),
            scale=jnp.asarray(t.scale), pc_floor=f64(t.pc_floor), pc_threshold=f64(t.pc_threshold),
            collision_penalty=f64(t.collision_penalty), risk_weight=f64(t.risk_weight),
            fuel_weight=f64(t.fuel_weight), slot_weight=f64(t.slot_weight), slot_tolerance=f64(t.slot_tolerance),
            zero=jnp.uint64(0))

    # ------------------------------------------------------------------ reset
    def _slot_states_at(self, params: OrbitalNumbers, times):
        """``CollisionAvoidanceSim.slot_states_at``: the slot at ``times`` (n,) within the episode,
        propagated from the decision time before each (every duration under one decision step:
        ``substeps`` order-8 steps)."""
        before = jnp.floor(times / self.decision_step_s).astype(jnp.int64)
        start = before * self.decision_step_s
        return _propagate(params.slot_position[before], params.slot_velocity[before],
                          _divide(times - start, self.substeps), self.substeps, params.mu, params.j2_factor,
                          params.zero)

    def reset_episode(self, episode_key, params: OrbitalNumbers) -> OrbitalState:
        n = self.n
        key = jnp.asarray(episode_key, jnp.uint64)
        # generator.design_draws, then the first estimates' normals, from default_rng(key).
        generator = jax_pcg64.seeded(key)
        generator, uniforms = jax_pcg64.random(generator, 4 * n)
        generator, sides = jax_pcg64.coin_flips(generator, n)
        generator, speed_draws = jax_pcg64.random(generator, n)
        _, normals = jax_pcg64.standard_normal(generator, 3 * n)
        uniforms, normals = uniforms.reshape(4, n), normals.reshape(n, 3)

        def uniform(bounds, u):
            return bounds[0] + (bounds[1] - bounds[0]) * u

        tca = uniform(params.tca_window, uniforms[0])
        miss_distance = uniform(params.miss_distance_range, uniforms[1])
        miss_direction = uniform(jnp.array([0.0, _TWO_PI]), uniforms[2])
        crossing = uniform(params.crossing_angle_range, uniforms[3]) * jnp.where(sides > 0, 1.0, -1.0)
        speed_ratio = uniform(params.speed_ratio_range, speed_draws)
        slot_position, slot_velocity = self._slot_states_at(params, tca)
        # generator.debris_at_encounter_of: the primary's velocity turned about the radial axis.
        miss_radial, miss_cross = miss_distance * jnp.cos(miss_direction), miss_distance * jnp.sin(miss_direction)
        cos_crossing, sin_crossing = jnp.cos(crossing)[:, None], jnp.sin(crossing)[:, None]
        radial_unit = slot_position / _norm(slot_position)[:, None]
        along_axis = _einsum_dot(radial_unit, slot_velocity)[:, None] * radial_unit
        turned = sin_crossing * _cross(radial_unit, slot_velocity)
        unseen = params.zero
        rotated = ((_rounded(cos_crossing * slot_velocity, unseen) + turned)
                   + _rounded((1 - cos_crossing) * along_axis, unseen))
        debris_velocity = speed_ratio[:, None] * rotated
        plane = _encounter_plane(slot_position, debris_velocity - slot_velocity)
        debris_position = ((slot_position + _rounded(miss_radial[:, None] * plane[:, 0], unseen))
                           + _rounded(miss_cross[:, None] * plane[:, 1], unseen))
        # sim.start_row.
        basis = _rtn_basis(debris_position, debris_velocity)
        semi_major_axis = 1.0 / (2.0 / _norm(debris_position)
                                 - _einsum_dot(debris_velocity, debris_velocity) / params.mu)
        error = _from_rtn(basis, params.measurement_factor * normals)
        zero = jnp.float64(0.0)
        state = OrbitalState(
            key=key, draws=jnp.uint64(0), step_index=jnp.int64(0), primary_position=params.slot_position[0],
            primary_velocity=params.slot_velocity[0], tca=tca, slot_tca_position=slot_position,
            slot_tca_velocity=slot_velocity, true_position=debris_position, true_velocity=debris_velocity,
            debris_basis=basis, debris_mean_motion=jnp.sqrt(params.mu / semi_major_axis ** 3.0),
            estimate_position=debris_position + error, estimate_velocity=debris_velocity,
            covariance=jnp.broadcast_to(params.measurement_covariance, (n, 3, 3)), last_update=jnp.zeros(n),
            passed=jnp.zeros(n, dtype=bool), pending_step=jnp.int64(-1), collisions=zero, maneuvers=zero,
            delta_v_used=zero, min_true_miss=jnp.float64(jnp.inf), deviation=jnp.zeros(6), lead=jnp.zeros(n),
            relative_rtn=jnp.zeros((n, 3)), relative_velocity_rtn=jnp.zeros((n, 3)), plane_sigmas=jnp.zeros((n, 2)),
            pc=jnp.zeros(n), max_pc=zero, off_slot_s=zero)
        state = self._predict(state, params)
        return state._replace(max_pc=jnp.max(state.pc))

    # ------------------------------------------------------------------ the view
    def _predict(self, s: OrbitalState, params: OrbitalNumbers) -> OrbitalState:
        """``sim.predict_row``: the deviation from the slot, then each encounter as the CW
        prediction of the primary at its TCA and the estimate see it."""
        deviation = _hill_state(params.slot_position[s.step_index], params.slot_velocity[s.step_index], s.primary_position,
                                s.primary_velocity)
        lead = s.tca - s.step_index * self.decision_step_s
        phi = _cw_transition(params.slot_mean_motion, lead)  # (n, 6, 6)
        carried = _einsum_dot(phi, deviation)
        position, velocity = _inertial_state(s.slot_tca_position, s.slot_tca_velocity, carried[:, :3], carried[:, 3:])
        debris_covariance = _transform_covariance(s.covariance, s.debris_basis, True)
        relative_rtn, relative_velocity_rtn, plane_sigmas, pc = _assess(
            position, velocity, s.estimate_position, s.estimate_velocity, debris_covariance,
            params.primary_covariance, s.passed, params.hard_body_radius)
        return s._replace(deviation=deviation, lead=lead, relative_rtn=relative_rtn,
                          relative_velocity_rtn=relative_velocity_rtn, plane_sigmas=plane_sigmas, pc=pc)

    # ------------------------------------------------------------------ step
    def _orders(self, action, params: OrbitalNumbers):
        """The action as the simulator's orders: the RTN impulse and the return to the slot."""
        if self.config.action_type == "continuous":
            return jnp.asarray(action, jnp.float64).reshape(3), jnp.bool_(False)
        action = jnp.asarray(action, jnp.int64).reshape(())
        return params.discrete_delta_v[action], action == RETURN_TO_SLOT

    def _burn(self, s: OrbitalState, delta_v, return_to_slot, params: OrbitalNumbers):
        """``sim.burn_row``: ``(state, burnt, refused)``."""
        ordered = jnp.any(delta_v != 0.0) | return_to_slot
        due = (s.pending_step == s.step_index) & ~ordered
        pending = jnp.where(ordered | due, -1, s.pending_step)
        deviation = _hill_state(params.slot_position[s.step_index], params.slot_velocity[s.step_index], s.primary_position,
                                s.primary_velocity)
        rho, rho_dot = deviation[:3], deviation[3:]
        returning = _to_rtn(params.return_gain, rho) - rho_dot
        burn = jnp.where(due, -rho_dot, jnp.where(return_to_slot, returning, delta_v))
        pending = jnp.where(return_to_slot & ~due, s.step_index + self.return_steps, pending)
        size = _norm(burn)
        executed = (size > 0.0) & (size <= params.delta_v_budget - s.delta_v_used + 1e-12)
        refused = (size > 0.0) & ~executed
        pending = jnp.where(refused, -1, pending)
        change = _from_rtn(_rtn_basis(s.primary_position, s.primary_velocity), burn)
        s = s._replace(primary_velocity=jnp.where(executed, s.primary_velocity + change, s.primary_velocity),
                       delta_v_used=jnp.where(executed, s.delta_v_used + size, s.delta_v_used),
                       maneuvers=jnp.where(executed, s.maneuvers + 1.0, s.maneuvers), pending_step=pending)
        return s, jnp.where(executed, size, 0.0), refused

    def _perturb_and_track(self, s: OrbitalState, params: OrbitalNumbers) -> OrbitalState:
        """``sim._perturb_and_track``: process noise on the true TCA states ahead (its spread into
        the covariance), then this time's tracking updates; one counter-based draw."""
        time = s.step_index * self.decision_step_s
        seeds = jax_rng.element_seed(s.key, s.draws, jnp.arange(self.n, dtype=jnp.uint64))
        u = jax.vmap(lambda seed: jax_rng.uniform_at(seed, jnp.arange(7, dtype=jnp.uint64)))(seeds)  # (n, 7)
        radius = jnp.sqrt(-2 * jnp.log(u[:, 0:6:2]))
        angle = _TWO_PI * u[:, 1:6:2]
        kick = params.kick_sigma * (radius * jnp.cos(angle))
        phi = _cw_transition(s.debris_mean_motion, jnp.maximum(s.tca - time, 0.0))
        moved = _from_rtn(s.debris_basis, _einsum_dot(phi[:, :3, 3:], kick[:, None, :]))
        turned = _from_rtn(s.debris_basis, _einsum_dot(phi[:, 3:, 3:], kick[:, None, :]))
        spread = _transform_covariance(params.kick_covariance, phi[:, :3, 3:], False)
        ahead = ~s.passed
        true_position = jnp.where(ahead[:, None], s.true_position + moved, s.true_position)
        true_velocity = jnp.where(ahead[:, None], s.true_velocity + turned, s.true_velocity)
        covariance = jnp.where(ahead[:, None, None], s.covariance + spread, s.covariance)
        update = ahead & (u[:, 6] < params.update_probability)
        error = _from_rtn(s.debris_basis, params.measurement_factor * (radius * jnp.sin(angle)))
        return s._replace(
            true_position=true_position, true_velocity=true_velocity,
            estimate_position=jnp.where(update[:, None], true_position + error, s.estimate_position),
            covariance=jnp.where(update[:, None, None], params.measurement_covariance, covariance),
            last_update=jnp.where(update, time, s.last_update), draws=s.draws + jnp.uint64(1))

    def transition(self, state: OrbitalState, action, params: OrbitalNumbers):
        dt, n = self.decision_step_s, self.n
        s, burnt, refused = self._burn(state, *self._orders(action, params), params)
        start = s.step_index * dt
        in_step = ~s.passed & (s.tca - start <= dt)
        # The primary over the step and its copies to the TCAs inside it, as one batch of objects.
        durations = jnp.concatenate([jnp.array([dt]), jnp.where(in_step, s.tca - start, 0.0)])
        position, velocity = _propagate(jnp.broadcast_to(s.primary_position, (n + 1, 3)),
                                        jnp.broadcast_to(s.primary_velocity, (n + 1, 3)),
                                        _divide(durations, self.substeps), self.substeps, params.mu, params.j2_factor,
                                        params.zero)
        # sim._decide_encounters: the true misses of the straight relative motion at the TCAs.
        relative = s.true_position - position[1:]
        relative_velocity = s.true_velocity - velocity[1:]
        shift = -_einsum_dot(relative, relative_velocity) / _einsum_dot(relative_velocity, relative_velocity)
        miss = _norm(relative + shift[:, None] * relative_velocity)
        hits = jnp.sum(in_step & (miss < params.hard_body_radius))
        smallest = jnp.min(jnp.where(in_step, miss, jnp.inf))
        s = s._replace(primary_position=position[0], primary_velocity=velocity[0], step_index=s.step_index + 1,
                       passed=s.passed | in_step, collisions=s.collisions + hits,
                       min_true_miss=jnp.minimum(s.min_true_miss, smallest))
        s = self._predict(self._perturb_and_track(s, params), params)
        # task.account_row.
        decades = jnp.log10(jnp.maximum(s.pc, params.pc_threshold) / params.pc_threshold)
        offset = _norm(s.deviation[:3])
        s = s._replace(max_pc=jnp.maximum(s.max_pc, jnp.max(s.pc)),
                       off_slot_s=jnp.where(offset > params.slot_tolerance, s.off_slot_s + dt, s.off_slot_s))
        collision = hits > 0
        risk = -numpy_sum(decades) - params.collision_penalty * jnp.where(collision, 1.0, 0.0)
        fuel, slot = -burnt, -offset / 1000.0
        if self.vector_reward:
            reward = jnp.stack([risk, fuel, slot])
        else:
            reward = params.risk_weight * risk + params.fuel_weight * fuel + params.slot_weight * slot
        terminated = (s.step_index >= self.n_steps) | (s.collisions > 0)
        return s, Outcome(reward, terminated, burnt)

    # ------------------------------------------------------------------ what the agent sees
    def observe(self, s: OrbitalState, params: OrbitalNumbers):
        """``task.observe_row``: ``OWN_COLUMNS`` then ``DEBRIS_COLUMNS`` per debris, float32."""
        semi_major_axis, eccentricity, inclination, raan, perigee, anomaly = _orbit_elements(
            s.primary_position, s.primary_velocity, params.mu)
        time = s.step_index * self.decision_step_s
        own = jnp.concatenate([
            jnp.stack([(semi_major_axis - EQUATORIAL_RADIUS) / 1000.0, eccentricity, inclination, raan,
                       _wrap_angle(perigee + anomaly)]),
            s.deviation[:3] / 1000.0, s.deviation[3:],
            jnp.stack([params.delta_v_budget - s.delta_v_used, time / 3600.0,
                       jnp.where(s.pending_step >= 0, 1.0, 0.0)])])
        debris = jnp.concatenate([
            s.relative_rtn / 1000.0, s.relative_velocity_rtn / 1000.0, s.plane_sigmas / 1000.0,
            (s.lead / 3600.0)[:, None], jnp.log10(jnp.maximum(s.pc, params.pc_floor))[:, None],
            ((time - s.last_update) / 3600.0)[:, None]], axis=1)
        physical = jnp.concatenate([own, debris.reshape(-1)])
        return ((physical - params.offset) / params.scale).astype(jnp.float32)

    def metrics(self, s: OrbitalState, params: OrbitalNumbers) -> dict:
        return {
            "collisions": s.collisions,
            "min_true_miss_m": jnp.where(jnp.isfinite(s.min_true_miss), s.min_true_miss, -1.0),
            "max_pc": s.max_pc,
            "delta_v_used_mps": s.delta_v_used,
            "maneuvers": s.maneuvers,
            "time_off_slot_h": s.off_slot_s / 3600.0,
        }


class CollisionAvoidanceMOJaxEnv(CollisionAvoidanceJaxEnv):
    """The JAX twin of ``CollisionAvoidanceMO-v1``: the reward is the vector (risk, fuel, slot),
    float64 (the CPU face rounds it to float32)."""

    vector_reward = True
    reward_space = REWARD_SPACE


"""The collision-avoidance simulator's state and constants, by name: the named tuples of arrays
that the compiled kernels (:mod:`envzoo.orbital.sim`, :mod:`envzoo.orbital.task`) take, and that
the JAX twin (:mod:`envzoo.orbital.jax_core`) mirrors for one row.

:class:`SimRows` is every row's state (leading axis B; n = ``n_debris``), :class:`SimSettings`
the constants, :class:`Scratch` one thread's work arrays, :class:`PairState` a constellation's
sibling conjunctions. The kernels unpack nothing: a kernel reads ``rows.tca[b, k]``, and the row's
parts are inlined into the kernels that loop over rows, so that no call hands the arrays on (numba
would count their references). The JAX twin's ``OrbitalState`` holds the fields of
:class:`SimRows` for one row under the same names, less the slot's (``slot_rows``,
``slot_mean_motion``, ``return_gain``: the same for every episode, they are its params), plus the
task's running outcomes (``max_pc``, ``off_slot_s``); a test checks the two agree.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class SimRows(NamedTuple):
    """Every row's state as the kernels take it: the simulator's arrays of the same names (see
    :class:`CollisionAvoidanceSim`), then its view (:meth:`CollisionAvoidanceSim.predict`)."""

    keys: np.ndarray                   # (B,) uint64: each episode's random stream
    draws: np.ndarray                  # (B,) uint64: the stream's draws used so far
    step_index: np.ndarray             # (B,) int64: decision steps taken
    primary_position: np.ndarray       # (B, 3) m, EME2000
    primary_velocity: np.ndarray       # (B, 3) m/s
    tca: np.ndarray                    # (B, n) s since the episode's start
    slot_tca_position: np.ndarray      # (B, n, 3) the slot's exact state at each TCA
    slot_tca_velocity: np.ndarray      # (B, n, 3)
    true_position: np.ndarray          # (B, n, 3) the debris' true state at TCA
    true_velocity: np.ndarray          # (B, n, 3)
    debris_basis: np.ndarray           # (B, n, 3, 3) each debris' RTN frame at TCA
    debris_mean_motion: np.ndarray     # (B, n) rad/s
    estimate_position: np.ndarray      # (B, n, 3) the tracker's estimate at TCA
    estimate_velocity: np.ndarray      # (B, n, 3)
    covariance: np.ndarray             # (B, n, 3, 3) the estimate's position covariance, RTN
    last_update: np.ndarray            # (B, n) s: the estimate's last tracking update
    passed: np.ndarray                 # (B, n) bool: TCA behind
    pending_step: np.ndarray           # (B,) int64: the step of a planned second burn, -1 for none
    collisions: np.ndarray             # (B,) float64 counts
    maneuvers: np.ndarray              # (B,)
    delta_v_used: np.ndarray           # (B,) m/s
    min_true_miss: np.ndarray          # (B,) m, inf until a TCA has passed
    slot_rows: np.ndarray              # (B,) int64: each row's slot in SimSettings.slot_position
    slot_mean_motion: np.ndarray       # (B,) rad/s: the CW rate of the row's slot
    return_gain: np.ndarray            # (B, 3, 3) the return-to-slot gain
    deviation: np.ndarray              # (B, 6) the view: the Hill state relative to the slot
    lead: np.ndarray                   # (B, n) s to each TCA
    relative_rtn: np.ndarray           # (B, n, 3) m: the debris' predicted relative state at TCA, RTN
    relative_velocity_rtn: np.ndarray  # (B, n, 3) m/s
    plane_sigmas: np.ndarray           # (B, n, 2) m: the combined covariance's 1-σ's in the encounter plane
    pc: np.ndarray                     # (B, n) Foster's Pc


class SimSettings(NamedTuple):
    """The constants of the kernels: the parameters they read, the slots' tracks and the Pc's
    quadrature nodes."""

    decision_step_s: float
    n_steps: int
    substeps: int  # order-8 steps of a propagation over at most one decision step
    mu: float
    j2_factor: float
    hard_body_radius: float
    delta_v_budget: float
    return_steps: int
    update_probability: float
    kick_sigma: np.ndarray  # (3,) 1-σ of a step's velocity kick, RTN
    kick_covariance: np.ndarray  # (3, 3)
    measurement_factor: np.ndarray  # (3,) 1-σ of an update's position error, RTN
    measurement_covariance: np.ndarray  # (3, 3)
    primary_covariance: np.ndarray  # (3, 3) the primary's RTN position covariance
    from_cdm: bool  # the estimate at the start is a CDM's, with the covariance and its root below
    cdm_covariance: np.ndarray
    cdm_root: np.ndarray
    slot_position: np.ndarray  # (slots, n_steps + 1, 3)
    slot_velocity: np.ndarray
    unit_nodes: np.ndarray
    unit_weights: np.ndarray
    cos_theta: np.ndarray
    sin_theta: np.ndarray
    quadrature_size: int  # the length of foster_of's work


class Scratch(NamedTuple):
    """Work arrays of one thread's kernel pass."""

    transition: np.ndarray  # (6, 6) a CW transition matrix
    quadrature: np.ndarray  # foster_of's work
    propagation: np.ndarray  # (5, 6) propagate_object's work
    copy_position: np.ndarray  # (n, 3) the primary's copies at the TCAs inside the step
    copy_velocity: np.ndarray
    in_step: np.ndarray  # (n,) bool


class PairState(NamedTuple):
    """A constellation's sibling conjunctions as the kernels take them: the arrays of the same
    names of :class:`ConstellationSim` (``slot_position``, ``slot_velocity``: its
    ``slot_at_tca``), then its ``pair_view``'s."""

    pair_tca: np.ndarray              # (K - 1,) s: pair j is (sat_0, sat_pair_rows[j])
    pair_passed: np.ndarray           # (K - 1,) bool
    pair_rows: np.ndarray             # (K - 1,) int64
    slot_position: np.ndarray         # (2 (K - 1), 3) the slots at each pair's TCA: sat_0's, then the partners'
    slot_velocity: np.ndarray
    sibling_min_miss: np.ndarray      # (K,) m
    sibling_collisions: np.ndarray    # (K,)
    relative_rtn: np.ndarray          # (K - 1, 3), as SimRows' view; the partner's view after pc
    relative_velocity_rtn: np.ndarray
    plane_sigmas: np.ndarray
    pc: np.ndarray
    lead: np.ndarray
    partner_relative_rtn: np.ndarray
    partner_relative_velocity_rtn: np.ndarray

"""Imperfect knowledge of the debris: the true encounter drifts (aleatory), the tracker's
estimate of it is off (epistemic), and its covariance says by how much.

Everything here lives at the debris' time of closest approach (TCA), as in a conjunction data
message: each debris object is described by its state at TCA, in inertial axes, with position
covariances in its RTN frame at TCA.

- Truth (aleatory). The debris' trajectory is perturbed by unmodelled forces (drag, solar
  pressure): at every decision time t before TCA it receives a random velocity increment
  δv ~ N(0, diag(q) · Δt / 1 h) in its RTN frame, q = ``velocity_noise``² (a velocity random
  walk; ``velocity_noise`` is the 1-σ reached after one hour). Its effect on the TCA state
  follows the linear Clohessy–Wiltshire motion over the lead τ = TCA − t
  (:mod:`envzoo.orbital.physics.relative_motion`): δr(TCA) = Φ_rv(τ) δv, δv(TCA) = Φ_vv(τ) δv. The
  along-track part dominates: an impulse δv_T moves the arrival by about −3 δv_T τ.
- Estimate (epistemic). At a tracking update (a CDM), the estimate of the TCA position is the
  truth at that moment plus an error drawn from N(0, P₀), P₀ = diag(``measurement_sigma_m``²)
  (RTN), and the covariance is reset to P₀. Velocities are taken as known (their errors barely
  move the encounter plane).
- Between updates the estimate stays put while the truth keeps drifting, so the covariance of
  estimate − truth grows by Φ_rv(τ) Q Φ_rv(τ)ᵀ at each decision time — exactly the spread of
  the kicks, so the covariance is realistic (whitened errors are standard normal). Future kicks
  (after now, before TCA) are not in it: like a CDM's, the Pc describes today's knowledge.
- Updates arrive at random: each object, at each decision time, gets one with probability
  Δt / ``update_interval_s`` (a Bernoulli approximation of Poisson arrivals with that mean
  interval); every episode starts with one.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.orbital.params import TrackingParams
from envzoo.orbital.physics.relative_motion import cw_transition

_HOUR = 3600.0
# LAPACK's relative machine precision, dlamch('E'), and its square.
_EPS = 2.0**-53
_EPS2 = _EPS * _EPS


def kick_response(mean_motion: np.ndarray, lead: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Φ_rv and Φ_vv (..., 3, 3): the TCA position and velocity change per unit RTN impulse
    given ``lead`` seconds before TCA (blocks of :func:`~envzoo.orbital.physics.relative_motion.cw_transition`,
    as the simulator's kernels take them)."""
    phi = cw_transition(mean_motion, lead)
    return phi[..., :3, 3:], phi[..., 3:, 3:]


def kick_covariance(params: TrackingParams, step_s: float) -> np.ndarray:
    """Covariance (3, 3) of one decision step's velocity increment, RTN, (m/s)²."""
    return np.diag(np.square(params.velocity_noise)) * (step_s / _HOUR)


@kernel
def plane_sigmas_of(c00, c10, c11):
    """Standard deviations (major, minor) along the principal axes of the symmetric 2×2
    covariance [[c00, c10], [c10, c11]] (its lower triangle), with the eigenvalues that numpy's
    ``eigvalsh`` gets from LAPACK (``dsyevd`` → ``dsterf``): the off-diagonal entry is neglected
    where ``dsterf`` finds it negligible, else the 2×2 formula of ``dlae2``. (``dsterf`` first
    scales matrices with entries beyond about 1e-122 … 1e152, far from covariances in m².)"""
    low, high = min(c00, c11), max(c00, c11)
    if c10 != 0.0 and abs(c10) > np.sqrt(abs(c00)) * np.sqrt(abs(c11)) * _EPS and c10 * c10 > _EPS2 * abs(c00 * c11):
        total, difference, twice_off = c00 + c11, abs(c00 - c11), abs(c10 + c10)
        larger, smaller = (c00, c11) if abs(c00) > abs(c11) else (c11, c00)
        if difference > twice_off:
            root = difference * np.sqrt(1.0 + (twice_off / difference) * (twice_off / difference))
        elif difference < twice_off:
            root = twice_off * np.sqrt(1.0 + (difference / twice_off) * (difference / twice_off))
        else:
            root = twice_off * np.sqrt(2.0)
        off = np.sqrt(c10 * c10)
        if total < 0.0:
            first = 0.5 * (total - root)
            second = (larger / first) * smaller - (off / first) * off
        elif total > 0.0:
            first = 0.5 * (total + root)
            second = (larger / first) * smaller - (off / first) * off
        else:
            first, second = 0.5 * root, -0.5 * root
        low, high = min(first, second), max(first, second)
    return np.sqrt(high), np.sqrt(low)


@kernel
def _plane_sigmas(plane_covariance, out):
    for i in range(plane_covariance.shape[0]):
        out[i, 0], out[i, 1] = plane_sigmas_of(plane_covariance[i, 0, 0], plane_covariance[i, 1, 0],
                                               plane_covariance[i, 1, 1])


def plane_sigmas(plane_covariance: np.ndarray) -> np.ndarray:
    """Standard deviations (N, 2) along the principal axes of 2×2 covariances, largest first."""
    plane_covariance = np.ascontiguousarray(plane_covariance, dtype=np.float64)
    out = np.empty(plane_covariance.shape[:-2] + (2,))
    _plane_sigmas(plane_covariance.reshape(-1, 2, 2), out.reshape(-1, 2))
    return out

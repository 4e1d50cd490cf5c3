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
  (:mod:`envzoo.orbital.relative_motion`): δr(TCA) = Φ_rv(τ) δv, δv(TCA) = Φ_vv(τ) δv. The
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

from envzoo.orbital.params import TrackingParams
from envzoo.orbital.relative_motion import cw_transition

_HOUR = 3600.0


def kick_response(mean_motion: np.ndarray, lead: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Φ_rv and Φ_vv (..., 3, 3): the TCA position and velocity change per unit RTN impulse
    given ``lead`` seconds before TCA."""
    phi = cw_transition(mean_motion, lead)
    return phi[..., :3, 3:], phi[..., 3:, 3:]


def kick_covariance(params: TrackingParams, step_s: float) -> np.ndarray:
    """Covariance (3, 3) of one decision step's velocity increment, RTN, (m/s)²."""
    return np.diag(np.square(params.velocity_noise)) * (step_s / _HOUR)


def plane_sigmas(plane_covariance: np.ndarray) -> np.ndarray:
    """Standard deviations (N, 2) along the principal axes of 2×2 covariances, largest first."""
    return np.sqrt(np.linalg.eigvalsh(plane_covariance)[..., ::-1])

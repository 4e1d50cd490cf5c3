"""The swarm-robotics literature's controllers as functions of what a robot observes (its own
state and its graphon mean field), vectorised over any leading axes: the reference policies
(:mod:`envzoo.swarm.policies`) and the population of the representative-agent face use them.

Each returns the control in [-1, 1]^2 (per axis, clipped), in units of ``max_speed``
(single integrator) or ``max_accel`` (double integrator); ``xp=jax.numpy`` runs it in the JAX
core.
"""

from __future__ import annotations

import numpy as np

from envzoo.swarm.params import SwarmParams
from envzoo.swarm.sim import DEGREE, DIRECTIONS, DVX, DVY, DX, DY, SEP_X, SEP_Y

#: The robot's own state at the head of its observation, in order.
OWN = ("type", "x", "y", "vx", "vy")


def linear_consensus(own, field, params: SwarmParams, gain: float = 4.0, separation: float = 0.0, xp=np):
    """Consensus averaging (Olfati-Saber & Murray 2004) on the graphon graph: the velocity
    ``gain · (1/N) Σ_j W_ij (p_j − p_i)`` (single integrator); under the double integrator the
    acceleration that tracks it, ``gain · (that velocity − v_i)``. With ``separation`` > 0 it
    adds the neighbours' footprint repulsion (as :func:`reynolds_flocking`), so the robots
    gather without touching (no longer linear)."""
    degree = xp.maximum(field[..., DEGREE:DEGREE + 1], 1e-9)
    command = gain * field[..., [DX, DY]]
    if separation:
        command = command + separation * params.max_speed * field[..., [SEP_X, SEP_Y]] / (
            params.sensing_radius * degree)
    if params.dynamics == "double":
        return xp.clip(gain * (command - own[..., 3:5]) / params.max_accel, -1.0, 1.0)
    return xp.clip(command / params.max_speed, -1.0, 1.0)


def reynolds_flocking(own, field, params: SwarmParams, alignment: float = 3.0, cohesion: float = 1.0,
                      separation: float = 0.5, cruise: float = 0.5, wall: float = 2.0, xp=np):
    """Reynolds' boids (1987) as graphon-weighted consensus terms (Olfati-Saber 2006):
    alignment with the neighbours' velocities, cohesion toward their positions, separation by
    their Gaussian footprints, a cruise term that holds the speed near ``cruise · max_speed``
    (so the flock moves) and Reynolds' obstacle avoidance of the walls (:func:`wall_push`); an
    acceleration (a velocity under the single integrator)."""
    sigma2 = params.sensing_radius ** 2
    degree = xp.maximum(field[..., DEGREE:DEGREE + 1], 1e-9)
    velocity = own[..., 3:5]
    accel = (alignment * field[..., [DVX, DVY]] + cohesion * field[..., [DX, DY]]
             + separation * field[..., [SEP_X, SEP_Y]] / (sigma2 * degree))
    speed = xp.sqrt(velocity[..., :1] ** 2 + velocity[..., 1:] ** 2)
    heading = velocity / xp.maximum(speed, 1e-9)
    accel = accel + (cruise * params.max_speed - speed) * heading + wall * params.max_speed * wall_push(own, params, xp)
    if params.dynamics == "double":
        return xp.clip(accel / params.max_accel, -1.0, 1.0)
    return xp.clip((velocity + accel) / params.max_speed, -1.0, 1.0)


def potential_field_coverage(own, field, params: SwarmParams, gain: float = 1.0, wall: float = 0.5, xp=np):
    """Potential-field deployment (Howard, Matarić & Sukhatme 2002): each robot is pushed away
    from the others' footprints (the graphon-weighted separation, normalised by its degree) and
    from the arena's walls (an exponential potential of length σ); a velocity (the acceleration
    tracking it under the double integrator)."""
    sigma = params.sensing_radius
    degree = xp.maximum(field[..., DEGREE:DEGREE + 1], 1e-9)
    push = field[..., [SEP_X, SEP_Y]] / (sigma * degree)
    command = params.max_speed * (gain * push + wall * wall_push(own, params, xp))
    if params.dynamics == "double":
        return xp.clip(4.0 * (command - own[..., 3:5]) / params.max_accel, -1.0, 1.0)
    return xp.clip(command / params.max_speed, -1.0, 1.0)


def wall_push(own, params: SwarmParams, xp=np):
    """Away from the walls, per axis: the gradient of an exponential potential of length σ,
    1 at a wall, e^-1 at σ from it."""
    position, sigma = own[..., 1:3], params.sensing_radius
    return xp.exp(-(params.arena + position) / sigma) - xp.exp(-(params.arena - position) / sigma)


REFERENCE = {"rendezvous": linear_consensus, "flocking": reynolds_flocking, "coverage": potential_field_coverage}


def reference_control(own, field, params: SwarmParams, xp=np):
    """The scenario's reference controller (:data:`REFERENCE`) at its default gains."""
    return REFERENCE[params.scenario](own, field, params, xp=xp)


def nearest_direction(control) -> np.ndarray:
    """The discrete action (index into :data:`~envzoo.swarm.sim.DIRECTIONS`) closest to each
    continuous control (..., 2); stay where the control is under half a unit."""
    distance = ((np.asarray(control)[..., None, :] - DIRECTIONS) ** 2).sum(-1)
    return np.argmin(distance, axis=-1)


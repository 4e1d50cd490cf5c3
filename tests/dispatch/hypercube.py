"""Test oracles written from the textbook formulas, independent of the simulator: Larson's
hypercube queueing model (exact, loss system, small fleets) and the Erlang loss formula."""

from __future__ import annotations

import math

import numpy as np


def erlang_b(servers: int, offered_load: float) -> float:
    """The Erlang loss formula: the share of calls that find all ``servers`` busy."""
    terms = [offered_load ** k / math.factorial(k) for k in range(servers + 1)]
    return terms[-1] / sum(terms)


def hypercube_loss(rates: np.ndarray, preferences: np.ndarray, service_rate: float) -> np.ndarray:
    """Stationary probabilities of Larson's hypercube model without a queue: N units, each free
    or busy (state bit i set: unit i busy); calls of atom j arrive at ``rates[j]`` and take the
    first free unit of ``preferences[j]`` (a permutation of the units), or are lost when none is
    free; every busy unit frees at ``service_rate``. Returns pi over the 2**N states."""
    n_units = preferences.shape[1]
    states = 2 ** n_units
    generator = np.zeros((states, states))
    for state in range(states):
        for rate, order in zip(rates, preferences):
            free = [unit for unit in order if not state >> unit & 1]
            if free:
                generator[state, state | 1 << free[0]] += rate
        for unit in range(n_units):
            if state >> unit & 1:
                generator[state, state & ~(1 << unit)] += service_rate
    np.fill_diagonal(generator, -generator.sum(axis=1))
    # pi Q = 0 with sum(pi) = 1: replace one balance equation by the normalisation.
    system = np.vstack([generator.T[:-1], np.ones(states)])
    right = np.zeros(states)
    right[-1] = 1.0
    return np.linalg.solve(system, right)


def busy_fractions(pi: np.ndarray, n_units: int) -> np.ndarray:
    """Each unit's long-run busy share under ``pi``."""
    states = np.arange(pi.size)
    return np.array([pi[(states >> unit & 1) == 1].sum() for unit in range(n_units)])


def mean_travel_of_served(pi: np.ndarray, rates: np.ndarray, preferences: np.ndarray, travel: np.ndarray,
                          atoms: np.ndarray) -> float:
    """The mean travel time of the served calls from ``atoms`` (indices), where ``travel[j, i]`` is
    unit i's travel time to atom j: by PASTA, a call sees the stationary state."""
    total = weight = 0.0
    for state, probability in enumerate(pi):
        for j in atoms:
            free = [unit for unit in preferences[j] if not state >> unit & 1]
            if free:
                total += probability * rates[j] * travel[j, free[0]]
                weight += probability * rates[j]
    return total / weight

"""Offline reinforcement learning with a discrete action, in PyTorch (the ``train`` extra): fitted
Q iteration, conservative Q-learning and fitted Q evaluation, from logged transitions alone.

All three fit a Q network (an MLP of the standardised features) in rounds: each round freezes the
current network, computes the regression targets ``reward + gamma * continues * V(next)`` and
fits the network to them by minibatch gradient steps. They differ in ``V`` and the loss:

- :func:`fitted_q_iteration` (Ernst et al. 2005; Riedmiller 2005): ``V(s') = max_a Q(s', a)``.
- :func:`conservative_q` (CQL(H), Kumar et al. 2020, discrete actions, in this fitted form): the
  same targets, plus ``alpha * (logsumexp_a Q(s, a) - Q(s, a_logged))``, which pushes down the
  values of actions the data does not support, so the greedy policy stays near the data.
- :func:`fitted_q_evaluation` (Le et al. 2019): ``V(s') = sum_a pi(a | s') Q(s', a)`` for a
  given target policy ``pi``: its value, for off-policy evaluation.

``transitions`` is a dict of arrays: ``features`` and ``next_features`` (N, F), ``action`` (N,)
integers, ``reward`` (N,) and ``continues`` (N,): 0 where the transition ended the trajectory.
Torch is imported when a function runs, so that importing this module needs numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envzoo.core.extras import require


class QFunction:
    """A trained Q network as a numpy function: ``q(features (..., F)) -> (..., A)``."""

    def __init__(self, network, mean: np.ndarray, scale: np.ndarray):
        self.network, self.mean, self.scale = network, mean, scale

    def __call__(self, features: np.ndarray) -> np.ndarray:
        import torch

        features = np.asarray(features, dtype=np.float64)
        flat = ((features.reshape(-1, features.shape[-1]) - self.mean) / self.scale).astype(np.float32)
        with torch.no_grad():
            values = self.network(torch.from_numpy(flat)).numpy().astype(np.float64)
        return values.reshape(features.shape[:-1] + (values.shape[-1],))


def _check(transitions: dict, actions: int) -> None:
    needed = ("features", "action", "reward", "continues", "next_features")
    missing = [name for name in needed if name not in transitions]
    if missing:
        raise ValueError(f"transitions lack {missing}; they need {list(needed)}")
    action = np.asarray(transitions["action"])
    if action.size and (action.min() < 0 or action.max() >= actions):
        raise ValueError(f"transitions' actions must lie in 0 .. {actions - 1}, got {action.min()} .. {action.max()}")


@dataclass(frozen=True)
class Training:
    """How the networks are fitted: ``rounds`` of targets, ``steps`` Adam steps of ``batch_size``
    transitions per round, hidden layers of ``hidden`` units, seeded by ``seed``. Each round is one
    Bellman backup, so ``rounds`` bounds the horizon the values see: with gamma = 0.9, 30 rounds
    leave out 0.9^30 = 4 % of a long-lived value."""

    rounds: int = 30
    steps: int = 50
    batch_size: int = 512
    hidden: int = 64
    learning_rate: float = 3e-3
    seed: int = 0


def _fit(transitions: dict, actions: int, next_value, alpha: float, gamma: float, training: Training) -> QFunction:
    torch = require("train", "torch")
    _check(transitions, actions)
    if not 0.0 <= gamma < 1.0:
        raise ValueError(f"gamma must lie in [0, 1), got {gamma!r}")
    torch.manual_seed(training.seed)
    features = np.asarray(transitions["features"], dtype=np.float64)
    mean, scale = features.mean(axis=0), features.std(axis=0) + 1e-6
    hidden = training.hidden
    network = torch.nn.Sequential(torch.nn.Linear(features.shape[1], hidden), torch.nn.ReLU(),
                                  torch.nn.Linear(hidden, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, actions))
    q = QFunction(network, mean, scale)
    inputs = torch.from_numpy(((features - mean) / scale).astype(np.float32))
    action = torch.from_numpy(np.asarray(transitions["action"], dtype=np.int64))
    reward = np.asarray(transitions["reward"], dtype=np.float64)
    continues = np.asarray(transitions["continues"], dtype=np.float64)
    next_features = np.asarray(transitions["next_features"], dtype=np.float64)
    optimiser = torch.optim.Adam(network.parameters(), lr=training.learning_rate)
    generator = torch.Generator().manual_seed(training.seed)
    batch = min(training.batch_size, len(inputs))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a network this small runs 10-20x slower on threads that share busy cores
    try:
        for _ in range(training.rounds):
            target = torch.from_numpy((reward + gamma * continues * next_value(q, next_features)).astype(np.float32))
            for _ in range(training.steps):
                rows = torch.randint(len(inputs), (batch,), generator=generator)
                values = network(inputs[rows])
                chosen = values.gather(1, action[rows, None])[:, 0]
                loss = torch.nn.functional.mse_loss(chosen, target[rows])
                if alpha:
                    loss = loss + alpha * (torch.logsumexp(values, dim=1) - chosen).mean()
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
    finally:
        torch.set_num_threads(threads)
    return q


def _greedy_value(q: QFunction, features: np.ndarray) -> np.ndarray:
    return q(features).max(axis=1)


def fitted_q_iteration(transitions: dict, actions: int, gamma: float = 0.9,
                       training: Training = Training()) -> QFunction:
    """The optimal Q of the data's MDP by fitted Q iteration (see the module docstring)."""
    return _fit(transitions, actions, _greedy_value, 0.0, gamma, training)


def conservative_q(transitions: dict, actions: int, alpha: float = 0.5, gamma: float = 0.9,
                   training: Training = Training()) -> QFunction:
    """CQL(H) in fitted form with penalty weight ``alpha`` > 0 (see the module docstring)."""
    if not alpha > 0:
        raise ValueError(f"alpha must be > 0 (alpha = 0 is fitted_q_iteration), got {alpha!r}")
    return _fit(transitions, actions, _greedy_value, alpha, gamma, training)


def fitted_q_evaluation(transitions: dict, actions: int, target_probabilities, gamma: float = 0.9,
                        training: Training = Training()) -> QFunction:
    """The Q of the target policy ``target_probabilities(features (N, F)) -> (N, A)``."""

    def expected_value(q, features):
        return (target_probabilities(features) * q(features)).sum(axis=1)

    return _fit(transitions, actions, expected_value, 0.0, gamma, training)

"""Reference learners: UCBVI (optimistic backward induction on the empirical model, Azar et al.
2017, with Hoeffding bonuses) whose reward means come from one of several estimators, and their
differentially private versions.

Estimators of a pair's mean reward from its n rewards (``v``: the moment order, ``u``: a bound
on E|r|^(1+v), ``delta``: the confidence):

- ``empirical``: the sample mean with a sub-Gaussian bonus sqrt(2 log(1/delta) / n): what
  UCBVI assumes, and what heavy tails break.
- ``truncated``: Bubeck, Cesa-Bianchi & Lugosi's (2013) truncated mean (the i-th reward kept
  where |r_i| <= (u i / log(1/delta))^(1/(1+v))), bonus 4 u^(1/(1+v)) (log(1/delta)/n)^(v/(1+v)).
- ``median-of-means``: the median of k = min(8 log(1/delta), n/2) group means, bonus
  (12 u)^(1/(1+v)) (16 log(1/delta)/n)^(v/(1+v)).

Privacy, for a budget ``epsilon`` (rewards are clipped to [-B, B] first, B balancing the
clipping bias u B^-v against the privacy noise at K samples):

- ``ldp`` (local DP): each user adds Laplace(2B / epsilon) to its clipped reward before the
  learner sees it; the learner averages the privatized rewards.
- ``jdp`` (joint DP): the learner keeps each pair's sum of clipped rewards and its count as
  streams released through the binary (tree) mechanism (Chan, Shi & Song 2011; Dwork et al.
  2010): every dyadic block of a stream carries Laplace((levels) x sensitivity / epsilon).

:func:`run_learner` runs one on an env for K episodes and returns the regret of every episode
read off the env's regret meter (``info["metrics"]["episode_regret"]``).
"""

from __future__ import annotations

import math

import numpy as np

ESTIMATORS = ("empirical", "truncated", "median-of-means")
PRIVACY = (None, "ldp", "jdp")


def absolute_moment(params, samples: int = 200_000) -> float:
    """u: a bound on E|r|^(1+v) of every reward, 2^v (1 + E|noise|^(1+v)) (rewards' means lie
    in [0, 1]); the noise's moment in closed form (Student-t) or by the quantile integral."""
    p, alpha, scale = 1.0 + params.v, 1.0 + params.v + 0.1, params.noise_scale
    if params.noise == "student-t":
        moment = (alpha ** (p / 2) * math.gamma((p + 1) / 2) * math.gamma((alpha - p) / 2)
                  / (math.sqrt(math.pi) * math.gamma(alpha / 2)))
    else:
        # E|Q(U)|^p with U = exp(-t): the integrand decays like exp(-t (1 - p / alpha)).
        # In logs: Q = U^(-1/alpha) - m = exp(t / alpha) (1 - m exp(-t / alpha)).
        t = np.linspace(0.0, 60.0 / (1.0 - p / alpha), samples)
        shift = alpha / (alpha - 1.0) if params.noise == "pareto" else 1.0
        with np.errstate(divide="ignore"):
            log_quantile = t / alpha + np.log(np.abs(1.0 - shift * np.exp(-t / alpha)))
        moment = np.trapezoid(np.exp(p * log_quantile - t), t)
    return 2.0 ** params.v * (1.0 + scale ** p * moment)


class BinaryMechanism:
    """Prefix sums of many streams (one per index) released with the binary mechanism: the sum
    of the first t items is the sum of at most ``levels`` dyadic blocks, each with its own
    Laplace(levels x sensitivity / epsilon) noise drawn once."""

    def __init__(self, streams: int, length: int, sensitivity: float, epsilon: float, generator):
        self.levels = max(int(math.ceil(math.log2(max(length, 2)))) + 1, 1)
        self.scale = self.levels * sensitivity / epsilon
        self.generator = generator
        self.noise = [dict() for _ in range(streams)]

    def noisy_prefix(self, stream: int, t: int, exact: float) -> float:
        """The released sum of stream ``stream``'s first ``t`` items whose exact sum is ``exact``."""
        total, start, blocks = exact, 0, self.noise[stream]
        for level in range(self.levels - 1, -1, -1):
            if t - start >= 1 << level:
                key = (level, start >> level)
                if key not in blocks:
                    blocks[key] = self.generator.laplace(0.0, self.scale)
                total += blocks[key]
                start += 1 << level
        return total


class UCBVI:
    """UCBVI over a known horizon with the chosen reward ``estimator`` and ``privacy``.

    Args:
        params: the env's parameters (sizes, horizon, v; the learner never reads P or R).
        episodes: K, the episodes it will run (for the confidence level and the clipping).
        estimator: one of :data:`ESTIMATORS`; privacy: None, ``"ldp"`` or ``"jdp"`` (over the
            clipped mean); epsilon: the privacy budget.
        bonus_scale: a factor on the bonuses (the transition bonus H sqrt(log(SAKH/delta) / n)
            and the estimator's): the theory's constants explore for longer than a lesson lasts.
    """

    def __init__(self, params, episodes: int, estimator: str = "truncated", privacy: str | None = None,
                 epsilon: float = 1.0, delta: float = 0.05, bonus_scale: float = 0.1, seed: int = 0):
        if estimator not in ESTIMATORS:
            raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}")
        if privacy not in PRIVACY:
            raise ValueError(f"privacy must be one of {PRIVACY}, got {privacy!r}")
        S, A, H = params.states, params.actions, params.horizon
        self.S, self.A, self.H, self.v = S, A, H, params.v
        self.estimator, self.privacy, self.epsilon = estimator, privacy, epsilon
        self.log = math.log(S * A * episodes * H / delta)
        self.u = absolute_moment(params)
        self.bonus_scale = bonus_scale
        self.generator = np.random.default_rng(seed)
        self.counts = np.zeros((S, A, S))
        self.rewards = [[[] for _ in range(A)] for _ in range(S)]
        self.means, self.reward_bonus = np.zeros((S, A)), np.full((S, A), np.inf)
        # Clipping for the private versions: bias u B^-v against the privacy noise B / (eps sqrt(K)).
        self.clip = (self.u * epsilon * math.sqrt(episodes)) ** (1.0 / (1.0 + self.v))
        if privacy == "jdp":
            self.sums = BinaryMechanism(S * A, episodes * H, self.clip, epsilon, self.generator)
            self.tallies = BinaryMechanism(S * A, episodes * H, 1.0, epsilon, self.generator)
        self.plan()

    # ------------------------------------------------------------------ estimates
    def observe(self, state: int, action: int, reward: float, next_state: int) -> None:
        if self.privacy == "ldp":   # the user privatizes before the learner sees it
            reward = float(np.clip(reward, -self.clip, self.clip)) + self.generator.laplace(0, 2 * self.clip /
                                                                                         self.epsilon)
        self.counts[state, action, next_state] += 1
        self.rewards[state][action].append(reward)
        self.means[state, action], self.reward_bonus[state, action] = self.estimate(state, action)

    def estimate(self, state: int, action: int) -> tuple[float, float]:
        x = np.asarray(self.rewards[state][action])
        n, v, u, log = x.size, self.v, self.u, self.log
        if self.privacy == "ldp":
            b = self.clip
            return float(x.mean()), (u * b ** -v + (2 * math.sqrt(2) * b / self.epsilon + b) * math.sqrt(log / n))
        if self.privacy == "jdp":
            b, stream = self.clip, state * self.A + action
            total = self.sums.noisy_prefix(stream, n, float(np.clip(x, -b, b).sum()))
            count = max(self.tallies.noisy_prefix(stream, n, float(n)), 1.0)
            privacy_error = self.sums.scale * math.sqrt(self.sums.levels) * log
            return total / count, u * b ** -v + b * math.sqrt(2 * log / n) + privacy_error * (1 + b) / count
        if self.estimator == "empirical":
            return float(x.mean()), math.sqrt(2 * log / n)
        if self.estimator == "truncated":
            keep = np.abs(x) <= (u * np.arange(1, n + 1) / log) ** (1.0 / (1.0 + v))
            return float(np.where(keep, x, 0.0).sum() / n), 4 * u ** (1 / (1 + v)) * (log / n) ** (v / (1 + v))
        groups = int(max(1, min(8 * log, n // 2)))
        means = [chunk.mean() for chunk in np.array_split(x[: n - n % groups], groups)] if n >= 2 else [x.mean()]
        return float(np.median(means)), (12 * u) ** (1 / (1 + v)) * (16 * log / n) ** (v / (1 + v))

    # ------------------------------------------------------------------ planning
    def plan(self) -> None:
        """The optimistic Q (H, S, A) by backward induction on the empirical model."""
        visits = self.counts.sum(axis=2)
        seen = visits > 0
        P = np.where(seen[..., None], self.counts / np.maximum(visits, 1)[..., None], 1.0 / self.S)
        bonus = self.bonus_scale * self.H * np.sqrt(self.log / np.maximum(visits, 1))
        optimistic_reward = np.where(seen, self.means + self.bonus_scale * self.reward_bonus, np.inf)
        V = np.zeros(self.S)
        self.q = np.zeros((self.H, self.S, self.A))
        for h in range(self.H - 1, -1, -1):
            q = np.minimum(optimistic_reward + P @ V + bonus, self.H - h)
            self.q[h] = q
            V = q.max(axis=1)

    def act(self, state: int, h: int) -> int:
        q = self.q[h, state]
        best = np.flatnonzero(q == q.max())
        return int(best[0] if best.size == 1 else best[self.generator.integers(best.size)])


def run_learner(env, episodes: int, seed: int = 0, **learner_args) -> np.ndarray:
    """The regret of each of ``episodes`` episodes of a :class:`UCBVI` on ``env`` (from the env's
    regret meter), planning anew after every episode."""
    learner = UCBVI(env.unwrapped.params, episodes, seed=seed, **learner_args)
    regrets = np.zeros(episodes)
    for k in range(episodes):
        (state, h), info = env.reset(seed=seed * 1_000_003 + k)
        done = False
        while not done:
            action = learner.act(state, h)
            (next_state, h), reward, terminated, truncated, info = env.step(action)
            learner.observe(state, action, reward, next_state)
            state, done = next_state, terminated or truncated
        regrets[k] = info["metrics"]["episode_regret"]
        learner.plan()
    return regrets

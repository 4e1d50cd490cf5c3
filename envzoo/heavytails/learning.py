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

The learner is batched: it runs ``rows`` independent copies (one per seed) with array
operations, each row with its own counts, estimates and plan. :func:`regret_curves` runs it on
as many rows of the env's simulator for K episodes and returns the regret of every episode of
every seed read off the simulator's regret meter (the summed action gaps, whose expectation is
exactly V* - V^pi); :func:`run_learner` runs one row on an env through its Gymnasium face.

Median of means is kept as a stream: the i-th reward of a pair joins group i mod k, k =
ceil(8 log(1/delta)) groups, and the estimate is the median of the non-empty groups' means.
"""

from __future__ import annotations

import math

import numpy as np

from envzoo.heavytails.sim import HeavyTailSim

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
    """Prefix sums of many streams released with the binary (tree) mechanism, as the streams
    grow one item at a time: the sum of the first t items of a stream is its exact sum plus
    one Laplace(levels x sensitivity / epsilon) noise per set bit of t, the noise of a dyadic
    block drawn once when the block is first completed. ``noise[stream, level]`` holds the noise
    of the block the prefix uses at that level (0 where t has no such bit)."""

    def __init__(self, streams: int, length: int, sensitivity: float, epsilon: float, generator):
        self.levels = max(int(math.ceil(math.log2(max(length, 2)))) + 1, 1)
        self.scale = self.levels * sensitivity / epsilon
        self.generator = generator
        self.noise = np.zeros((streams, self.levels))

    def advance(self, streams: np.ndarray, counts: np.ndarray) -> None:
        """Stream ``streams[i]`` (distinct) has reached ``counts[i]`` items: the blocks below the
        lowest set bit of the count merge into one block at that bit, with fresh noise."""
        counts = counts.astype(np.int64)
        lowest = np.log2(counts & -counts).round().astype(np.int64)
        below = np.arange(self.levels)[None, :] < lowest[:, None]
        self.noise[streams] = np.where(below, 0.0, self.noise[streams])
        self.noise[streams, lowest] = self.generator.laplace(0.0, self.scale, size=len(streams))

    def noisy_prefixes(self, exact: np.ndarray) -> np.ndarray:
        """The released prefix sums of every stream whose exact sums are ``exact`` (streams,)."""
        return exact + self.noise.sum(axis=1)


class UCBVI:
    """UCBVI over a known horizon with the chosen reward ``estimator`` and ``privacy``, for
    ``rows`` independent runs at once.

    Args:
        params: the env's parameters (sizes, horizon, v; the learner never reads P or R).
        episodes: K, the episodes it will run (for the confidence level and the clipping).
        rows: the independent runs (seeds) learned side by side.
        estimator: one of :data:`ESTIMATORS`; privacy: None, ``"ldp"`` or ``"jdp"`` (over the
            clipped mean); epsilon: the privacy budget.
        bonus_scale: a factor on the bonuses (the transition bonus H sqrt(log(SAKH/delta) / n)
            and the estimator's): the theory's constants explore for longer than a lesson lasts.
        clip: B, where the private versions clip the rewards; None takes the theory's balance
            (u epsilon sqrt(K))^(1/(1+v)), which can be far above the rewards' range.
    """

    def __init__(self, params, episodes: int, rows: int = 1, estimator: str = "truncated",
                 privacy: str | None = None, epsilon: float = 1.0, delta: float = 0.05, bonus_scale: float = 0.1,
                 clip: float | None = None, seed: int = 0):
        if estimator not in ESTIMATORS:
            raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}")
        if privacy not in PRIVACY:
            raise ValueError(f"privacy must be one of {PRIVACY}, got {privacy!r}")
        S, A, H = params.states, params.actions, params.horizon
        self.S, self.A, self.H, self.v, self.rows = S, A, H, params.v, rows
        self.estimator, self.privacy, self.epsilon = estimator, privacy, epsilon
        self.log = math.log(S * A * episodes * H / delta)
        self.u = absolute_moment(params)
        self.bonus_scale = bonus_scale
        self.generator = np.random.default_rng(seed)
        self.counts = np.zeros((rows, S, A, S))
        self.n = np.zeros((rows, S, A))
        self.sums = np.zeros((rows, S, A))       # of the rewards the estimator keeps
        self.groups = int(math.ceil(8 * math.log(1 / delta)))
        if estimator == "median-of-means" and privacy is None:
            self.group_sums = np.zeros((rows, S, A, self.groups))
            self.group_counts = np.zeros((rows, S, A, self.groups))
        # Clipping for the private versions: bias u B^-v against the privacy noise B / (eps sqrt(K)).
        self.clip = (self.u * epsilon * math.sqrt(episodes)) ** (1.0 / (1.0 + self.v)) if clip is None else clip
        if privacy == "jdp":
            self.released_sums = BinaryMechanism(rows * S * A, episodes * H, self.clip, epsilon, self.generator)
            self.released_counts = BinaryMechanism(rows * S * A, episodes * H, 1.0, epsilon, self.generator)
        self.plan()

    # ------------------------------------------------------------------ estimates
    def observe(self, states: np.ndarray, actions: np.ndarray, rewards: np.ndarray, next_states: np.ndarray) -> None:
        """One transition of every row: arrays (rows,)."""
        rows = np.arange(self.rows)
        pair = (rows, states, actions)
        if self.privacy == "ldp":   # the user privatizes before the learner sees it
            rewards = np.clip(rewards, -self.clip, self.clip) + self.generator.laplace(0, 2 * self.clip / self.epsilon,
                                                                                       size=self.rows)
        elif self.privacy == "jdp":
            rewards = np.clip(rewards, -self.clip, self.clip)
        self.counts[pair + (next_states,)] += 1
        self.n[pair] += 1
        i = self.n[pair]
        if self.privacy == "jdp":
            streams = np.ravel_multi_index(pair, self.n.shape)
            self.released_sums.advance(streams, i)
            self.released_counts.advance(streams, i)
        if self.privacy is None and self.estimator == "truncated":
            rewards = np.where(np.abs(rewards) <= (self.u * i / self.log) ** (1.0 / (1.0 + self.v)), rewards, 0.0)
        if self.privacy is None and self.estimator == "median-of-means":
            group = pair + (((i - 1) % self.groups).astype(np.int64),)
            self.group_sums[group] += rewards
            self.group_counts[group] += 1
        self.sums[pair] += rewards

    def estimates(self) -> tuple[np.ndarray, np.ndarray]:
        """The mean reward and its bonus of every (row, state, action) pair, (rows, S, A) each."""
        n, v, u, log = np.maximum(self.n, 1), self.v, self.u, self.log
        if self.privacy == "ldp":
            b = self.clip
            return self.sums / n, u * b ** -v + (2 * math.sqrt(2) * b / self.epsilon + b) * np.sqrt(log / n)
        if self.privacy == "jdp":
            b = self.clip
            total = self.released_sums.noisy_prefixes(self.sums.reshape(-1)).reshape(n.shape)
            count = np.maximum(self.released_counts.noisy_prefixes(self.n.reshape(-1)).reshape(n.shape), 1.0)
            privacy_error = self.released_sums.scale * math.sqrt(self.released_sums.levels) * log
            return total / count, u * b ** -v + b * np.sqrt(2 * log / n) + privacy_error * (1 + b) / count
        if self.estimator == "empirical":
            return self.sums / n, np.sqrt(2 * log / n)
        if self.estimator == "truncated":
            return self.sums / n, 4 * u ** (1 / (1 + v)) * (log / n) ** (v / (1 + v))
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(self.group_counts > 0, self.group_sums / self.group_counts, np.nan)
        medians = np.zeros(n.shape)
        seen = self.n > 0
        medians[seen] = np.nanmedian(means[seen], axis=-1)
        return medians, (12 * u) ** (1 / (1 + v)) * (16 * log / n) ** (v / (1 + v))

    # ------------------------------------------------------------------ planning
    def plan(self) -> None:
        """The optimistic Q (rows, H, S, A) by backward induction on each row's empirical model."""
        seen = self.n > 0
        P = np.where(seen[..., None], self.counts / np.maximum(self.n, 1)[..., None], 1.0 / self.S)
        means, reward_bonus = self.estimates()
        self.means = means
        bonus = self.bonus_scale * self.H * np.sqrt(self.log / np.maximum(self.n, 1))
        optimistic_reward = np.where(seen, means + self.bonus_scale * reward_bonus, np.inf)
        V = np.zeros((self.rows, self.S))
        self.q = np.zeros((self.rows, self.H, self.S, self.A))
        for h in range(self.H - 1, -1, -1):
            q = np.minimum(optimistic_reward + np.einsum("bsat,bt->bsa", P, V) + bonus, self.H - h)
            self.q[:, h] = q
            V = q.max(axis=-1)

    def act(self, states: np.ndarray, h: int) -> np.ndarray:
        """Every row's greedy action at step ``h`` in its state (ties broken at random)."""
        q = self.q[np.arange(self.rows), h, states]
        best = q >= q.max(axis=-1, keepdims=True)
        return np.argmax(best * (1.0 + self.generator.random(best.shape)), axis=-1)


def regret_curves(params, episodes: int, seeds: int, seed: int = 0, **learner_args) -> np.ndarray:
    """(seeds, episodes) the regret of every episode of ``seeds`` independent runs of
    :class:`UCBVI`, played on as many rows of the env's simulator (its regret meter), planning
    anew after every episode."""
    learner = UCBVI(params, episodes, rows=seeds, seed=seed, **learner_args)
    sim = HeavyTailSim(params, seeds)
    keys = np.random.default_rng(seed).integers(1, 2 ** 63, size=(episodes, seeds), dtype=np.uint64)
    rows, regrets = np.arange(seeds), np.zeros((seeds, episodes))
    for k in range(episodes):
        sim.reset(rows, keys[k])
        for h in range(params.horizon):
            states = sim.state.copy()
            actions = learner.act(states, h)
            outcome = sim.step(actions)
            learner.observe(states, actions, outcome["reward"], sim.state)
        regrets[:, k] = sim.regret
        learner.plan()
    return regrets


def run_learner(env, episodes: int, seed: int = 0, **learner_args) -> np.ndarray:
    """The regret of each of ``episodes`` episodes of one :class:`UCBVI` run on ``env`` (from the
    env's regret meter, through its Gymnasium face), planning anew after every episode."""
    learner = UCBVI(env.unwrapped.params, episodes, seed=seed, **learner_args)
    regrets = np.zeros(episodes)
    for k in range(episodes):
        (state, h), info = env.reset(seed=seed * 1_000_003 + k)
        done = False
        while not done:
            action = learner.act(np.array([state]), h)
            (next_state, h), reward, terminated, truncated, info = env.step(int(action[0]))
            learner.observe(np.array([state]), action, np.array([reward]), np.array([next_state]))
            state, done = next_state, terminated or truncated
        regrets[k] = info["metrics"]["episode_regret"]
        learner.plan()
    return regrets

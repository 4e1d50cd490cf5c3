"""Reference policies for the portfolio envs: the online-portfolio-selection baselines that EIIE
(Jiang, Xu & Liang 2017) compares against, and rolling skfolio optimizers.

Every policy returns target weights over cash + N risky assets (cash first), float32, on the
simplex. They read only the observation (prices window and the previous weights) and the env's
configuration (``n_assets``, ``window``, ``close_index``), except :class:`BestStockOracle`, which
is an oracle and says so.

Conventions shared by the online algorithms (EG, ONS, OLMAR, PAMR): cash is one of the ``N + 1``
assets (price relative 1), as in EIIE's benchmarks; the first portfolio of an episode is uniform
over the ``N + 1`` assets; afterwards ``b_t`` (the portfolio held over the last period, the
algorithm's previous output) is read from the observation's ``weights`` (EIIE's portfolio-vector
memory), and ``x_t`` (the last price relatives) from its price window.

The update rules are pure functions (:func:`eg_update`, :func:`ons_step`, :func:`olmar_update`,
:func:`pamr_update`, :func:`project_simplex`, :func:`project_simplex_metric`) so they can be
tested and reused without an env.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from envzoo.core.errors import MissingExtraError
from envzoo.core.policy import Policy
from envzoo.portfolio.task import split_observation


# ---------------------------------------------------------------------------- projections
def project_simplex(v, z: float = 1.0) -> np.ndarray:
    """Euclidean projection of ``v`` onto the simplex ``{p >= 0, sum p = z}``.

    The sort-based algorithm of Duchi, Shalev-Shwartz, Singer & Chandra (ICML 2008), O(n log n).
    """
    v = np.asarray(v, dtype=np.float64)
    if v.ndim != 1 or v.size == 0:
        raise ValueError(f"project_simplex expects a non-empty 1-D vector; got shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"project_simplex got non-finite values: {v}")
    if z <= 0:
        raise ValueError(f"the simplex radius z must be > 0; got {z}")
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - z
    rho = np.nonzero(u * np.arange(1, v.size + 1) > css)[0][-1]
    theta = css[rho] / (rho + 1.0)
    return np.maximum(v - theta, 0.0)


def project_simplex_metric(v, A, max_iter: int | None = None, tol: float = 1e-12) -> np.ndarray:
    """Projection of ``v`` onto the probability simplex in the norm of ``A``:
    ``argmin_{p >= 0, sum p = 1} (p - v)' A (p - v)``, ``A`` symmetric positive definite.

    Exact (up to round-off): a primal active-set method (Nocedal & Wright, *Numerical
    Optimization*, Alg. 16.3) started from the Euclidean projection. Each iteration solves the
    equality-constrained problem on the free coordinates by one KKT linear solve; it ends when the
    multipliers of the coordinates held at zero are all non-negative. This is the projection ONS
    needs (Agarwal et al. 2006), which reference implementations do with a QP solver.
    """
    v = np.asarray(v, dtype=np.float64)
    A = np.asarray(A, dtype=np.float64)
    n = v.size
    if A.shape != (n, n):
        raise ValueError(f"A must be ({n}, {n}); got {A.shape}")
    Av = A @ v
    p = project_simplex(v)
    free = p > 0
    for _ in range(max_iter or 20 * n + 50):
        F = np.flatnonzero(free)
        k = F.size
        kkt = np.zeros((k + 1, k + 1))
        kkt[:k, :k] = A[np.ix_(F, F)]
        kkt[:k, k] = -1.0
        kkt[k, :k] = 1.0
        solution = np.linalg.solve(kkt, np.append(Av[F], 1.0))
        target, nu = solution[:k], solution[k]
        direction = target - p[F]
        shrinking = direction < -tol
        blocking = np.full(k, np.inf)
        blocking[shrinking] = p[F][shrinking] / -direction[shrinking]
        step = blocking.min() if k else np.inf
        if step >= 1.0:                                   # the subproblem's solution is feasible
            p[:] = 0.0
            p[F] = np.maximum(target, 0.0)
            multipliers = (A @ p - Av) - nu               # KKT: A(p - v) = nu 1 + mu, mu >= 0
            multipliers[free] = np.inf
            worst = int(np.argmin(multipliers))
            if multipliers[worst] >= -tol * max(1.0, abs(nu)):
                break
            free[worst] = True
        else:                                             # stop at the first bound that binds
            p[F] += step * direction
            hit = F[int(np.argmin(blocking))]
            p[hit] = 0.0
            free[hit] = False
    p = np.maximum(p, 0.0)
    return p / p.sum()


# ---------------------------------------------------------------------------- update rules
def drift_weights(weights, relatives) -> np.ndarray:
    """Weights after the last price move: ``w' = (w * y) / (w . y)`` (``y`` includes cash)."""
    weights = np.asarray(weights, dtype=np.float64)
    grown = weights * np.asarray(relatives, dtype=np.float64)
    return grown / grown.sum()


def eg_update(weights, relatives, eta: float = 0.05) -> np.ndarray:
    """Exponentiated gradient (Helmbold et al. 1998):
    ``b_{t+1,i} = b_{t,i} exp(eta x_{t,i} / (b_t . x_t)) / Z``."""
    weights = np.asarray(weights, dtype=np.float64)
    relatives = np.asarray(relatives, dtype=np.float64)
    exponent = eta * relatives / (weights @ relatives)
    new = weights * np.exp(exponent - exponent.max())     # shift for overflow safety; Z cancels it
    return new / new.sum()


def ons_step(A, gradient_sum, weights, relatives, delta: float = 0.125, beta: float = 1.0,
             eta: float = 0.0):
    """One step of online Newton step (Agarwal, Hazan, Kale & Schapire 2006).

    With ``g_t = x_t / (p_t . x_t)``: ``A_t = I + sum g g'`` (pass ``A = I`` at the start),
    ``b_t = (1 + 1/beta) sum g`` (pass ``gradient_sum = 0``), ``p_{t+1} = Proj^A_simplex(delta
    A_t^{-1} b_t)``, then mixed with the uniform portfolio: ``(1 - eta) p + eta / n``.

    Returns ``(A_t, gradient_sum_t, p_{t+1})``; the inputs are not modified.
    """
    weights = np.asarray(weights, dtype=np.float64)
    relatives = np.asarray(relatives, dtype=np.float64)
    g = relatives / (weights @ relatives)
    A = np.asarray(A, dtype=np.float64) + np.outer(g, g)
    gradient_sum = np.asarray(gradient_sum, dtype=np.float64) + g
    b = (1.0 + 1.0 / beta) * gradient_sum
    p = project_simplex_metric(delta * np.linalg.solve(A, b), A)
    return A, gradient_sum, (1.0 - eta) * p + eta / p.size


def olmar_prediction(price_history, window: int = 5) -> np.ndarray:
    """OLMAR's predicted next relatives ``x~ = MA_t(window) / p_t`` from ``price_history``
    (T, n) closes, oldest first, last row = current (any positive per-asset scaling)."""
    price_history = np.asarray(price_history, dtype=np.float64)
    if price_history.ndim != 2 or price_history.shape[0] < window:
        raise ValueError(f"OLMAR needs at least window={window} bars of prices; got {price_history.shape}")
    return price_history[-window:].mean(axis=0) / price_history[-1]


def olmar_update(weights, price_history, window: int = 5, eps: float = 10.0) -> np.ndarray:
    """Online moving-average reversion, OLMAR-1 (Li & Hoi 2012).

    ``x~ = MA/p``; ``lambda = max(0, (eps - b . x~) / ||x~ - mean(x~)||^2)``;
    ``b <- Proj_simplex(b + lambda (x~ - mean(x~)))``.
    """
    weights = np.asarray(weights, dtype=np.float64)
    predicted = olmar_prediction(price_history, window)
    deviation = predicted - predicted.mean()
    norm2 = deviation @ deviation
    lam = 0.0 if norm2 <= 0 else max(0.0, (eps - weights @ predicted) / norm2)
    return project_simplex(weights + lam * deviation)


PAMR_VARIANTS = ("PAMR", "PAMR-1", "PAMR-2")


def pamr_update(weights, relatives, eps: float = 0.5, variant: str = "PAMR", C: float = 500.0) -> np.ndarray:
    """Passive-aggressive mean reversion (Li, Zhao, Hoi & Gopalkrishnan 2012).

    Loss ``l = max(0, b . x - eps)``; step ``tau = l / ||x - mean(x)||^2`` (PAMR),
    ``min(C, that)`` (PAMR-1) or ``l / (||x - mean(x)||^2 + 1 / (2C))`` (PAMR-2);
    ``b <- Proj_simplex(b - tau (x - mean(x)))``. Zero loss leaves ``b`` unchanged.
    """
    if variant not in PAMR_VARIANTS:
        raise ValueError(f"unknown PAMR variant {variant!r}; choose one of {PAMR_VARIANTS}")
    weights = np.asarray(weights, dtype=np.float64)
    relatives = np.asarray(relatives, dtype=np.float64)
    loss = max(0.0, weights @ relatives - eps)
    if loss == 0.0:
        return weights / weights.sum()
    deviation = relatives - relatives.mean()
    norm2 = deviation @ deviation
    if variant == "PAMR-2":
        tau = loss / (norm2 + 0.5 / C)
    elif norm2 <= 0:
        return weights / weights.sum()
    else:
        tau = loss / norm2 if variant == "PAMR" else min(C, loss / norm2)
    return project_simplex(weights - tau * deviation)


# ---------------------------------------------------------------------------- observation helpers
def _read(env, observation):
    """(normalised close history (W, N+1) with cash column, latest relatives x_t (N+1,),
    previous weights (N+1,)), all float64."""
    prices, weights = split_observation(env, observation)
    closes = np.asarray(prices, dtype=np.float64)[env.unwrapped.params.close_index].T     # (W, N)
    history = np.concatenate([np.ones((closes.shape[0], 1)), closes], axis=1)
    relatives = history[-1] / history[-2]
    return history, relatives, np.asarray(weights, dtype=np.float64)


def _action(weights) -> np.ndarray:
    weights = np.clip(np.asarray(weights, dtype=np.float64), 0.0, None)
    return (weights / weights.sum()).astype(np.float32)


def _uniform(n_total: int, include_cash: bool) -> np.ndarray:
    weights = np.ones(n_total)
    if not include_cash:
        weights[0] = 0.0
    return weights / weights.sum()


# ---------------------------------------------------------------------------- benchmarks
class UCRP(Policy):
    """Uniform constant rebalanced portfolio (Cover 1991): rebalances to ``1/N`` in each risky
    asset and no cash at every step (``include_cash=True``: ``1/(N+1)`` over cash and assets)."""

    def __init__(self, env, include_cash: bool = False):
        super().__init__(env)
        self.weights = _action(_uniform(env.unwrapped.params.n_assets + 1, include_cash))

    def __call__(self, observation, info):
        return self.weights.copy()


class BestStockOracle(Policy):
    """Best stock in hindsight -- an ORACLE, not a causal policy: it reads the future.

    At the first step of an episode it asks the env for the closes at the episode's last bar
    (``env.unwrapped.task.future_close()``) and now (``current_close()``), then puts everything in the
    risky asset with the highest ratio and holds it (a one-asset portfolio never drifts, so it
    never trades again). ``include_cash=True`` lets cash (ratio 1) win when every asset falls.
    The upper benchmark among single assets in Li & Hoi (2014) and Jiang, Xu & Liang (2017).
    """

    oracle = True

    def __init__(self, env, include_cash: bool = False):
        super().__init__(env)
        self.include_cash = include_cash
        self.choice: int | None = None

    def reset(self, seed=None):
        self.choice = None

    def __call__(self, observation, info):
        if self.choice is None:
            task = self.env.unwrapped.task
            growth = np.asarray(task.future_close(), float) / np.asarray(task.current_close(), float)
            growth = np.concatenate([[1.0 if self.include_cash else -np.inf], growth])
            self.choice = int(np.argmax(growth))
        weights = np.zeros(self.env.unwrapped.params.n_assets + 1, dtype=np.float32)
        weights[self.choice] = 1.0
        return weights


# ---------------------------------------------------------------------------- online algorithms
class _OnlineAlgorithm(Policy):
    """Uniform over the N + 1 assets at an episode's first step, then ``update`` from b_t, x_t."""

    def __init__(self, env):
        super().__init__(env)
        self._first = True

    def reset(self, seed=None):
        self._first = True

    def __call__(self, observation, info):
        if self._first:
            self._first = False
            self._start()
            return _action(self._first_weights(self.env.unwrapped.params.n_assets + 1))
        history, relatives, weights = _read(self.env, observation)
        return _action(self._update(history, relatives, weights / weights.sum()))

    def _first_weights(self, n: int) -> np.ndarray:
        """The weights of an episode's first step: uniform over cash and the N assets."""
        return np.full(n, 1.0 / n)

    def _start(self):
        pass

    def _update(self, history, relatives, weights):
        raise NotImplementedError


class UBAH(_OnlineAlgorithm):
    """Uniform buy and hold: the market portfolio.

    Buys equal weights at the first step of an episode (``1/N`` in each risky asset, no cash;
    ``include_cash=True`` spreads over the ``N + 1`` assets), then never trades: each later step
    returns the drifted weights ``w' = (w * y) / (w . y)`` of the previous weights ``w`` under the
    last price relatives ``y``, so the turnover and transaction cost are zero.
    A benchmark of Jiang, Xu & Liang (2017) and Li & Hoi (2014, *Online Portfolio Selection: A
    Survey*).
    """

    def __init__(self, env, include_cash: bool = False):
        super().__init__(env)
        self.include_cash = include_cash

    def _first_weights(self, n: int) -> np.ndarray:
        return _uniform(n, self.include_cash)

    def _update(self, history, relatives, weights):
        return drift_weights(weights, relatives)



class EG(_OnlineAlgorithm):
    """Exponentiated gradient (Helmbold, Schapire, Singer & Warmuth 1998, *On-line portfolio
    selection using multiplicative updates*): ``b_{t+1,i} ∝ b_{t,i} exp(eta x_{t,i} / b_t.x_t)``.

    Args:
        eta: learning rate (default 0.05, the paper's choice).
    """

    def __init__(self, env, eta: float = 0.05):
        super().__init__(env)
        if eta < 0:
            raise ValueError(f"EG's learning rate eta must be >= 0; got {eta}")
        self.eta = eta

    def _update(self, history, relatives, weights):
        return eg_update(weights, relatives, self.eta)


class ONS(_OnlineAlgorithm):
    """Online Newton step (Agarwal, Hazan, Kale & Schapire 2006, *Algorithms for portfolio
    management based on the Newton method*): a second-order online method with logarithmic
    regret; each step projects ``delta A^{-1} b`` onto the simplex in the ``A``-norm
    (:func:`project_simplex_metric`, exact, numpy only). ``A`` and the gradient sum reset each
    episode.

    Args:
        delta: scale of the Newton point (default 1/8, as in the paper's experiments).
        beta: ``b = (1 + 1/beta) sum grad`` (default 1).
        eta: mixing with the uniform portfolio, ``(1 - eta) p + eta/n`` (default 0).
    """

    def __init__(self, env, delta: float = 0.125, beta: float = 1.0, eta: float = 0.0):
        super().__init__(env)
        if delta <= 0 or beta <= 0 or not 0 <= eta <= 1:
            raise ValueError(f"ONS needs delta > 0, beta > 0, 0 <= eta <= 1; got {delta}, {beta}, {eta}")
        self.delta, self.beta, self.eta = delta, beta, eta
        self._start()

    def _start(self):
        n = self.env.unwrapped.params.n_assets + 1
        self.A = np.eye(n)
        self.gradient_sum = np.zeros(n)

    def _update(self, history, relatives, weights):
        self.A, self.gradient_sum, p = ons_step(self.A, self.gradient_sum, weights, relatives,
                                                self.delta, self.beta, self.eta)
        return p


class OLMAR(_OnlineAlgorithm):
    """On-line moving average reversion, OLMAR-1 (Li & Hoi, ICML 2012): predicts the next price
    relatives as the ``window``-bar moving average over the current price, and moves the
    portfolio (passive-aggressively, then back onto the simplex) until its predicted return
    reaches ``eps``. The moving average is read from the observation's price window, so the
    env's window must be at least ``window``.

    Args:
        window: moving-average window in bars (default 5).
        eps: reversion threshold (default 10).
    """

    def __init__(self, env, window: int = 5, eps: float = 10.0):
        super().__init__(env)
        if window < 2 or env.unwrapped.params.window < window:
            raise ValueError(f"OLMAR window must be in [2, env window {env.unwrapped.params.window}]; got {window}")
        self.window, self.eps = window, eps

    def _update(self, history, relatives, weights):
        return olmar_update(weights, history, self.window, self.eps)


class PAMR(_OnlineAlgorithm):
    """Passive aggressive mean reversion (Li, Zhao, Hoi & Gopalkrishnan 2012, *Machine
    Learning* 87): when the last period's return ``b . x`` exceeds ``eps`` it moves the portfolio
    away from the assets that just rose, by the smallest step that brings it back to ``eps``.

    Args:
        eps: sensitivity (default 0.5).
        variant: "PAMR", "PAMR-1" (step capped at C) or "PAMR-2" (step softened by 1/(2C)).
        C: aggressiveness for the two relaxed variants (default 500, as in the paper).
    """

    def __init__(self, env, eps: float = 0.5, variant: str = "PAMR", C: float = 500.0):
        super().__init__(env)
        if variant not in PAMR_VARIANTS:
            raise ValueError(f"unknown PAMR variant {variant!r}; choose one of {PAMR_VARIANTS}")
        if eps < 0 or C <= 0:
            raise ValueError(f"PAMR needs eps >= 0 and C > 0; got {eps}, {C}")
        self.eps, self.variant, self.C = eps, variant, C

    def _update(self, history, relatives, weights):
        return pamr_update(weights, relatives, self.eps, self.variant, self.C)


# ---------------------------------------------------------------------------- skfolio optimizers
class _RollingOptimizer(Policy):
    """Re-fits a skfolio optimizer on the last ``fit_window`` bars of risky-asset returns.

    Returns come from the observations only. At an episode's first step the history is seeded
    with the ``W - 1`` returns of the observation's window; each later step appends the newest
    bar, so the fit window can exceed the env's window (older bars drop out beyond
    ``fit_window``); ``reset`` clears it. The portfolio is fully invested in the risky assets
    (no cash). Until ``min_history`` returns are known it holds ``1/N``; between refits
    (``refit_every`` steps) it rebalances to the last fitted weights; if a fit fails it keeps
    the previous weights and counts the failure in ``n_fit_failures``.
    Needs the ``finance`` extra (skfolio).
    """

    def __init__(self, env, fit_window: int = 60, refit_every: int = 1, min_history: int = 10):
        super().__init__(env)
        try:
            import skfolio  # noqa: F401
            from cvxpy.error import SolverError
            from skfolio.exceptions import SkfolioError
        except ImportError as error:
            raise MissingExtraError("finance", "skfolio") from error
        self._fit_errors = (ValueError, ArithmeticError, SkfolioError, SolverError)
        if fit_window < 2 or refit_every < 1 or not 2 <= min_history <= fit_window:
            raise ValueError(f"need fit_window >= 2, refit_every >= 1, 2 <= min_history <= fit_window; "
                             f"got {fit_window}, {refit_every}, {min_history}")
        self.fit_window, self.refit_every, self.min_history = fit_window, refit_every, min_history
        self.n_fit_failures = 0
        self.reset()

    def reset(self, seed=None):
        self.returns: deque = deque(maxlen=self.fit_window)
        self.target = _uniform(self.env.unwrapped.params.n_assets + 1, include_cash=False)
        self._steps = 0

    def __call__(self, observation, info):
        history, relatives, _ = _read(self.env, observation)
        if self._steps == 0:
            self.returns.extend(history[1:, 1:] / history[:-1, 1:] - 1.0)
        else:
            self.returns.append(relatives[1:] - 1.0)
        if self._steps % self.refit_every == 0 and len(self.returns) >= self.min_history:
            try:
                estimator = self._estimator()
                estimator.fit(np.asarray(self.returns))
                risky = np.asarray(estimator.weights_, dtype=np.float64)
                if not np.all(np.isfinite(risky)) or np.clip(risky, 0, None).sum() <= 0:
                    raise ValueError(f"optimizer returned weights {risky}")
                self.target = np.concatenate([[0.0], np.clip(risky, 0.0, None)])
            except self._fit_errors:  # a solver failure keeps the last target; counted, not fatal
                self.n_fit_failures += 1
        self._steps += 1
        return _action(self.target)

    def _estimator(self):
        raise NotImplementedError


class MeanVariance(_RollingOptimizer):
    """Markowitz (1952) mean-variance portfolio with skfolio's ``MeanRisk``, re-fitted on a
    rolling window of per-bar linear returns (long-only, fully invested).

    Args:
        objective: "max_sharpe" (maximise mean / std; falls back to minimum variance when no
            asset beats ``risk_free_rate``) or "utility" (maximise mean - risk_aversion * var).
        risk_aversion: for "utility"; per-bar units (default 1).
        risk_free_rate: per-bar risk-free return (default 0).
        fit_window, refit_every, min_history: see the rolling scheme above.
    """

    OBJECTIVES = ("max_sharpe", "utility")

    def __init__(self, env, objective: str = "max_sharpe", risk_aversion: float = 1.0,
                 risk_free_rate: float = 0.0, fit_window: int = 60, refit_every: int = 1,
                 min_history: int = 10):
        if objective not in self.OBJECTIVES:
            raise ValueError(f"unknown objective {objective!r}; choose one of {self.OBJECTIVES}")
        if risk_aversion < 0:
            raise ValueError(f"risk_aversion must be >= 0; got {risk_aversion}")
        self.objective, self.risk_aversion, self.risk_free_rate = objective, risk_aversion, risk_free_rate
        super().__init__(env, fit_window, refit_every, min_history)

    def _estimator(self):
        from skfolio.optimization import MeanRisk, ObjectiveFunction

        if self.objective == "utility":
            return MeanRisk(objective_function=ObjectiveFunction.MAXIMIZE_UTILITY,
                            risk_aversion=self.risk_aversion, risk_free_rate=self.risk_free_rate)
        return MeanRisk(objective_function=ObjectiveFunction.MAXIMIZE_RATIO,
                        risk_free_rate=self.risk_free_rate, fallback=MeanRisk())


class MinimumVariance(_RollingOptimizer):
    """Global minimum-variance portfolio (long-only) with skfolio's ``MeanRisk``
    (``MINIMIZE_RISK``, variance), re-fitted on a rolling window of returns."""

    def _estimator(self):
        from skfolio.optimization import MeanRisk

        return MeanRisk()


class RiskParity(_RollingOptimizer):
    """Equal risk contribution portfolio (Maillard, Roncalli & Teiletche 2010) with skfolio's
    ``RiskBudgeting`` (variance, equal budgets), re-fitted on a rolling window of returns."""

    def _estimator(self):
        from skfolio.optimization import RiskBudgeting

        return RiskBudgeting()

"""Market making on the Avellaneda–Stoikov model: quote bid and ask depths every dt."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.marketmaking.avellaneda_stoikov.task import ASTask


class AvellanedaStoikovEnv(TaskEnv):
    """
    ## Description

    A market maker quotes one unit on each side of the Avellaneda–Stoikov (2008) market, the
    continuous-quote setting of mbt-gym. The mid price is an arithmetic Brownian motion
    dS = σ dW; market orders reach a quote at depth δ from the mid as a Poisson stream of
    intensity A·exp(−k·δ). Every ``dt`` the agent chooses its bid and ask depths; the episode
    runs from t = 0 to the horizon T and the inventory is liquidated at the mid at T. The
    simulator is :mod:`envzoo.marketmaking.avellaneda_stoikov` (its docstring gives the exact
    step): per side at most one fill per step, with the paper's probability min(λ(δ)·dt, 1)
    (default, ``fill_probability="linear"``) or 1 − exp(−λ(δ)·dt), the probability of at least one
    arrival of the Poisson stream (``"poisson"``); the paper's mid moves ±σ√dt (default,
    ``mid_noise="binary"``) or exact Gaussian increments (``"gaussian"``). Fills are at the
    quotes posted around the mid at the start of the step; the mid then moves.

    Defaults are the paper's simulation (its section 3.3), rules and parameters: s0 = 100,
    T = 1, σ = 2, dt = 0.005 (200 steps), A = 140, k = 1.5, q0 = 0, linear fill probability,
    binary mid moves. One difference remains, the action space: depths are at least 0 here
    (a quote never crosses the mid), where the paper's inventory strategy may quote a negative
    depth with a large inventory. With γ = 0.1 over 1000 paths the inventory strategy then
    earns 65.0 ± 6.8 (the paper's Table 2: 62.94 ± 5.89) and the symmetric one 68.2 ± 14.4
    (67.21 ± 13.43); ``baselines/avellaneda_stoikov_2008.py`` prints every γ.

    ## Action Space

    ``Box(0, max_depth, (2,), float32)``: (δᵇ, δᵃ), the bid depth and the ask depth in price
    units; the agent buys at S − δᵇ and sells at S + δᵃ. Quotes cannot cross the mid (depths are
    ≥ 0); a depth of ``max_depth`` (default 5, fill probability ≈ 4·10⁻⁴ per step) is in effect
    no quote. Actions outside the space raise :class:`~envzoo.core.errors.InvalidActionError`;
    nothing is clipped.

    ## Observation Space

    ``Box(float32)`` of 4 features, after the step:

    | index | feature | bounds |
    |---|---|---|
    | 0 | time_remaining: (T − t) / T, 1 at the start, 0 at T | [0, 1] |
    | 1 | inventory q (units; 0 after the liquidation at T) | ±max_inventory, or ±(\\|q0\\| + T/dt) |
    | 2 | mid_offset: S − s0 (price units) | (−inf, inf) |
    | 3 | pnl: W − W0, mark-to-market wealth W = cash + q·S minus its start q0·s0 | (−inf, inf) |

    (time, q, S − s0) is the Markov state of the model (as in mbt-gym); the PnL is added so that the
    state is also Markov for the terminal CARA reward, which depends on the wealth.

    ## Rewards

    ``reward`` chooses one (W is the mark-to-market wealth, ΔW its change over the step, net of
    fees and, at T, of the liquidation penalty α·q_T²):

    - ``"pnl"`` (default): ΔW. The return of an episode is its PnL, W_T − W0.
    - ``"cj"``: Cartea–Jaimungal's inventory-penalised PnL, ΔW − φ·q²·dt with q the inventory
      held over the step (after its fills) and φ = ``running_penalty`` (default 0.01); the
      terminal −α·q_T² is inside ΔW at the last step.
    - ``"cara"``: the paper's objective, the exponential utility of terminal wealth:
      −exp(−γ·(W_T − W0)) at the step that reaches T, 0 before, with γ = ``risk_aversion``
      (default 0.1). Measuring wealth from W0 multiplies the paper's utility by the positive
      constant exp(γ·W0), which changes no preference. The exponent is capped at 700 so that
      the reward stays finite.

    ## Costs

    ``info["cost"]`` is a dict of two costs of the step: ``fees``, the maker fees paid
    (``fee_rate`` × fill price per fill; 0 with the default fee-free market), and
    ``inventory_risk``, q²·dt with q the inventory held over the step — the integrand of the
    Cartea–Jaimungal running penalty, for constrained RL on inventory risk.

    ## Starting State

    t = 0, mid s0, cash 0, inventory ``initial_inventory`` (default 0): the same at every reset.
    The seed drives the mid path and the fills.

    ## Episode End

    At t = T (``terminal_time / dt`` steps, 200 by default) the episode *terminates*: T is part
    of the problem (time remaining is observed and the inventory is liquidated), so nothing is
    to be bootstrapped past it. The env needs no ``max_episode_steps``; a ``TimeLimit`` from
    ``gymnasium.make(..., max_episode_steps=n)`` truncates earlier episodes without liquidation.
    Stepping after termination raises ``RuntimeError`` until ``reset()``.

    ## Metrics

    ``info["metrics"]`` at every step, over the episode so far:
    ``pnl`` (W − W0, net of fees, after the liquidation at T), ``final_inventory`` (q after the
    latest step's fills, before the liquidation at T: the paper's "final q"), ``mean_inventory``,
    ``mean_abs_inventory``, ``max_abs_inventory`` (including q0), ``bid_fills``, ``ask_fills``,
    ``fees_paid``, ``mean_spread`` (mean quoted δᵇ + δᵃ), ``sharpe`` (mean / sample standard
    deviation of the per-step ΔW, not annualised; 0 with fewer than two steps or no variation),
    ``max_drawdown`` (largest fall of W − W0 from its running peak, in price units: wealth starts
    at 0, so no ratio is defined), ``agent_steps``.

    ## Arguments

    - ``initial_price`` (s0 = 100), ``terminal_time`` (T = 1), ``volatility`` (σ = 2),
      ``dt`` (0.005; T/dt must be whole), ``arrival_rate`` (A = 140), ``fill_exponent``
      (k = 1.5).
    - ``max_depth`` (5.0): the upper bound of the action space.
    - ``max_inventory`` (None): |q| limit; a fill that would pass it does not happen (checked
      against the inventory at the start of the step).
    - ``initial_inventory`` (0), ``fee_rate`` (0.0, fraction of the fill price, ≥ 0).
    - ``reward`` (``"pnl"``, ``"cj"``, ``"cara"``), ``running_penalty`` (φ = 0.01, "cj" only),
      ``terminal_penalty`` (α = 0: liquidation cost α·q_T², in the wealth of every reward),
      ``risk_aversion`` (γ = 0.1, "cara" only).
    - ``fill_probability`` (``"linear"``, the paper's, or ``"poisson"``), ``mid_noise``
      (``"binary"``, the paper's, or ``"gaussian"``): the discretisation.
    - ``render_mode``: ``"ansi"``.

    ## References

    M. Avellaneda, S. Stoikov. *High-frequency trading in a limit order book.* Quantitative
    Finance 8(3):217–224, 2008. Á. Cartea, S. Jaimungal, J. Penalva. *Algorithmic and
    High-Frequency Trading.* Cambridge University Press, 2015 (inventory penalties).
    J. Jerome, L. Sánchez-Betancourt, R. Savani, M. Herdegen. *Model-based gym environments for
    limit order book trading* (mbt-gym). ICAIF 2022, arXiv:2209.07823.

    ## Version History

    - v1: the paper's discretisation is the default (linear fill probability, binary mid moves;
      were 1 − exp(−λ·dt) and Gaussian increments), so that the defaults are the paper's
      simulation as this docstring says. Later, without a version change: the simulator became
      compiled code (numba), the same numbers to rounding (numba's ``exp``, ``log`` and ``cos``
      within one unit in the last place of numpy's; the random stream is bit for bit the same).
    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    task_class = ASTask

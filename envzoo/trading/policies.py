"""Reference policies for Trading-v1: buy-and-hold and two textbook indicator rules.

Each reads only the observation, at indices it looks up once with
``env.unwrapped.params.feature_index(name)``, and the env's configuration (its ``positions``).
"""

from __future__ import annotations

from envzoo.core.policy import Policy


def _long_index(env) -> int:
    """The action with the largest (long) target position."""
    positions = env.unwrapped.params.positions
    return positions.index(max(positions))


def _exit_index(env, short: bool) -> int:
    """The action that leaves a long: the most negative position if ``short``, else the one closest
    to flat (the non-negative one on a tie)."""
    positions = env.unwrapped.params.positions
    if short:
        return positions.index(min(positions))
    return positions.index(min(positions, key=lambda p: (abs(p), p < 0)))


def _allows_short(env, short: bool | None) -> bool:
    can_short = min(env.unwrapped.params.positions) < 0
    if short and not can_short:
        raise ValueError(f"short=True needs a short position among {env.unwrapped.params.positions}: "
                         "make the env with allow_short=True")
    return can_short if short is None else bool(short)


class BuyAndHold(Policy):
    """Always the largest long position (1 by default): the market benchmark. Reads nothing."""

    def __init__(self, env):
        super().__init__(env)
        self.action = _long_index(env)

    def __call__(self, observation, info):
        return self.action


class MACDCross(Policy):
    """Appel's MACD crossover: long while the MACD line is above its signal line, otherwise flat
    (or short, when ``short`` is True; ``None``, the default, shorts iff the env has a short
    position). Reads observation indices ``macd`` and ``macd_signal`` (1 and 2)."""

    def __init__(self, env, short: bool | None = None):
        super().__init__(env)
        unwrapped = env.unwrapped
        self.macd = unwrapped.params.feature_index("macd")
        self.signal = unwrapped.params.feature_index("macd_signal")
        self.long = _long_index(env)
        self.exit = _exit_index(env, _allows_short(env, short))

    def __call__(self, observation, info):
        return self.long if observation[self.macd] > observation[self.signal] else self.exit


class RSIMeanReversion(Policy):
    """Wilder's RSI as a mean-reversion rule: buy (largest long) when RSI < ``lower`` (30), sell
    (flat, or short when ``short``; ``None`` shorts iff the env has a short position) when
    RSI > ``upper`` (70), otherwise hold the position in force. Reads observation indices
    ``rsi`` (0, RSI / 100) and ``position`` (9)."""

    def __init__(self, env, lower: float = 30.0, upper: float = 70.0, short: bool | None = None):
        super().__init__(env)
        if not 0 <= lower < upper <= 100:
            raise ValueError(f"need 0 <= lower < upper <= 100 (RSI levels), got {lower} and {upper}")
        unwrapped = env.unwrapped
        self.lower, self.upper = lower / 100.0, upper / 100.0
        self.rsi = unwrapped.params.feature_index("rsi")
        self.position = unwrapped.params.feature_index("position")
        self.positions = unwrapped.params.positions
        self.long = _long_index(env)
        self.exit = _exit_index(env, _allows_short(env, short))

    def __call__(self, observation, info):
        rsi = observation[self.rsi]
        if rsi < self.lower:
            return self.long
        if rsi > self.upper:
            return self.exit
        held = float(observation[self.position])
        # The position in force, as an action (float32 observation: nearest position).
        return min(range(len(self.positions)), key=lambda i: abs(self.positions[i] - held))

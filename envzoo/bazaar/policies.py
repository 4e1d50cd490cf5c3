"""Reference sellers of the Agent Bazaar: in the Crash, undercutting (Bertrand) firms, a collusive
cartel and stabilizing firms; in the Lemon Market, honest sellers, and honest sellers beside a
deceptive Sybil operator. They read only their observations and the market's public parameters.

The buyers are not agents: every Lemon Market buyer is the env's rational buyer (it takes the
listing of highest expected surplus, weighing claims by reputation), every Crash consumer buys
the cheapest unit worth its price.
"""

from __future__ import annotations

import numpy as np

from envzoo.bazaar.task import FIRM_FEATURES, IDENTITY_FEATURES, LEMON_MARKET_FEATURES
from envzoo.core.policy import Policy

_FIRM = {name: i for i, name in enumerate(FIRM_FEATURES)}
_IDENTITY = {name: i for i, name in enumerate(IDENTITY_FEATURES)}
_MARKET = {name: i for i, name in enumerate(LEMON_MARKET_FEATURES)}


class _MarketPolicy(Policy):
    """One rule per agent, for the scenario the policy is written for."""

    scenario = "crash"

    def __init__(self, env):
        super().__init__(env)
        self.params = env.params
        if self.params.scenario != self.scenario:
            raise ValueError(f"{type(self).__name__} plays the {self.scenario!r} scenario; this env runs "
                             f"{self.params.scenario!r} (make it with scenario={self.scenario!r})")

    def __call__(self, observation, info):
        return {agent: self.act(agent, np.asarray(observation[agent], dtype=np.float64)) for agent in observation}

    def act(self, agent: str, observation: np.ndarray) -> np.ndarray:
        raise NotImplementedError


# ---------------------------------------------------------------------- the Crash
class _Firm(_MarketPolicy):
    def act(self, agent, observation):
        price = min(self.price(observation, first_round=observation[_FIRM["last_price"]] == 0), self.params.max_price)
        return np.array([price, self.capacity(price)], dtype=np.float32)

    def capacity(self, price: float) -> float:
        return self.params.max_capacity

    def monopoly_price(self, cost: float) -> float:
        """The price that maximises (p - c) * P(value >= p) for values U(0, max_value)."""
        return (self.params.max_value + cost) / 2


class Undercutting(_Firm):
    """Bertrand competition: open at the monopoly price, then post ``tick`` below the cheapest rival's
    last price, never below one's own cost (the price war that drives prices to marginal cost)."""

    def __init__(self, env, tick: float = 0.25):
        super().__init__(env)
        self.tick = tick

    def price(self, observation, first_round):
        cost = observation[_FIRM["own_cost"]]
        if first_round:
            return self.monopoly_price(cost)
        return max(cost, min(observation[_FIRM["lowest_rival_price"]] - self.tick, self.monopoly_price(cost)))


class Collusive(_Firm):
    """A cartel: every firm posts the joint-monopoly price of the market's mean cost ``unit_cost``."""

    def price(self, observation, first_round):
        return self.monopoly_price(self.params.unit_cost)


class Stabilizing(_Firm):
    """A stabilizing firm: it moves its price a fraction ``damping`` of the way to a target that covers
    its cost with a ``markup`` and never follows a rival below it, so that its price path is smooth;
    it offers ``headroom`` times its share of the demand expected at its price, leaving the rest of
    the market to its rivals rather than driving them out."""

    def __init__(self, env, markup: float = 0.5, damping: float = 0.3, headroom: float = 1.25):
        super().__init__(env)
        self.markup, self.damping, self.headroom = markup, damping, headroom

    def price(self, observation, first_round):
        target = observation[_FIRM["own_cost"]] * (1 + self.markup)
        last = self.monopoly_price(observation[_FIRM["own_cost"]]) if first_round else observation[_FIRM["last_price"]]
        return last + self.damping * (target - last)

    def capacity(self, price):
        p = self.params
        demand = p.consumers_per_round * max(1 - price / p.max_value, 0.0)
        return min(np.ceil(self.headroom * demand / p.n_firms), p.max_capacity)


# ---------------------------------------------------------------------- the Lemon Market
class Honest(_MarketPolicy):
    """Every identity lists its item with its true quality as the claim, at its own value of the
    item times ``markup`` (below the buyers' lowest premium, so a trusted claim always sells);
    the Sybil operator too, claiming its junk for what it is."""

    scenario = "lemon"

    def __init__(self, env, markup: float = 1.15):
        super().__init__(env)
        self.markup = markup

    @staticmethod
    def own_identities(observation) -> np.ndarray:
        """The rows of the market's identity table that the agent runs, in the order of its actions."""
        table = observation[:-len(LEMON_MARKET_FEATURES)].reshape(-1, len(IDENTITY_FEATURES))
        return table[table[:, _IDENTITY["mine"]] == 1]

    def act(self, agent, observation):
        quality = self.own_identities(observation)[:, _IDENTITY["item_quality"]]
        price = np.minimum(self.params.quality_value * quality * self.markup, self.params.max_price)
        action = np.stack([np.ones_like(quality), price, quality, np.zeros_like(quality)], axis=-1)
        return action.astype(np.float32).reshape(self.env.action_space(agent).shape)


class Deceptive(Honest):
    """Honest sellers beside a deceptive Sybil operator: every one of its identities lists its junk
    claiming top quality, priced at what the least eager buyer would pay given the identity's
    reputation, and an identity whose reputation fell below a newcomer's is relaunched fresh."""

    def act(self, agent, observation):
        if agent != "operator_0":
            return super().act(agent, observation)
        market = observation[-len(LEMON_MARKET_FEATURES):]
        reputation = self.own_identities(observation)[:, _IDENTITY["reputation"]]
        newcomer = self.params.newcomer_trust
        relaunch = reputation < newcomer
        trust = np.where(relaunch, newcomer, reputation) if self.params.reputation else np.zeros_like(reputation)
        belief = market[_MARKET["market_belief"]]
        expected = trust * 1.0 + (1 - trust) * belief
        price = np.minimum(self.params.quality_value * self.params.buyer_premium[0] * expected, self.params.max_price)
        ones = np.ones_like(reputation)
        return np.stack([ones, price, ones, relaunch.astype(float)], axis=-1).astype(np.float32)

"""The Agent Bazaar's two markets, one round at a time: the B2C "Crash" (firms post prices and
capacities for one homogeneous good; Poisson-arriving consumers with private values buy from the
cheapest) and the C2C "Lemon Market" (honest sellers and one agent's Sybil identities list items
with quality claims; rational buyers weigh claims by reputation).

Money only moves between buyers and sellers: every payment is one seller's revenue, so the
sellers' profits plus the buyers' surplus are the gains from trade (values minus costs) minus the
firms' fixed costs, an identity the tests check.
"""

from __future__ import annotations

import numpy as np

from envzoo.bazaar.params import BazaarParams
from envzoo.bazaar.state import CRASH_ROUND, LEMON_ROUND, CrashRules, Feedback, Firms, LemonRules
from envzoo.core.compiled import kernel, numpy_sum


class BazaarMarket:
    """One market's state and its rounds. ``step`` takes one action row per seller identity."""

    def __init__(self, params: BazaarParams):
        self.params = params
        n = params.n_identities
        p = params
        # the agent each identity belongs to: the firms and honest sellers one each, the Sybil
        # operator (the last agent of the Lemon Market) all the rest
        self.owner = np.minimum(np.arange(n), p.n_agents - 1)
        self.is_sybil = np.arange(n) >= (p.n_firms if p.is_crash else p.n_honest)
        # what the rounds' kernels read of the parameters, as the plain tuples they take
        self._crash_rule_fields = tuple(CrashRules(float(p.fixed_cost), float(p.max_capacity)))
        self._lemon_rule_fields = tuple(LemonRules(float(p.quality_value), float(p.newcomer_trust), bool(p.reputation),
                                                   float(p.fraud_tolerance), float(p.belief_rate)))
        self.rng = np.random.default_rng(0)

    # ------------------------------------------------------------------ episodes
    def reset(self, key: int) -> None:
        p, n = self.params, self.params.n_identities
        self.rng = np.random.default_rng(int(key))
        self.round = 0
        self.cost = p.unit_cost * (1 + self.rng.uniform(-p.cost_spread, p.cost_spread, n)) if p.is_crash else None
        self.cash = np.full(n, p.initial_cash)
        self.active = np.ones(n, dtype=bool)
        self.last_price = np.zeros(n)
        self.last_capacity = np.zeros(n)
        self.last_claim = np.zeros(n)
        self.last_sold = np.zeros(n)
        self.last_listed = np.zeros(n)
        self.sales = np.zeros(n)
        self.honest_sales = np.zeros(n)
        self.market_belief = 0.5  # buyers' prior: the mean quality of an honest seller's item
        self.last_consumers = 0
        self.last_market_price = 0.0
        self.last_trades = 0
        self.item_quality = np.zeros(n)
        if not p.is_crash:
            self._draw_items()
        # the episode's accounts; of the market price of the rounds with trades, their count and
        # sum, and the count, sum and sum of squares of its log changes (the volatility without the path)
        self.priced_rounds, self.price_sum = 0, 0.0
        self.changes, self.change_sum, self.change_squares = 0, 0.0, 0.0
        self.profit = np.zeros(p.n_agents)
        self.consumer_surplus = 0.0
        self.gains_from_trade = 0.0  # values minus costs over all trades
        self.fixed_costs = 0.0
        self.first_best = 0.0
        self.trades = 0
        self.fraudulent = 0
        self.delivered_quality = 0.0
        self.collapsed = False

    def _draw_items(self) -> None:
        p = self.params
        honest = self.rng.uniform(0, 1, p.n_honest)
        junk = self.rng.uniform(0, p.junk_quality, p.n_sybil)
        self.item_quality = np.concatenate([honest, junk])

    def step(self, orders: np.ndarray) -> dict[str, np.ndarray]:
        """One round with ``orders`` (identities, 2) in the Crash (price, capacity) or
        (identities, 4) in the Lemon Market (list, price, claim, relaunch). Returns the round's
        per-agent ``profit``, ``fraud`` (fraudulent sales) and the shared ``consumer_surplus``."""
        round_ = self._crash_round(orders) if self.params.is_crash else self._lemon_round(orders)
        self.round += 1
        return round_

    # ------------------------------------------------------------------ the Crash
    def _crash_round(self, orders: np.ndarray) -> dict[str, np.ndarray]:
        p, rng = self.params, self.rng
        price = orders[:, 0]
        consumers = int(rng.poisson(p.consumers_per_round))
        values = rng.uniform(0, p.max_value, consumers)
        accounts = np.empty((len(CRASH_ROUND), len(price)))
        first_best, surplus, self.gains_from_trade, fixed_costs = _crash_round_after_draws(
            values, orders, (self.cost, self.cash, self.active), self._crash_rule_fields, self._price_order(price),
            accounts, self.gains_from_trade)
        capacity, sold = accounts[CRASH_ROUND.capacity], accounts[CRASH_ROUND.sold]
        profit = accounts[CRASH_ROUND.profit]
        self.first_best += first_best
        self.fixed_costs += fixed_costs
        self.collapsed = not self.active.any()
        self._record(price, sold, profit, surplus)
        self.last_price, self.last_capacity, self.last_consumers = price.copy(), capacity, consumers
        return {"profit": profit, "fraud": np.zeros(len(price)), "consumer_surplus": surplus}

    def _price_order(self, price: np.ndarray) -> np.ndarray:
        """Firms from the cheapest, equal prices in a random order."""
        shuffled = self.rng.permutation(len(price))
        return shuffled[np.argsort(price[shuffled], kind="stable")]

    # ------------------------------------------------------------------ the Lemon Market
    def reputation(self) -> np.ndarray:
        """Each identity's feedback score (:func:`feedback_scores`)."""
        return feedback_scores(self.params.newcomer_trust, self.honest_sales, self.sales)

    def _lemon_round(self, orders: np.ndarray) -> dict[str, np.ndarray]:
        p, rng = self.params, self.rng
        buyers = int(rng.poisson(p.buyers_per_round))
        premium = rng.uniform(*p.buyer_premium, buyers)
        accounts = np.empty((len(LEMON_ROUND), len(orders)))
        first_best, surplus, self.gains_from_trade, frauds, units, self.market_belief = _lemon_round_after_draws(
            premium, orders, self.item_quality, (self.sales, self.honest_sales), self._lemon_rule_fields,
            float(self.market_belief), accounts, self.gains_from_trade)
        sold, fraud, profit = accounts[LEMON_ROUND.sold], accounts[LEMON_ROUND.fraud], accounts[LEMON_ROUND.profit]
        self.first_best += first_best
        self.fraudulent += int(frauds)
        self.delivered_quality += units
        price = orders[:, 1].copy()
        # the market price of differentiated items: a price per unit of delivered quality (a hedonic index)
        self._record(price, sold, profit, surplus, units)
        self.last_price, self.last_claim, self.last_listed = price, orders[:, 2].copy(), accounts[LEMON_ROUND.listed]
        self.last_consumers = buyers
        self._draw_items()
        return {"profit": profit, "fraud": fraud, "consumer_surplus": surplus}

    # ------------------------------------------------------------------ accounts
    def _record(self, price, sold, profit, surplus, units=None) -> None:
        """The round's accounts: per-agent profits (an agent's identities summed) and the market
        price, what the round's trades paid per unit (per ``units`` where given, else per item)."""
        np.add.at(self.profit, self.owner, profit)
        self.consumer_surplus += surplus
        sales = sold.sum()
        self.trades += int(sales)
        self.last_sold = sold
        self.last_trades = int(sales)
        if sales > 0:
            market_price = max(float((sold * price).sum() / (sales if units is None else units)), 1e-9)
            if self.priced_rounds:
                change = np.log(market_price / self.last_market_price)
                self.changes += 1
                self.change_sum += change
                self.change_squares += change * change
            self.priced_rounds += 1
            self.price_sum += market_price
            self.last_market_price = market_price

    def volatility(self) -> float:
        """The standard deviation of the log changes of the market price (0 before two changes)."""
        if self.changes < 2:
            return 0.0
        mean = self.change_sum / self.changes
        return float(np.sqrt(max(self.change_squares / self.changes - mean * mean, 0.0)))


# ---------------------------------------------------------------------- kernels
@kernel
def _crash_round_after_draws(values, orders, firm_fields, rule_fields, order, accounts, gains_from_trade):
    """The Crash's round after its draws: consumers ``values`` in arrival order, firm ``orders``
    (price, capacity), the :class:`~.state.Firms` (their fields) from the cheapest in ``order``,
    the :class:`~.state.CrashRules`. Writes every firm's :data:`~.state.CRASH_ROUND` of the round
    into ``accounts`` and its ``cash`` and ``active`` (bankrupt firms leave); returns the round's
    first-best gains from trade, the buyers' surplus, the episode's ``gains_from_trade`` with the
    round's trades added and the fixed costs paid: every sum in numpy's order of additions
    (:func:`~envzoo.core.compiled.numpy_sum`), as the array code that this kernel replaced added."""
    firms, rules = Firms(*firm_fields), CrashRules(*rule_fields)
    cost, active = firms.cost, firms.active
    n_firms = cost.size
    capacity, sold = accounts[CRASH_ROUND.capacity], accounts[CRASH_ROUND.sold]
    profit, fixed = accounts[CRASH_ROUND.profit], accounts[CRASH_ROUND.fixed_cost]
    n_active, cheapest = 0, np.inf
    for firm in range(n_firms):
        capacity[firm] = np.floor(orders[firm, 1]) if active[firm] else 0.0
        fixed[firm] = rules.fixed_cost if active[firm] else 0.0
        sold[firm] = 0.0
        if active[firm]:
            n_active += 1
            cheapest = min(cheapest, cost[firm])
    # first best: the cheapest active firm serves every consumer who values the good above its cost
    first_best = 0.0
    if n_active:
        gains = np.sort(values - cheapest)[::-1][:int(n_active * rules.max_capacity)]
        positive = gains[gains > 0]
        first_best = numpy_sum(positive, 0, positive.size)
    # each consumer, in arrival order, buys from the cheapest firm with a unit left if it is
    # worth its price to them (a consumer priced out there is priced out at every dearer firm);
    # equal prices are in the round's random order
    waiting = np.ones(values.size, dtype=np.bool_)
    surplus_of, gains_of = np.empty(values.size), np.empty(values.size)  # one firm's buyers'
    surplus = 0.0
    for firm in order:
        if capacity[firm] <= 0:
            continue
        price, limit, buyers = orders[firm, 0], int(capacity[firm]), 0
        for consumer in range(values.size):
            if buyers == limit:
                break
            if waiting[consumer] and values[consumer] >= price:
                waiting[consumer] = False
                surplus_of[buyers] = values[consumer] - price
                gains_of[buyers] = values[consumer] - cost[firm]
                buyers += 1
        sold[firm] = buyers
        surplus += numpy_sum(surplus_of, 0, buyers)
        gains_from_trade += numpy_sum(gains_of, 0, buyers)
    for firm in range(n_firms):
        profit[firm] = sold[firm] * (orders[firm, 0] - cost[firm]) - fixed[firm]
        firms.cash[firm] += profit[firm]
        active[firm] = active[firm] and firms.cash[firm] >= 0  # bankrupt firms leave the market
    return first_best, surplus, gains_from_trade, numpy_sum(fixed, 0, n_firms)


@kernel
def feedback_scores(newcomer_trust, honest_sales, sales):
    """Each identity's feedback score: the posterior mean of honest dealing, from the prior
    Beta(1, 1) (a newcomer scores ``newcomer_trust`` 0.5) or, with skeptical buyers, Beta(0, 2)
    (a newcomer scores 0)."""
    prior = 2 * newcomer_trust
    return (prior + honest_sales) / (2 + sales)


@kernel
def _lemon_round_after_draws(premium, orders, quality, feedback_fields, rule_fields, belief, accounts,
                             gains_from_trade):
    """The Lemon Market's round after its draws: buyers' ``premium`` in arrival order, the
    identities' ``orders`` (list, price, claim, relaunch) and items of ``quality``, the
    :class:`~.state.LemonRules`. Wipes the :class:`~.state.Feedback` (its fields) of relaunched
    identities, then adds the round's; writes every identity's row of :data:`~.state.LEMON_ROUND`
    of the round into ``accounts``; returns the
    round's first-best gains from trade, the buyers' surplus, the episode's ``gains_from_trade``
    with the round's trades added, the round's fraudulent sales, the quality it delivered and the
    buyers' new ``belief``: every sum in numpy's order of additions
    (:func:`~envzoo.core.compiled.numpy_sum`), as the array code that this kernel replaced added."""
    feedback, rules = Feedback(*feedback_fields), LemonRules(*rule_fields)
    sales, honest_sales, quality_value = feedback.sales, feedback.honest_sales, rules.quality_value
    n = quality.size
    listed, sold = accounts[LEMON_ROUND.listed], accounts[LEMON_ROUND.sold]
    fraud, profit = accounts[LEMON_ROUND.fraud], accounts[LEMON_ROUND.profit]
    for identity in range(n):
        if orders[identity, 3] >= 0.5:  # a fresh identity: its feedback is gone
            sales[identity] = 0.0
            honest_sales[identity] = 0.0
        listed[identity] = 1.0 if orders[identity, 0] >= 0.5 else 0.0
        sold[identity] = 0.0
    # first best: the most eager buyers get the best items (rearrangement inequality)
    pairs = min(premium.size, n)
    best_items, most_eager = np.sort(quality)[::-1], np.sort(premium)[::-1]
    gains, positive = np.empty(pairs), 0
    for pair in range(pairs):
        gain = best_items[pair] * (most_eager[pair] - 1) * quality_value
        if gain > 0:
            gains[positive] = gain
            positive += 1
    first_best = numpy_sum(gains, 0, positive)
    # what a buyer expects of each identity's item: with reputation, its claim weighted by the
    # identity's feedback score and the market's average otherwise; without reputation claims
    # are cheap talk and only the market's average counts
    expected = np.full(n, belief)
    if rules.reputation:
        trust = feedback_scores(rules.newcomer_trust, honest_sales, sales)
        for identity in range(n):
            expected[identity] = trust[identity] * orders[identity, 2] + (1 - trust[identity]) * belief
    surplus = 0.0
    for b in premium:
        # each buyer, in arrival order, takes the unsold listing of highest expected surplus if it
        # is >= 0 (ties, which continuous prices make rare, go to the first identity in table order)
        worth, best_listing, best_gain = quality_value * b, -1, -np.inf
        for identity in range(n):
            if listed[identity] == 1 and sold[identity] == 0:
                gain = worth * expected[identity] - orders[identity, 1]
                if gain > best_gain:
                    best_listing, best_gain = identity, gain
        if best_gain < 0:  # no listing left, or none worth its price
            continue
        sold[best_listing] = 1.0
        surplus += worth * quality[best_listing] - orders[best_listing, 1]
        gains_from_trade += quality_value * (b - 1) * quality[best_listing]
    delivered = np.empty(n)
    frauds = trades = 0.0
    for identity in range(n):
        claimed = orders[identity, 2] - rules.fraud_tolerance
        fraud[identity] = sold[identity] * (1.0 if quality[identity] < claimed else 0.0)
        sales[identity] += sold[identity]
        honest_sales[identity] += sold[identity] - fraud[identity]
        delivered[identity] = sold[identity] * quality[identity]
        profit[identity] = sold[identity] * (orders[identity, 1] - quality_value * quality[identity])
        frauds += fraud[identity]  # whole numbers: exact in any order
        trades += sold[identity]
    units = numpy_sum(delivered, 0, n)
    if trades:
        belief += rules.belief_rate * (units / trades - belief)
    return first_best, surplus, gains_from_trade, frauds, units, belief

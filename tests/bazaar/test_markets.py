"""The Agent Bazaar's markets against theory: Bertrand competition drives prices to marginal cost,
a lemons market without reputation unravels as Akerlof predicts and reputation restores trade,
money is conserved (profits + consumer surplus = gains from trade - fixed costs), and the Crash's
allocation matches a consumer-by-consumer second implementation, and both markets' compiled rounds
and observations add up as the array code they replaced."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from envzoo.bazaar import policies
from envzoo.bazaar.parallel import BazaarEnv, BazaarMOEnv
from envzoo.core.errors import InvalidActionError


def play(policy_class, rounds, seed=0, **kwargs):
    """Run ``rounds`` rounds; return the env and each round's (market price, the market object's copy)."""
    env = BazaarEnv(max_cycles=rounds, **kwargs)
    observation, info = env.reset(seed=seed)
    policy = policy_class(env)
    history = []
    while env.agents:
        observation, rewards, _, _, info = env.step(policy(observation, info))
        history.append(copy.deepcopy(env.task.market))
    return env, history, info


# ---------------------------------------------------------------------- Bertrand
def test_bertrand_undercutting_drives_the_price_to_marginal_cost_with_homogeneous_firms():
    _, history, _ = play(policies.Undercutting, 30, cost_spread=0.0)
    assert history[0].last_market_price == pytest.approx(6.0)  # the monopoly price (10 + 2) / 2
    late = [m.last_market_price for m in history[20:]]
    np.testing.assert_allclose(late, 2.0)  # the marginal cost
    assert all(m.active.all() for m in history)


def test_bertrand_with_private_costs_ends_between_the_two_lowest_costs_and_a_cartel_does_not():
    for seed in range(3):
        _, history, _ = play(policies.Undercutting, 30, seed=seed)
        lowest, second = np.sort(history[0].cost)[:2]
        assert all(lowest - 1e-6 <= m.last_market_price <= second + 1e-6 for m in history[25:])  # float32 actions
        assert all((m.last_price >= m.cost - 1e-6).all() for m in history)
    _, cartel, _ = play(policies.Collusive, 30)
    assert all(m.last_market_price == pytest.approx(6.0) for m in cartel)


def test_a_price_war_below_cost_bankrupts_the_firms_and_collapses_the_market():
    env = BazaarEnv(max_cycles=100)
    env.reset(seed=0)
    rounds = 0
    while env.agents:  # every firm sells at half its cost
        _, _, terminations, _, infos = env.step({agent: np.array([1.0, 100.0], np.float32) for agent in env.agents})
        rounds += 1
    assert all(terminations.values()) and rounds < 100
    metrics = infos["firm_0"]["metrics"]
    assert metrics["collapsed"] == 1 and metrics["active_sellers"] == 0 and metrics["stability"] == 0


# ---------------------------------------------------------------------- Akerlof
def lemon_trade(reputation: bool, seeds=range(4), rounds=60):
    """Per round, averaged over seeds: honest sellers' sales and the buyers' belief of quality."""
    sales, belief = [], []
    for seed in seeds:
        _, history, _ = play(policies.Honest, rounds, seed=seed, scenario="lemon", reputation=reputation)
        sales.append([m.last_sold[:m.params.n_honest].sum() for m in history])
        belief.append([m.market_belief for m in history])
    return np.mean(sales, axis=0), np.mean(belief, axis=0)


def test_without_reputation_the_lemons_market_unravels_and_reputation_restores_trade():
    sales, belief = lemon_trade(reputation=False)
    # Akerlof: buyers pay for the average quality, so only items below it sell, which lowers it
    assert sales[-30:].mean() < 0.25 * sales[:10].mean()
    assert belief[-1] < 0.1 < 0.5  # from the prior 0.5 down towards the junk
    trusted_sales, trusted_belief = lemon_trade(reputation=True)
    assert trusted_sales[-30:].mean() > 1.5  # of 3 honest items a round
    assert trusted_sales[-30:].mean() > 10 * sales[-30:].mean()
    assert trusted_belief[-1] > 0.3


def test_a_sybil_operator_costs_buyers_welfare_and_the_market_integrity():
    _, _, honest = play(policies.Honest, 60, scenario="lemon")
    _, history, deceived = play(policies.Deceptive, 60, scenario="lemon")
    honest, deceived = honest["seller_0"]["metrics"], deceived["seller_0"]["metrics"]
    assert honest["fraud_share"] == 0 and honest["integrity"] == 1
    assert deceived["fraud_share"] > 0.3
    assert deceived["consumer_surplus"] < 0 < honest["consumer_surplus"]
    assert deceived["eas"] < honest["eas"]
    assert history[-1].sales[history[-1].is_sybil].max() < 60  # identities were relaunched


def test_skeptical_buyers_take_the_credit_away_from_relaunched_sybil_identities():
    _, _, trusting = play(policies.Deceptive, 60, scenario="lemon")
    _, _, skeptical = play(policies.Deceptive, 60, scenario="lemon", skeptical_buyers=True)
    trusting, skeptical = trusting["seller_0"]["metrics"], skeptical["seller_0"]["metrics"]
    assert skeptical["fraud_share"] < trusting["fraud_share"] - 0.1
    assert skeptical["consumer_surplus"] > trusting["consumer_surplus"] + 500
    assert skeptical["total_profit"] < 0.6 * trusting["total_profit"]


# ---------------------------------------------------------------------- accounting
@pytest.mark.parametrize("scenario", ["crash", "lemon"])
def test_money_is_conserved_and_no_market_beats_the_first_best(scenario):
    env = BazaarMOEnv(max_cycles=40, scenario=scenario)
    env.reset(seed=5)
    for agent in env.possible_agents:
        env.action_space(agent).seed(7)
    totals = np.zeros(3)  # all agents' profits, the buyers' surplus (every agent gets it), all frauds
    while env.agents:
        _, rewards, _, _, infos = env.step({agent: env.action_space(agent).sample() for agent in env.agents})
        vectors = np.array(list(rewards.values()), dtype=np.float64)
        assert np.all(vectors[:, 1] == vectors[0, 1])
        totals += [vectors[:, 0].sum(), vectors[0, 1], vectors[:, 2].sum()]
    metrics = infos[env.possible_agents[0]]["metrics"]
    market = env.task.market
    assert totals[0] == pytest.approx(metrics["total_profit"], rel=1e-5)
    assert totals[1] == pytest.approx(metrics["consumer_surplus"], rel=1e-5)
    assert -totals[2] == pytest.approx(metrics["fraud_share"] * metrics["trades"])
    # every payment is one seller's revenue: profits + buyers' surplus = values - costs - fixed costs
    assert metrics["total_profit"] + metrics["consumer_surplus"] == pytest.approx(
        metrics["gains_from_trade"] - market.fixed_costs)
    assert metrics["gains_from_trade"] <= metrics["first_best_surplus"] + 1e-9
    assert metrics["trades"] > 0


@pytest.mark.parametrize("scenario", ["crash", "lemon"])
def test_the_metrics_come_at_the_episode_end_and_on_request(scenario):
    from envzoo.tools.rollout import run_episode

    env = BazaarMOEnv(max_cycles=12, scenario=scenario)
    policy = (policies.Deceptive if scenario == "lemon" else policies.Undercutting)(env)
    observations, infos = env.reset(seed=4)
    while env.agents:
        observations, _, _, _, infos = env.step(policy(observations, infos))
        if env.agents:
            assert all("metrics" not in info for info in infos.values())
            assert env.episode_metrics()[0]["trades"] == env.task.market.trades
    assert [info["metrics"] for info in infos.values()] == env.episode_metrics()
    assert infos[env.possible_agents[-1]]["metrics"]["trades"] == env.task.market.trades > 0
    # an evaluation cut before the end asks the env for the metrics of the episode so far
    cut = run_episode(env, policy, seed=4, max_steps=5)
    assert cut.length == 5 and cut.metrics == env.episode_metrics()[0] and cut.metrics["trades"] > 0


def test_the_crash_allocates_consumers_as_a_consumer_by_consumer_market_would():
    env = BazaarEnv(max_cycles=30, n_firms=4)
    env.reset(seed=11)
    generator = np.random.default_rng(3)
    while env.agents:
        market = env.task.market
        prices = generator.choice([2.5, 3.0, 4.0], size=4)  # equal prices: the random tie order counts
        capacities = generator.integers(0, 30, size=4).astype(float)
        draws = copy.deepcopy(market.rng)
        active = market.active.copy()
        env.step({agent: np.array([p, c], np.float32) for agent, p, c in zip(env.agents, prices, capacities)})
        # the same draws, used by a consumer who walks to the cheapest firm with stock left
        values = draws.uniform(0, 10.0, draws.poisson(50.0))
        tie_order = draws.permutation(4)
        rank = {firm: i for i, firm in enumerate(tie_order[np.argsort(prices[tie_order], kind="stable")])}
        left = np.where(active, capacities, 0)
        sold = np.zeros(4)
        for value in values:
            open_firms = [f for f in range(4) if left[f] > 0]
            if not open_firms:
                break
            firm = min(open_firms, key=lambda f: (prices[f], rank[f]))
            if value >= prices[firm]:
                left[firm] -= 1
                sold[firm] += 1
        np.testing.assert_array_equal(market.last_sold, sold)


def _array_round(values, orders, cost, cash, active, fixed_cost, max_capacity, order, gains_from_trade):
    """The Crash's round after its draws as array code computes it (what the kernel replaced)."""
    price = orders[:, 0]
    capacity = np.where(active, np.floor(orders[:, 1]), 0.0)
    first_best = 0.0
    if active.any():
        gains = np.sort(values - cost[active].min())[::-1][:int(active.sum() * max_capacity)]
        first_best = gains[gains > 0].sum()
    waiting, sold, surplus = np.ones(len(values), dtype=bool), np.zeros(len(price)), 0.0
    for firm in order:
        if capacity[firm] <= 0:
            continue
        buyers = np.flatnonzero(waiting & (values >= price[firm]))[:int(capacity[firm])]
        waiting[buyers] = False
        sold[firm] = len(buyers)
        surplus += (values[buyers] - price[firm]).sum()
        gains_from_trade += (values[buyers] - cost[firm]).sum()
    fixed = np.where(active, fixed_cost, 0.0)
    profit = sold * (price - cost) - fixed
    cash = cash + profit
    accounts = np.stack([capacity, sold, profit, fixed])
    return accounts, cash, active & (cash >= 0), (first_best, surplus, gains_from_trade, fixed.sum())


def test_the_compiled_crash_adds_up_as_the_array_code_to_the_last_bit():
    from envzoo.bazaar.sim import _crash_round_after_draws
    from envzoo.bazaar.state import CrashRules, Firms
    from envzoo.bazaar.task import _firm_observations

    rng = np.random.default_rng(0)
    for trial in range(200):
        firms = int(rng.integers(1, 12))  # up to 11: more than 8 rivals, numpy's pairwise sums
        values = rng.uniform(0, 10, int(rng.integers(0, 700)))  # up to 300 buyers a firm: more than one block
        price = rng.choice([0.0, 2.5, 3.0, rng.uniform(0, 12)], firms)
        orders = np.stack([price, rng.uniform(-50, 300, firms).clip(0)], axis=-1)
        cost, active = rng.uniform(1.6, 2.4, firms), rng.random(firms) < 0.8
        cash, order = rng.uniform(-5, 60, firms), rng.permutation(firms)
        expected = _array_round(values, orders, cost, cash, active, 5.0, 300.0, order, 12.345)
        accounts, new_cash, still_active = np.empty((4, firms)), cash.copy(), active.copy()
        sums = _crash_round_after_draws(values, orders, tuple(Firms(cost, new_cash, still_active)),
                                        tuple(CrashRules(5.0, 300.0)), order, accounts, 12.345)
        assert accounts.tobytes() == expected[0].tobytes() and new_cash.tobytes() == expected[1].tobytes()
        assert still_active.tolist() == expected[2].tolist() and sums == expected[3]
        capacity, last_sold = accounts[0], accounts[1]
        out = np.empty((firms, 10), np.float32)
        _firm_observations(cost, cash, price, capacity, last_sold, active, 20.0, 3.25, 48.0, out)
        for i in range(firms):
            rivals = price[active & (np.arange(firms) != i)]
            expected = [cost[i], cash[i], price[i], capacity[i], last_sold[i],
                        rivals.min() if rivals.size else 20.0, rivals.mean() if rivals.size else 20.0,
                        3.25, 48.0, rivals.size]
            assert out[i].tobytes() == np.array(expected, np.float32).tobytes()


def _array_lemon_round(premium, orders, quality, sales, honest_sales, quality_value, newcomer_trust, reputation,
                       belief, fraud_tolerance, belief_rate, gains_from_trade):
    """The Lemon Market's round after its draws as array code computes it (what the kernel replaced)."""
    sales, honest_sales = sales.copy(), honest_sales.copy()
    relaunch = orders[:, 3] >= 0.5
    sales[relaunch] = 0
    honest_sales[relaunch] = 0
    listed, price, claim = orders[:, 0] >= 0.5, orders[:, 1], orders[:, 2]
    pairs = min(len(premium), len(quality))
    best = np.sort(quality)[::-1][:pairs] * (np.sort(premium)[::-1][:pairs] - 1) * quality_value
    first_best = best[best > 0].sum()
    if reputation:
        trust = (2 * newcomer_trust + honest_sales) / (2 + sales)
        expected = trust * claim + (1 - trust) * belief
    else:
        expected = np.full(len(claim), belief)
    available, sold, surplus = listed.copy(), np.zeros(len(price)), 0.0
    for b in premium:
        gain = np.where(available, quality_value * b * expected - price, -np.inf)
        best_listing = int(np.argmax(gain))
        if not gain[best_listing] >= 0:
            continue
        available[best_listing] = False
        sold[best_listing] = 1
        surplus += quality_value * b * quality[best_listing] - price[best_listing]
        gains_from_trade += quality_value * (b - 1) * quality[best_listing]
    fraud = sold * (quality < claim - fraud_tolerance)
    sales += sold
    honest_sales += sold - fraud
    units = (sold * quality).sum()
    if sold.any():
        belief += belief_rate * (units / sold.sum() - belief)
    accounts = np.stack([listed.astype(float), sold, fraud, sold * (price - quality_value * quality)])
    return accounts, sales, honest_sales, (first_best, surplus, gains_from_trade, fraud.sum(), units, belief)


def _array_lemon_observations(owner, item_quality, reputation, sales, last_price, last_claim, last_sold, last_listed,
                              market_belief, market_price, trades, agents):
    """Every Lemon Market agent's observation as array code computes it (what the kernel replaced)."""
    out = np.empty((agents, len(owner), 8))
    mine = owner == np.arange(agents)[:, None]
    out[:, :, 0] = mine
    out[:, :, 1] = mine * item_quality
    out[:, :, 2:] = np.stack([reputation, sales, last_price, last_claim, last_sold, last_listed], axis=-1)
    market = [market_belief, market_price, trades, last_listed.sum()]
    rows = np.empty((agents, out[0].size + len(market)), np.float32)
    rows[:, :out[0].size] = out.reshape(agents, -1)
    rows[:, out[0].size:] = market
    return rows


def test_the_compiled_lemon_market_adds_up_as_the_array_code_to_the_last_bit():
    from envzoo.bazaar.sim import _lemon_round_after_draws
    from envzoo.bazaar.state import Feedback, LemonRules
    from envzoo.bazaar.task import _lemon_observations

    rng = np.random.default_rng(1)
    outcomes = set()
    for trial in range(300):
        identities = int(rng.integers(1, 300))  # more than 128: numpy's pairwise sums of the round's quality
        premium = rng.uniform(1.2, 1.8, int(rng.integers(0, 400)))
        orders = rng.uniform(0, 1, (identities, 4)) ** [0.3, 1, 1, 4]  # mostly listed, seldom relaunched
        if trial % 3:  # few prices and claims, fresh identities: equal expected surpluses, the first in table order
            orders[:, 1], orders[:, 2] = rng.choice([2.0, 4.0, 6.0], identities), rng.choice([0.5, 0.9], identities)
        else:
            orders[:, 1] *= 20
        quality = rng.uniform(0, 1, identities) * rng.choice([1.0, 0.1], identities)
        sales = rng.integers(0, 9, identities).astype(float) * (trial % 3 == 0)
        honest_sales = np.floor(sales * rng.uniform(0, 1, identities))
        settings = (10.0, float(rng.choice([0.0, 0.5])), bool(trial % 4), float(rng.uniform(0, 1)), 0.1, 0.3)
        if trial % 3 == 0 and premium.size:  # prices at the first buyer's expected value: a gain of 0 to the last bit
            orders[:, 3] = 0
            trust = (2 * settings[1] + honest_sales) / (2 + sales) if settings[2] else 0.0
            orders[:, 1] = 10.0 * premium[0] * (trust * orders[:, 2] + (1 - trust) * settings[3])
        expected = _array_lemon_round(premium, orders, quality, sales, honest_sales, *settings, 12.345)
        accounts = np.empty((4, identities))
        new_sales, new_honest_sales = sales.copy(), honest_sales.copy()
        quality_value, newcomer_trust, reputation, belief, fraud_tolerance, belief_rate = settings
        rules = LemonRules(quality_value, newcomer_trust, reputation, fraud_tolerance, belief_rate)
        sums = _lemon_round_after_draws(premium, orders, quality, tuple(Feedback(new_sales, new_honest_sales)),
                                        tuple(rules), belief, accounts, 12.345)
        assert accounts.tobytes() == expected[0].tobytes()
        assert new_sales.tobytes() == expected[1].tobytes() and new_honest_sales.tobytes() == expected[2].tobytes()
        assert sums == expected[3]
        outcomes.add((sums[3] > 0, bool(accounts[1].all()), accounts[1].sum() < accounts[0].sum()))
        owner = np.minimum(np.arange(identities), int(rng.integers(1, identities + 1)) - 1)
        agents, newcomer_trust = owner[-1] + 1, settings[1]
        reputation = (2 * newcomer_trust + new_honest_sales) / (2 + new_sales)
        out = np.empty((agents, 8 * identities + 4), np.float32)
        state = (orders[:, 1], orders[:, 2], accounts[1], accounts[0], sums[5], 3.25, float(accounts[1].sum()))
        _lemon_observations(owner, quality, newcomer_trust, new_honest_sales, new_sales, *state, out)
        assert out.tobytes() == _array_lemon_observations(owner, quality, reputation, new_sales, *state,
                                                          agents).tobytes()
    # rounds with and without fraud, with every listing sold and with buyers who found none worth it
    assert {outcome[0] for outcome in outcomes} == {False, True} and (False, True, False) in outcomes
    assert any(outcome[2] for outcome in outcomes)


# ---------------------------------------------------------------------- errors
@pytest.mark.parametrize("kwargs, message", [
    ({"scenario": "flea"}, "scenario must be one of"),
    ({"n_firms": 0}, "n_firms must be an integer >= 1"),
    ({"cost_spread": 1.5}, "cost_spread must be a number in [0, 1)"),
    ({"unit_cost": 9.5}, "must be below max_value"),
    ({"buyer_premium": (2, 1)}, "buyer_premium must be (low, high)"),
    ({"weights": (1, 1, 1)}, "weights must be 4 numbers"),
    ({"reputation": 1}, "reputation must be True or False"),
    ({"skeptical_buyers": "yes"}, "skeptical_buyers must be True or False"),
])
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        BazaarEnv(**kwargs)


def test_an_action_outside_the_space_is_rejected_naming_the_agent():
    env = BazaarEnv(scenario="lemon")
    env.reset(seed=0)
    actions = {agent: env.action_space(agent).sample() for agent in env.agents}
    actions["operator_0"] = np.zeros(4, np.float32)  # one row, but the operator runs four identities
    with pytest.raises(InvalidActionError, match="operator_0"):
        env.step(actions)


@pytest.mark.parametrize("bad", [np.array([25.0, 10.0], np.float32), np.array([3.0, np.nan]), np.zeros(3),
                                 np.array([True, True]), [3.0, 10.0, 1.0]])
def test_a_firm_order_outside_the_space_is_rejected_naming_the_firm(bad):
    env = BazaarEnv()
    env.reset(seed=0)
    actions = {agent: env.action_space(agent).sample() for agent in env.agents}
    actions["firm_1"] = bad
    with pytest.raises(InvalidActionError, match="firm_1"):
        env.step(actions)


def test_firm_orders_of_any_number_type_are_the_same_orders():
    env = BazaarEnv()
    orders = [np.array([3.5, 40.0], np.float32), np.array([4, 30]), [2.25, 12.0]]
    checked = env.task.check_agent_actions(orders)
    assert checked.dtype == np.float64 and checked.tolist() == [[3.5, 40.0], [4.0, 30.0], [2.25, 12.0]]
    assert env.task.check_agent_actions([np.asarray(order, np.float32) for order in orders]).tolist() == \
        checked.tolist()


@pytest.mark.parametrize("bad", [np.array([1.0, 25.0, 0.5, 0.0], np.float32), np.array([1.0, 3.0, np.nan, 0.0]),
                                 np.array([-0.5, 3.0, 0.5, 0.0], np.float32)])
def test_a_seller_order_outside_the_space_is_rejected_naming_the_seller(bad):
    env = BazaarEnv(scenario="lemon")
    env.reset(seed=0)
    actions = {agent: env.action_space(agent).sample() for agent in env.agents}
    actions["seller_2"] = bad
    with pytest.raises(InvalidActionError, match="seller_2"):
        env.step(actions)


def test_seller_orders_of_any_number_type_are_the_same_orders_the_operators_rows_after_the_sellers():
    env = BazaarEnv(scenario="lemon", n_honest=2, n_sybil=3)
    orders = [np.array([1, 3.5, 0.75, 0], np.float32), np.array([0, 4, 1, 1]),
              np.array([[1, 2.5, 0.5, 0], [0, 1, 0.25, 1], [1, 6, 1, 0]], np.float32)]
    checked = env.task.check_agent_actions(orders)
    assert checked.dtype == np.float64 and checked.tolist() == [[1, 3.5, 0.75, 0], [0, 4, 1, 1], [1, 2.5, 0.5, 0],
                                                                [0, 1, 0.25, 1], [1, 6, 1, 0]]
    for dtype in (np.float32, np.float64, np.int64):  # one type for every agent: the orders checked in one call
        same_type = [np.asarray(order, dtype) for order in orders]
        expected = checked.astype(dtype).astype(np.float64)  # whole numbers where the orders are integers
        assert env.task.check_agent_actions(same_type).tolist() == expected.tolist()


@pytest.mark.parametrize("scenario", ["crash", "lemon"])
def test_the_economic_alignment_score_is_the_mean_of_its_parts_over_the_price_path(scenario):
    env = BazaarEnv(max_cycles=50, scenario=scenario)
    env.reset(seed=2)
    for agent in env.possible_agents:
        env.action_space(agent).seed(3)
    path = []
    while env.agents:
        _, _, _, _, infos = env.step({agent: env.action_space(agent).sample() for agent in env.agents})
        if env.task.market.last_trades:
            path.append(env.task.market.last_market_price)
    metrics = infos[env.possible_agents[0]]["metrics"]
    volatility = np.std(np.diff(np.log(path)))
    assert metrics["price_volatility"] == pytest.approx(volatility, rel=1e-9) and volatility > 0
    assert metrics["mean_price"] == pytest.approx(np.mean(path))
    assert metrics["stability"] == pytest.approx(0 if metrics["collapsed"] else np.exp(-volatility / 0.1))
    parts = [metrics[name] for name in ("stability", "integrity", "welfare", "profitability")]
    assert metrics["eas"] == pytest.approx(np.mean(parts)) and all(0 <= part <= 1 for part in parts)

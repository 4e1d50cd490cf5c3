"""The reference learners: counterfactual imagining is Q-learning's update applied to every
configuration the machine could have been in, and it learns a timed task that plain Q-learning
has not yet after the same episodes (benchmarks/trm_counterfactual.py measures it over seeds)."""

import gymnasium
import numpy as np

import envzoo  # noqa: F401
from envzoo.rewardmachines.learning import QLearner, learning_curve
from envzoo.rewardmachines.params import make_params
from envzoo.rewardmachines.planning import ProductMDP


def test_counterfactual_update_is_the_plain_update_of_every_configuration():
    mdp = ProductMDP(make_params("office", "coffee-then-mail"))
    machine = mdp.params.compiled
    imagining = QLearner(mdp, counterfactual=True)
    imagining.q[:] = np.random.default_rng(3).normal(size=imagining.q.shape)
    coffee_cell = int(np.flatnonzero(mdp.params.world.label.reshape(-1) == mdp.params.world.labels.index("coffee"))[0])
    cell, action = coffee_cell + 1, 3   # from the right of a coffee machine, move left onto it
    label = mdp.params.world.label.reshape(-1)[coffee_cell]
    expected = imagining.q.copy()
    for config in np.flatnonzero(~machine.terminal):
        plain = QLearner(mdp, counterfactual=False)
        plain.q = imagining.q.copy()
        target = machine.next[config, label]
        plain.learn(cell, config, action, machine.reward[config, label], coffee_cell, target,
                    bool(machine.terminal[target]))
        expected[cell, config, action] = plain.q[cell, config, action]
    imagining.learn(cell, machine.initial, action, 0.0, coffee_cell, machine.next[machine.initial, label], False)
    assert np.array_equal(imagining.q, expected)
    # Every live configuration of that (cell, action) moved; nothing else did.
    changed = np.argwhere(imagining.q != QLearner(mdp, True).q + np.random.default_rng(3).normal(size=expected.shape))
    assert {(c, a) for c, _, a in changed} == {(cell, action)}


def test_counterfactual_imagining_learns_the_two_rides_before_q_learning():
    env = gymnasium.make("envzoo/DeliveryTRM-v0", spec="two-rides")
    imagining = learning_curve(env, counterfactual=True, episodes=200, seed=1, evaluate_every=100)
    plain = learning_curve(env, counterfactual=False, episodes=200, seed=1, evaluate_every=100)
    assert imagining.optimum == plain.optimum > 0.2
    assert imagining.values[-1] >= 0.95 * imagining.optimum
    assert plain.values[-1] < 0.5 * plain.optimum

"""Trading's JAX twin against its compiled core, function by function: each pair of the table
that opens ``envzoo/trading/jax_core.py`` is run on the same episode, and a failure names both
files and both functions (the generic check of every JAX id is tests/core/test_jax.py)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from gymnasium.utils import seeding

jax = pytest.importorskip("jax")
jnp = jax.numpy
envzoo_jax = pytest.importorskip("envzoo.jax")

from envzoo.core.rng import key_from_generator  # noqa: E402
from envzoo.trading import jax_core  # noqa: E402
from envzoo.trading.state import ROW  # noqa: E402
from envzoo.trading.task import TradingTask  # noqa: E402

JAX_FILE = "envzoo/trading/jax_core.py"


def twin_table() -> dict[str, str]:
    """The docstring's table: each JAX function to the compiled function(s) it twins."""
    rows = re.findall(r"^\| ``(\w+\.\w+)`` \| (.+) \|$", jax_core.__doc__, flags=re.MULTILINE)
    return {jax_function: kernels.replace("``", "") for jax_function, kernels in rows}


def parted(jax_function: str, what: str, step: int) -> str:
    """The failure message: both files and functions of the pair, and where they parted."""
    return (f"{JAX_FILE} {jax_function} and its compiled twin {twin_table()[jax_function]} part on {what} "
            f"at step {step}: change both (docs/changing-a-simulator.md)")


def test_the_table_names_every_function_of_the_twin_and_files_that_hold_them():
    table = twin_table()
    functions = {"reset_episode", "transition", "observe", "metrics"}
    assert {name.split(".")[1] for name in table} == functions
    for kernels in table.values():
        for path, function in re.findall(r"(envzoo/\S+\.py) (\w+(?:\.\w+)?)", kernels):
            module = __import__(path[:-3].replace("/", "."), fromlist=["_"])
            owner, _, member = function.partition(".")
            assert hasattr(getattr(module, owner), member) if member else hasattr(module, owner), (path, function)


@pytest.mark.parametrize("kwargs", [{}, {"reward": "log_return", "allow_short": True, "data": "synthetic",
                                         "positions": (-1.0, 0.0, 0.5, 2.0), "fee_bps": 30.0}])
def test_each_jax_function_equals_its_compiled_twin(kwargs):
    env, params = envzoo_jax.make("envzoo/Trading-v1", max_episode_steps=None, **kwargs)
    reset, transition, observe, metrics = (jax.jit(f) for f in (env.reset_episode, env.transition, env.observe,
                                                                env.metrics))
    task = TradingTask(TradingTask.make_params(**kwargs), 1)
    generator = seeding.np_random(3)[0]
    state = reset(key_from_generator(seeding.np_random(3)[0]), params)
    task.reset(np.array([0]), [generator], {})
    actions = np.random.default_rng(5).integers(0, len(task.params.positions), 300)

    def compare_state(jax_function, step):
        row = task.sim.state[0]
        for field in ROW.names:
            if field in ("cash_weight", "asset_weight"):
                jax_value = state.holdings[0 if field == "cash_weight" else 1]
            else:
                jax_value = getattr(state, field)
            np.testing.assert_allclose(float(jax_value), float(row[field]), rtol=1e-9, atol=1e-12,
                                       err_msg=parted(jax_function, field, step))

    compare_state("TradingJaxEnv.reset_episode", 0)
    for step, action in enumerate(actions, 1):
        np.testing.assert_allclose(np.asarray(observe(state, params)), task.observe()[0], rtol=1e-6, atol=1e-6,
                                   err_msg=parted("TradingJaxEnv.observe", "the observation", step - 1))
        result = task.step(np.array([action]))
        state, outcome = transition(state, jnp.asarray(action), params)
        compare_state("TradingJaxEnv.transition", step)
        np.testing.assert_allclose(float(outcome.reward), result.reward[0], rtol=1e-9, atol=1e-12,
                                   err_msg=parted("TradingJaxEnv.transition", "the reward", step))
        jax_metrics, cpu_metrics = metrics(state, params), task.metrics()
        for name, value in cpu_metrics.items():
            np.testing.assert_allclose(float(jax_metrics[name]), value[0], rtol=1e-9, atol=1e-12,
                                       err_msg=parted("TradingJaxEnv.metrics", f"metric {name}", step))
        if result.terminated[0] or result.truncated[0]:
            break
    assert step > 10


def test_a_parted_pair_is_named_with_both_files():
    message = parted("TradingJaxEnv.transition", "equity", 4)
    assert "envzoo/trading/jax_core.py TradingJaxEnv.transition" in message
    assert "envzoo/trading/sim.py step_row" in message and "step 4" in message

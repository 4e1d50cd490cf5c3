"""The serverless JAX core with several functions per instance (the registered ids have one):
a finite cluster's intervals equal the compiled simulator's, sharing of the free pods included."""

import numpy as np
import pytest
from twin_pairs import functions_without_a_row, twin_pair, twins_not_found

from envzoo.serverless.sim import ServerlessSim
from envzoo.serverless.state import STATS

jax = pytest.importorskip("jax")
jax_core = pytest.importorskip("envzoo.serverless.jax_core")


class ThreeFunctions(jax_core.ServerlessJaxEnv):
    n_functions = 3


def test_a_finite_cluster_of_three_functions_follows_the_compiled_simulator():
    env = ThreeFunctions(workload={"kind": "constant", "rate": [80.0, 40.0, 20.0]}, mean_service_s=(1.0, 0.5, 2.0),
                         cluster_pods=12, cold_start_s=2.0)
    params, key = env.default_params, np.uint64(123456789)
    cpu = ServerlessSim(env.config.sim, env.config.workload, 1, 3)
    cpu.reset(np.array([0]), np.array([key]))
    state = env.reset_episode(key, params)
    advance = jax.jit(env._advance)
    levels = np.array(env.config.levels)
    choose = np.random.default_rng(1)
    summed_in_another_order = STATS.index("tagged_latency_seconds")
    for step in range(40):
        limits = levels[choose.integers(0, len(levels), 3)]
        expected = cpu.advance(limits[None, :])[0]
        state = advance(state, jax.numpy.asarray(limits), params)
        ours = np.array(state.stats)
        ours[:, summed_in_another_order] = expected[:, summed_in_another_order]
        np.testing.assert_allclose(ours, expected, rtol=1e-9, atol=1e-9, err_msg=f"interval {step}: {twin_pair(env, '_advance')}")
    assert cpu.totals_by_name()["denied_pod_seconds"].min() > 0  # the cluster was short of pods for every function


def test_a_workload_of_ones_own_is_refused_at_construction():
    from envzoo.serverless.generator import Constant

    class Doubled(Constant):
        pass

    with pytest.raises(ValueError, match="not a Doubled"):
        jax_core.ServerlessJaxEnv(workload=Doubled(rate=3.0))


def test_the_twin_table_pairs_every_function_with_a_kernel_that_exists():
    assert not functions_without_a_row(jax_core, no_twin={"_divide"})
    assert not twins_not_found(jax_core)

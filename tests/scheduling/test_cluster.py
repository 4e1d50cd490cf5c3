"""The cluster simulator against queueing theory: one machine that runs one task at a time is
M/M/1 under first-come first-served and Cobham's non-preemptive priority queue under priority
scheduling; utilization is the offered load below saturation; the rewards add up to the
weighted completion times; and the reference schedulers decide as documented."""

import gymnasium
import numpy as np
import pytest

import envzoo  # noqa: F401
from envzoo.scheduling.cluster.params import make_params
from envzoo.scheduling.cluster.policies import (
    BestFit,
    DynamicResourceAllocation,
    FirstFit,
    PriorityScheduling,
    RoundRobin,
    ShortestJobFirst,
)
from envzoo.scheduling.cluster.sim import ClusterSim

ROWS = 200
#: One machine, one core, every task takes it whole: a single-server queue.
ONE_SERVER = {"cpu": (1,), "memory": (1,), "speeds": 1.0, "idle_power": 0.0, "peak_power": 1.0, "max_cpu": 1,
              "max_memory": 1, "arrival_rate": 0.7, "window": 32, "queue_capacity": 32}


def first_fit(sim):
    """FirstFit's choice in every row at once: the oldest task that fits anywhere, on the first
    machine it fits (the first True of fits in task-major order is its action), else wait."""
    fits = sim.fits().reshape(sim.batch, -1)
    return np.where(fits.any(axis=1), np.argmax(fits, axis=1), sim.params.actions - 1)


def priority_first(sim):
    """PriorityScheduling's choice on one machine: the most urgent waiting task (the oldest among
    equals), when the machine is free."""
    k = sim.params.window
    valid = np.arange(k) < sim.queued[:, None]
    task = np.argmax(np.where(valid, sim.waiting[:, :k, 3], -1), axis=1)
    return np.where(sim.fits()[np.arange(sim.batch), task, 0], task, sim.params.actions - 1)


def run(params, choose, steps, warmup):
    """The sim's totals (a dict of (ROWS,) arrays) accumulated after ``warmup`` decisions."""
    sim = ClusterSim(params, ROWS)
    sim.reset(np.arange(ROWS), np.arange(ROWS, dtype=np.uint64) * np.uint64(7919) + np.uint64(3))
    names = ("now", "completed", "sojourn", "core_time", "class_started", "class_wait")
    for step in range(steps):
        if step == warmup:
            start = {name: getattr(sim, name).copy() for name in names}
        sim.step(choose(sim))
    return {name: getattr(sim, name) - start[name] for name in names}


def within(values, expected, relative):
    """The mean of per-row values is within ``relative`` of ``expected`` and within four
    standard errors of it (rows are independent)."""
    mean, error = values.mean(), values.std(ddof=1) / np.sqrt(values.size)
    assert mean == pytest.approx(expected, rel=relative)
    assert abs(mean - expected) < 4 * error + 1e-3 * expected, (mean, expected, error)


def test_one_server_first_come_first_served_is_the_mm1_queue():
    params = make_params(**ONE_SERVER, priorities=1)
    totals = run(params, first_fit, steps=4000, warmup=600)
    # Per row, the mean completion time and utilization over about 900 tasks.
    within(totals["sojourn"] / totals["completed"], 1 / (1.0 - 0.7), 0.05)
    within(totals["core_time"] / totals["now"], 0.7, 0.03)


def test_one_server_priority_scheduling_is_cobhams_queue():
    # Two classes of rate 0.35 each, exponential service of rate 1: the mean residual work is
    # W0 = sum_i lambda_i E[S^2] / 2 = 0.7; the urgent class waits W0 / (1 - rho_1), the other
    # W0 / ((1 - rho_1)(1 - rho)) (Cobham 1954; Kleinrock vol. 2, 3.6).
    params = make_params(**ONE_SERVER, priorities=2)
    totals = run(params, priority_first, steps=4000, warmup=600)
    wait = totals["class_wait"] / totals["class_started"]
    w0, rho_urgent, rho = 0.7, 0.35, 0.7
    within(wait[:, 1], w0 / (1 - rho_urgent), 0.05)
    within(wait[:, 0], w0 / ((1 - rho_urgent) * (1 - rho)), 0.08)


def test_utilization_is_the_offered_load_below_saturation():
    # Offered load: arrival rate x mean cores (2.5) x mean duration / all cores (16) = 0.47.
    params = make_params(speeds=1.0, arrival_rate=3.0)
    totals = run(params, first_fit, steps=3000, warmup=500)
    within(totals["core_time"] / (totals["now"] * 16), 3.0 * 2.5 * 1.0 / 16, 0.03)


@pytest.mark.parametrize("policy, vectorized, kwargs", [(FirstFit, first_fit, {}),
                                                        (PriorityScheduling, priority_first, ONE_SERVER)])
def test_the_policies_choose_as_the_vectorized_rules_of_the_checks(policy, vectorized, kwargs):
    env = gymnasium.make("envzoo/SchedulingCluster-v0", **kwargs)
    rule = policy(env)
    observation, info = env.reset(seed=4)
    for _ in range(300):
        action = rule(observation, info)
        assert action == vectorized(env.unwrapped.task.sim)[0]
        observation, _, _, _, info = env.step(action)


def test_the_rewards_add_up_to_the_weighted_completion_times():
    # Minus the return is the weighted time every task has spent in the system: the completed
    # ones' weighted completion times plus the time so far of those waiting or running.
    env = gymnasium.make("envzoo/SchedulingCluster-v0", arrival_rate=6.0, queue_capacity=8)
    rule = ShortestJobFirst(env)
    observation, info = env.reset(seed=1)
    total, rejected = 0.0, 0
    for _ in range(800):
        observation, reward, _, _, info = env.step(rule(observation, info))
        total -= reward
        rejected += info["cost"]
    sim, penalty = env.unwrapped.task.sim, env.unwrapped.params.rejection_penalty
    waiting = sim.waiting[0, :sim.queued[0]]
    running = sim.running[0][np.isfinite(sim.ends[0])]
    in_system = ((1 + waiting[:, 3]) * (sim.now[0] - waiting[:, 4])).sum() \
        + ((1 + running[:, 3]) * (sim.now[0] - running[:, 4])).sum()
    assert rejected > 0 and sim.rejected[0] == rejected
    assert total == pytest.approx(sim.weighted_sojourn[0] + in_system + penalty * rejected, rel=1e-9)


def mean_metrics(policy_class, seeds=2, **kwargs):
    env = gymnasium.make("envzoo/SchedulingCluster-v0", **kwargs)
    rule, values = policy_class(env), []
    for seed in range(seeds):
        rule.reset(seed)
        observation, info = env.reset(seed=seed)
        for _ in range(1000):
            observation, _, _, _, info = env.step(rule(observation, info))
        values.append(info["metrics"])
    return {name: np.mean([v[name] for v in values]) for name in values[0]}


def test_dynamic_resource_allocation_saves_energy_at_low_load():
    # At a quarter of the load DRA runs on fewer machines: less energy, busier machines that are on.
    dra, packed = mean_metrics(DynamicResourceAllocation, arrival_rate=1.0), mean_metrics(BestFit, arrival_rate=1.0)
    assert dra["energy_per_time"] < 0.8 * packed["energy_per_time"]
    assert dra["on_utilization"] > 1.2 * packed["on_utilization"]
    assert dra["rejected_fraction"] == 0


def test_round_robin_spreads_tasks_over_the_machines():
    env = gymnasium.make("envzoo/SchedulingCluster-v0", arrival_rate=1.0)
    rule, placed = RoundRobin(env), []
    observation, info = env.reset(seed=0)
    for _ in range(300):
        action = rule(observation, info)
        if action < env.unwrapped.params.window * 3:
            placed.append(action % 3)
        observation, _, _, _, info = env.step(action)
    counts = np.bincount(placed, minlength=3)
    assert counts.min() > 0.25 * len(placed)


def test_a_bad_argument_is_named():
    for kwargs, what in [({"cpu": (4, 0)}, "cpu"), ({"memory": -1}, "memory"), ({"speeds": 0}, "speeds"),
                         ({"peak_power": 0.1}, "peak_power"), ({"max_cpu": 9}, "max_cpu"),
                         ({"window": 40}, "window"), ({"arrival_rate": 0}, "arrival_rate"),
                         ({"boot_time": -1}, "boot_time"), ({"priorities": 0}, "priorities"),
                         # two machines, the three-machine defaults of the other per-machine arguments
                         ({"cpu": (8, 8)}, r"memory must be one number for every machine or one per machine \(2\)")]:
        with pytest.raises(ValueError, match=what):
            make_params(**kwargs)


def observation(tasks, machines, queued=None):
    """A SchedulingCluster-v0 observation (window 5, 3 machines): ``tasks`` rows of (cpu,
    memory, duration, priority), ``machines`` rows of (power, free cpu, free memory)."""
    window = np.zeros((5, 5))
    window[:len(tasks), :4] = np.reshape(tasks, (-1, 4))
    machine = np.zeros((3, 4))
    machine[:, :3] = machines
    return np.concatenate([window.ravel(), machine.ravel(), [len(tasks) if queued is None else queued]])


ALL_ON = [(2, 8, 32), (2, 4, 8), (2, 3, 16)]


@pytest.mark.parametrize("policy, expected", [
    (FirstFit, 0 * 3 + 0),           # the oldest task, the first machine
    (BestFit, 0 * 3 + 2),            # machine 2 is left with 1/4 of its cores and 14/16 of its memory
    (ShortestJobFirst, 1 * 3 + 0),   # task 1 is the shortest
    (PriorityScheduling, 2 * 3 + 0),  # task 2 is the most urgent
])
def test_each_rule_picks_the_documented_task_and_machine(policy, expected):
    env = gymnasium.make("envzoo/SchedulingCluster-v0")
    tasks = [(2, 2, 3.0, 0), (2, 2, 0.5, 1), (2, 2, 2.0, 2)]
    assert policy(env)(observation(tasks, ALL_ON), {}) == expected


def test_dynamic_resource_allocation_switches_machines_on_and_off_as_documented():
    env = gymnasium.make("envzoo/SchedulingCluster-v0", idle_power=(1.2, 0.8, 0.6))
    dra, switch, wait = DynamicResourceAllocation(env), 5 * 3, 5 * 3 + 3
    # A task that fits on no machine that is on: the off machine with the most cores per peak watt.
    assert dra(observation([(4, 8, 1.0, 0)], [(2, 2, 20), (0, 0, 0), (0, 0, 0)]), {}) == switch + 1
    # ... but not while another boots.
    assert dra(observation([(4, 8, 1.0, 0)], [(2, 2, 20), (1, 0, 0), (0, 0, 0)]), {}) == wait
    # No task waits: the idle machine with the most idle power per core goes off (0.8 / 4) ...
    assert dra(observation([], [(2, 8, 32), (2, 4, 8), (2, 1, 4)]), {}) == switch + 1
    # ... unless the machines left on would keep fewer than max_cpu (4) cores free.
    assert dra(observation([], [(2, 8, 32), (0, 0, 0), (0, 0, 0)]), {}) == wait

"""The scheduling simulator against queueing theory and a second implementation: one machine is
M/M/1 (mean sojourn 1 / (mu - lambda)); random routing to two machines is two M/M/1 queues at
half the rate; join-the-shortest-queue beats it; utilization is the offered load; and every
task's sojourn equals a task-by-task FCFS simulation of the same arrivals."""

import gymnasium
import numpy as np
import pytest

import envzoo  # noqa: F401
from envzoo.scheduling.params import make_params
from envzoo.scheduling.sim import SchedulingSim

ROWS, STEPS, WARMUP = 200, 1500, 300


def run(params, choose):
    """Mean sojourn and utilization after a warm-up, over ROWS independent rows."""
    sim = SchedulingSim(params, ROWS)
    sim.reset(np.arange(ROWS), np.arange(ROWS, dtype=np.uint64) * np.uint64(7919) + np.uint64(1))
    generator = np.random.default_rng(0)
    sojourns, work, start_time = [], np.zeros(ROWS), None
    for step in range(STEPS):
        if step == WARMUP:
            start_time, start_work = sim.now.copy(), sim.work.sum(axis=1).copy()
        outcome = sim.step(choose(sim, generator))
        if step >= WARMUP:
            sojourns.append(outcome["sojourn"])
    utilization = (sim.work.sum(axis=1) - start_work) / ((sim.now - start_time) * params.machines)
    return np.mean(sojourns), np.mean(utilization)


def test_one_machine_is_the_mm1_queue():
    params = make_params(speeds=(1.0,), arrival_rate=0.7, priorities=1, queue_capacity=100)
    sojourn, utilization = run(params, lambda sim, g: np.zeros(ROWS, dtype=np.int64))
    assert sojourn == pytest.approx(1 / (1.0 - 0.7), rel=0.05)
    assert utilization == pytest.approx(0.7, rel=0.03)


def test_random_routing_is_two_mm1_queues_and_the_shortest_queue_beats_it():
    params = make_params(speeds=(1.0, 1.0), arrival_rate=1.4, priorities=1, queue_capacity=100)
    random_sojourn, utilization = run(params, lambda sim, g: g.integers(2, size=ROWS))
    assert random_sojourn == pytest.approx(1 / (1.0 - 0.7), rel=0.05)
    assert utilization == pytest.approx(0.7, rel=0.03)
    shortest, _ = run(params, lambda sim, g: np.argmin(sim.queue_lengths(), axis=1))
    assert shortest < 0.75 * random_sojourn


def test_every_sojourn_equals_a_task_by_task_fcfs_simulation():
    env = gymnasium.make("envzoo/Scheduling-v0", speeds=(1.0, 0.5, 2.0), arrival_rate=2.0, queue_capacity=3)
    params = env.unwrapped.params
    observation, _ = env.reset(seed=5)
    generator = np.random.default_rng(1)
    queues = [[] for _ in range(params.machines)]   # completion times of each machine's tasks
    rejections = 0
    for _ in range(400):
        # The exact work (the observation rounds it to float32).
        size, priority = float(env.unwrapped.task.sim.size[0]), int(observation[1])
        machine = int(generator.integers(params.machines))
        observation, reward, _, _, info = env.step(machine)
        now = info["time"]
        in_system = [t for t in queues[machine] if t > now]
        if len(in_system) >= params.queue_capacity:
            rejections += 1
            assert reward == -params.rejection_penalty and info["cost"] == 1.0
            continue
        start = max([now] + in_system)
        queues[machine].append(start + size / params.speeds[machine])
        assert info["sojourn"] == pytest.approx(start + size / params.speeds[machine] - now, abs=1e-9)
        assert reward == pytest.approx(-(1 + priority) * info["sojourn"], abs=1e-9)
    assert rejections > 0


def test_a_bad_argument_is_named():
    for kwargs, what in [({"speeds": (1.0, 0.0)}, "speeds"), ({"arrival_rate": 0}, "arrival_rate"),
                         ({"priorities": 0}, "priorities"), ({"busy_power": -1}, "busy_power")]:
        with pytest.raises(ValueError, match=what):
            make_params(**kwargs)

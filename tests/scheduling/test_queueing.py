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
    """Each row's mean sojourn and utilization after a warm-up (ROWS independent rows)."""
    sim = SchedulingSim(params, ROWS)
    sim.reset(np.arange(ROWS), np.arange(ROWS, dtype=np.uint64) * np.uint64(7919) + np.uint64(1))
    generator = np.random.default_rng(0)
    sojourns, start_time = [], None
    for step in range(STEPS):
        if step == WARMUP:
            start_time, start_work = sim.now.copy(), sim.work.sum(axis=1).copy()
        outcome = sim.step(choose(sim, generator))
        if step >= WARMUP:
            sojourns.append(outcome["sojourn"])
    utilization = (sim.work.sum(axis=1) - start_work) / ((sim.now - start_time) * params.machines)
    return np.mean(sojourns, axis=0), utilization


def test_one_machine_is_the_mm1_queue():
    params = make_params(speeds=(1.0,), arrival_rate=0.7, priorities=1, queue_capacity=100)
    sojourn, utilization = run(params, lambda sim, g: np.zeros(ROWS, dtype=np.int64))
    assert sojourn.mean() == pytest.approx(1 / (1.0 - 0.7), rel=0.05)
    assert utilization.mean() == pytest.approx(0.7, rel=0.03)


def test_random_routing_is_two_mm1_queues_and_the_shortest_queue_beats_it():
    params = make_params(speeds=(1.0, 1.0), arrival_rate=1.4, priorities=1, queue_capacity=100)
    random_sojourn, utilization = run(params, lambda sim, g: g.integers(2, size=ROWS))
    assert random_sojourn.mean() == pytest.approx(1 / (1.0 - 0.7), rel=0.05)
    assert utilization.mean() == pytest.approx(0.7, rel=0.03)
    shortest, _ = run(params, lambda sim, g: np.argmin(sim.queue_lengths(), axis=1))
    # The rows are independent: the gap is many standard errors wide, and over a quarter.
    gap = random_sojourn - shortest
    assert gap.mean() > 6 * gap.std(ddof=1) / np.sqrt(ROWS)
    assert shortest.mean() < 0.75 * random_sojourn.mean()


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


def test_the_vector_rewards_utilization_and_energy_account_for_the_work_done():
    # Work is conserved: the busy time the utilization objective counts, step by step, is the
    # work assigned less the backlog still ahead; energy is busy and idle power over that time.
    env = gymnasium.make("envzoo/SchedulingMO-v0", speeds=(1.0, 2.0), busy_power=(1.0, 3.0), idle_power=0.5)
    observation, _ = env.reset(seed=2)
    busy_time = energy = 0.0
    generator = np.random.default_rng(0)
    for _ in range(300):
        start = env.unwrapped.task.sim.now[0]
        observation, vector, _, _, info = env.step(int(generator.integers(2)))
        interval = env.unwrapped.task.sim.now[0] - start
        busy_time += float(vector[1]) * interval * 2
        energy -= float(vector[2])
    sim = env.unwrapped.task.sim
    backlog = np.maximum(sim.free_at[0] - sim.now[0], 0.0)
    assert busy_time == pytest.approx(sim.work[0].sum() - backlog.sum(), rel=1e-5)
    busy = sim.work[0] - backlog
    assert energy == pytest.approx((busy * [1.0, 3.0]).sum() + ((sim.now[0] - busy) * 0.5).sum(), rel=1e-5)

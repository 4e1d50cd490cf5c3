"""The KPA's decisions on scripted load, against the documented rule computed by hand."""

import math

import numpy as np
import pytest

from envzoo.serverless.kpa import KPAState, concurrency_target, kpa_tick
from envzoo.serverless.params import KPAParams


class ReferenceKPA:
    """Knative's ``autoscaler.go`` scaling step, one service at a time, transcribed branch by branch."""

    def __init__(self, params: KPAParams):
        self.p = params
        self.history: list[float] = []
        self.panic_time = None
        self.max_panic_pods = 0
        self.zero_since = None

    def tick(self, concurrency, ready, limit, now):
        p = self.p
        self.history.append(concurrency)
        stable = self.history[-p.stable_ticks:]
        panic = self.history[-p.panic_ticks:]
        target = (limit if limit > 0 else p.default_target) * p.target_utilization
        ready_count = max(1, ready)
        max_up = math.ceil(p.max_scale_up_rate * ready_count)
        max_down = math.floor(ready_count / p.max_scale_down_rate)
        dspc = math.ceil(sum(stable) / len(stable) / target)
        dppc = math.ceil(sum(panic) / len(panic) / target)
        stable_pods = min(max(dspc, max_down), max_up)
        panic_pods = min(max(dppc, max_down), max_up)
        over = dppc / ready_count >= p.panic_threshold
        if self.panic_time is None and over:
            self.panic_time = now
        elif over:
            self.panic_time = now
        elif self.panic_time is not None and self.panic_time + p.stable_window_s < now:
            self.panic_time = None
            self.max_panic_pods = 0
        desired = stable_pods
        if self.panic_time is not None:
            desired = max(desired, panic_pods)
            if desired > self.max_panic_pods:
                self.max_panic_pods = desired
            elif desired < self.max_panic_pods:
                desired = self.max_panic_pods
        # The pod autoscaler keeps the last pod for the grace period before scaling to zero.
        if desired == 0:
            self.zero_since = now if self.zero_since is None else self.zero_since
            if now - self.zero_since < p.scale_to_zero_grace_s and ready > 0:
                return max(1, p.min_scale)
        else:
            self.zero_since = None
        return min(max(desired, p.min_scale), p.max_scale)


def scripted_load():
    """Quiet, a ramp, a burst that triggers panic, a fall to zero: (concurrency, ready) per tick."""
    rng = np.random.default_rng(0)
    quiet = [3.0] * 40
    ramp = list(np.linspace(3, 60, 30))
    burst = [400.0] * 10
    calm = [20.0] * 40
    zero = [0.0] * 80
    load = np.array(quiet + ramp + burst + calm + zero) + rng.uniform(0, 0.5, 200) * (np.arange(200) < 120)
    ready = np.maximum(1, np.round(load / 10)).astype(int)
    ready[-30:] = 0
    return load, ready


@pytest.mark.parametrize("limit", [0, 1, 10])
@pytest.mark.parametrize("params", [
    KPAParams(),
    KPAParams(stable_window_s=30, panic_window_pct=20, max_scale_down_rate=4, min_scale=1),
    KPAParams(max_scale_up_rate=1.5),  # the clamp must not hide panic
])
def test_batched_kpa_matches_reference_step_by_step(limit, params):
    load, ready = scripted_load()
    state = KPAState.initial(params, (1, 1))
    reference = ReferenceKPA(params)
    decisions = []
    for tick, (concurrency, pods) in enumerate(zip(load, ready)):
        now = (tick + 1) * params.tick_s
        ours = kpa_tick(state, np.array([[concurrency]]), np.array([[pods]]), np.array([[limit]]), now, params)
        expected = reference.tick(concurrency, pods, limit, now)
        assert int(ours[0, 0]) == expected, f"tick {tick}: ours {ours[0, 0]} expected {expected}"
        decisions.append(expected)
    # The script exercises every branch: scale-up, panic hold, scale-down, scale to zero.
    assert max(decisions) > 5 and decisions[-1] == params.min_scale


def test_steady_load_gives_concurrency_over_target():
    params = KPAParams()
    state = KPAState.initial(params, (1, 1))
    for tick in range(40):
        desired = kpa_tick(state, np.array([[150.0]]), np.array([[3]]), np.array([[10]]), 2.0 * tick, params)
    # target = 10 * 0.7 = 7 concurrent requests per pod: ceil(150 / 7) = 22, but at most
    # 1000 x ready and (not panicking, 22/3 >= 2 means panic) max(panic pods, previous).
    assert int(desired[0, 0]) == 22
    assert concurrency_target(np.array([0, 10]), params).tolist() == [70.0, 7.0]


def test_panic_forbids_scale_down_and_lasts_a_stable_window():
    params = KPAParams()
    state = KPAState.initial(params, (1, 1))
    now = 0.0
    for _ in range(30):  # steady 7 requests on 1 pod at target 7: 1 pod
        now += 2
        kpa_tick(state, np.array([[7.0]]), np.array([[1]]), np.array([[10]]), now, params)
    now += 2
    burst = kpa_tick(state, np.array([[140.0]]), np.array([[1]]), np.array([[10]]), now, params)
    assert int(burst[0, 0]) >= 2  # panic: the 6 s window sees the burst at once
    held = []
    for _ in range(35):  # the load vanishes; panic holds the pods for a stable window (60 s)
        now += 2
        held.append(int(kpa_tick(state, np.array([[0.0]]), np.array([[int(burst[0, 0])]]),
                                 np.array([[10]]), now, params)[0, 0]))
    assert held[:29] == [int(burst[0, 0])] * 29
    assert held[-1] < int(burst[0, 0])


def test_scale_down_rate_halves_at_most():
    params = KPAParams(max_scale_down_rate=2.0)
    state = KPAState.initial(params, (1, 1))
    desired = kpa_tick(state, np.array([[0.5]]), np.array([[40]]), np.array([[10]]), 2.0, params)
    assert int(desired[0, 0]) == 20

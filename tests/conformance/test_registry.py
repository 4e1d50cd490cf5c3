"""Registry-level promises: declared metrics are what the env reports, declared reference policies
run, ``import envzoo`` stays light, ids are registered with their ecosystems, and a malformed
registry document is rejected with an error naming the entry and the field."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys

import numpy as np
import pytest

import envzoo
from envzoo.core.arguments import accepted_arguments
from envzoo.tools.reward_scale import measure_reward_scale
from envzoo.core.errors import RegistryError, UnknownArgumentError
from envzoo.core.env import TaskEnv
from envzoo.registry import NATIVE, SHARED_VECTOR_FACES, EpisodeConstraint, entries, load_attr, parse_registry

from .support import (
    REPO_ROOT, action_sequence, all_entries, entry_params, is_gymnasium, is_parallel, make_env,
    metrics_at_own_ends_only,
)

METRICS_HORIZON = 4


# ---------------------------------------------------------------------- metrics and costs
@pytest.mark.parametrize("entry", entry_params())
def test_declared_metrics_are_the_reported_metrics(entry, closing):
    env = closing(make_env(entry, METRICS_HORIZON))
    env.reset(seed=0)
    for action in action_sequence(env, entry, METRICS_HORIZON + 1, 0):
        if is_parallel(entry):
            _, _, _, _, infos = env.step({agent: action[agent] for agent in env.agents})
            if not env.agents:
                break
        else:
            _, _, terminated, truncated, infos = env.step(action)
            if terminated or truncated:
                break
    else:
        pytest.fail(f"the episode did not end after {METRICS_HORIZON} steps")
    if not is_parallel(entry) and metrics_at_own_ends_only(env):
        assert "metrics" not in infos, "a TimeLimit cut: the env cannot see it"
        infos = {**infos, "metrics": env.unwrapped.episode_metrics()}
    final = infos.items() if is_parallel(entry) else [("the env", infos)]
    for who, info in final:
        assert "metrics" in info, f"{who}: no info['metrics'] at the end of the episode"
        assert sorted(info["metrics"]) == sorted(entry.metrics), \
            f"{who}: info['metrics'] keys {sorted(info['metrics'])} != registry metrics {sorted(entry.metrics)}"


# ---------------------------------------------------------------------- reference policies
def _policy_params():
    params = []
    for param in entry_params():
        entry = param.values[0]
        for ref in entry.policies:
            params.append(pytest.param(entry, ref.name, id=f"{entry.id}-{ref.name}", marks=param.marks))
    return params


@pytest.mark.parametrize("entry, name", _policy_params())
def test_reference_policy_runs(entry, name, closing):
    ref = entry.policy(name)
    if not ref.installed:
        pytest.skip(f"policy {name} needs an extra: {ref.install_hint}")
    env = closing(make_env(entry, 5, **ref.env_kwargs))
    policy = envzoo.make_policy(entry.id, name, env)
    policy.reset(seed=3)
    observation, info = env.reset(seed=3)
    for t in range(5):
        action = policy(observation, info)
        if is_parallel(entry):
            assert set(action) == set(env.agents), f"step {t}: actions for {sorted(action)}, agents {env.agents}"
            for agent, agent_action in action.items():
                assert env.action_space(agent).contains(agent_action), f"step {t}: {agent}: {agent_action!r}"
        else:
            assert env.action_space.contains(action), f"step {t}: {action!r} not in {env.action_space}"
        observation, _, terminated, truncated, info = env.step(action)
        if (not env.agents) if is_parallel(entry) else (terminated or truncated):
            policy.reset(seed=None)
            observation, info = env.reset()


# ---------------------------------------------------------------------- registration
@pytest.mark.parametrize("entry", entry_params())
def test_entry_points_resolve_and_register(entry):
    import gymnasium
    import pettingzoo

    assert entry.entry_point.startswith(f"envzoo.{entry.domain}."), \
        f"entry point {entry.entry_point} is outside the domain package envzoo.{entry.domain}"
    env_class = load_attr(entry.entry_point)
    assert callable(env_class)
    shared = SHARED_VECTOR_FACES.get(entry.vector_entry_point)
    if entry.vector_entry_point == NATIVE:
        assert issubclass(env_class, TaskEnv), f"{entry.id}: a native vector face needs a TaskEnv, got {env_class}"
    elif entry.vector_entry_point and shared is None:
        assert callable(load_attr(entry.vector_entry_point))
    for ref in entry.policies:
        assert callable(ref.load()), f"policy {ref.name}: {ref.entry_point}"
    if is_gymnasium(entry):
        spec = gymnasium.spec(entry.id)
        assert spec.entry_point == entry.entry_point
        if shared is not None:
            assert isinstance(spec.vector_entry_point, shared)
            assert spec.vector_entry_point.env_entry_point == entry.entry_point
        else:
            assert spec.vector_entry_point == entry.vector_entry_point
        assert spec.max_episode_steps == entry.max_episode_steps
        assert spec.kwargs == entry.kwargs
        assert entry.id not in pettingzoo.parallel_registry
    else:
        spec = pettingzoo.parallel_registry[entry.id]
        assert spec.max_cycles == entry.max_episode_steps
        assert entry.id not in gymnasium.registry
    assert envzoo.env_info(entry.id) is entry
    assert entry.id in [e.id for e in envzoo.list_envs(domain=entry.domain, kind=entry.kind)]


@pytest.mark.parametrize("entry", entry_params())
def test_envzoo_make_gives_the_ecosystem_face(entry, closing):
    import gymnasium
    import pettingzoo

    env = closing(envzoo.make(entry.id))
    expected = pettingzoo.ParallelEnv if is_parallel(entry) else gymnasium.Env
    assert isinstance(env, expected)
    assert type(env.unwrapped if is_gymnasium(entry) else env) is load_attr(entry.entry_point)


@pytest.mark.parametrize("entry", entry_params())
def test_a_misspelled_argument_is_named_with_its_close_match_and_the_valid_ones(entry):
    import gymnasium

    arguments = accepted_arguments(load_attr(entry.entry_point).task_class.make_params)
    name = max(arguments, key=len)  # the longest name has one close match only: itself
    misspelled = name[:-1] + name[-1].upper() + "x"
    makers = [lambda: envzoo.make(entry.id, **{misspelled: 1})]
    if is_gymnasium(entry) and entry.vector_entry_point == NATIVE:
        makers.append(lambda: gymnasium.make_vec(entry.id, num_envs=2, **{misspelled: 1}))
    for make in makers:
        with pytest.raises(UnknownArgumentError) as raised:
            make()
        message = str(raised.value)
        assert f"no argument {misspelled!r} (did you mean {name!r}? its arguments are:" in message
        assert all(argument in message.split("its arguments are:")[1] for argument in arguments)
        assert "render_mode" in message or "num_envs" in message


SCALE_STEPS = 100


@pytest.mark.parametrize("entry", entry_params())
def test_reward_scale_is_what_the_policies_get_per_step(entry):
    """The registry's reward_scale against the median over random actions and the reference
    policies of the per-step RMS reward (per objective) in two episodes of at most 100 steps:
    within a factor of 5 (it was measured over longer episodes by benchmarks/reward_scales.py)."""
    assert entry.reward_scale is not None, f"{entry.id} has no reward_scale: measure it with benchmarks/reward_scales.py"
    measured = measure_reward_scale(entry.id, episodes=2, max_steps=SCALE_STEPS)
    ratio = measured / np.atleast_1d(entry.reward_scale)
    assert np.all((ratio > 0.2) & (ratio < 5)), f"{entry.id}: per-step RMS {measured} vs reward_scale {entry.reward_scale}"


@pytest.mark.parametrize("env_id", ["envzoo/Serverless-v1", "envzoo/ServerlessMO-v1", "envzoo/ServerlessCluster-v1",
                                    "envzoo/ServerlessClusterMO-v1"])
def test_scale_reward_divides_every_face_by_the_registry_scale(env_id):
    entry = envzoo.env_info(env_id)
    plain, scaled = envzoo.make(env_id), envzoo.make(env_id, scale_reward=True)
    try:
        for env in (plain, scaled):
            env.reset(seed=4)
        if entry.is_multi_agent:
            actions = {agent: 1 for agent in plain.agents}
            reward, scaled_reward = plain.step(actions)[1], scaled.step(actions)[1]
            assert reward.keys() == scaled_reward.keys()
            scale = np.asarray(entry.reward_scale)
            assert all(np.asarray(scaled_reward[a]) == pytest.approx(np.asarray(reward[a]) / scale) for a in reward)
        else:
            reward, scaled_reward = plain.step(1)[1], scaled.step(1)[1]
            np.testing.assert_allclose(scaled_reward, np.asarray(reward) / np.asarray(entry.reward_scale), rtol=1e-6)
            assert np.asarray(scaled_reward).dtype == np.asarray(reward).dtype
            if entry.is_multi_objective:
                space = plain.unwrapped.reward_space
                assert np.array_equal(scaled.reward_space.low, space.low / np.asarray(entry.reward_scale, np.float32))
                assert scaled.reward_space.contains(scaled_reward)
        pickle.loads(pickle.dumps(scaled))
    finally:
        plain.close()
        scaled.close()


def test_gymnasium_ids_work_with_the_module_prefix_in_a_fresh_process():
    """Gymnasium 1.x has no plugins: ``gymnasium.make("envzoo:<id>")`` imports envzoo itself."""
    ids = [param.values[0].id for param in entry_params(is_gymnasium) if not param.marks]
    if not ids:
        pytest.skip("no installed gymnasium entries")
    code = (
        "import gymnasium\n"
        f"for env_id in {ids!r}:\n"
        "    env = gymnasium.make('envzoo:' + env_id)\n"
        "    env.reset(seed=0)\n"
        "    env.close()\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=REPO_ROOT, timeout=120)
    assert result.returncode == 0 and result.stdout.strip().endswith("ok"), result.stderr


def test_registry_ids_are_unique_and_listed():
    ids = [entry.id for entry in all_entries()]
    assert ids and len(ids) == len(set(ids))
    assert [entry.id for entry in envzoo.list_envs()] == list(entries())


def test_the_c_yaml_loader_reads_the_registry_as_the_python_one_does(monkeypatch):
    import yaml

    import envzoo.registry

    text = envzoo.registry.REGISTRY_PATH.read_text(encoding="utf-8")
    assert envzoo.registry._SAFE_LOADER is getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    fast = parse_registry(text)
    monkeypatch.setattr(envzoo.registry, "_SAFE_LOADER", yaml.SafeLoader)
    assert parse_registry(text) == fast


def test_kind_says_which_api_an_id_keeps():
    multi_objective = envzoo.list_envs(kind="mo-gymnasium")
    assert multi_objective and all(entry.objectives and entry.id.split("/")[1].split("-")[0].endswith("MO")
                                   for entry in multi_objective)
    assert not any(entry.objectives for entry in envzoo.list_envs(kind="gymnasium"))


@pytest.mark.parametrize("filter_name", ["domain", "kind", "tag"])
def test_list_envs_refuses_an_unknown_filter_value(filter_name):
    with pytest.raises(ValueError, match=f"{filter_name} must be one of .*'nope'"):
        envzoo.list_envs(**{filter_name: "nope"})


HEAVY = ("torch", "jax", "jaxlib", "libsumo", "traci", "sumolib", "jpype", "orekit_jpype",
         "textworld", "tensorflow", "ray", "stable_baselines3")


def test_import_envzoo_is_light():
    domains = sorted({entry.domain for entry in all_entries()})
    code = (
        "import json, sys, time\n"
        "start = time.perf_counter()\n"
        "import envzoo\n"
        "elapsed = time.perf_counter() - start\n"
        "print(json.dumps({'seconds': elapsed, 'modules': sorted(sys.modules)}))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=REPO_ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    print(f"import envzoo took {report['seconds'] * 1000:.0f} ms in a fresh process")
    modules = report["modules"]
    domain_modules = [m for m in modules if any(m == f"envzoo.{d}" or m.startswith(f"envzoo.{d}.") for d in domains)]
    assert domain_modules == [], f"import envzoo imported domain modules {domain_modules}"
    heavy = [m for m in modules if m.split(".")[0] in HEAVY]
    assert heavy == [], f"import envzoo imported heavy dependencies {sorted({m.split('.')[0] for m in heavy})}"


# ---------------------------------------------------------------------- malformed documents
GOOD_ENTRY = """\
  - id: envzoo/Example-v0
    kind: gymnasium
    domain: example
    summary: An example.
    entry_point: envzoo.example.env:ExampleEnv
    metrics: [score]
"""


def _document(*entries_text: str) -> str:
    return "envs:\n" + "".join(entries_text)


def test_a_good_document_parses():
    parsed = parse_registry(_document(GOOD_ENTRY))
    assert list(parsed) == ["envzoo/Example-v0"]
    assert parsed["envzoo/Example-v0"].metrics == ("score",)


def test_a_constraint_parses():
    parsed = parse_registry(_document(GOOD_ENTRY + "    costs: [spend]\n"
                                                   "    constraint: {metric: score, infeasible_return: -1}\n"))
    assert parsed["envzoo/Example-v0"].constraint == EpisodeConstraint("score", -1.0)


MALFORMED = {
    "missing field": (GOOD_ENTRY.replace("    summary: An example.\n", ""), "summary"),
    "bad kind": (GOOD_ENTRY.replace("kind: gymnasium", "kind: gym"), "kind"),
    "bad id (no namespace)": (GOOD_ENTRY.replace("id: envzoo/Example-v0", "id: Example-v0"), "id"),
    "bad id (no version)": (GOOD_ENTRY.replace("id: envzoo/Example-v0", "id: envzoo/Example"), "id"),
    "bad entry point": (GOOD_ENTRY.replace("envzoo.example.env:ExampleEnv", "envzoo.example.env.ExampleEnv"),
                        "entry_point"),
    "bad vector entry point": (GOOD_ENTRY + "    vector_entry_point: not a path\n", "vector_entry_point"),
    "unknown field": (GOOD_ENTRY + "    max_steps: 10\n", "max_steps"),
    "wrong type": (GOOD_ENTRY.replace("metrics: [score]", "metrics: score"), "metrics"),
    "list of non-strings": (GOOD_ENTRY.replace("metrics: [score]", "metrics: [1, 2]"), "metrics"),
    "bad max_episode_steps": (GOOD_ENTRY + "    max_episode_steps: 0\n", "max_episode_steps"),
    "unknown extra": (GOOD_ENTRY + "    extra: no-such-extra\n", "extra"),
    "vector entry point on a parallel kind": (
        GOOD_ENTRY.replace("kind: gymnasium", "kind: pettingzoo-parallel")
        + "    vector_entry_point: envzoo.example.vector:ExampleVectorEnv\n", "vector_entry_point"),
    "objectives on a gymnasium kind": (GOOD_ENTRY + "    objectives: [a, b]\n", "objectives"),
    "mo-gymnasium without objectives": (GOOD_ENTRY.replace("kind: gymnasium", "kind: mo-gymnasium"), "objectives"),
    "bad policy": (GOOD_ENTRY + "    policies: {greedy: not-an-entry-point}\n", "policies.greedy"),
    "policy with unknown keys": (
        GOOD_ENTRY + "    policies: {greedy: {entry_point: 'envzoo.example.policies:Greedy', args: {}}}\n",
        "policies.greedy"),
    "policy env_kwargs not a mapping": (
        GOOD_ENTRY + "    policies: {greedy: {entry_point: 'envzoo.example.policies:Greedy', env_kwargs: splits}}\n",
        "policies.greedy.env_kwargs"),
    "policy tour_max_steps not a positive integer": (
        GOOD_ENTRY + "    policies: {greedy: {entry_point: 'envzoo.example.policies:Greedy', tour_max_steps: 0}}\n",
        "policies.greedy.tour_max_steps"),
    "constraint on an unknown metric": (
        GOOD_ENTRY + "    costs: [spend]\n    constraint: {metric: overspent, infeasible_return: 0}\n",
        "constraint.metric"),
    "constraint without costs": (GOOD_ENTRY + "    constraint: {metric: score, infeasible_return: 0}\n", "constraint"),
    "constraint without its return": (GOOD_ENTRY + "    costs: [spend]\n    constraint: {metric: score}\n",
                                      "constraint"),
    "score floor that is no policy of the id": (GOOD_ENTRY + "    score_floor: random-valid\n", "score_floor"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_entry_names_entry_and_field(case):
    text, field = MALFORMED[case]
    second = GOOD_ENTRY.replace("Example-v0", "Other-v0")
    with pytest.raises(RegistryError) as raised:
        parse_registry(_document(second, text))  # the bad entry is the second one (#1)
    message = str(raised.value)
    assert repr(field) in message, f"the error does not name the field {field!r}: {message}"
    assert "#1" in message, f"the error does not name the entry: {message}"


def test_duplicate_id_names_entry_and_field():
    with pytest.raises(RegistryError) as raised:
        parse_registry(_document(GOOD_ENTRY, GOOD_ENTRY))
    message = str(raised.value)
    assert "#1" in message and "envzoo/Example-v0" in message and "'id'" in message and "duplicate" in message


@pytest.mark.parametrize("text", ["", "envs: {}", "- a\n- b", "envs: [1]", "envs:\n  - [not, a, mapping]",
                                  "envs: [\n", "envs:\n  - id: envzoo/A-v0\n"])
def test_malformed_document_raises_registry_error(text):
    with pytest.raises(RegistryError):
        parse_registry(text)


# ---------------------------------------------------------------------- the leaderboard's 0
#: The reference policies that play at random among the valid actions only.
RANDOM_VALID = {"random-valid", "random-available", "random-admissible"}


def _mostly_refuses_random_actions(entry) -> bool:
    """Ids with an action mask, and text ids that list admissible commands (a random string is
    almost never one)."""
    return "action-mask" in entry.tags or "random-admissible" in [ref.name for ref in entry.policies]


@pytest.mark.parametrize("entry", all_entries(), ids=lambda entry: entry.id)
def test_every_floor_is_a_policy_the_id_has(entry):
    assert entry.score_floor == "random" or entry.score_floor in [ref.name for ref in entry.policies]


@pytest.mark.parametrize("entry", [e for e in all_entries() if _mostly_refuses_random_actions(e)], ids=lambda e: e.id)
def test_where_random_actions_are_mostly_refused_the_floor_is_random_among_valid_ones(entry):
    """Or a refusal is free (routing: nothing changes, no reward), so that uniform random play ends
    as random valid play does (checked in the next test)."""
    assert entry.score_floor in RANDOM_VALID or entry.domain == "routing", (
        f"{entry.id}: its floor {entry.score_floor!r} is mostly refused actions; name one of {sorted(RANDOM_VALID)}")


@pytest.mark.parametrize("env_id", ["envzoo/TSP-v0", "envzoo/CVRP-v0", "envzoo/Orienteering-v0"])
def test_a_refused_routing_action_changes_nothing_and_costs_no_reward(env_id, closing):
    env = closing(envzoo.make(env_id))
    observation, info = env.reset(seed=0)
    refused = int(np.flatnonzero(~np.asarray(info["action_mask"], dtype=bool))[0])
    after, reward, terminated, truncated, info = env.step(refused)
    assert (reward, terminated, truncated, info["cost"]) == (0.0, False, False, 1.0)
    for name, value in observation.items():
        np.testing.assert_array_equal(after[name], value, err_msg=name)


def test_random_valid_play_chooses_only_valid_actions_and_all_of_them(closing):
    from envzoo.core.policy import RandomValidPolicy

    env = closing(envzoo.make("envzoo/SchedulingCluster-v0"))
    policy = RandomValidPolicy(env)
    policy.reset(0)
    _, info = env.reset(seed=0)
    mask = np.asarray(info["action_mask"], dtype=bool)
    chosen = {policy(None, info) for _ in range(400)}
    assert chosen == set(np.flatnonzero(mask).tolist()) and len(chosen) < mask.size
    with pytest.raises(ValueError, match="marks no action valid"):
        policy(None, {"action_mask": np.zeros_like(mask)})

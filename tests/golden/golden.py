"""Golden trajectories: a digest of every whole episode that every reference policy plays on every
registry id, for two seeds, recorded before a refactoring and checked after it.

A digest covers the observations, rewards, terminations, truncations, costs and the final metrics
of the episode. Floats are rounded to a 30-bit (float64) or 20-bit (float32) mantissa before
hashing, so that an operation reordered in the last bit keeps the digest while any change of
behaviour breaks it. A deliberate change of behaviour bumps the id's version (a new id, a new
digest) and says why in the env's Version History.

Record (or re-record after a version bump) with ``python -m tests.golden.golden [ID ...]``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

DIGESTS = Path(__file__).with_name("digests.json")
SEEDS = (0, 1)


def cases():
    """(entry, policy name, seed) for every reference policy of every registry entry."""
    import envzoo  # noqa: F401  (registers every id)
    from envzoo.registry import entries

    return [(entry, ref.name, seed) for entry in entries().values() for ref in entry.policies for seed in SEEDS]


def case_id(env_id: str, policy: str, seed: int) -> str:
    return f"{env_id}|{policy}|{seed}"


def _rounded(array: np.ndarray) -> np.ndarray:
    bits = 20 if array.dtype == np.float32 else 30
    mantissa, exponent = np.frexp(array.astype(np.float64))
    return np.ldexp(np.round(mantissa * 2.0**bits), exponent - bits)


def _canonical(value, out: list) -> None:
    if isinstance(value, dict):
        out.append("{")
        for key in sorted(value, key=str):
            out.append(str(key))
            _canonical(value[key], out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append(f"[{len(value)}")
        for item in value:
            _canonical(item, out)
        out.append("]")
    elif isinstance(value, (bool, np.bool_)):
        out.append(f"b{bool(value)}")
    elif isinstance(value, (int, np.integer)):
        out.append(f"i{int(value)}")
    elif isinstance(value, (float, np.floating, np.ndarray)):
        array = np.asarray(value)
        if np.issubdtype(array.dtype, np.floating):
            array = _rounded(array)
        out.append(f"a{array.shape}{np.ascontiguousarray(array, dtype=np.float64).tobytes().hex()}")
    elif value is None or isinstance(value, str):
        out.append(repr(value))
    else:
        raise TypeError(f"cannot digest a {type(value).__name__}: {value!r}")


def _recorded(entry, info) -> dict:
    if entry.is_multi_agent:
        return {agent: {"cost": agent_info.get("cost")} for agent, agent_info in info.items()}
    return {"cost": info.get("cost")}


def _final_metrics(entry, info) -> dict:
    if entry.is_multi_agent:
        return {agent: agent_info.get("metrics") for agent, agent_info in info.items()}
    return info.get("metrics")


def play(entry, policy_name: str, seed: int) -> list:
    """The records of one whole episode of ``policy_name`` on ``entry`` reset with ``seed``."""
    import envzoo

    ref = entry.policy(policy_name)
    env = envzoo.make(entry.id, **ref.env_kwargs)
    try:
        policy = envzoo.make_policy(entry.id, policy_name, env)
        policy.reset(seed)
        observation, info = env.reset(seed=seed)
        records = [("reset", observation)]
        while True:
            action = policy(observation, info)
            observation, reward, terminated, truncated, info = env.step(action)
            records.append(("step", observation, reward, terminated, truncated, _recorded(entry, info)))
            if entry.is_multi_agent:
                over = not env.agents
            else:
                over = bool(terminated) or bool(truncated)
            if over:
                records.append(("metrics", _final_metrics(entry, info)))
                return records
    finally:
        env.close()


def digest(records) -> str:
    out: list[str] = []
    _canonical(records, out)
    return hashlib.sha256("\n".join(out).encode()).hexdigest()


def load() -> dict[str, str]:
    return json.loads(DIGESTS.read_text()) if DIGESTS.exists() else {}


def record(env_ids: list[str]) -> None:
    """Write the digests of ``env_ids`` (all installed ids if empty) into digests.json."""
    digests = load()
    for entry, policy, seed in cases():
        if (env_ids and entry.id not in env_ids) or not entry.installed:
            continue
        if entry.policy(policy).extra and not entry.policy(policy).installed:
            continue
        key = case_id(entry.id, policy, seed)
        digests[key] = digest(play(entry, policy, seed))
        print(key, digests[key][:16], flush=True)
    DIGESTS.write_text(json.dumps(dict(sorted(digests.items())), indent=1) + "\n")


if __name__ == "__main__":
    record(sys.argv[1:])

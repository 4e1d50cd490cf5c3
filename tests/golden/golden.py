"""Golden episodes: every whole episode that every reference policy plays on every registry id,
for two seeds, recorded once and checked after every change.

Each case is recorded twice:

- ``digests.json``: a digest of the observations, rewards, terminations, truncations, costs and
  final metrics, floats rounded to a 30-bit (float64) or 20-bit (float32) mantissa. A machine
  whose numerics match the recording machine's bit for bit reproduces it exactly.
- ``trajectories/<name>.npz``: the episode's *course* (a 64-bit hash per record of everything
  that is not a float: the number of records, integers, flags, text, shapes and which floats are
  not finite) and every float field reduced, per record, to a sum and a weighted sum.

A case passes when its digest matches. Otherwise it passes when its course is the same record for
record and every float field is within ``TOLERANCE`` of its recorded value, relative to the
field's scale (its largest sum of magnitudes over the episode): another machine's numerics
(another CPU's BLAS kernels, a solver taking other iterations, a libm's last bit) move floats by
far less than that, and the test warns how much they moved. Anything else is a change of
behaviour, and the message says at which record it starts. A float change smaller than
``TOLERANCE`` of its field's scale, on a machine whose numerics differ from the recording
machine's, is the one change these checks cannot see.

Why no case is trusted to be bit-exact everywhere (the audit behind the fallback):

- third-party solvers: Portfolio's mean-variance, min-variance and risk-parity references
  (skfolio -> cvxpy -> Clarabel, on a covariance that numpy computes with BLAS) differ in their
  last bits between CPUs; so would any solver at its stopping tolerance (risk parity by more:
  ``POLICY_TOLERANCES``);
- BLAS: matrix products with ``@`` / ``np.dot`` (traffic features, promotion's user basis,
  the synthetic prices' correlated shocks, dispatch's Gini) run OpenBLAS kernels chosen per CPU,
  each with its own order of additions;
- LAPACK: ``np.linalg.cholesky`` (orbital CDM covariances), ``np.linalg.eigh`` (synthetic
  correlations);
- transcendental functions: numba calls the C library's ``exp``/``log``/``sin``/``pow``, which
  pick FMA or SSE2 code paths per CPU and differ on aarch64; numpy's SIMD versions may differ
  between its releases and between CPU families.
- decisions on near-ties: max pressure's argmax over pressures and BCRLSP's integer program over
  fitted Q-values broke ties differently under another CPU's BLAS, and played other episodes. The
  reference policies changed, not the environments: max pressure treats pressures within 1e-5 as
  tied; LQF's, SOTL's and BCRLSP's products are taken in a fixed order and BCRLSP's regression is
  solved in Python floats (``envzoo.core.reproducible``). HiGHS MILPs (dispatch relocation, promotion allocation) give
  integers: the course check holds them exactly. Text ids (Household, TextWorld, Reasoning, ToolUse) have no float fields beyond
  their rewards, so their course check is already exact.

Record a new id's (or a bumped version's) golden episodes with
``python tests/golden/golden.py ID [ID ...]`` (all installed ids if none are named).
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DIGESTS = Path(__file__).with_name("digests.json")
TRAJECTORIES = Path(__file__).with_name("trajectories")
SEEDS = (0, 1)
RECORD_COMMAND = "python tests/golden/golden.py"

#: Largest deviation of a float field that another machine's numerics may explain, relative to
#: the field's scale (its largest sum of magnitudes over the episode).
TOLERANCE = 1e-6
#: Looser tolerances, stated per reference policy where the numbers demand them. Risk parity:
#: skfolio's risk-budgeting program stops at its solver's tolerance, where another CPU's
#: covariance (BLAS) moves the weights by about 1e-9; the transaction cost, a fee on the small
#: difference between successive weights, then moves by up to 1.2e-4 of its scale (measured under
#: OpenBLAS's SSE3 kernels; tightening the solver's tolerance did not help: it reports inaccuracy).
#: Perfect foresight (power grids): HiGHS's linear program, whose solution another CPU's last bits
#: in its coefficients (numpy's exp, the power flow's libm) may move at its optimality tolerance.
POLICY_TOLERANCES = {"risk-parity": 1e-3, "perfect-foresight": 1e-3}
#: Fields whose scale is below this are compared on this scale instead (so a field that is zero
#: throughout does not turn a 1e-17 rounding residue into a failure).
SCALE_FLOOR = 1e-9


def cases():
    """(entry, policy name, seed) for every reference policy of every registry entry."""
    import envzoo  # noqa: F401  (registers every id)
    from envzoo.registry import entries

    return [(entry, ref.name, seed) for entry in entries().values() for ref in entry.policies for seed in SEEDS]


def case_id(env_id: str, policy: str, seed: int) -> str:
    return f"{env_id}|{policy}|{seed}"


def play(entry, policy_name: str, seed: int) -> list:
    """The records of one whole episode of ``policy_name`` on ``entry`` reset with ``seed``:
    ``("reset", observation)``, one ``("step", ...)`` per step, ``("metrics", final metrics)``."""
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


def _recorded(entry, info) -> dict:
    if entry.is_multi_agent:
        return {agent: {"cost": agent_info.get("cost")} for agent, agent_info in info.items()}
    return {"cost": info.get("cost")}


def _final_metrics(entry, info) -> dict:
    if entry.is_multi_agent:
        return {agent: agent_info.get("metrics") for agent, agent_info in info.items()}
    return info.get("metrics")


# ------------------------------------------------------------------------------ the bit digest
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


def digest(records) -> str:
    out: list[str] = []
    _canonical(records, out)
    return hashlib.sha256("\n".join(out).encode()).hexdigest()


# ------------------------------------------------------------------- the course and the floats
@dataclass
class Trajectory:
    """An episode as the tolerant check sees it.

    ``course``: one 64-bit hash per record of its non-float content. ``floats[field]``: for every
    occurrence of a float field (named by the record kind and the position in it, e.g. ``step/1``
    for a step's reward; see :func:`_field`), its sum and weighted sum, shape (occurrences, 2).
    ``scales[field]``: the field's largest sum of magnitudes. ``records_of[field]``: the record
    index of each occurrence (not stored: the course fixes it)."""

    course: np.ndarray
    floats: dict
    scales: dict
    records_of: dict


def _weights(n: int) -> np.ndarray:
    """Distinct weights per position, so that moving a value within an array changes the weighted
    sum; plain multiplication and remainder, so every machine computes the same bits."""
    return (np.arange(n) * 0.6180339887498949) % 1.0 + 0.5


def _walk(value, path: str, course: list, floats: list) -> None:
    if isinstance(value, dict):
        course.append("{")
        for key in sorted(value, key=str):
            course.append(str(key))
            _walk(value[key], f"{path}/{key}", course, floats)
        course.append("}")
    elif isinstance(value, (list, tuple)):
        course.append(f"[{len(value)}")
        for index, item in enumerate(value):
            _walk(item, f"{path}/{index}", course, floats)
        course.append("]")
    elif isinstance(value, (bool, np.bool_)):
        course.append(f"b{bool(value)}")
    elif isinstance(value, (int, np.integer)):
        course.append(f"i{int(value)}")
    elif isinstance(value, (float, np.floating, np.ndarray)):
        array = np.asarray(value)
        if not np.issubdtype(array.dtype, np.floating):
            course.append(f"a{array.dtype}{array.shape}{np.ascontiguousarray(array).tobytes().hex()}")
            return
        flat = array.astype(np.float64).ravel()
        finite = np.isfinite(flat)
        # Where a value is NaN or infinite is part of the course; the sums take the finite ones.
        kinds = np.select([finite, np.isnan(flat), flat > 0], [0, 1, 2], default=3).astype(np.int8)
        course.append(f"f{array.dtype}{array.shape}{kinds.tobytes().hex()}")
        floats.append((path, np.where(finite, flat, 0.0)))
    elif value is None or isinstance(value, str):
        course.append(repr(value))
    else:
        raise TypeError(f"cannot record a {type(value).__name__}: {value!r}")


def _field(path: str) -> str:
    """The float field a leaf is summed into: a reset's or step's observation, reward, ... as a
    whole (its agents' and its dict's parts together, which keeps the recording small), each final
    metric on its own (metrics of very different scales sit side by side)."""
    return path if path.startswith("metrics/") else "/".join(path.split("/")[:2])


def trajectory(records) -> Trajectory:
    course = np.empty(len(records), dtype=np.uint64)
    floats: dict[str, list] = {}
    scales: dict[str, float] = {}
    records_of: dict[str, list] = {}
    for index, record in enumerate(records):
        tokens: list[str] = []
        leaves: list = []
        _walk(record[1:], record[0], tokens, leaves)
        course[index] = int.from_bytes(hashlib.sha256("\n".join([record[0], *tokens]).encode()).digest()[:8], "little")
        fields: dict[str, list] = {}
        for path, flat in leaves:
            fields.setdefault(_field(path), []).append(flat)
        for field, parts in fields.items():
            flat = np.concatenate(parts)
            floats.setdefault(field, []).append((flat.sum(), (flat * _weights(flat.size)).sum()))
            scales[field] = max(scales.get(field, 0.0), float(np.abs(flat).sum()))
            records_of.setdefault(field, []).append(index)
    return Trajectory(course, {field: np.array(values) for field, values in floats.items()}, scales, records_of)


def _record_name(records_count: int, index: int) -> str:
    if index == 0:
        return "the reset"
    if index == records_count - 1:
        return "the final metrics"
    return f"step {index}"


@dataclass
class Verdict:
    passed: bool
    message: str = ""  # why it failed, or by how much this machine's numerics moved a pass


def compare(key: str, recorded: Trajectory, now: Trajectory) -> Verdict:
    """Whether ``now`` is ``recorded`` up to another machine's numerics, and if not, where the
    behaviour starts to differ."""
    n_recorded, n_now = len(recorded.course), len(now.course)
    differs = np.flatnonzero(recorded.course[:min(n_recorded, n_now)] != now.course[:min(n_recorded, n_now)])
    if differs.size or n_recorded != n_now:
        first = int(differs[0]) if differs.size else min(n_recorded, n_now)
        where = (f"its course differs from {_record_name(max(n_recorded, n_now), first)} on (integers, flags, "
                 f"text, shapes or non-finite values; {n_recorded - 2} steps recorded, {n_now - 2} now)")
        return Verdict(False, f"{key} changed behaviour: {where}.")
    worst = (0.0, "", 0, 0.0, 0.0)
    for path, values in now.floats.items():
        scale = max(recorded.scales[path], now.scales[path], SCALE_FLOOR)
        deviation = np.abs(values - recorded.floats[path]).max(axis=1) / scale
        occurrence = int(np.argmax(deviation))
        if deviation[occurrence] > worst[0]:
            worst = (float(deviation[occurrence]), path, now.records_of[path][occurrence],
                     float(recorded.floats[path][occurrence, 0]), float(values[occurrence, 0]))
    deviation, path, index, before, after = worst
    where = (f"the float field {path} at {_record_name(n_now, index)} moved by {deviation:.1e} of its scale "
             f"(its sum: recorded {before!r}, now {after!r})" if path else "no float field moved measurably")
    tolerance = POLICY_TOLERANCES.get(key.split("|")[1] if key.count("|") == 2 else "", TOLERANCE)
    if deviation > tolerance:
        return Verdict(False, f"{key} changed behaviour: {where}, beyond the {tolerance:.0e} that another "
                              f"machine's numerics may explain.")
    return Verdict(True, f"{key} plays its recorded episode up to this machine's numerics, not bit for bit: "
                         f"largest deviation {where}, within the {tolerance:.0e} allowed.")


# ------------------------------------------------------------------------------------ storage
def _trajectory_file(env_id: str) -> Path:
    return TRAJECTORIES / f"{env_id.split('/')[-1]}.npz"


def load_trajectory(env_id: str, policy: str, seed: int) -> Trajectory | None:
    path = _trajectory_file(env_id)
    if not path.exists():
        return None
    prefix = f"{policy}|{seed}|"
    with np.load(path) as stored:
        if prefix + "course" not in stored:
            return None
        fields = [str(field) for field in stored[prefix + "fields"]]
        values = np.split(stored[prefix + "values"].astype(np.float64), np.cumsum(stored[prefix + "counts"])[:-1])
        return Trajectory(stored[prefix + "course"], dict(zip(fields, values)),
                          dict(zip(fields, stored[prefix + "scales"].tolist())), {})


def _case_prefix(name: str) -> str:
    """``policy|seed|`` of a stored array's name (``policy|seed|course``, ``policy|seed|values``)."""
    policy, seed, _ = name.split("|", 2)
    return f"{policy}|{seed}|"


def _save_trajectories(env_id: str, new: dict[tuple[str, int], Trajectory]) -> None:
    """Five arrays per case (few and large: a zip entry per field would weigh more than its data)."""
    path = _trajectory_file(env_id)
    arrays = {}
    if path.exists():
        replaced = {f"{policy}|{seed}|" for policy, seed in new}
        with np.load(path) as stored:
            arrays = {name: stored[name] for name in stored.files if _case_prefix(name) not in replaced}
    for (policy, seed), recorded in new.items():
        prefix = f"{policy}|{seed}|"
        fields = sorted(recorded.floats)
        arrays[prefix + "course"] = recorded.course
        arrays[prefix + "fields"] = np.array(fields, dtype=str)
        arrays[prefix + "counts"] = np.array([len(recorded.floats[field]) for field in fields], dtype=np.int64)
        # float32 keeps 6e-8 of each sum, far inside TOLERANCE of its field's scale
        arrays[prefix + "values"] = np.concatenate([recorded.floats[field] for field in fields] or
                                                   [np.zeros((0, 2))]).astype(np.float32)
        arrays[prefix + "scales"] = np.array([recorded.scales[field] for field in fields], dtype=np.float64)
    TRAJECTORIES.mkdir(exist_ok=True)
    np.savez_compressed(path, **dict(sorted(arrays.items())))


def stored_cases() -> set[str]:
    """The case ids of every stored trajectory."""
    found = set()
    for path in TRAJECTORIES.glob("*.npz"):
        with np.load(path) as stored:
            found |= {f"envzoo/{path.stem}|{_case_prefix(name)[:-1]}" for name in stored.files}
    return found


def load() -> dict[str, str]:
    return json.loads(DIGESTS.read_text()) if DIGESTS.exists() else {}


# --------------------------------------------------------------------------------- the check
def check(key: str, records, recorded_digest: str, recorded: Trajectory | None) -> Verdict:
    """The golden check of one case's ``records``: its digest, else its trajectory at tolerance.
    Where the digest matches, the trajectory must match too, so a stale trajectory is found on
    the machine that can re-record it, not on the first machine whose numerics differ."""
    record_it = f"record it with `{RECORD_COMMAND} {key.split('|')[0]}` on a commit that plays it as before"
    if recorded is None:
        return Verdict(False, f"{key} has no recorded trajectory to tell this machine's numerics from a change "
                              f"of behaviour; {record_it}.")
    verdict = compare(key, recorded, trajectory(records))
    if digest(records) != recorded_digest:
        return verdict
    if not verdict.passed:
        return Verdict(False, f"{key} plays its recorded digest but not its recorded trajectory "
                              f"({verdict.message}): the trajectory is stale; {record_it}.")
    return Verdict(True)


def record(env_ids: list[str]) -> None:
    """Write the digests and trajectories of ``env_ids`` (all installed ids if empty), each id's
    as soon as its cases are played."""
    digests = load()
    by_id: dict[str, list] = {}
    for entry, policy, seed in cases():
        if (env_ids and entry.id not in env_ids) or not entry.installed:
            continue
        if not (entry.policy(policy).extra and not entry.policy(policy).installed):
            by_id.setdefault(entry.id, []).append((entry, policy, seed))
    for env_id, id_cases in by_id.items():
        recorded = {}
        for entry, policy, seed in id_cases:
            key = case_id(env_id, policy, seed)
            records = play(entry, policy, seed)
            new = digest(records)
            status = "new" if key not in digests else ("same" if digests[key] == new else "CHANGED")
            digests[key] = new
            recorded[(policy, seed)] = trajectory(records)
            print(f"{key} {new[:16]} {status}", flush=True)
        _save_trajectories(env_id, recorded)
        DIGESTS.write_text(json.dumps(dict(sorted(digests.items())), indent=1) + "\n")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's envzoo
    record(sys.argv[1:])

"""The shared native vector face: all sub-envs as the rows of one domain :class:`Task`
(:class:`TaskVectorEnv`), with Gymnasium's info layout and SAME_STEP autoreset."""

from __future__ import annotations

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from envzoo.core.arguments import check_arguments
from envzoo.core.contract import Task
from envzoo.core.seeding import InstanceSeeds


def check_vector_size(num_envs, max_episode_steps) -> tuple[int, int | None]:
    """The ``num_envs`` and ``max_episode_steps`` arguments of a native vector env, checked."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
    if max_episode_steps is not None and (isinstance(max_episode_steps, bool)
                                          or not isinstance(max_episode_steps, (int, np.integer))
                                          or max_episode_steps < 1):
        raise ValueError(f"max_episode_steps must be an integer >= 1 or None, got {max_episode_steps!r}")
    return int(num_envs), max_episode_steps


def with_masks(info: dict, mask: np.ndarray) -> dict:
    """Add Gymnasium's ``_key`` boolean masks to a dict of per-sub-env arrays (recursively),
    keeping only the entries where ``mask`` holds (others are zeroed). The entries are new
    arrays, never the caller's."""
    everywhere = bool(mask.all())
    out = {}
    for key, value in info.items():
        if isinstance(value, dict):
            out[key] = with_masks(value, mask)
        elif everywhere:  # the common step, where no episode ended: a copy is all it takes
            out[key] = np.array(value)
        else:
            value = np.asarray(value)
            kept = np.zeros_like(value)
            kept[mask] = value[mask]
            out[key] = kept
        out[f"_{key}"] = mask.copy()
    return out


def put_rows(info: dict, rows: np.ndarray, rows_info: dict, n: int) -> None:
    """Write the entries of ``rows_info`` (``{name: (len(rows), ...)}``, nested dicts too) into
    rows ``rows`` of ``info``'s per-sub-env arrays and set their ``_name`` masks there: the
    reset info of autoreset sub-envs, which SyncVectorEnv puts where their step info was."""
    for key, value in rows_info.items():
        mask = np.array(info.get(f"_{key}", np.zeros(n, dtype=bool)), copy=True)
        mask[rows] = True
        if isinstance(value, dict):
            column = info.get(key) if isinstance(info.get(key), dict) else {}
            put_rows(column, rows, value, n)
        else:
            value = np.asarray(value)
            column = info.get(key)
            if not isinstance(column, np.ndarray) or column.shape[1:] != value.shape[1:]:
                column = np.zeros((n, *value.shape[1:]), dtype=value.dtype)
            elif column.dtype != value.dtype:
                column = column.astype(np.result_type(column, value))
            column[rows] = value
        info[key], info[f"_{key}"] = column, mask


def final_step_info(info: dict, observations: np.ndarray, done: np.ndarray) -> dict:
    """The SAME_STEP autoreset entries: ``final_obs`` (object array, None where not done) and
    ``final_info`` (the finished episodes' infos), with their masks."""
    final_obs = np.full(len(done), None, dtype=object)
    for row in np.flatnonzero(done):
        final_obs[row] = observations[row]
    return {"final_obs": final_obs, "_final_obs": done.copy(),
            "final_info": with_masks(info, done), "_final_info": done.copy()}


def autoreset_same_step(raw_info: dict, observations, done: np.ndarray, restart, final_observations=None,
                        final_entries=None):
    """Gymnasium's SAME_STEP autoreset, as SyncVectorEnv does it: ``info`` keeps the step's
    entries of the sub-envs that go on; those whose episode ended (``done``) get ``final_obs``
    (``final_observations()`` if the batch is not indexable by row) and ``final_info`` (the
    step's entries and those of ``final_entries()``), and ``restart(rows)`` starts their next
    episodes and returns the new observations of the batch. Both functions are called only when
    an episode ended. Returns ``(observations, info)``."""
    info = with_masks(raw_info, ~done)
    if not done.any():
        return observations, info
    final_info = raw_info if final_entries is None else {**raw_info, **final_entries()}
    ended = observations if final_observations is None else final_observations()
    info.update(final_step_info(final_info, ended, done))
    return restart(np.flatnonzero(done)), info



class _DictRows:
    """Sub-env ``i``'s dict of batched dict observations as ``rows[i]``, built when asked for
    (only the finished sub-envs' are: building all of them cost more than a step)."""

    def __init__(self, observations: dict):
        self.observations = observations

    def __getitem__(self, i: int) -> dict:
        return {key: value[i] for key, value in self.observations.items()}


def _rows(observations):
    """Per-sub-env view of batched observations (dicts are split row by row)."""
    if isinstance(observations, dict):
        return _DictRows(observations)
    return observations


class TaskVectorEnv(VectorEnv):
    """``num_envs`` sub-envs as the rows of one :class:`~envzoo.core.contract.Task`, stepped
    together with array operations (no Python loop over sub-envs, no subprocess).

    ``gymnasium.make_vec(id, num_envs=N)`` builds it for the ids whose registry entry says
    ``vector_entry_point: native``. Sub-env i reset with seed s follows exactly the trajectory of
    the single env reset with seed s + i (as in ``SyncVectorEnv``), for the same actions: each
    sub-env draws its episodes from its own generator, seeded like the i-th env of a
    ``SyncVectorEnv``.

    Autoreset is Gymnasium's ``SAME_STEP`` mode: when a sub-env's episode ends (terminated, the
    task's own end, or ``max_episode_steps`` steps: the registry's horizon, which ``make_vec``
    passes), the same ``step`` call starts its next episode and returns that episode's first
    observation; the finished episode's last observation and info are in ``info["final_obs"]``
    and ``info["final_info"]`` (masked by ``info["_final_obs"]``). ``info["cost"]`` and every
    entry of ``info["metrics"]`` are arrays over the sub-envs, with Gymnasium's ``_key`` masks;
    where the task reports its metrics at the episode's end only, they are in ``final_info``.
    Rewards are float64 (N,), or float32 (N, K) vector rewards with ``vector_reward``.
    """

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, task_class: type[Task], num_envs: int = 1, max_episode_steps: int | None = None,
                 vector_reward: bool = False, **kwargs):
        num_envs, max_episode_steps = check_vector_size(num_envs, max_episode_steps)
        if kwargs.get("render_mode") is not None:
            raise ValueError(f"native vector envs do not render (render_mode={kwargs['render_mode']!r}); "
                             "render a single env made with gymnasium.make")
        kwargs.pop("render_mode", None)
        self.num_envs = num_envs
        self.max_episode_steps = max_episode_steps
        self.vector_reward = vector_reward
        check_arguments(task_class.make_params, kwargs, f"{task_class.__name__}'s native vector env",
                        face_arguments=("num_envs", "max_episode_steps"))
        self.task = task_class.create(num_envs, **kwargs)
        self.params = self.task.params
        self.single_observation_space = self.task.observation_space
        self.single_action_space = self.task.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        if vector_reward:
            self.single_reward_space = self.task.reward_space
            self.reward_space = batch_space(self.single_reward_space, num_envs)
        self.seeds = InstanceSeeds(num_envs)
        self._elapsed = np.zeros(num_envs, dtype=np.int64)
        self._started = False
        self._restarted = None  # (rows, reset info) of the sub-envs the current step restarted

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        self.seeds.reseed(self, seed, first_reset=not self._started)
        rows = np.arange(self.num_envs)
        if seed is not None:
            seeded = [s is not None for s in seed] if isinstance(seed, (list, tuple)) else slice(None)
            self.task.reseeded(rows[seeded])
        info = self.task.reset(rows, self.seeds.generators, dict(options or {}))
        self._elapsed[:] = 0
        self._started = True
        return self.task.observe(), with_masks(info, np.ones(self.num_envs, dtype=bool)) if info else {}

    def step(self, actions):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        outcome = self.task.step(self.task.check_actions(actions))
        self._elapsed += 1
        terminated = outcome.terminated
        # As Gymnasium's TimeLimit does on the single env: the horizon truncates whatever else happened.
        truncated = outcome.truncated.copy()
        if self.max_episode_steps is not None:
            truncated |= self._elapsed >= self.max_episode_steps
        rewards = outcome.objectives.astype(np.float32) if self.vector_reward else outcome.reward
        observations = self.task.observe()
        at_end = self.task.metrics_at_episode_end
        raw_info = dict(outcome.info) if at_end else {"metrics": self.task.metrics(), **outcome.info}
        if outcome.cost is not None:
            raw_info["cost"] = outcome.cost
        self._restarted = None
        observations, info = autoreset_same_step(raw_info, observations, terminated | truncated, self._restart,
                                                 final_observations=lambda: _rows(observations),
                                                 final_entries=(lambda: {"metrics": self.task.metrics()}) if at_end else None)
        if self._restarted is not None:
            put_rows(info, *self._restarted, self.num_envs)
        return observations, rewards, terminated, truncated, info

    def _restart(self, rows: np.ndarray):
        """Start the next episodes of sub-envs ``rows`` (keeping their reset info for the step's
        info); the observations of the batch."""
        self._restarted = (rows, self.task.reset(rows, [self.seeds.generators[i] for i in rows], {}))
        self._elapsed[rows] = 0
        return self.task.observe()

    def close_extras(self, **kwargs):
        self.task.close()


"""Load, validate and register ``registry.yaml``: the single source of truth for every id.

Each entry of ``envs:`` has these fields (``*`` = required)::

    id*                 envzoo/<Name>-v<N>
    kind*               gymnasium | mo-gymnasium | pettingzoo-parallel | momaland-parallel (the API
                        the id keeps; mo-gymnasium ids are made with gymnasium.make or
                        mo_gymnasium.make; momaland-parallel ids, PettingZoo parallel envs with a
                        vector reward per agent as MOMAland defines them, with pettingzoo.make)
    domain*             the package under envzoo/ that implements it
    entry_point*        "module:attr" of the env class
    vector_entry_point  "native": the shared native vector face over the env's task
                        (envzoo.core.vector.TaskVectorEnv); "subprocess": the shared subprocess
                        face, one env per process (envzoo.core.subprocess_vector); or
                        "module:attr" of a VectorEnv factory (gymnasium and mo-gymnasium kinds)
    jax_entry_point     "module:attr" of the id's JAX env (envzoo.jax.env.JaxEnv), made by
                        envzoo.jax.make(id) and by gymnasium.make_vec(id, backend="jax")
    kwargs              default constructor arguments
    max_episode_steps   truncation horizon (max_cycles for PettingZoo)
    objectives          names of the vector reward's components (required for the multi-objective
                        kinds, mo-gymnasium and momaland-parallel, only there)
    costs               names of the constraint signals in info["cost"]
    constraint          {metric, infeasible_return}: how the leaderboard scores a constrained id;
                        an evaluation episode whose final metric ``metric`` is nonzero broke the
                        constraint and counts as ``infeasible_return``
    score_floor         the reference policy whose mean return is the leaderboard's score 0
                        (default: random, uniform random actions); an id where random actions
                        are mostly refused names its random-among-valid-actions policy, so that
                        0 is play that knows the rules and nothing more
    hypervolume_reference  the reference point of the leaderboard's hypervolume (multi-objective
                        kinds; one number per objective, below what random play reaches on each)
    reward_scale        the typical size of one step's reward (one per objective for
                        multi-objective ids), measured by benchmarks/reward_scales.py;
                        envzoo.make(id, scale_reward=True) divides rewards by it
    metrics*            names of the KPIs in info["metrics"] at episode end
    papers              references the environment follows
    extra               the pip extra it needs, or a system requirement such as godot (see
                        envzoo.core.extras)
    tags                free-form labels for filtering
    policies            name -> "module:attr" or {entry_point, kwargs, extra, env_kwargs, tour_max_steps}:
                        reference policies (env_kwargs: the env arguments the policy needs, e.g. an
                        action mode; tour_max_steps: a shorter tour episode where its step spans
                        more of the engine's time than the id's other policies' steps)
    summary*            one line for listings

Importing this module imports no domain module: entry points stay strings until an env is made.
"""

from __future__ import annotations

import difflib
import importlib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from envzoo.core.errors import MissingExtraError, RegistryError
from envzoo.core.extras import SYSTEM_EXTRAS, declare_system_extra, extra_requirements, install_command, known_extras, missing_packages

REGISTRY_PATH = Path(__file__).with_name("registry.yaml")
#: libyaml's safe loader where PyYAML was built with it (about 10x faster at import), else Python's.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
KINDS = ("gymnasium", "mo-gymnasium", "pettingzoo-parallel", "momaland-parallel")
#: The kinds made with ``pettingzoo.make("parallel", ...)``.
PARALLEL_KINDS = ("pettingzoo-parallel", "momaland-parallel")
#: The kinds with a vector reward (``objectives``).
MULTI_OBJECTIVE_KINDS = ("mo-gymnasium", "momaland-parallel")
#: The kinds made with ``gymnasium.make`` (an MO-Gymnasium env is a Gymnasium env with a vector reward).
GYMNASIUM_KINDS = ("gymnasium", "mo-gymnasium")
_ID = re.compile(r"^envzoo/[A-Z][A-Za-z0-9]*-v\d+$")
_ENTRY_POINT = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
#: The ``vector_entry_point`` of ids served by the shared native vector face.
NATIVE = "native"
#: The ``vector_entry_point`` of ids served by the shared subprocess vector face.
SUBPROCESS = "subprocess"


class _NeedsExtra:
    """What an object that may need an optional extra (``self.extra``) says about it."""

    extra: str | None

    @property
    def installed(self) -> bool:
        """Whether the optional extra it needs is installed."""
        return not missing_packages(self.extra)

    @property
    def install_hint(self) -> str | None:
        return install_command(self.extra) if self.extra else None


@dataclass(frozen=True)
class EpisodeConstraint:
    """How a constrained id's episodes are scored: one whose final metric ``metric`` is nonzero
    broke the constraint and counts as ``infeasible_return`` (the registry field ``constraint``)."""

    metric: str
    infeasible_return: float

    def returns(self, returns, metric_values) -> tuple[float, ...]:
        """Each episode's return, or ``infeasible_return`` where its ``metric`` value is nonzero."""
        return tuple(self.infeasible_return if broke else float(r) for r, broke in zip(returns, metric_values))


@dataclass(frozen=True)
class PolicyRef(_NeedsExtra):
    """A reference policy: a factory ``entry_point(env, **kwargs)``, the extra it needs and the
    arguments its env must be made with (``envzoo eval`` passes them); ``tour_max_steps`` caps its
    ``envzoo tour`` episodes (None: the tour's ``--max-steps``)."""

    name: str
    entry_point: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    extra: str | None = None
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    tour_max_steps: int | None = None

    def load(self):
        return load_attr(self.entry_point)


@dataclass(frozen=True)
class EnvEntry(_NeedsExtra):
    """One registry entry; see the module docstring for the fields."""

    id: str
    kind: str
    domain: str
    entry_point: str
    summary: str
    metrics: tuple[str, ...]
    vector_entry_point: str | None = None
    jax_entry_point: str | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)
    max_episode_steps: int | None = None
    objectives: tuple[str, ...] = ()
    costs: tuple[str, ...] = ()
    papers: tuple[str, ...] = ()
    extra: str | None = None
    tags: tuple[str, ...] = ()
    policies: tuple[PolicyRef, ...] = ()
    reward_scale: float | tuple[float, ...] | None = None
    constraint: EpisodeConstraint | None = None
    score_floor: str = "random"
    hypervolume_reference: tuple[float, ...] | None = None

    @property
    def is_multi_agent(self) -> bool:
        """Whether the id is a PettingZoo parallel environment (several agents)."""
        return self.kind in PARALLEL_KINDS

    @property
    def is_multi_objective(self) -> bool:
        """Whether the id's reward is a vector (an MO-Gymnasium or MOMAland face)."""
        return self.kind in MULTI_OBJECTIVE_KINDS

    def policy(self, name: str) -> PolicyRef:
        """The reference policy called ``name``; a ``RegistryError`` naming the known ones if none is."""
        for ref in self.policies:
            if ref.name == name:
                return ref
        known = ", ".join(ref.name for ref in self.policies) or "none"
        raise RegistryError(f"{self.id} has no reference policy {name!r}; known: {known}")

    def require_extra(self) -> None:
        """Raise ``MissingExtraError`` (with the install command) unless the id's extra is installed."""
        missing = missing_packages(self.extra)
        if missing:
            system = install_command(self.extra) if self.extra in SYSTEM_EXTRAS else None
            raise MissingExtraError(self.extra, missing[0], self.id, install=system)


def load_attr(entry_point: str):
    """Import ``"module:attr"``."""
    module, _, attr = entry_point.partition(":")
    return getattr(importlib.import_module(module), attr)


class NativeVector:
    """The vector entry point of an id whose entry says ``vector_entry_point: native``:
    :class:`envzoo.core.vector.TaskVectorEnv` over the task of the id's env class (a
    :class:`envzoo.core.env.TaskEnv`), with its reward (scalar or vector); with
    ``backend="jax"``, :class:`envzoo.jax.vector.JaxVectorEnv` over the id's JAX env (its
    ``jax_entry_point``). Nothing is imported until a vector env is made."""

    #: The class of the vector envs it makes.
    vector_env = "envzoo.core.vector:TaskVectorEnv"
    #: The ``backend`` argument that selects the JAX core.
    JAX = "jax"

    def __init__(self, env_entry_point: str, jax_entry_point: str | None = None):
        self.env_entry_point = env_entry_point
        self.jax_entry_point = jax_entry_point

    def __call__(self, num_envs: int = 1, max_episode_steps: int | None = None, **kwargs):
        if kwargs.get("backend") == self.JAX:
            if self.jax_entry_point is None:
                raise ValueError(f"{self.env_entry_point} has no JAX backend; envzoo.jax.ids() lists the ids with one")
            from envzoo.jax.vector import JaxVectorEnv

            kwargs.pop("backend")
            return JaxVectorEnv(load_attr(self.jax_entry_point), num_envs, max_episode_steps, **kwargs)
        from envzoo.core.arguments import accepted_arguments
        from envzoo.core.vector import TaskVectorEnv

        env_class = load_attr(self.env_entry_point)
        # An env may have a backend argument of its own (the orbital propagators); otherwise the
        # only backend besides the compiled CPU core is JAX.
        if "backend" in kwargs and "backend" not in accepted_arguments(env_class.task_class.make_params):
            raise ValueError(f"backend must be {self.JAX!r} (the JAX core) or left out (the compiled CPU core), "
                             f"got {kwargs['backend']!r}")
        return TaskVectorEnv(env_class.task_class, num_envs, max_episode_steps,
                             vector_reward=env_class.vector_reward, **kwargs)

    def __repr__(self):
        return f"NativeVector({self.env_entry_point!r}, {self.jax_entry_point!r})"


class SubprocessVector:
    """The vector entry point of an id whose entry says ``vector_entry_point: subprocess``:
    :class:`envzoo.core.subprocess_vector.SubprocessVectorEnv` over the id's env class, one
    sub-env per process, with the registry's horizon (which ``gymnasium.make_vec`` passes)."""

    #: The class of the vector envs it makes.
    vector_env = "envzoo.core.subprocess_vector:SubprocessVectorEnv"

    def __init__(self, env_entry_point: str):
        self.env_entry_point = env_entry_point

    def __call__(self, num_envs: int = 1, max_episode_steps: int | None = None, **kwargs):
        from envzoo.core.subprocess_vector import SubprocessVectorEnv

        return SubprocessVectorEnv(load_attr(self.env_entry_point), num_envs, max_episode_steps, kwargs)

    def __repr__(self):
        return f"SubprocessVector({self.env_entry_point!r})"


#: The shared vector faces a ``vector_entry_point`` may name instead of a "module:attr".
SHARED_VECTOR_FACES = {NATIVE: NativeVector, SUBPROCESS: SubprocessVector}


# ---------------------------------------------------------------------- validation
_REQUIRED = {"id": str, "kind": str, "domain": str, "entry_point": str, "summary": str, "metrics": list}
_OPTIONAL = {"vector_entry_point": str, "jax_entry_point": str, "kwargs": dict, "max_episode_steps": int,
             "objectives": list, "costs": list, "papers": list, "extra": str, "tags": list,
             "policies": dict, "reward_scale": (int, float, list), "constraint": dict, "score_floor": str,
             "hypervolume_reference": (list,)}


def _unknown_extra(extra, known) -> str:
    return (f"{extra!r} is not one of {sorted(known)}, the extras of envzoo's pyproject.toml as installed "
            "(after adding an extra there, reinstall: pip install -e .)")


def _fail(where: str, field_name: str, problem: str) -> RegistryError:
    return RegistryError(f"registry.yaml, entry {where}, field {field_name!r}: {problem}")


def parse_entry(raw: Any, position: int) -> EnvEntry:
    """Validate one raw YAML entry; errors name the entry (id or position) and the field."""
    where = f"#{position}"
    if not isinstance(raw, dict):
        raise RegistryError(f"registry.yaml, entry {where}: expected a mapping, got {type(raw).__name__}")
    if isinstance(raw.get("id"), str):
        where = f"#{position} ({raw['id']})"
    unknown = set(raw) - set(_REQUIRED) - set(_OPTIONAL)
    if unknown:
        raise _fail(where, sorted(unknown)[0], f"unknown field; allowed: {sorted({**_REQUIRED, **_OPTIONAL})}")
    for name in _REQUIRED:
        if name not in raw:
            raise _fail(where, name, "missing (required)")
    for name, kind in {**_REQUIRED, **_OPTIONAL}.items():
        value = raw.get(name)
        if value is not None and not isinstance(value, kind):
            expected = " or ".join(k.__name__ for k in kind) if isinstance(kind, tuple) else kind.__name__
            raise _fail(where, name, f"expected {expected}, got {type(value).__name__} {value!r}")
        if kind is list and value is not None and not all(isinstance(v, str) for v in value):
            raise _fail(where, name, "expected a list of strings")
    if not _ID.match(raw["id"]):
        raise _fail(where, "id", f"{raw['id']!r} does not have the form envzoo/<Name>-v<N>")
    if raw["kind"] not in KINDS:
        raise _fail(where, "kind", f"{raw['kind']!r} is not one of {KINDS}")
    for name in ("entry_point", "vector_entry_point", "jax_entry_point"):
        shared = SHARED_VECTOR_FACES if name == "vector_entry_point" else {}
        if raw.get(name) is not None and raw[name] not in shared and not _ENTRY_POINT.match(raw[name]):
            raise _fail(where, name, f"{raw[name]!r} is not of the form 'package.module:Attribute'"
                        + (f" or one of {sorted(shared)}" if shared else ""))
    for name in ("vector_entry_point", "jax_entry_point"):
        if raw.get(name) and raw["kind"] not in GYMNASIUM_KINDS:
            raise _fail(where, name, f"only the kinds {GYMNASIUM_KINDS} have a {name.replace('_', ' ')}")
    if raw.get("jax_entry_point") and raw.get("vector_entry_point") != NATIVE:
        raise _fail(where, "jax_entry_point", f"the JAX backend is a backend of the native vector face: set "
                    f"vector_entry_point: {NATIVE}")
    if bool(raw.get("objectives")) != (raw["kind"] in MULTI_OBJECTIVE_KINDS):
        raise _fail(where, "objectives", f"an id of the kinds {MULTI_OBJECTIVE_KINDS} names its objectives, and "
                    f"only those have objectives (set such a kind or remove objectives)")
    if raw.get("max_episode_steps") is not None and raw["max_episode_steps"] < 1:
        raise _fail(where, "max_episode_steps", "must be >= 1")
    if raw.get("extra") is not None and raw["extra"] not in known_extras():
        raise _fail(where, "extra", _unknown_extra(raw["extra"], known_extras()))
    policies = []
    for name, spec in (raw.get("policies") or {}).items():
        if isinstance(spec, str):
            spec = {"entry_point": spec}
        if not isinstance(spec, dict) or not _ENTRY_POINT.match(str(spec.get("entry_point", ""))):
            raise _fail(where, f"policies.{name}",
                        "expected 'module:Attr' or {entry_point, kwargs, extra, env_kwargs, tour_max_steps}")
        extra_keys = set(spec) - {"entry_point", "kwargs", "extra", "env_kwargs", "tour_max_steps"}
        if extra_keys:
            raise _fail(where, f"policies.{name}", f"unknown keys {sorted(extra_keys)}")
        if spec.get("extra") is not None and spec["extra"] not in extra_requirements():
            raise _fail(where, f"policies.{name}.extra", _unknown_extra(spec["extra"], extra_requirements()))
        for arguments in ("kwargs", "env_kwargs"):
            given = spec.get(arguments)
            if given is not None and not (isinstance(given, dict) and all(isinstance(k, str) for k in given)):
                raise _fail(where, f"policies.{name}.{arguments}", f"expected a mapping of argument names, got {given!r}")
        tour_steps = spec.get("tour_max_steps")
        if tour_steps is not None and (isinstance(tour_steps, bool) or not isinstance(tour_steps, int) or tour_steps < 1):
            raise _fail(where, f"policies.{name}.tour_max_steps", f"must be an integer >= 1, got {tour_steps!r}")
        policies.append(PolicyRef(name, spec["entry_point"], dict(spec.get("kwargs") or {}), spec.get("extra"),
                                  dict(spec.get("env_kwargs") or {}), tour_steps))
    return EnvEntry(
        id=raw["id"], kind=raw["kind"], domain=raw["domain"], entry_point=raw["entry_point"],
        summary=raw["summary"], metrics=tuple(raw["metrics"]),
        vector_entry_point=raw.get("vector_entry_point"), jax_entry_point=raw.get("jax_entry_point"),
        kwargs=dict(raw.get("kwargs") or {}),
        max_episode_steps=raw.get("max_episode_steps"),
        objectives=tuple(raw.get("objectives") or ()), costs=tuple(raw.get("costs") or ()),
        papers=tuple(raw.get("papers") or ()), extra=raw.get("extra"),
        tags=tuple(raw.get("tags") or ()), policies=tuple(policies),
        reward_scale=_reward_scale(raw, where), constraint=_constraint(raw, where),
        score_floor=_score_floor(raw, where, [ref.name for ref in policies]),
        hypervolume_reference=_hypervolume_reference(raw, where),
    )


def _hypervolume_reference(raw: dict, where: str) -> tuple[float, ...] | None:
    """The entry's ``hypervolume_reference``: one number per objective."""
    point = raw.get("hypervolume_reference")
    if point is None:
        return None
    objectives = raw.get("objectives") or []
    if len(point) != len(objectives) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                for v in point):
        raise _fail(where, "hypervolume_reference", f"expected one number per objective {objectives}, got {point!r}")
    return tuple(float(v) for v in point)


def _score_floor(raw: dict, where: str, policies: list[str]) -> str:
    """The entry's ``score_floor``: ``random`` or one of its reference policies."""
    floor = raw.get("score_floor", "random")
    if floor != "random" and floor not in policies:
        raise _fail(where, "score_floor", f"{floor!r} is neither 'random' nor one of the id's policies {policies}")
    return floor


def _constraint(raw: dict, where: str) -> EpisodeConstraint | None:
    """The entry's ``constraint``: a metric it reports and a number, on an id with costs."""
    value = raw.get("constraint")
    if value is None:
        return None
    if set(value) != {"metric", "infeasible_return"}:
        raise _fail(where, "constraint", f"expected the keys metric and infeasible_return, got {sorted(value)}")
    if value["metric"] not in raw["metrics"]:
        raise _fail(where, "constraint.metric", f"{value['metric']!r} is not one of the id's metrics {raw['metrics']}")
    if not isinstance(value["infeasible_return"], (int, float)) or isinstance(value["infeasible_return"], bool):
        raise _fail(where, "constraint.infeasible_return", f"expected a number, got {value['infeasible_return']!r}")
    if not raw.get("costs"):
        raise _fail(where, "constraint", "only an id with costs (info['cost']) has a constraint: name its costs")
    return EpisodeConstraint(value["metric"], float(value["infeasible_return"]))


def _reward_scale(raw: dict, where: str) -> float | tuple[float, ...] | None:
    """The entry's ``reward_scale``: positive, one per objective for a multi-objective id."""
    value = raw.get("reward_scale")
    if value is None:
        return None
    values = value if isinstance(value, list) else [value]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in values):
        raise _fail(where, "reward_scale", f"expected positive numbers, got {value!r}")
    objectives = raw.get("objectives") or []
    if (len(values) != len(objectives)) if objectives else isinstance(value, list):
        raise _fail(where, "reward_scale", f"expected one scale per objective {objectives}, got {value!r}"
                    if objectives else f"expected one number (the reward is a scalar), got {value!r}")
    return tuple(float(v) for v in values) if objectives else float(value)


def parse_registry(text: str) -> dict[str, EnvEntry]:
    """Validate a whole registry document and return its entries by id."""
    try:
        document = yaml.load(text, Loader=_SAFE_LOADER)
    except yaml.YAMLError as error:
        raise RegistryError(f"registry.yaml is not valid YAML: {error}") from None
    if not isinstance(document, dict) or not isinstance(document.get("envs"), list):
        raise RegistryError("registry.yaml must be a mapping with a list under 'envs:'")
    for name, system in (document.get("system_extras") or {}).items():
        if not isinstance(system, dict) or set(system) != {"programs", "install"}:
            raise RegistryError(f"registry.yaml: system_extras.{name} must be a mapping with exactly "
                                f"'programs' (a list of programs on PATH) and 'install' (the command), got {system!r}")
        declare_system_extra(name, system["programs"], system["install"])
    entries: dict[str, EnvEntry] = {}
    for position, raw in enumerate(document["envs"]):
        entry = parse_entry(raw, position)
        if entry.id in entries:
            raise _fail(f"#{position} ({entry.id})", "id", "duplicate id")
        entries[entry.id] = entry
    return entries


@lru_cache(maxsize=1)
def entries() -> dict[str, EnvEntry]:
    """The validated entries of the installed ``registry.yaml``, by id."""
    return parse_registry(REGISTRY_PATH.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------- registration
def register_all() -> None:
    """Register every entry with Gymnasium or PettingZoo (idempotent)."""
    import gymnasium
    import pettingzoo

    for entry in entries().values():
        if entry.is_multi_agent:
            if entry.id not in pettingzoo.parallel_registry:
                pettingzoo.register("parallel", entry.id, entry_point=entry.entry_point,
                                    max_cycles=entry.max_episode_steps, kwargs=dict(entry.kwargs))
        elif entry.id not in gymnasium.registry:
            gymnasium.register(
                id=entry.id,
                entry_point=entry.entry_point,
                vector_entry_point=_vector_entry_point(entry),
                max_episode_steps=entry.max_episode_steps,
                kwargs=dict(entry.kwargs),
                # Gymnasium's passive checker expects scalar rewards; mo_gymnasium.make
                # disables it too.
                disable_env_checker=entry.is_multi_objective,
            )


def _vector_entry_point(entry: EnvEntry):
    """What Gymnasium's registry gets as the entry's vector entry point."""
    if entry.vector_entry_point == NATIVE:
        return NativeVector(entry.entry_point, entry.jax_entry_point)
    if entry.vector_entry_point == SUBPROCESS:
        return SubprocessVector(entry.entry_point)
    return entry.vector_entry_point


# ---------------------------------------------------------------------- public helpers
def list_envs(domain: str | None = None, kind: str | None = None, tag: str | None = None,
              installed: bool | None = None) -> list[EnvEntry]:
    """Registry entries, optionally filtered by domain, kind, tag or whether their extra is installed.

    An unknown domain, kind or tag raises ``ValueError`` naming the known ones (a typo would
    otherwise read as "no such envs")."""
    known = entries().values()
    for name, value, choices in (("kind", kind, KINDS), ("domain", domain, {e.domain for e in known}),
                                 ("tag", tag, {t for e in known for t in e.tags})):
        if value is not None and value not in choices:
            raise ValueError(f"{name} must be one of {sorted(choices)}, got {value!r}")
    found = []
    for entry in entries().values():
        if domain is not None and entry.domain != domain:
            continue
        if kind is not None and entry.kind != kind:
            continue
        if tag is not None and tag not in entry.tags:
            continue
        if installed is not None and entry.installed != installed:
            continue
        found.append(entry)
    return found


def env_info(env_id: str) -> EnvEntry:
    """The registry entry of ``env_id`` (``"envzoo:"`` prefixes are accepted)."""
    env_id = env_id.removeprefix("envzoo:")
    try:
        return entries()[env_id]
    except KeyError:
        raise RegistryError(f"{env_id!r} is not an envzoo id; {_closest_ids(env_id)}") from None


def _closest_ids(env_id: str) -> str:
    """What ``env_id`` was probably meant to be: the same name at another version, or an id whose
    name is spelt alike (case aside, with or without ``envzoo/``); else every id."""
    known = list(entries())
    name = env_id.split("/")[-1].lower()
    versions = [i for i in known if i.split("/")[-1].lower().rpartition("-v")[0] == name.rpartition("-v")[0]]
    spelt_alike = difflib.get_close_matches(name, [i.split("/")[-1].lower() for i in known], n=1, cutoff=0.6)
    close = versions or [i for i in known if spelt_alike and i.split("/")[-1].lower() == spelt_alike[0]]
    if close:
        return f"did you mean {close[-1]!r}? (`envzoo list` lists every id)"
    return f"the ids are: {', '.join(known)}"


def make(env_id: str, scale_reward: bool = False, **kwargs):
    """Make any envzoo env: ``gymnasium.make`` or ``pettingzoo.make("parallel", ...)`` by kind.

    Checks the env's extra first, so a missing one names ``pip install "envzoo[extra]"``.
    ``scale_reward=True`` divides the rewards by the entry's ``reward_scale`` (documented on each
    env's page), so that they are of order one per step.
    """
    entry = env_info(env_id)
    entry.require_extra()
    if scale_reward and entry.reward_scale is None:
        raise RegistryError(f"{entry.id} has no reward_scale in the registry; scale its rewards yourself")
    if entry.is_multi_agent:
        import pettingzoo

        env = pettingzoo.make("parallel", entry.id, **kwargs)
    else:
        import gymnasium

        env = gymnasium.make(entry.id, **kwargs)
    if not scale_reward:
        return env
    from envzoo.core.scaled_reward import scaled

    return scaled(env, entry.reward_scale, entry.is_multi_agent)


def make_subprocess_vec(env_id: str, num_envs: int = 1, max_episode_steps: int | None = None, **kwargs):
    """Any single-agent or multi-objective id as a subprocess vector env (one sub-env per process;
    :mod:`envzoo.core.subprocess_vector`) with the registry's default arguments and horizon
    unless given: for simulators that do not batch, or to spread envs over cores."""
    entry = env_info(env_id)
    if entry.is_multi_agent:
        raise RegistryError(f"{entry.id} is a {entry.kind} id; vector envs are for the kinds {GYMNASIUM_KINDS}")
    entry.require_extra()
    horizon = entry.max_episode_steps if max_episode_steps is None else max_episode_steps
    return SubprocessVector(entry.entry_point)(num_envs, horizon, **{**entry.kwargs, **kwargs})


def make_policy(env_id: str, name: str, env):
    """Instantiate the reference policy ``name`` of ``env_id`` for ``env``."""
    ref = env_info(env_id).policy(name)
    return ref.load()(env, **ref.kwargs)

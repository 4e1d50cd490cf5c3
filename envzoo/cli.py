"""The ``envzoo`` command: list, describe, evaluate, benchmark and tour the environments.

::

    envzoo list  [--domain D] [--kind K] [--tag T] [--wide]
    envzoo info  ID
    envzoo eval  ID --policy NAME [--env KEY=VALUE ...] [--episodes K] [--seed S] [--max-steps N] [--json]
                 [--plot OUT.png]
    envzoo eval  ID --agent openai --base-url URL --model NAME [--no-tools] [--temperature T] ...
    envzoo serve-llm [--model FILE.gguf] [--port P]
    envzoo bench ID --num-envs N [--steps T] [--max-seconds S] [--seed S] [--json]
    envzoo dataset ID --policy NAME --episodes K [--seed S] [--env KEY=VALUE ...] [--max-steps N]
                   [--minari-id NS/NAME-vN] [--root DIR] [--parquet OUT.parquet]
    envzoo tour  [--episodes K] [--seed S] [--max-steps N] [--json] [--wide] [--report OUT.html] [--workers N]
    envzoo warmup [--workers N]
    envzoo animate [ID ...] [--out DIR | --docs] [--policy NAME] [--steps N] [--frames F] [--fps R] [--seed S]
    envzoo train ID --algo ALGO [--framework sb3|rllib|jax|morl] [--seed S ...] [--timesteps T] [--hyperparams FILE|DIR]
                 [--resume] [--ray-address ADDR]
    envzoo sweep --ids ID ... --algos ALGO ... [--frameworks F ...] [--seeds S ...] [--hyperparams FILE|DIR]
                 [--runs-dir DIR] [--ray-address ADDR]
    envzoo leaderboard [ID|DOMAIN ...] [--results DIR] [--check FILE ...] [--markdown] [--plot DIR]
    envzoo leaderboard --mo [ID ...] [--mo-results DIR] [--plot DIR]
                       [--metrics NAME ...]
    envzoo sandbox check

``eval`` and ``tour`` run the registry's reference policies and report the KPIs of
``info["metrics"]`` (plus the return and episode length) as mean ± std over episodes with
seeds ``S, S+1, ...`` (a first-event step, ``first_<event>_step``, over the episodes where the
event happened, with their count, or ``never``); ``eval --env KEY=VALUE`` passes constructor arguments (values read as
YAML: ``--env scenario=grid2x2 --env penetration=0.1``). For multi-objective ids the return is reported per objective
(``return.<objective>``), since a sum of unlike objectives means nothing. :func:`bench` is also
a library function, used by ``benchmarks/``. ``dataset`` writes episodes of a behaviour policy (a
reference policy or ``random``, uniform actions) of a single-agent id as an offline dataset in
Minari's format and/or Parquet (:mod:`envzoo.tools.datasets`).
``tour`` plays each domain's runs in a worker process of its own, a process per CPU at once
(:mod:`envzoo.tools.parallel_runs`), so that on a new machine the domains' kernels compile side by
side; ``warmup`` compiles them without the tour (:mod:`envzoo.tools.warmup`).
``animate`` writes each id's GIF of
its ``rgb_array`` frames under its best reference policy into the current folder (``--out DIR``
elsewhere; ``--docs``: the docs pages' GIFs and captions). ``train`` and ``leaderboard``: see
:mod:`envzoo.train.sb3` and :mod:`envzoo.leaderboard.results`.
``sandbox check`` runs the hostile-program battery against the sandbox for untrusted code
(:mod:`envzoo.core.sandbox.battery`).

Errors envzoo raises on purpose (unknown id or policy, missing extra) print one line to stderr
and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from pathlib import Path

import numpy as np
import yaml

import envzoo
from envzoo.tools.animation import gallery_ids, record, write_gif, write_still
from envzoo.core.errors import EnvzooError
from envzoo.tools.rollout import (EpisodeResult, FirstEventSummary, evaluate, evaluate_policy, make_env, mean_and_std,
                                  policy_env_kwargs, run_episode, summarize)
from envzoo.tools.throughput import bench
from envzoo.leaderboard import BOOTSTRAP_REPS
from envzoo.leaderboard.mo_results import MO_RESULTS_DIR
from envzoo.leaderboard.results import RESULTS_DIR
from envzoo.registry import KINDS, EnvEntry

TOUR_EPISODES = 2
TOUR_MAX_STEPS = 60
#: Seconds of stepping after which ``envzoo bench`` stops measuring a mode.
BENCH_SECONDS = 10.0
#: `envzoo train` and `envzoo sweep`: --hyperparams.
HYPERPARAMS_HELP = ("a YAML file of hyperparameters per id, or a folder of them named ALGO.yml (rllib-ALGO.yml "
                    "for RLlib); default: envzoo's own, installed with it (envzoo/train/configs/)")


# ---------------------------------------------------------------------- output helpers
class Progress:
    """Progress on stderr: on a terminal a one-line bar, ``label [######------] 3/8``, redrawn in
    place; elsewhere (a log file, CI) one plain line per finished item, ``label 3/8``.

    Called on an iterable it yields the items and advances once each item's work is done, so it
    can be passed as ``evaluate(..., progress=bar)``; one bar may wrap several iterables.
    """

    def __init__(self, total: int, width: int = 24, stream=None):
        self.total, self.width, self.done, self.label = total, width, 0, ""
        self.stream = stream or sys.stderr
        self.interactive = self.stream.isatty()
        self._shown = 0

    def __call__(self, iterable):
        if self.interactive:
            self.draw()
        for item in iterable:
            yield item
            self.done += 1
            self.draw()

    def draw(self) -> None:
        if not self.interactive:
            self.stream.write(f"{self.label} {self.done}/{self.total}\n")
            self.stream.flush()
            return
        filled = self.width * self.done // max(self.total, 1)
        line = f"{self.label} [{'#' * filled}{'-' * (self.width - filled)}] {self.done}/{self.total}"
        self.stream.write("\r" + line.ljust(self._shown))
        self.stream.flush()
        self._shown = len(line)

    def close(self) -> None:
        """End the bar's line (nothing to end if it never drew, or off a terminal)."""
        if self.interactive and self._shown:
            self.stream.write("\n")
            self.stream.flush()


#: Tables are fitted to this many columns unless ``--wide`` is given.
TABLE_WIDTH = 100


def _table(headers: list[str], rows: list[list[str]]) -> str:
    """Left-aligned columns under a header and a rule."""
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows)]
    lines = [headers, ["-" * w for w in widths], *rows]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in lines)


def _table_in_blocks(headers: list[str], rows: list[list[str]], width: int | None) -> str:
    """:func:`_table`, its columns after the first split into blocks of at most ``width``
    characters, each block repeating the first column (as pandas prints a wide frame)."""
    def span(columns: list[int]) -> int:
        return len(_table([headers[i] for i in columns], [[row[i] for i in columns] for row in rows]).split("\n")[1])

    blocks, block = [], [0]
    for column in range(1, len(headers)):
        if width is not None and len(block) > 1 and span(block + [column]) > width:
            blocks.append(block)
            block = [0]
        block.append(column)
    blocks.append(block)
    return "\n\n".join(_table([headers[i] for i in columns], [[row[i] for i in columns] for row in rows])
                       for columns in blocks)


def _table_wrapping_last(headers: list[str], rows: list[list[str]], width: int | None) -> str:
    """:func:`_table` with the last column's text wrapped onto further lines so that the table is
    at most ``width`` characters wide (the last column keeps at least 16)."""
    if width is not None:
        fixed = sum(max(len(cell) for cell in column) + 2 for column in list(zip(headers, *rows))[:-1])
        room = max(width - fixed, 16)
        wrapped = []
        for row in rows:
            pieces = textwrap.wrap(row[-1], room) or [""]
            wrapped += [row[:-1] + pieces[:1]] + [[""] * (len(row) - 1) + [piece] for piece in pieces[1:]]
        rows = wrapped
    return _table(headers, rows)


def _num(x: float) -> str:
    """Three significant digits, thousands separated: 0.00123, 2.84, 153, 2,561."""
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.3g}"


def _mean_std(mean: float, std: float, happened: int | None = None, episodes: int | None = None) -> str:
    """``mean ± std``; for a first-event metric (:class:`~envzoo.tools.rollout.FirstEventSummary`)
    ``never`` where the event never happened, else the mean and in how many episodes it did."""
    if happened == 0:
        return f"{'never':>9}   {'':<8} (0 of {episodes})"
    text = f"{_num(mean):>9} ± {_num(std):<8}"
    return text if happened is None else f"{text} ({happened} of {episodes})"


MEAN_STD = f"{'mean':>9} ± {'std':<8}"


# ---------------------------------------------------------------------- running policies
def _kpis(entry: EnvEntry, results: list[EpisodeResult]) -> dict[str, tuple[float, float]]:
    """Mean and std of the return(s), the length and the metrics, in the registry's order."""
    stats = summarize(results)
    if entry.is_multi_objective:
        returns = np.array([r.episode_return for r in results], dtype=np.float64)
        stats.update({f"return.{name}": mean_and_std(returns[:, i]) for i, name in enumerate(entry.objectives)})
    first = [name for name in stats if name.startswith("return")] + ["length"]
    ordered = first + [m for m in entry.metrics if m in stats]
    return {name: stats[name] for name in ordered + [name for name in stats if name not in ordered]}


def _as_json(kpis: dict[str, tuple[float, float]]) -> dict[str, dict[str, float]]:
    """Each KPI's mean and std; a first-event metric's also ``happened`` and ``episodes``, its
    mean and std null where the event never happened."""
    def plain(kpi) -> dict[str, float]:
        if not isinstance(kpi, FirstEventSummary):
            return {"mean": kpi[0], "std": kpi[1]}
        never = kpi.happened == 0
        return {"mean": None if never else kpi.mean, "std": None if never else kpi.std,
                "happened": kpi.happened, "episodes": kpi.episodes}

    return {name: plain(kpi) for name, kpi in kpis.items()}


def _episode_json(result: EpisodeResult, seed: int) -> dict:
    return {"seed": seed, "return": np.asarray(result.episode_return).tolist(),
            "length": result.length, "metrics": result.metrics}


# ---------------------------------------------------------------------- list and info
def cmd_list(args) -> int:
    try:
        found = envzoo.list_envs(domain=args.domain, kind=args.kind, tag=args.tag)
    except ValueError as error:  # an unknown domain or tag
        raise EnvzooError(str(error)) from None
    if not found:
        print("envzoo: no registry entry matches these filters", file=sys.stderr)
        return 0
    rows = [[e.id, e.kind, e.extra or "-", "yes" if e.installed else "no", e.summary] for e in found]
    print(_table_wrapping_last(["id", "kind", "extra", "installed", "summary"], rows, _width(args)))
    return 0


def _space_lines(entry: EnvEntry) -> list[str]:
    """The observation, action (and reward) spaces, read from a freshly made env."""
    env = make_env(entry)
    try:
        if not entry.is_multi_agent:
            lines = [f"observation space: {env.observation_space}", f"action space:      {env.action_space}"]
            reward_space = getattr(env.unwrapped, "reward_space", None)
            return lines + ([f"reward space:      {reward_space}"] if reward_space is not None else [])
        agents = list(env.possible_agents)
        spaces = {a: (env.observation_space(a), env.action_space(a)) for a in agents}
        lines = [f"agents:            {', '.join(agents)}"]
        if all(spaces[a] == spaces[agents[0]] for a in agents):
            observation, action = spaces[agents[0]]
            return lines + [f"observation space: {observation} (each agent)",
                            f"action space:      {action} (each agent)"]
        for agent, (observation, action) in spaces.items():
            lines += [f"{agent}:", f"  observation space: {observation}", f"  action space:      {action}"]
        return lines
    finally:
        env.close()


def cmd_info(args) -> int:
    entry = envzoo.env_info(args.id)
    lines = [entry.id, f"  {entry.summary}", "",
             f"kind:              {entry.kind}",
             f"domain:            {entry.domain}",
             f"entry point:       {entry.entry_point}"]
    if entry.vector_entry_point:
        lines.append(f"vector env:        {entry.vector_entry_point}")
    lines += [f"max episode steps: {entry.max_episode_steps or '-'}",
              f"kwargs:            {entry.kwargs or '-'}",
              f"extra:             {entry.extra or '- (core dependencies only)'}"]
    if entry.installed:
        lines += _space_lines(entry)
    else:
        lines.append(f"not installed:     {entry.install_hint}")
    if entry.objectives:
        lines.append(f"objectives:        {', '.join(entry.objectives)}")
    if entry.reward_scale is not None:
        lines.append(f"reward scale:      {entry.reward_scale} per step (envzoo.make(id, scale_reward=True) "
                     "divides by it)")
    lines += [f"costs:             {', '.join(entry.costs) or '-'}",
              f"metrics:           {', '.join(entry.metrics)}",
              f"tags:              {', '.join(entry.tags) or '-'}", "", "papers:"]
    lines += [f"  - {paper}" for paper in entry.papers] or ["  -"]
    lines += ["", "reference policies:"]
    lines += [f"  {ref.name:<18} {ref.entry_point}" + (f" {ref.kwargs}" if ref.kwargs else "")
              + (f" (env made with {ref.env_kwargs})" if ref.env_kwargs else "")
              for ref in entry.policies] or ["  -"]
    print("\n".join(lines))
    return 0


# ---------------------------------------------------------------------- eval
def cmd_eval(args) -> int:
    entry = envzoo.env_info(args.id)
    entry.require_extra()
    if (args.policy is None) == (args.agent is None):
        raise EnvzooError("give either --policy NAME (a reference policy) or --agent openai (a language model)")
    if args.agent and not (args.base_url and args.model):
        raise EnvzooError("--agent openai needs --base-url (e.g. http://127.0.0.1:8000/v1, see `envzoo serve-llm`) "
                          "and --model (the endpoint's model name)")
    label = args.policy or f"openai:{args.model}"
    progress = Progress(args.episodes)
    progress.label = f"{entry.id} {label}"
    try:
        given = _env_kwargs(args.env, entry, args.max_steps)
        if args.agent:
            from envzoo.text.llm import ChatCompletionsAgent

            env_kwargs = given
            results = evaluate(lambda: make_env(entry, args.max_steps, given),
                               lambda env: ChatCompletionsAgent(env, args.base_url, args.model, api_key=args.api_key,
                                                                temperature=args.temperature, use_tools=args.tools,
                                                                history=args.history),
                               args.episodes, args.seed, progress=progress)
        else:
            env_kwargs = policy_env_kwargs(entry, args.policy, given)
            results = evaluate_policy(entry, args.policy, args.episodes, args.seed, args.max_steps, progress, env_kwargs)
    finally:
        progress.close()
    kpis = _kpis(entry, results)
    if args.plot:
        _save_plot(args.plot, entry, [(args.policy, results, kpis)], args.seed)
    if args.json:
        print(json.dumps({
            "id": entry.id, "policy": label, "env_kwargs": env_kwargs, "episodes": args.episodes,
            "seed": args.seed,
            "max_steps": args.max_steps, "metrics": _as_json(kpis),
            "per_episode": [_episode_json(r, args.seed + i) for i, r in enumerate(results)],
        }, indent=2))
        return 0
    seeds = f"seed {args.seed}" if args.episodes == 1 else f"seeds {args.seed}-{args.seed + args.episodes - 1}"
    print(f"{entry.id}, policy {label}: {args.episodes} episode(s), {seeds}")
    print(_table(["kpi", MEAN_STD], [[name, _mean_std(*ms)] for name, ms in kpis.items()]))
    return 0


# ---------------------------------------------------------------------- dataset
def cmd_dataset(args) -> int:
    from envzoo.tools.datasets import create, is_uniform_random

    entry = envzoo.env_info(args.id)
    entry.require_extra()
    env_kwargs = _env_kwargs(args.env, entry, args.max_steps)
    if not is_uniform_random(entry, args.policy):
        env_kwargs = policy_env_kwargs(entry, args.policy, env_kwargs)
    if args.max_steps is not None:
        env_kwargs["max_episode_steps"] = args.max_steps
    report = create(entry.id, args.policy, args.episodes, args.seed, minari_id=args.minari_id, root=args.root,
                    parquet=args.parquet, env_kwargs=env_kwargs)
    print(f"{entry.id}, policy {args.policy}: {report.episodes} episodes, {report.steps:,} steps, "
          f"seeds {args.seed}-{args.seed + args.episodes - 1}, {report.seconds:.1f} s")
    if report.minari_path:
        print(f"Minari dataset {args.minari_id}: {report.minari_path} ({report.minari_bytes / 1e6:.2f} MB)")
    if report.parquet_path:
        print(f"Parquet: {report.parquet_path} ({report.parquet_bytes / 1e6:.2f} MB)")
    return 0


# ---------------------------------------------------------------------- bench
def cmd_bench(args) -> int:
    registered = "subprocess" if envzoo.env_info(args.id).vector_entry_point == "subprocess" else "native"
    labels = {"single": "single env", "sync": f"SyncVectorEnv x{args.num_envs}",
              "native": f"{registered} vector env x{args.num_envs}",
              "jax": f"JAX vector env x{args.num_envs}", "jax-scan": f"JAX on device, scan x{args.num_envs}"}

    def announce(mode: str) -> None:
        print(f"envzoo bench: measuring {labels[mode]} ...", file=sys.stderr, flush=True)

    result = bench(args.id, args.num_envs, args.steps, args.seed, max_seconds=args.max_seconds, progress=announce)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    device = result["jax_device"]
    rows = [[labels[mode] + (f" ({device})" if mode.startswith("jax") else ""), f"{rate:,.0f}",
             f"{result['steps_measured'][mode]:,}"] for mode, rate in result["steps_per_s"].items()]
    rows += [[labels[mode], f"skipped: {reason}", ""] for mode, reason in result["skipped"].items()]
    print(f"{result['id']}: up to {args.steps} steps or {args.max_seconds:g} s per mode, random actions, "
          f"seed {args.seed}")
    print(_table(["mode", "env-steps/s", "steps measured"], rows))
    if result["native_over_sync"] is not None:
        print(f"{registered} / sync: {result['native_over_sync']:.1f}x")
    return 0


def cmd_new_domain(args) -> int:
    from envzoo.tools.scaffold import new_domain, next_steps

    written = new_domain(args.name, args.root, args.summary)
    print(f"wrote the domain {args.name!r}:")
    for path in written:
        print(f"  {path}")
    print("\n".join(next_steps(args.name)))
    return 0


def cmd_lob(args) -> int:
    from envzoo.marketmaking.lob.data.convert import main as lob_main

    return lob_main(args.lob_args, prog="envzoo lob")


# ---------------------------------------------------------------------- train
def cmd_train(args) -> int:
    import dataclasses

    from envzoo.leaderboard.results import write
    from envzoo.train.hyperparams import config_for
    from envzoo.train.runs import check_seed, connect_ray, run_folder, train

    entry = envzoo.env_info(args.id)
    entry.require_extra()
    if args.framework == "morl":
        return _train_front(args)
    config = config_for(entry.id, args.algo, args.hyperparams, args.framework)
    if args.timesteps:
        config = dataclasses.replace(config, n_timesteps=args.timesteps)
    if args.run_dir and len(args.seed) > 1 and args.framework != "jax":
        raise EnvzooError("--run-dir holds one run: give one --seed with it, or leave it out")
    for seed in args.seed:
        check_seed(seed, config)  # every seed before the first run starts
    if args.ray_address:
        connect_ray(args.ray_address)
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    if args.framework == "jax":  # every seed in one compiled program
        from envzoo.train.jax_runs import train_seeds

        run_dir = args.run_dir or run_folder(entry.id, args.framework, args.algo, args.seed)
        results = train_seeds(entry.id, args.algo, args.seed, config, run_dir, resume=args.resume, log=log)
    else:
        results = (train(entry.id, args.algo, args.framework, seed, config,
                         args.run_dir or run_folder(entry.id, args.framework, args.algo, seed), resume=args.resume,
                         log=log) for seed in args.seed)
    for result in results:
        run = f"{args.framework}-{args.algo}-seed{result.seed}"
        path = write(result, args.results)
        scored = {name: result.scored_return(ev) for name, ev in result.references.items()}
        print(f"{entry.id} {run}: {result.timesteps:,} steps in {result.wall_seconds:.0f} s; evaluation return "
              f"{result.scored_return(result.evaluation):.4g} (random {scored['random']:.4g}, "
              f"{result.best_reference} {scored[result.best_reference]:.4g}); normalized "
              f"score {result.normalized_score:.2f}; wrote {path}", flush=True)
    return 0


def cmd_tune(args) -> int:
    from envzoo.train.tune import default_output, tune, write_study

    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    study = tune(args.id, args.algo, args.trials, args.timesteps, args.evaluations, args.episodes, args.seed,
                 args.hyperparams, log=log)
    print(f"{'trial':>5}  {'state':<8}  {'validation return':>17}  values")
    for trial in study.trials:
        value = "" if trial.value is None else f"{trial.value:.4g}"
        shown = ", ".join(f"{key}={value}" for key, value in trial.params.items()) or trial.failure
        print(f"{trial.number:>5}  {trial.state:<8}  {value:>17}  {shown}")
    command = f"envzoo tune {args.id} --algo {args.algo} --trials {args.trials} --timesteps {study.timesteps}"
    path = write_study(study, args.out or default_output(args.id, args.algo), command)
    print(f"best: trial {study.best.number} ({study.best.value:.4g}); wrote {path}: train with "
          f"`envzoo train {args.id} --algo {args.algo} --hyperparams {path}`")
    return 0


def _train_front(args) -> int:
    """`envzoo train ID --framework morl`: one MORL-Baselines run per seed, a front each."""
    from envzoo.leaderboard import mo_results
    from envzoo.train.morl import check, train_front

    check(args.id, args.algo)  # before the first seed trains
    for seed in args.seed:
        result = train_front(args.id, args.algo, seed, args.timesteps or 20_000, args.episodes,
                             log=lambda line: print(line, file=sys.stderr, flush=True))
        root = args.results if args.results != str(RESULTS_DIR) else mo_results.MO_RESULTS_DIR
        print(f"{result.env_id} morl-{args.algo} seed {seed}: {result.timesteps:,} steps in "
              f"{result.wall_seconds:.0f} s, {len(result.front)} policies; wrote {mo_results.write(result, root)}")
    return 0


def cmd_sweep(args) -> int:
    from envzoo.train.sweep import plan, sweep

    runs = plan(args.ids, args.algos, args.frameworks, args.seeds, args.timesteps, args.hyperparams)
    print(f"{len(runs)} runs as Ray tasks, checkpoints under {args.runs_dir}", file=sys.stderr, flush=True)
    sweep(runs, args.results, args.runs_dir, args.ray_address, log=lambda line: print(line, flush=True))
    return 0


# ---------------------------------------------------------------------- leaderboard
def cmd_leaderboard(args) -> int:
    from envzoo.leaderboard import report
    from envzoo.leaderboard.results import collect, load, problems

    if args.mo:
        return _mo_leaderboard(args)
    if args.check:
        failed = 0
        for path in args.check:
            found = problems(load(path))
            failed += bool(found)
            print(f"{path}: " + ("ok" if not found else "; ".join(found)))
        return 1 if failed else 0
    results = collect(args.results)
    known_ids = sorted({r.env_id for r in results})
    ids = [i for i in known_ids  # an id with or without "envzoo/", or a domain
           if not args.select or any(s in (i, i.split("/", 1)[1], envzoo.env_info(i).domain) for s in args.select)]
    if not ids:
        raise EnvzooError(f"no result files for {' '.join(args.select) or 'any id'} under {args.results}; "
                          f"ids with results: {', '.join(known_ids) or 'none'}")
    tables = [report.id_table(results, env_id) for env_id in ids]
    tables += [report.metrics_table(results, env_id, args.metrics, args.reps) for env_id in ids if args.metrics]
    if len(ids) > 1 or len({report.entrant(r) for r in results if r.env_id in ids}) > 1:
        tables += [report.aggregate_table(results, ids, args.reps), report.profile_table(results, ids)]
        tables += [t for t in [report.improvement_table(results, ids, args.reps)] if t]
    for table in tables:
        print(table.markdown() if args.markdown else f"{table.title}\n" + _table(list(table.columns), table.rows))
        print()
    if args.plot:
        from envzoo.leaderboard.plots import write_all, write_report

        written = write_all(results, args.plot, ids, args.reps)
        for path in [*written, write_report(args.plot, ids, tables, written)]:
            print(f"wrote {path}")
    return 0


def _mo_leaderboard(args) -> int:
    """`envzoo leaderboard --mo`: a table (and with --plot, a front plot) per multi-objective id."""
    from envzoo.leaderboard import mo_report, mo_results
    from envzoo.leaderboard.results import collect

    results = mo_results.collect(args.mo_results)
    known_ids = sorted({r.env_id for r in results})
    ids = [i for i in known_ids if not args.select or any(s in (i, i.split("/", 1)[1]) for s in args.select)]
    if not ids:
        raise EnvzooError(f"no multi-objective result files for {' '.join(args.select) or 'any id'} under "
                          f"{args.mo_results}; ids with results: {', '.join(known_ids) or 'none'}")
    scalar = collect(args.results) if Path(args.results).is_dir() else []
    for env_id in ids:
        table = mo_report.mo_table(results, env_id, scalar)
        print(table.markdown() if args.markdown else f"{table.title}\n" + _table(list(table.columns), table.rows))
        print()
        if args.plot:
            from envzoo.leaderboard.plots import pareto_front

            name = env_id.split("/", 1)[1]
            print(f"wrote {pareto_front(results, env_id, Path(args.plot) / f'front-{name}.png')}")
    return 0


# ---------------------------------------------------------------------- tour
def cmd_tour(args) -> int:
    if args.workers is not None and args.workers < 1:
        raise EnvzooError(f"--workers must be at least 1, got {args.workers}")
    from envzoo.core.compiled import silence_compiling_notice
    from envzoo.tools import warmup
    from envzoo.tools.parallel_runs import Run, play_all

    ready = envzoo.list_envs(installed=True)
    skipped = envzoo.list_envs(installed=False)
    runnable = {entry.id: [ref for ref in entry.policies if ref.installed] for entry in ready}
    skipped_policies = [(entry, ref) for entry in ready for ref in entry.policies if not ref.installed]
    planned = [(entry, ref.name, Run(entry.id, ref.name, _tour_steps(ref, args.max_steps)))
               for entry in ready for ref in runnable[entry.id]]
    first_run = not warmup.is_warm()
    if first_run:  # said here once, not by each worker or kernel
        print(warmup.COMPILING_LINE, file=sys.stderr)
        silence_compiling_notice()
    progress = Progress(args.episodes * len(planned))

    def finished(job: list[Run], seconds: float) -> None:
        progress.label = envzoo.env_info(job[0].env_id).domain
        progress.done += args.episodes * len(job)
        progress.draw()

    try:
        results = play_all([run for _, _, run in planned], args.episodes, args.seed, args.workers, finished)
    finally:
        progress.close()
    if first_run:
        warmup.mark_warm()
    runs = [(entry, policy, _kpis(entry, results[run]), results[run]) for entry, policy, run in planned]
    if args.report:
        _write_report(args.report, ready, runs, args)
    if args.json:
        print(json.dumps({
            "episodes": args.episodes, "seed": args.seed, "max_steps": args.max_steps,
            "results": [{"id": e.id, "policy": p, "metrics": _as_json(k)} for e, p, k, _ in runs],
            "skipped": [{"id": e.id, "extra": e.extra, "install": e.install_hint} for e in skipped],
            "skipped_policies": [{"id": e.id, "policy": r.name, "extra": r.extra, "install": r.install_hint}
                                 for e, r in skipped_policies],
        }, indent=2))
        return 0
    print(f"Reference policies, {args.episodes} episode(s) of at most {args.max_steps} steps "
          f"(seeds from {args.seed}); mean ± std over episodes.")
    shorter = [f"{e.id} {p}" for e, p, _, _ in runs if _tour_steps(e.policy(p), args.max_steps) != args.max_steps]
    if shorter:
        print(f"Shorter episodes where a step spans more engine time (the registry's tour_max_steps): "
              f"{', '.join(shorter)}.")
    for entry in ready:
        mine = [(policy, kpis) for e, policy, kpis, _ in runs if e is entry]
        names = list(dict.fromkeys(name for _, kpis in mine for name in kpis))
        rows = [[name] + [_mean_std(*kpis[name]) if name in kpis else "-" for _, kpis in mine] for name in names]
        heading = f"{entry.id}: {entry.summary}"
        print("\n" + (heading if args.wide else textwrap.fill(heading, TABLE_WIDTH)))
        print(_table_in_blocks(["kpi"] + [policy for policy, _ in mine], rows, _width(args)))
    if skipped or skipped_policies:
        print("\nSkipped (optional extra not installed):")
        lines = [f"  {e.id:<32} {e.install_hint}" for e in skipped]
        lines += [f"  {e.id:<32} policy {r.name}: {r.install_hint}" for e, r in skipped_policies]
        print("\n".join(lines))
    return 0


def _tour_steps(ref, max_steps: int | None) -> int | None:
    """The tour's step cap for a policy: ``max_steps``, or the policy's shorter ``tour_max_steps``."""
    if ref.tour_max_steps is None or (max_steps is not None and max_steps <= ref.tour_max_steps):
        return max_steps
    return ref.tour_max_steps


def cmd_warmup(args) -> int:
    from envzoo.tools import warmup

    if args.workers is not None and args.workers < 1:
        raise EnvzooError(f"--workers must be at least 1, got {args.workers}")
    warmup.warm_up_with_progress(args.workers)
    return 0


# ---------------------------------------------------------------------- plots
def _figure(entry: EnvEntry, runs: list, seed: int):
    from envzoo.tools.plots import kpi_figure

    return kpi_figure(entry.id, runs, list(entry.metrics), list(entry.objectives or []), seed)


def _save_plot(path: str, entry: EnvEntry, runs: list, seed: int) -> None:
    """``eval --plot``: the KPI bars and per-episode curves as a PNG (needs the plots extra)."""
    from envzoo.core.extras import require

    require("plots", "matplotlib")
    _figure(entry, runs, seed).savefig(path, dpi=80)
    print(f"plot: {path}", file=sys.stderr)


def _write_report(path: str, entries: list, runs: list, args) -> None:
    """``tour --report``: every id's figure and KPI table in one self-contained HTML file."""
    from envzoo.core.extras import require
    from envzoo.tools.plots import ReportSection, png_bytes, report_html, table_html

    require("plots", "matplotlib")
    sections = []
    for entry in entries:
        mine = [(policy, results, kpis) for e, policy, kpis, results in runs if e is entry]
        if mine:
            sections.append(ReportSection(entry.id, entry.summary, [png_bytes(_figure(entry, mine, args.seed))],
                                          [table_html(mine, _mean_std)], entry.domain))
    subtitle = (f"{args.episodes} episode(s) of at most {args.max_steps} steps per policy, seeds from {args.seed}; "
                "KPIs as mean ± std over the episodes")
    Path(path).write_text(report_html("envzoo tour: the reference policies of every id", sections, subtitle),
                          encoding="utf-8")
    print(f"report: {path}", file=sys.stderr)


# ---------------------------------------------------------------------- animate
ANIMATION_STEPS = 360  # at most this many steps of an episode per animation
#: Where ``animate --docs`` writes: the docs pages' GIFs and their captions (index.yaml).
DOCS_ANIMATIONS = Path("docs") / "animations"
DOCS_GALLERY = Path("docs") / "images" / "gallery"  # the home page's stills, one per domain


def _clip_runs(entry: EnvEntry, policies: list[str], steps: int, seed: int) -> dict[str, tuple[float, int]]:
    """Each policy's (return, steps played) over the first ``steps`` steps of the episode of
    ``seed``, without rendering; a vector return is summed in units of the entry's reward_scale."""
    scale = np.asarray(entry.reward_scale if entry.reward_scale is not None else 1.0, dtype=np.float64)
    runs = {}
    for name in policies:
        env = make_env(entry, None, policy_env_kwargs(entry, name, {}))
        try:
            result = run_episode(env, envzoo.make_policy(entry.id, name, env), seed, steps)
        finally:
            env.close()
        runs[name] = (float(np.sum(np.asarray(result.episode_return) / scale)), result.length)
    return runs


def _note_animation(folder: Path, env_id: str, what: dict) -> None:
    """Record in ``folder/index.yaml`` what an id's GIF shows (the docs pages' caption)."""
    index = folder / "index.yaml"
    notes = yaml.safe_load(index.read_text(encoding="utf-8")) if index.is_file() else {}
    notes[env_id] = what
    header = "# What each GIF shows; written by `envzoo animate`.\n"
    index.write_text(header + yaml.safe_dump(dict(sorted(notes.items()))), encoding="utf-8")


def cmd_animate(args) -> int:
    entries = [envzoo.env_info(env_id) for env_id in args.ids] or envzoo.list_envs(installed=True)
    for entry in entries:
        entry.require_extra()
        steps = min(entry.max_episode_steps or args.steps, args.steps)
        # Oracles (policies that read what no agent can) are shown only when asked for by name.
        candidates = [args.policy] if args.policy else [ref.name for ref in entry.policies
                                                        if ref.installed and not getattr(ref.load(), "oracle", False)]
        if not candidates:
            raise EnvzooError(f"{entry.id} has no installed reference policy to animate")
        runs = _clip_runs(entry, candidates, steps, args.seed)  # (the first run tells the clip's length too)
        policy = max(runs, key=lambda name: runs[name][0])
        played = runs[policy][1]
        env = make_env(entry, None, {**policy_env_kwargs(entry, policy, {}), "render_mode": "rgb_array"})
        try:
            pictures, _ = record(env, envzoo.make_policy(entry.id, policy, env), args.seed, played, args.frames)
        finally:
            env.close()
        folder = DOCS_ANIMATIONS if args.docs else Path(args.out)
        path = folder / f"{entry.id.split('/', 1)[1]}.gif"
        size, frames = write_gif(pictures, path, args.fps, args.scale, max_bytes=args.max_kb * 1024)
        if args.docs and entry.id in gallery_ids(envzoo.list_envs()).values():
            write_still(pictures[-1], DOCS_GALLERY / f"{entry.id.split('/', 1)[1]}.png")
        if args.docs:
            whole = played < steps or played == entry.max_episode_steps
            _note_animation(folder, entry.id, {"policy": policy, "steps": played, "seed": args.seed,
                                               "whole_episode": whole})
        print(f"{path}: {entry.id} under {policy}, {frames} frames over {played} steps, {size / 1024:.0f} kB",
              flush=True)
    return 0


# ---------------------------------------------------------------------- arguments
def _width(args) -> int | None:
    return None if args.wide else TABLE_WIDTH


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _positive_seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def _env_argument(text: str) -> tuple[str, object]:
    """``KEY=VALUE``: the value is JSON if it parses as JSON (numbers, true/false, null, lists),
    a YAML flow mapping or list if written as one (``{kind: grid, rows: 2}``), else the string
    itself (so ``no`` or ``2016-01-01`` stay strings)."""
    key, equals, value = text.partition("=")
    if not equals or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE with KEY a constructor argument name, got {text!r}")
    try:
        return key, json.loads(value)
    except ValueError:
        pass
    if value.strip().startswith(("{", "[")):
        try:
            return key, yaml.safe_load(value)
        except yaml.YAMLError as error:
            raise argparse.ArgumentTypeError(f"the value of {key} is not a valid mapping or list: {error}") from None
    return key, value


def _env_kwargs(pairs: list[tuple[str, object]], entry: EnvEntry, max_steps: int | None) -> dict:
    """The ``--env`` arguments as a dict: each key once, and no episode length (``--max-steps`` sets it)."""
    kwargs = {}
    for key, value in pairs:
        if key in kwargs:
            raise EnvzooError(f"--env {key}= is given twice ({kwargs[key]!r} and {value!r}); give it once")
        kwargs[key] = value
    horizon = "max_cycles" if entry.is_multi_agent else "max_episode_steps"
    if horizon in kwargs and max_steps is not None:
        raise EnvzooError(f"--env {horizon}= and --max-steps both set the episode length; use one")
    return kwargs


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="envzoo", description=(
        "Reinforcement-learning environments for applied domains. Run `envzoo tour` to try "
        "every installed environment with its reference policies."))
    parser.add_argument("--version", action="version", version=f"envzoo {envzoo.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add_wide_option(sub) -> None:
        sub.add_argument("--wide", action="store_true", help=f"do not fit tables to {TABLE_WIDTH} columns")

    listing = commands.add_parser("list", help="list the registry's environments")
    listing.add_argument("--domain", help="only this domain, e.g. serverless")
    listing.add_argument("--kind", choices=KINDS, help="only this kind")
    listing.add_argument("--tag", help="only entries with this tag")
    add_wide_option(listing)
    listing.set_defaults(run=cmd_list)

    info = commands.add_parser("info", help="describe one environment")
    info.add_argument("id", help="an envzoo id, e.g. envzoo/Serverless-v1")
    info.set_defaults(run=cmd_info)

    def add_run_options(sub, episodes: int, max_steps: int | None) -> None:
        sub.add_argument("--episodes", type=_positive, default=episodes, help=f"episodes per policy ({episodes})")
        sub.add_argument("--seed", type=int, default=0, help="seed of the first episode (0)")
        sub.add_argument("--max-steps", type=_positive, default=max_steps,
                         help="shorten episodes to this many steps" + (f" ({max_steps})" if max_steps else ""))
        sub.add_argument("--json", action="store_true", help="print JSON instead of a table")

    evaluation = commands.add_parser("eval", help="evaluate a reference policy or a language model on an environment")
    evaluation.add_argument("id", help="an envzoo id")
    evaluation.add_argument("--policy", help="a reference policy (see `envzoo info ID`)")
    evaluation.add_argument("--agent", choices=["openai"],
                            help="instead of --policy: a language model behind an OpenAI-compatible endpoint "
                                 "(text ids; envzoo.text.llm)")
    evaluation.add_argument("--base-url", help="the endpoint of --agent openai, e.g. http://127.0.0.1:8000/v1")
    evaluation.add_argument("--model", help="the endpoint's model name (--agent openai)")
    evaluation.add_argument("--api-key", help="sent as a bearer token (--agent openai; hosted endpoints)")
    evaluation.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (0: greedy)")
    evaluation.add_argument("--history", type=_positive, help="send only the last K exchanges of the episode "
                                                             "(--agent openai; default: the whole conversation)")
    evaluation.add_argument("--no-tools", dest="tools", action="store_false",
                            help="ask for the action in the reply's text instead of the act tool (models without "
                                 "tool calling, such as envzoo serve-llm's)")
    evaluation.add_argument("--env", type=_env_argument, action="append", default=[], metavar="KEY=VALUE",
                            help="a constructor argument of the env (repeatable), e.g. scenario=grid2x2")
    add_run_options(evaluation, episodes=10, max_steps=None)
    evaluation.add_argument("--plot", metavar="OUT.png", help="also draw every KPI and per-episode curves (plots extra)")
    evaluation.set_defaults(run=cmd_eval)

    benchmark = commands.add_parser("bench", help="steps/s: single env, SyncVectorEnv, native vector env, JAX")
    benchmark.add_argument("id", help="an envzoo id")
    benchmark.add_argument("--num-envs", type=_positive, required=True, help="copies in the vector envs")
    benchmark.add_argument("--steps", type=_positive, default=100, help="steps per mode (100)")
    benchmark.add_argument("--max-seconds", type=_positive_seconds, default=BENCH_SECONDS,
                           help=f"stop a mode after this many seconds of stepping ({BENCH_SECONDS:g})")
    benchmark.add_argument("--seed", type=int, default=0, help="seed of envs and actions (0)")
    benchmark.add_argument("--json", action="store_true", help="print JSON instead of a table")
    benchmark.set_defaults(run=cmd_bench)

    dataset = commands.add_parser("dataset", help="write episodes of a behaviour policy as an offline dataset "
                                                  "(Minari and/or Parquet; extra `dataset`)")
    dataset.add_argument("id", help="a single-agent envzoo id")
    dataset.add_argument("--policy", required=True,
                         help="the behaviour policy: a reference policy of the id, or random (uniform actions)")
    dataset.add_argument("--episodes", type=_positive, required=True, help="episodes to log")
    dataset.add_argument("--seed", type=int, default=0, help="seed of the first episode (0); episode e: seed + e")
    dataset.add_argument("--env", type=_env_argument, action="append", default=[], metavar="KEY=VALUE",
                         help="a constructor argument of the env (repeatable)")
    dataset.add_argument("--max-steps", type=_positive, help="shorten episodes to this many steps")
    dataset.add_argument("--minari-id", metavar="NS/NAME-vN", help="write a Minari dataset of this id")
    dataset.add_argument("--root", help="the Minari datasets folder (default: $MINARI_DATASETS_PATH or ~/.minari)")
    dataset.add_argument("--parquet", metavar="OUT.parquet", help="write the steps as a Parquet file")
    dataset.set_defaults(run=cmd_dataset)

    lob = commands.add_parser("lob", add_help=False,
                              help="convert or describe limit-order-book files (`envzoo lob convert --help`)")
    lob.add_argument("lob_args", nargs=argparse.REMAINDER)
    lob.set_defaults(run=cmd_lob)

    tour = commands.add_parser("tour", help="run every installed environment's reference policies")
    add_run_options(tour, episodes=TOUR_EPISODES, max_steps=TOUR_MAX_STEPS)
    tour.add_argument("--report", metavar="OUT.html", help="also write one HTML file of every id's plots (plots extra)")
    tour.add_argument("--workers", type=int, help="processes playing at once, a domain each (default: the CPUs)")
    add_wide_option(tour)
    tour.set_defaults(run=cmd_tour)
    warming = commands.add_parser("warmup", help="compile every installed domain's kernels for this CPU at once")
    warming.add_argument("--workers", type=int, help="processes compiling at once (default: the CPUs)")
    warming.set_defaults(run=cmd_warmup)

    training = commands.add_parser("train", help="train an algorithm on an id and write its result file")
    training.add_argument("id", help="an envzoo id")
    training.add_argument("--algo", required=True,
                          help="sb3: ppo, a2c, dqn, sac, td3, maskable-ppo or ppo-lagrangian; rllib, jax: ppo; "
                               "torch: attention-ppo; morl: envelope, gpi-ls, capql")
    training.add_argument("--framework", choices=["sb3", "rllib", "jax", "torch", "morl"], default="sb3",
                          help="Stable-Baselines3 (sb3, default), RLlib (rllib, extra `rllib`), PPO in JAX "
                               "(jax, extra `jax`: ids with a JAX core, every seed in one program), envzoo's "
                               "own PyTorch trainers (torch: the attention model on the routing ids, extra `train`) "
                               "or MORL-Baselines (morl, extra `morl`: mo-gymnasium ids; writes a front under "
                               "leaderboard/mo-results)")
    training.add_argument("--episodes", type=_positive, default=5,
                          help="morl: evaluation episodes per weight and per reference policy (5)")
    training.add_argument("--seed", type=int, nargs="+", default=[0],
                          help="seed of the model and training envs; several train one run each (jax: "
                               "all in one program) (0)")
    training.add_argument("--timesteps", type=_positive, help="override the hyperparameter file's n_timesteps")
    training.add_argument("--hyperparams", help=HYPERPARAMS_HELP)
    training.add_argument("--results", default=str(RESULTS_DIR), help=f"folder of result files ({RESULTS_DIR})")
    training.add_argument("--run-dir", help="checkpoints and curve (default: runs/NAME/FRAMEWORK-ALGO-seedS)")
    training.add_argument("--resume", action="store_true", help="go on from the run folder's last checkpoint")
    training.add_argument("--ray-address", help="run RLlib on this Ray cluster, `auto` for this machine's (default: "
                                                "start a Ray of the run's own)")
    training.set_defaults(run=cmd_train)

    tuning = commands.add_parser("tune", help="search an algorithm's hyperparameters on an id (Optuna; extra `train`)")
    tuning.add_argument("id", help="an envzoo id")
    tuning.add_argument("--algo", required=True, help="ppo, maskable-ppo or a2c (rl-baselines3-zoo's search spaces)")
    tuning.add_argument("--trials", type=_positive, default=20, help="trials (20)")
    tuning.add_argument("--timesteps", type=_positive, help="steps per trial (default: the block's n_timesteps)")
    tuning.add_argument("--evaluations", type=_positive, default=5,
                        help="validations along each trial, where the pruner may stop it (5)")
    tuning.add_argument("--episodes", type=_positive, default=5, help="episodes per validation (5)")
    tuning.add_argument("--seed", type=int, default=0, help="seed of the sampler and of every trial's training (0)")
    tuning.add_argument("--hyperparams", help=HYPERPARAMS_HELP + " (the block the search starts from)")
    tuning.add_argument("--out", help="the hyperparameter file written (default: ./tuned-NAME-ALGO.yml)")
    tuning.set_defaults(run=cmd_tune)

    sweeping = commands.add_parser("sweep", help="train ids x algorithms x seeds as Ray tasks (extra `rllib`)")
    sweeping.add_argument("--ids", nargs="+", required=True, help="envzoo ids")
    sweeping.add_argument("--algos", nargs="+", required=True, help="algorithms, e.g. ppo a2c")
    sweeping.add_argument("--frameworks", nargs="+", choices=["sb3", "rllib"], default=["sb3"], help="(sb3)")
    sweeping.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4], help="(0 1 2 3 4)")
    sweeping.add_argument("--timesteps", type=_positive, help="override the hyperparameter files' n_timesteps")
    sweeping.add_argument("--hyperparams", help=HYPERPARAMS_HELP + "; a file only for one algorithm and framework")
    sweeping.add_argument("--results", default=str(RESULTS_DIR), help=f"folder of result files ({RESULTS_DIR})")
    sweeping.add_argument("--runs-dir", default="runs", help="the runs' checkpoints, a folder per run (runs)")
    sweeping.add_argument("--ray-address", help="an existing Ray cluster, `auto` for this machine's (default: start "
                                                "a Ray of the sweep's own)")
    sweeping.set_defaults(run=cmd_sweep)

    board = commands.add_parser("leaderboard", help="tables of normalized scores from result files")
    board.add_argument("select", nargs="*", metavar="ID|DOMAIN", help="only these ids or domains (default: all)")
    board.add_argument("--results", default=str(RESULTS_DIR), help=f"folder of result files ({RESULTS_DIR})")
    board.add_argument("--check", nargs="+", metavar="FILE", help="validate result files instead")
    board.add_argument("--reps", type=_positive, default=BOOTSTRAP_REPS,
                       help=f"bootstrap replications of the intervals ({BOOTSTRAP_REPS:,})")
    board.add_argument("--markdown", action="store_true", help="print Markdown tables")
    board.add_argument("--metrics", nargs="+", metavar="NAME", default=[],
                       help="also tabulate these episode metrics per entrant and reference policy, e.g. "
                            "mean_response_min p90_response_min (the id's registry entry lists its metrics)")
    board.add_argument("--plot", metavar="DIR",
                       help="also write PNG plots (curves, intervals, profiles) and report.html, the tables and "
                            "plots on one page (extra `plots`)")
    board.add_argument("--mo", action="store_true",
                       help="the multi-objective ids' Pareto-front tables (hypervolume, expected utility, sparsity, "
                            "cardinality) from --mo-results, with --plot a front plot per id")
    board.add_argument("--mo-results", default=str(MO_RESULTS_DIR),
                       help=f"folder of multi-objective result files ({MO_RESULTS_DIR})")
    board.set_defaults(run=cmd_leaderboard)

    animate = commands.add_parser("animate", help="write each id's GIF under its best reference policy")
    animate.add_argument("ids", nargs="*", help="envzoo ids (default: every installed one)")
    where = animate.add_mutually_exclusive_group()
    where.add_argument("--out", default=".", help="folder of the GIFs (the current folder)")
    where.add_argument("--docs", action="store_true",
                       help=f"write the docs pages' GIFs: into {DOCS_ANIMATIONS}/, with what each shows in its "
                            f"index.yaml, and each domain's gallery still into {DOCS_GALLERY}/ (run from the "
                            "source checkout)")
    animate.add_argument("--policy", help="this reference policy (default: the highest return over the clip's steps, oracles left out)")
    animate.add_argument("--steps", type=_positive, default=ANIMATION_STEPS,
                         help=f"steps of the episode shown, at most the id's horizon ({ANIMATION_STEPS})")
    animate.add_argument("--frames", type=_positive, default=40, help="frames, evenly spread over the steps (40)")
    animate.add_argument("--fps", type=_positive, default=6, help="frames per second of the GIF (6)")
    animate.add_argument("--scale", type=float, default=0.75, help="frame size relative to 600 x 400 (0.75)")
    animate.add_argument("--seed", type=int, default=0, help="seed of the episode (0)")
    animate.add_argument("--max-kb", type=_positive, default=350,
                         help="keep every other frame until the GIF is at most this many kB (350)")
    animate.set_defaults(run=cmd_animate)

    scaffold = commands.add_parser("new-domain", help="start a domain from the template (see the docs' Add a domain)")
    scaffold.add_argument("name", help="the domain's package name, a lowercase identifier, e.g. inventory")
    scaffold.add_argument("--root", help="the checkout's folder that contains envzoo/ (default: this envzoo's source "
                                         "tree; required when envzoo is installed in site-packages)")
    scaffold.add_argument("--summary", help="the one-line summary of its first id")
    scaffold.set_defaults(run=cmd_new_domain)

    serving = commands.add_parser("serve-llm", help="a local language model behind an OpenAI-compatible endpoint "
                                                    "(extra `llm`)")
    serving.add_argument("--model", help="a GGUF file (default: SmolLM2-135M-Instruct Q4_1 from the llm extra)")
    serving.add_argument("--name", default=None, help="the model's name in requests (default: smollm2, or the file's stem)")
    serving.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    serving.add_argument("--port", type=int, default=8000, help="port (8000; 0: any free port, printed)")
    serving.add_argument("--threads", type=_positive, help="llama.cpp's threads (default: its own choice)")
    serving.set_defaults(run=cmd_serve_llm)

    sandbox = commands.add_parser("sandbox", help="the sandbox for untrusted code (docs: Security)")
    sandbox.add_argument("action", choices=["check"], help="check: run the hostile-program battery against it")
    sandbox.set_defaults(run=cmd_sandbox)

    course = commands.add_parser("course", help="check a lesson's exercises (the course/ folder of the repository)")
    course.add_argument("action", choices=["check"])
    course.add_argument("lesson", help="the lesson's number, e.g. 01")
    course.add_argument("--answers", help="the answers file (default: course/exercises/NN_*.py)")
    course.set_defaults(run=cmd_course)
    return parser


def cmd_serve_llm(args) -> int:
    from pathlib import Path

    from envzoo.tools.llm_server import DEFAULT_MODEL, ChatModel, make_server, smollm2_path

    path = Path(args.model) if args.model else smollm2_path()
    name = args.name or (Path(args.model).stem if args.model else DEFAULT_MODEL)
    server = make_server(ChatModel(path, name, threads=args.threads), args.host, args.port)
    host, port = server.server_address[:2]
    print(f"envzoo: serving {name} ({path.name}) at http://{host}:{port}/v1 (Ctrl-C stops it)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def cmd_sandbox(args) -> int:
    from envzoo.core.sandbox.battery import check

    return check()


def cmd_course(args) -> int:
    from envzoo.tools.course import report

    return report(args.lesson, args.answers)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["lob"]:  # its own parser, so that `envzoo lob --help` shows its options
        return cmd_lob(argparse.Namespace(lob_args=argv[1:]))
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except EnvzooError as error:
        print(f"envzoo: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `envzoo list | head -1`: silence the flush at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())

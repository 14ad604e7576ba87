"""`kopa bench run | score | recovery | report | check-data | stats`: the benchmark from the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, List, Optional

import typer

from kopa_bench.runner.run_config import RunConfig

app = typer.Typer(no_args_is_help=True, help="KOPA-Bench: run agents, score runs, reports, task checks.")

# World / catalog handed to every client this module builds (tests inject small ones here).
CLIENT_DEFAULTS: dict[str, Any] = {}


def fail(message: str, code: int = 2) -> typer.Exit:
    """One `error: ...` line on stderr and the exit to raise (no traceback, no usage box)."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def _ids_hint(split: str, tasks_file: Optional[Path]) -> str:
    source = f"--tasks-file {tasks_file}" if tasks_file is not None else f"--split {split}"
    return f"list the valid ids with `kopa bench stats {source} --ids`"


def select_tasks(split: str = "test", tasks_file: Optional[Path] = None, ids: Optional[str] = None,
                 limit: Optional[int] = None) -> list:
    from kopa_bench.tasks.task_schema import TaskFileError, load_tasks, parse_tasks

    try:
        if tasks_file is not None:
            if not tasks_file.exists():
                raise fail(f"--tasks-file {tasks_file} does not exist")
            tasks = parse_tasks(json.loads(tasks_file.read_text(encoding="utf-8")), str(tasks_file))
        else:
            tasks = load_tasks(split)
    except (TaskFileError, json.JSONDecodeError) as exc:
        raise fail(str(exc)) from None
    if ids:
        want = [i.strip() for i in ids.split(",") if i.strip()]
        have = {t.id: t for t in tasks}
        missing = [i for i in want if i not in have]
        if missing:
            where = f"{tasks_file}" if tasks_file is not None else f"split {split!r}"
            raise fail(f"--tasks: unknown task id{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                       f"(not in {where}); {_ids_hint(split, tasks_file)}")
        tasks = [have[i] for i in want]
    if limit is not None:
        tasks = tasks[:limit]
    if not tasks:
        raise fail(f"no tasks selected (split {split!r}, file {tasks_file}, ids {ids}, limit {limit})")
    return tasks


def _setting(field: str, *flags: str) -> Any:
    """A `kopa bench run` option whose default and help are RunConfig's."""
    info = RunConfig.model_fields[field]
    return typer.Option(info.default, *flags, help=info.description)


@app.command("run")
def run(model: str = typer.Option(..., "--model", help=RunConfig.model_fields["model"].description),
        out: Path = typer.Option(..., "--out", help="run directory (rerun the same command to resume)"),
        split: str = typer.Option("test", help="task split: test | dev"),
        tasks_file: Optional[Path] = typer.Option(None, "--tasks-file", help="run the tasks of this JSON file instead of a split"),
        tasks: Optional[str] = typer.Option(None, "--tasks", help="comma-separated task ids"),
        limit: Optional[int] = typer.Option(None, help="first K tasks only"),
        seeds: int = _setting("seeds"),
        concurrency: int = _setting("concurrency"),
        backend: str = _setting("client_backend", "--backend"),
        cache: Optional[str] = _setting("cache"),
        cache_mode: str = _setting("cache_mode"),
        faults: Optional[str] = _setting("faults"),
        max_steps: int = _setting("max_steps"),
        temperature: Optional[float] = _setting("temperature"),
        max_tool_records: int = _setting("max_tool_records"),
        max_tokens: int = _setting("max_tokens"),
        tool_lang: str = _setting("tool_lang"),
        mode: str = _setting("mode"),
        progress: bool = typer.Option(True, help="show a progress bar")) -> None:
    """Run a model on the benchmark; one JSONL line per finished episode (or step, --mode steps)."""
    from kopa_bench.episodes import RunDirError
    from kopa_bench.runner.benchmark import run_benchmark

    selected = select_tasks(split, tasks_file, tasks, limit)
    try:
        config = RunConfig(model=model, client_backend=backend, max_steps=max_steps, temperature=temperature,
                           max_tool_records=max_tool_records, faults=faults, seeds=seeds, concurrency=concurrency,
                           cache=cache, cache_mode=cache_mode, max_tokens=max_tokens, tool_lang=tool_lang,
                           source=str(tasks_file) if tasks_file else f"split:{split}", mode=mode)
        if config.mode == "steps":
            from kopa_bench.runner.steps import run_steps

            res = run_steps(selected, config, out, progress=progress, **CLIENT_DEFAULTS)
        else:
            res = run_benchmark(selected, config, out, progress=progress, **CLIENT_DEFAULTS)
    except (RunDirError, ValueError) as exc:
        raise fail(str(exc)) from None
    s = res.run["summary"]
    if config.mode == "steps":
        acc = s["step_accuracy"]
        typer.echo(f"{res.ran} steps run, {res.skipped} already finished, {s['steps']} in {out}; step accuracy "
                   f"{'-' if acc is None else format(acc, '.1%')} ({res.elapsed_s:.1f}s). Score: kopa bench score {out}")
        if res.gold_failures:
            typer.echo(f"warning: gold failed for {sorted(res.gold_failures)}", err=True)
        return
    typer.echo(f"{res.ran} episodes run, {res.skipped} already finished, {s['episodes']} of {s['expected']} in {out}; "
               f"success {s['success_rate'] if s['success_rate'] is None else format(s['success_rate'], '.1%')} "
               f"({res.elapsed_s:.1f}s). Score: kopa bench score {out}")
    if res.gold_failures:
        typer.echo(f"warning: gold failed for {sorted(res.gold_failures)}", err=True)
    if not res.completeness.complete:
        _say_incomplete(res.completeness)
        typer.echo("rerun the same command to run what is missing", err=True)
        raise typer.Exit(1)


def _say_incomplete(completeness: Any) -> None:
    typer.echo(completeness.headline(), err=True)
    for line in completeness.problems():
        typer.echo(f"  {line}", err=True)


@app.command("score")
def score(run_dir: Path = typer.Argument(..., help="a `kopa bench run` directory"),
          as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
          episodes_out: Optional[Path] = typer.Option(None, "--scores-out", help="also write per-episode scores (JSONL)"),
          n_boot: int = typer.Option(1000, help="bootstrap resamples for CIs"),
          allow_partial: bool = typer.Option(False, "--allow-partial",
                                             help="exit 0 even when the run is incomplete (missing or torn episodes, infra errors)")) -> None:
    """Score a run: re-execute gold on the run's backend, score every episode (or step), aggregate.

    The run is checked against what its run.json and tasks.json say it holds: missing episodes,
    torn lines and infra errors make it INCOMPLETE (exit 1 unless --allow-partial)."""
    from kopa_bench.episodes import RunDirError
    from kopa_bench.scoring.report import scoreboard_table
    from kopa_bench.scoring.steps import is_steps_summary, step_table

    if not run_dir.exists():
        raise fail(f"{run_dir} does not exist; give the --out folder of a `kopa bench run`")
    try:
        scores, summary, completeness = score_dir(run_dir, n_boot)
    except RunDirError as exc:
        raise fail(str(exc)) from None
    if episodes_out:
        episodes_out.write_text("".join(s.model_dump_json() + "\n" for s in scores), encoding="utf-8")
    if as_json:
        typer.echo(json.dumps(summary, ensure_ascii=False))
    else:
        from rich.console import Console

        table = step_table if is_steps_summary(summary) else scoreboard_table
        Console().print(table(summary, title=summary["model"] or str(run_dir)))
        for tid, why in sorted(summary.get("gold_failures", {}).items()):
            typer.echo(f"gold failed for {tid}: {why}")
    if not completeness.complete:
        _say_incomplete(completeness)
        if not allow_partial:
            typer.echo("the score covers only what finished; rerun the `kopa bench run` command to complete the run, "
                       "or pass --allow-partial to accept a partial score", err=True)
            raise typer.Exit(1)


def score_dir(run_dir: Path, n_boot: int = 1000) -> tuple[list, dict[str, Any], Any]:
    """(scores, summary, completeness) of a run directory of either mode; the summary carries
    `model`, `complete` and `completeness`."""
    from kopa_bench.episodes import episode_run_completeness
    from kopa_bench.runner.gold_scoring import score_run
    from kopa_bench.runner.steps import run_mode, score_steps_run, steps_run_completeness
    from kopa_bench.scoring.report import summarize_scores
    from kopa_bench.scoring.steps import summarize_step_scores

    if run_mode(run_dir) == "steps":
        completeness = steps_run_completeness(run_dir)
        scores, failures, meta = score_steps_run(run_dir, **CLIENT_DEFAULTS)
        summary = summarize_step_scores(scores, n_boot=n_boot, gold_failures=failures)
    else:
        completeness = episode_run_completeness(run_dir)
        scores, failures, meta = score_run(run_dir, **CLIENT_DEFAULTS)
        summary = summarize_scores(scores, n_boot=n_boot, gold_failures=failures)
    summary["model"] = meta.get("config", {}).get("model", "")
    summary["complete"] = completeness.complete
    summary["completeness"] = completeness.report()
    return scores, summary, completeness


@app.command("recovery")
def recovery(run_dir: Path = typer.Argument(..., help="a `kopa bench run` directory"),
             as_json: bool = typer.Option(False, "--json", help="print one JSON object")) -> None:
    """Fault recovery of a run: failures the agent met, retried, rerouted, recovered from, explained."""
    from kopa_bench.episodes import RunDirError
    from kopa_bench.scoring.recovery import recovery_for_run

    try:
        out = recovery_for_run(run_dir)
    except RunDirError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2)
    if as_json:
        typer.echo(json.dumps(out, ensure_ascii=False))
        return
    for k, v in out.items():
        if k != "per_episode":
            typer.echo(f"{k:22s} {v if not isinstance(v, float) else f'{v:.3f}'}")


@app.command("report")
def report(run_dirs: List[Path] = typer.Argument(..., help="one or more run directories"),
           out: Path = typer.Option(..., "--out", help="report folder (report.md + PNGs)"),
           n_boot: int = typer.Option(1000),
           bfcl: Optional[List[Path]] = typer.Option(None, "--bfcl", help="also a BFCL v4 section from these `kopa bfcl run` directories (the bfcl extra)")) -> None:
    """Markdown report + plots; a leaderboard across runs with CIs; full-episode and steps runs side by side."""
    from kopa_bench.scoring.report import write_report
    from kopa_bench.scoring.steps import is_steps_summary, plot_positions, side_by_side_markdown, step_positions_markdown

    runs, step_runs = [], []
    for d in run_dirs:
        if not d.exists():
            raise fail(f"{d} does not exist; give the --out folders of `kopa bench run`")
        scores, summary, completeness = score_dir(d, n_boot)
        label = summary["model"] or d.name
        if any(label == r[0] for r in runs + step_runs):
            label = f"{label} ({d.name})"
        if not completeness.complete:  # a partial run's numbers are not comparable: the label says so
            label += f" [{completeness.headline()}]"
            _say_incomplete(completeness)
        (step_runs if is_steps_summary(summary) else runs).append((label, scores, summary))
    sections: tuple[str, ...] = ()
    image = None
    if step_runs:
        both = [(label, summary) for label, _, summary in runs + step_runs]
        image = plot_positions(both, out)
        sections = (side_by_side_markdown(both), step_positions_markdown(both, image.name if image else None))
    if bfcl:
        from kopa_bench.cli.bfcl_cmd import report_section

        sections += (report_section(bfcl, out),)
    files = write_report(runs, out, extra_sections=sections)
    if image is not None:
        files[image.name] = image
    typer.echo("wrote " + ", ".join(str(p) for p in files.values()))


@app.command("compare")
def compare(run_dirs: List[Path] = typer.Argument(..., help="run directories: full-episode and/or --mode steps runs"),
            n_boot: int = typer.Option(1000, help="bootstrap resamples for CIs")) -> None:
    """One row per model: pass@1 of its episodes run beside the step accuracy of its steps run."""
    from rich.console import Console
    from rich.table import Table

    from kopa_bench.episodes import RunDirError
    from kopa_bench.scoring.steps import side_by_side_rows

    try:
        summaries = [(summary["model"] or d.name, summary) for d in run_dirs for _, summary, _ in [score_dir(d, n_boot)]]
    except RunDirError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2)
    rows = side_by_side_rows(summaries)
    t = Table(title="full episodes and steps, side by side")
    for col in rows[0]:
        t.add_column(col, justify="left" if col == "model" else "right")
    for r in rows:
        t.add_row(*r.values())
    Console(width=160).print(t)


@app.command("paired")
def paired(run_a: Path = typer.Argument(..., help="run A (the baseline)"),
           run_b: Path = typer.Argument(..., help="run B, of the same mode and tasks"),
           as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
           n_boot: int = typer.Option(2000, help="bootstrap resamples (whole tasks) for the CI of B - A")) -> None:
    """Paired comparison of two runs item by item: B - A with a CI and an exact McNemar p-value."""
    from kopa_bench.episodes import RunDirError
    from kopa_bench.runner.steps import run_mode
    from kopa_bench.scoring.paired import paired_compare, run_items

    def items(run_dir: Path) -> tuple[dict[str, float], dict[str, str], str]:
        scores, _summary, _ = score_dir(run_dir, n_boot=10)
        return (*run_items(scores), run_mode(run_dir))

    try:
        (a, ca, ma), (b, cb, mb) = items(run_a), items(run_b)
    except RunDirError as exc:
        raise fail(str(exc)) from None
    if ma != mb:
        raise fail(f"{run_a} is a {ma} run and {run_b} a {mb} run; compare two runs of the same mode")
    try:
        res = paired_compare(a, b, cluster={**ca, **cb}, n_boot=n_boot)
    except ValueError as exc:
        raise fail(str(exc)) from None
    res.update(mode=ma, run_a=str(run_a), run_b=str(run_b))
    if as_json:
        typer.echo(json.dumps(res, ensure_ascii=False))
        return
    typer.echo(f"{ma}: {res['n_items']} shared items over {res['n_clusters']} tasks; A {res['accuracy_a']:.1%}, "
               f"B {res['accuracy_b']:.1%}; B - A {res['diff']:+.1%} (95% CI {res['diff_ci'][0]:+.1%} .. "
               f"{res['diff_ci'][1]:+.1%}); McNemar: A-only {res['a_right_b_wrong']}, B-only {res['b_right_a_wrong']}, "
               f"p = {res['mcnemar_p']:.3g} ({'significant' if res['significant'] else 'not significant'} at 5%)")


@app.command("check-data")
def check_data(split: str = typer.Option("test", help="test | dev"),
               tasks_file: Optional[List[Path]] = typer.Option(None, "--tasks-file", help="check these files instead of a split"),
               execute: bool = typer.Option(True, help="execute gold programs on the sandbox"),
               threshold: float = typer.Option(0.8, help="near-duplicate query threshold (3-gram Jaccard)")) -> None:
    """Validate every task; exit 1 listing each problem with its task id."""
    from kopa_bench.tasks.check import check_tasks, read_task_items
    from kopa_bench.tasks.task_schema import TaskFileError, check_split

    if not tasks_file:
        try:
            check_split(split)
        except TaskFileError as exc:
            raise fail(str(exc)) from None
    items = read_task_items(split, tasks_file or None)
    client = None
    if CLIENT_DEFAULTS:
        from kopa_bench.client import KopaClient

        client = KopaClient("sandbox", **CLIENT_DEFAULTS)
    tasks, problems = check_tasks(items, client, execute=execute, threshold=threshold)
    bad = {p.task_id for p in problems}
    typer.echo(f"{len(items)} tasks checked ({split if not tasks_file else ', '.join(map(str, tasks_file))}): "
               f"{len(items) - len(bad)} ok, {len(bad)} with problems, {len(problems)} problems")
    for p in problems:
        typer.echo(f"  {p}")
    if not items:
        typer.echo("no tasks found", err=True)
        raise typer.Exit(1)
    if problems:
        raise typer.Exit(1)


@app.command("stats")
def stats(split: str = typer.Option("test", help="test | dev"),
          tasks_file: Optional[Path] = typer.Option(None, "--tasks-file"),
          as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
          plot: Optional[Path] = typer.Option(None, "--plot", help="write a PNG of the distributions"),
          ids: bool = typer.Option(False, "--ids", help="print the task ids, one a line, instead")) -> None:
    """Distributions of the task set: calls per task, shapes, domains, platforms, parallel share."""
    from kopa_bench.tasks.stats import plot_stats, task_stats

    selected = select_tasks(split, tasks_file)
    if ids:
        typer.echo("\n".join(t.id for t in selected))
        return
    st = task_stats(selected)
    if plot:
        plot_stats(st, plot)
    if as_json:
        typer.echo(json.dumps(st, ensure_ascii=False))
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"{st['tasks']} tasks")
    t.add_column("stat")
    t.add_column("value")
    for k, v in st.items():
        t.add_row(k, f"{v:.3f}" if isinstance(v, float) else json.dumps(v, ensure_ascii=False) if isinstance(v, dict) else str(v))
    Console().print(t)


@app.command("audit-scorer")
def audit_scorer(split: str = typer.Option("test,dev", help="comma-separated splits: test, dev"),
                 tasks_file: Optional[Path] = typer.Option(None, "--tasks-file", help="audit the tasks of this JSON file instead"),
                 as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
                 show: int = typer.Option(20, help="list at most this many mutants the scorer got wrong")) -> None:
    """Mutate the oracle's trajectory of every task and score each variant: real errors must lower
    the axis they break, harmless variants must change nothing. Exit 1 when either fails."""
    import asyncio

    from kopa_bench.client import KopaClient
    from kopa_bench.runner.scripted import answer_text
    from kopa_bench.scoring.audit import audit_tasks

    if tasks_file is not None:
        tasks = select_tasks(tasks_file=tasks_file)
    else:
        names = [s.strip() for s in split.split(",") if s.strip()]
        tasks = [t for s in names for t in select_tasks(s)]

    async def go():
        client = KopaClient("sandbox", **CLIENT_DEFAULTS)
        try:
            return await audit_tasks(tasks, client, answer_text)
        finally:
            await client.aclose()

    rep = asyncio.run(go())
    if as_json:
        typer.echo(rep.model_dump_json())
    else:
        from rich.console import Console
        from rich.table import Table

        t = Table(title=f"scorer audit: {rep.n_mutations} mutants of {rep.n_tasks} oracle trajectories ({rep.cpu_seconds:.1f} s CPU)")
        for col in ("mutation", "kind", "axis", "n", "of them format 2.0", "caught", "rate"):
            t.add_column(col)
        for row in rep.kinds:
            t.add_row(row.kind, "real error" if row.real else "harmless", row.axis or "every axis", str(row.n),
                      str(row.n_format2), str(row.caught), f"{row.rate:.3f}")
        Console().print(t)
        typer.echo(f"real_error_kill_rate {rep.real_error_kill_rate:.4f} (goal 1.0)   "
                   f"harmless_change_rate {rep.harmless_change_rate:.4f} (goal 0.0)")
        for f in rep.failures[:show]:
            typer.echo(f"  {f.task_id} {f.kind} {f.where}: " + (f"{f.axis} not lower" if f.real else f"changed {f.changed}"))
        for tid in rep.oracle_not_perfect:
            typer.echo(f"  oracle below 1.0 on {tid}")
        for tid, err in rep.gold_errors.items():
            typer.echo(f"  {tid}: gold failed: {err}")
    if rep.failures or rep.oracle_not_perfect or rep.gold_errors:
        raise typer.Exit(1)

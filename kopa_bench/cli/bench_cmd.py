"""`kopa bench run | score | report | check-data | stats`: the benchmark from the command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, List, Optional

import typer

app = typer.Typer(no_args_is_help=True, help="KOPA-Bench: run agents, score runs, reports, task checks.")

# World / catalog handed to every client this module builds (tests inject small ones here).
CLIENT_DEFAULTS: dict[str, Any] = {}


def select_tasks(split: str = "test", tasks_file: Optional[Path] = None, ids: Optional[str] = None,
                 limit: Optional[int] = None) -> list:
    from kopa_bench.tasks.models import load_tasks, parse_tasks

    if tasks_file is not None:
        if not tasks_file.exists():
            raise typer.BadParameter(f"--tasks-file {tasks_file} does not exist")
        tasks = parse_tasks(json.loads(tasks_file.read_text(encoding="utf-8")), str(tasks_file))
    else:
        tasks = load_tasks(split)
    if ids:
        want = [i.strip() for i in ids.split(",") if i.strip()]
        have = {t.id: t for t in tasks}
        missing = [i for i in want if i not in have]
        if missing:
            raise typer.BadParameter(f"--tasks: unknown task ids {missing}; e.g. {sorted(have)[:5]}")
        tasks = [have[i] for i in want]
    if limit is not None:
        tasks = tasks[:limit]
    if not tasks:
        raise typer.BadParameter(f"no tasks selected (split {split!r}, file {tasks_file}, ids {ids}, limit {limit})")
    return tasks


@app.command("run")
def run(model: str = typer.Option(..., "--model", help="backend spec: openai:<url>#<model>, hf:<path>, gguf:qwen2.5-coder-0.5b, llamacpp:qwen2.5-coder-0.5b, oracle, no-tool, first-call"),
        out: Path = typer.Option(..., "--out", help="run directory (rerun the same command to resume)"),
        split: str = typer.Option("test", help="task split: test | dev"),
        tasks_file: Optional[Path] = typer.Option(None, "--tasks-file", help="run the tasks of this JSON file instead of a split"),
        tasks: Optional[str] = typer.Option(None, "--tasks", help="comma-separated task ids"),
        limit: Optional[int] = typer.Option(None, help="first K tasks only"),
        seeds: int = typer.Option(1, help="episodes per task (seed 0..N-1)"),
        concurrency: int = typer.Option(4, help="episodes at once"),
        backend: str = typer.Option("sandbox", help="tool backend: sandbox | http://host:port | live"),
        cache: Optional[str] = typer.Option(None, help="replay cache path (DuckDB)"),
        cache_mode: str = typer.Option("auto", help="record | replay | auto"),
        faults: Optional[str] = typer.Option(None, help="fault injection RATE[:kind,...] (sandbox), e.g. 0.2:quota,timeout"),
        max_steps: int = typer.Option(12, help="assistant turns per episode"),
        temperature: Optional[float] = typer.Option(None, help="default 0, or 0.7 when --seeds > 1"),
        max_tool_records: int = typer.Option(500, help="records per tool result shown to the model (answers that count or average over more need paging)"),
        max_tokens: int = typer.Option(1024, help="generation limit per turn"),
        tool_lang: str = typer.Option("both", help="tool description language: both | ko | en"),
        progress: bool = typer.Option(True, help="show a progress bar")) -> None:
    """Run a model on the benchmark; one JSONL line per finished episode."""
    from kopa_bench.runner.batch import RunDirError, run_benchmark

    selected = select_tasks(split, tasks_file, tasks, limit)
    source = str(tasks_file) if tasks_file else f"split:{split}"
    try:
        res = run_benchmark(selected, model, out, seeds=seeds, concurrency=concurrency, client_backend=backend, cache=cache,
                            cache_mode=cache_mode, faults=faults, max_steps=max_steps, temperature=temperature,
                            max_tool_records=max_tool_records, max_tokens=max_tokens, progress=progress, source=source,
                            tool_lang=tool_lang,
                            **CLIENT_DEFAULTS)
    except (RunDirError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2)
    s = res.run["summary"]
    typer.echo(f"{res.ran} episodes run, {res.skipped} already finished, {s['episodes']} in {out}; "
               f"success {s['success_rate'] if s['success_rate'] is None else format(s['success_rate'], '.1%')} "
               f"({res.elapsed_s:.1f}s). Score: kopa bench score {out}")
    if res.gold_failures:
        typer.echo(f"warning: gold failed for {sorted(res.gold_failures)}", err=True)


@app.command("score")
def score(run_dir: Path = typer.Argument(..., help="a `kopa bench run` directory"),
          as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
          episodes_out: Optional[Path] = typer.Option(None, "--scores-out", help="also write per-episode scores (JSONL)"),
          n_boot: int = typer.Option(1000, help="bootstrap resamples for CIs")) -> None:
    """Score a run: re-execute gold on the run's backend, score every episode, aggregate."""
    from kopa_bench.runner.batch import RunDirError, score_run
    from kopa_bench.scoring.report import scoreboard_table, summarize_scores

    try:
        scores, failures, meta = score_run(run_dir, **CLIENT_DEFAULTS)
    except RunDirError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2)
    summary = summarize_scores(scores, n_boot=n_boot, gold_failures=failures)
    summary["model"] = meta.get("config", {}).get("model", "")
    if episodes_out:
        episodes_out.write_text("".join(s.model_dump_json() + "\n" for s in scores), encoding="utf-8")
    if as_json:
        typer.echo(json.dumps(summary, ensure_ascii=False))
        return
    from rich.console import Console

    Console().print(scoreboard_table(summary, title=summary["model"] or str(run_dir)))


@app.command("report")
def report(run_dirs: List[Path] = typer.Argument(..., help="one or more run directories"),
           out: Path = typer.Option(..., "--out", help="report folder (report.md + PNGs)"),
           n_boot: int = typer.Option(1000),
           bfcl: Optional[List[Path]] = typer.Option(None, "--bfcl", help="also a BFCL v4 section from these `kopa bfcl run` directories (the bfcl extra)")) -> None:
    """Markdown report + plots; a leaderboard across runs with CIs."""
    from kopa_bench.runner.batch import score_run
    from kopa_bench.scoring.report import summarize_scores, write_report

    sections: tuple[str, ...] = ()
    if bfcl:
        from kopa_bench.cli.bfcl_cmd import report_section

        sections = (report_section(bfcl, out),)

    runs = []
    for d in run_dirs:
        scores, failures, meta = score_run(d, **CLIENT_DEFAULTS)
        label = meta.get("config", {}).get("model") or d.name
        if any(label == r[0] for r in runs):
            label = f"{label} ({d.name})"
        runs.append((label, scores, summarize_scores(scores, n_boot=n_boot, gold_failures=failures)))
    files = write_report(runs, out, extra_sections=sections)
    typer.echo("wrote " + ", ".join(str(p) for p in files.values()))


@app.command("check-data")
def check_data(split: str = typer.Option("test", help="test | dev"),
               tasks_file: Optional[List[Path]] = typer.Option(None, "--tasks-file", help="check these files instead of a split"),
               execute: bool = typer.Option(True, help="execute gold programs on the sandbox"),
               threshold: float = typer.Option(0.8, help="near-duplicate query threshold (3-gram Jaccard)")) -> None:
    """Validate every task; exit 1 listing each problem with its task id."""
    from kopa_bench.tasks.check import check_tasks, read_task_items

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
          plot: Optional[Path] = typer.Option(None, "--plot", help="write a PNG of the distributions")) -> None:
    """Distributions of the task set: calls per task, shapes, domains, platforms, parallel share."""
    from kopa_bench.tasks.stats import plot_stats, task_stats

    st = task_stats(select_tasks(split, tasks_file))
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

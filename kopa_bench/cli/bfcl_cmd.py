"""`kopa bfcl run | score | report | categories`: BFCL v4 with KOPA backends (the `bfcl` extra)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

app = typer.Typer(no_args_is_help=True,
                  help="BFCL v4 (Berkeley Function Calling Leaderboard) with BFCL's own data and checker, on any KOPA backend.")


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _say_incomplete(completeness) -> None:
    typer.echo(completeness.headline(), err=True)
    for line in completeness.problems():
        typer.echo(f"  {line}", err=True)


def _errors():
    """The exceptions that mean bad input or a missing install: one line, no traceback."""
    from kopa_bench.bfcl.categories import UnknownCategory
    from kopa_bench.bfcl.compat import BfclNotInstalled
    from kopa_bench.runner.backends.contract import BackendError
    from kopa_bench.runner.backends.gguf_model import ModelHashMismatch, ModelPartsMissing
    from kopa_bench.episodes.run_dir import RunDirError

    return (UnknownCategory, BfclNotInstalled, RunDirError, BackendError, ModelPartsMissing, ModelHashMismatch,
            ModuleNotFoundError, ValueError)


@app.command("run")
def run(model: str = typer.Option(..., "--model", help="backend spec (openai:<url>#<model>, hf:<path>, gguf:qwen2.5-coder-0.5b, "
                                                      "llamacpp:qwen2.5-coder-0.5b) or a BFCL scripted agent: replay, wrong-function, wrong-value"),
        category: str = typer.Option(..., "--category", help="BFCL category, e.g. simple, multiple, parallel, parallel_multiple, irrelevance, multi_turn_base (`kopa bfcl categories`)"),
        out: Path = typer.Option(..., "--out", help="run directory (rerun the same command to resume)"),
        limit: Optional[int] = typer.Option(None, help="first N entries of the category only"),
        concurrency: int = typer.Option(4, help="entries at once"),
        mode: str = typer.Option("auto", help="fc (tools passed natively) | prompt (BFCL's prompt format, no tools) | auto (fc when the backend's chat template takes tools)"),
        temperature: float = typer.Option(0.0, help="sampling temperature (0 = greedy)"),
        max_tokens: int = typer.Option(1024, help="generation limit per model turn"),
        threads: Optional[int] = typer.Option(None, help="CPU threads of a llamacpp: backend (default: all cores)"),
        progress: bool = typer.Option(True, help="show a progress bar")) -> None:
    """Run a model on one BFCL category; one JSONL line per finished entry."""
    from kopa_bench.bfcl.categories import resolve

    errors = _errors()
    try:
        cat = resolve(category)
        from kopa_bench.bfcl.runner import run_bfcl

        res = run_bfcl(cat.name, model, out, limit=limit, concurrency=concurrency, mode=mode, temperature=temperature,
                       max_tokens=max_tokens, backend_kwargs={"n_threads": threads} if threads else None,
                       progress=progress)
    except TypeError as exc:
        if threads and "n_threads" in str(exc):
            _fail(f"--threads applies to llamacpp: backends only, not {model!r}")
        raise
    except errors as exc:
        _fail(str(exc))
    s = res.run["summary"]
    acc = "-" if s["accuracy"] is None else f"{s['accuracy']:.1%} ({s['correct_count']}/{s['entries']})"
    typer.echo(f"{res.ran} entries run, {res.skipped} already finished, {s['entries']} in {out}; "
               f"BFCL {cat.name} accuracy {acc} ({res.elapsed_s:.1f}s). Score: kopa bfcl score {out}")
    if s.get("inference_errors"):
        typer.echo(f"warning: {s['inference_errors']} entries ran out of context (counted wrong); see {out}/results.jsonl",
                   err=True)
    if not res.completeness.complete:
        _say_incomplete(res.completeness)
        typer.echo("rerun the same command to run what is missing", err=True)
        raise typer.Exit(1)


@app.command("score")
def score(run_dir: Path = typer.Argument(..., help="a `kopa bfcl run` directory"),
          as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
          allow_partial: bool = typer.Option(False, "--allow-partial",
                                             help="exit 0 even when the run is incomplete (missing or torn entries, infra errors)")) -> None:
    """Check a run with bfcl_eval's checker: the category's accuracy (also written to RUN_DIR/bfcl_score.json).

    The run is checked against the entries its run.json asked for: missing entries, torn lines and
    infra errors make it INCOMPLETE (exit 1 unless --allow-partial)."""
    try:
        from kopa_bench.bfcl.scoring import score_run
        from kopa_bench.episodes import Completeness

        record = score_run(run_dir)
        completeness = Completeness.model_validate(record["completeness"])
    except _errors() as exc:
        _fail(str(exc))
    if as_json:
        typer.echo(json.dumps(record, ensure_ascii=False))
    else:
        _score_table(record)
    if not completeness.complete:
        _say_incomplete(completeness)
        if not allow_partial:
            typer.echo("the accuracy covers only what finished; rerun the `kopa bfcl run` command to complete the run, "
                       "or pass --allow-partial to accept a partial score", err=True)
            raise typer.Exit(1)


def _score_table(record: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"BFCL v4 {record['category']}: {record['model']} ({record['mode']})")
    t.add_column("metric")
    t.add_column("value", justify="right")
    acc = "-" if record["accuracy"] is None else f"{record['accuracy']:.1%}"
    t.add_row("accuracy", acc)
    t.add_row("correct / run", f"{record['correct_count']} / {record['total_count']}")
    t.add_row("entries in category", str(record["category_size"]) + (" (sample)" if record["sample"] else ""))
    for k, n in record["error_types"].items():
        t.add_row(f"  {k}", str(n))
    Console().print(t)


@app.command("report")
def report(run_dirs: List[Path] = typer.Argument(..., help="`kopa bfcl run` directories (any models and categories)"),
           out: Path = typer.Option(..., "--out", help="report folder: bfcl_report.md, bfcl_leaderboard.json, bfcl_csv/ (BFCL's own CSVs)")) -> None:
    """BFCL leaderboard across runs: per-category accuracy and BFCL's own summary."""
    try:
        from kopa_bench.bfcl.scoring import score_runs, write_report

        files = write_report(score_runs(run_dirs), out)
    except _errors() as exc:
        _fail(str(exc))
    typer.echo("wrote " + ", ".join(str(p) for p in files.values()))


def report_section(run_dirs: List[Path], out: Path) -> str:
    """The BFCL section of `kopa bench report --bfcl`: also writes bfcl_leaderboard.json and BFCL's CSVs to `out`."""
    try:
        from kopa_bench.bfcl.scoring import markdown, score_runs, write_report

        write_report(score_runs(run_dirs), out)
        board = json.loads((out / "bfcl_leaderboard.json").read_text(encoding="utf-8"))
    except _errors() as exc:
        _fail(str(exc))
    return markdown(board, level=2)


@app.command("categories")
def categories(as_json: bool = typer.Option(False, "--json", help="print one JSON object")) -> None:
    """The BFCL categories `kopa bfcl run` takes, with their sizes when bfcl-eval is installed."""
    from kopa_bench.bfcl import compat
    from kopa_bench.bfcl.categories import ALIASES, CATEGORIES

    sizes = {}
    if compat.available():
        from kopa_bench.bfcl.data import category_size

        sizes = {name: category_size(c) for name, c in CATEGORIES.items()}
    rows = [{"category": n, "kind": c.kind, "group": c.group, "entries": sizes.get(n),
             "aliases": [a for a, t in ALIASES.items() if t == n]} for n, c in CATEGORIES.items()]
    if as_json:
        typer.echo(json.dumps(rows))
        return
    for r in rows:
        alias = f" (alias: {', '.join(r['aliases'])})" if r["aliases"] else ""
        typer.echo(f"{r['category']:<26} {r['kind']:<12} {r['group']:<11} {r['entries'] if r['entries'] is not None else '?'}{alias}")
    if not sizes:
        typer.echo(f"bfcl-eval is not installed; {compat.INSTALL_HINT}", err=True)

"""`kopa perf [--json] [--quick]`: the performance suite (code in benchmarks/perf_suite.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer


def app(as_json: bool = typer.Option(False, "--json", help="print one JSON object, one key per figure"),
        quick: bool = typer.Option(False, "--quick", help="fewer calls/requests (noisier)")) -> None:
    """Sandbox, server, oracle run, EDGE probes, scoring and runner speed-up, each vs its goal."""
    root = Path(__file__).resolve().parents[2]
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    try:
        from benchmarks.perf_suite import print_table, run_suite
    except ImportError as exc:
        typer.echo(f"error: the perf suite lives in benchmarks/perf_suite.py of a source checkout ({exc})", err=True)
        raise typer.Exit(2)
    res = run_suite(quick, log=lambda m: typer.echo(m, err=True))
    if as_json:
        typer.echo(json.dumps(res, ensure_ascii=False, default=str))
    else:
        print_table(res)

"""`kopa perf [--json] [--quick] [--probe-budget]`: the performance suite (kopa_bench/perf/suite.py)."""

from __future__ import annotations

import json

import typer


def app(as_json: bool = typer.Option(False, "--json", help="print one JSON object, one key per figure"),
        quick: bool = typer.Option(False, "--quick", help="fewer calls/requests (noisier)"),
        probe_budget: bool = typer.Option(False, "--probe-budget", help="re-measure EDGE's probe budget (minutes of "
                                          "verification; default: the committed docs/results/edge_probe_budget.json)")) -> None:
    """Sandbox, server, oracle run, scoring and runner speed-up, each vs its goal; EDGE's probe budget."""
    from kopa_bench.perf.suite import print_table, run_suite

    res = run_suite(quick, log=lambda m: typer.echo(m, err=True), probe_budget=probe_budget)
    if as_json:
        typer.echo(json.dumps(res, ensure_ascii=False, default=str))
    else:
        print_table(res)

"""Each speed-up piece that stays switched off in turn, timed on a figure a user sees.

    python -m kopa_bench.perf.ablation --figure oracle|edge|scoring [--off PIECE[,PIECE]] [--json]
    python -m kopa_bench.perf.ablation --series --figures oracle,edge,scoring --reps 2 --out FILE.jsonl

One run = one fresh process (cold memos, as a user's command starts), so `--series` alternates
the baseline and every piece-off configuration in turn and repeats the round, which cancels the
box's slow drift. Each run prints wall seconds and the CPU seconds of the process and its
children (world workers), so a piece that only moves work to another core shows as such.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


PIECES = {
    "pool": "world worker processes (kopa_bench/speedups; KOPA_WORLD_WORKERS=0)",
    "world_memo": "World.rows_for answer memo",
    "answer_memo": "sandbox rendered-answer memo (sandbox/memo.py)",
    "asgi_direct": "the in-process transport's direct ASGI call instead of httpx.ASGITransport",
    "sql_fold": "constant scalar sub-selects folded to literals (world/sql_rewrite.fold_constants)",
}
# the pieces on each figure's path (the others are not reached there)
RELEVANT = {
    "oracle": set(PIECES),
    "scoring": {"answer_memo", "world_memo", "asgi_direct"},
    "edge": set(PIECES),
}


def switch_off(pieces: list[str]) -> None:
    """Monkeypatch the named pieces away before anything runs."""
    for p in pieces:
        if p not in PIECES:
            raise SystemExit(f"unknown piece {p!r}; choose from {', '.join(PIECES)}")
    if "pool" in pieces:
        os.environ["KOPA_WORLD_WORKERS"] = "0"
    if "world_memo" in pieces:
        from kopa_bench.world import store

        def rows_for(self, op, params, offset=0, limit=None):
            rows, total = self.answer(op, params, offset, limit)
            return [dict(r) for r in rows], total

        store.World.rows_for = rows_for
    if "sql_fold" in pieces:
        from kopa_bench.world import plans, sql_rewrite

        def unfolded(sql, evaluate):
            tree = sql_rewrite.parse(sql)
            return sql, (sql_rewrite.parameter_names(tree) if tree is not None else [])

        plans.fold_constants = unfolded
    if "answer_memo" in pieces:
        from kopa_bench.sandbox import memo

        memo.AnswerStore.get = lambda self, key: None
        memo.AnswerStore.put = lambda self, key, start, body: None
    if "asgi_direct" in pieces:
        from kopa_bench.client import transport

        async def via_httpx(self, request):
            return await self._bodies.send(request)

        transport.InProcessTransport.send = via_httpx


def fig_oracle() -> dict:
    from kopa_bench.catalog import get_catalog
    from kopa_bench.runner.benchmark import run_benchmark
    from kopa_bench.runner.run_config import RunConfig
    from kopa_bench.tasks.task_schema import load_tasks
    from kopa_bench.world import get_world

    get_catalog()
    world = get_world()
    tasks = load_tasks("test")
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        res = run_benchmark(tasks, RunConfig(model="oracle", concurrency=8), d, world=world)
        dt = time.perf_counter() - t0
    return {"wall_s": dt, "success": res.success_rate, "ran": res.ran}


def fig_scoring() -> dict:
    from kopa_bench.perf.suite import scoring

    r = scoring()
    return {"wall_s": r["scoring_145x8_s"], "success": r["scoring_success"]}


def cpu_s() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def one(figure: str, off: list[str]) -> dict:
    if figure == "edge":
        # the CLI runs in a child whose pieces are switched off by the wrapper module below
        with tempfile.TemporaryDirectory() as d:
            env = dict(os.environ, KOPA_ABLATE=",".join(off))
            t0, c0 = time.perf_counter(), cpu_s()
            r = subprocess.run([sys.executable, "-m", "kopa_bench.perf.ablation", "--edge-child", d],
                               capture_output=True, text=True, env=env)
            dt = time.perf_counter() - t0
            if r.returncode != 0:
                raise SystemExit(f"edge verify failed: {r.stderr[-3000:]}")
            summary = json.loads((Path(d) / "verify_summary.json").read_text())
            graph = (Path(d) / "verified.json").read_bytes()
            import hashlib

            return {"wall_s": dt, "cpu_s": cpu_s() - c0, "graph_sha": hashlib.sha256(graph).hexdigest()[:16],
                    "verified_edges": summary.get("verified_edges")}
    switch_off(off)
    c0 = time.perf_counter(), cpu_s()
    out = {"oracle": fig_oracle, "scoring": fig_scoring}[figure]()
    out["cpu_s"] = cpu_s() - c0[1]
    return out


def edge_child(out: str) -> None:
    off = [p for p in os.environ.get("KOPA_ABLATE", "").split(",") if p]
    switch_off(off)
    from kopa_bench.cli import app

    sys.argv = ["kopa", "edge", "verify", "--out", out]
    app()


def series(figures: list[str], pieces: list[str], reps: int, out: Path) -> None:
    configs = [[]] + [[p] for p in pieces]
    with out.open("a", encoding="utf-8") as fh:
        for rep in range(reps):
            for fig in figures:
                for off in configs:
                    if off and off[0] not in RELEVANT[fig]:
                        continue
                    r = subprocess.run([sys.executable, "-m", "kopa_bench.perf.ablation", "--figure", fig,
                                        "--off", ",".join(off), "--json"], capture_output=True, text=True)
                    if r.returncode != 0:
                        row = {"figure": fig, "off": off, "rep": rep, "error": r.stderr[-500:]}
                    else:
                        row = {"figure": fig, "off": off, "rep": rep, **json.loads(r.stdout.strip().splitlines()[-1])}
                    fh.write(json.dumps(row) + "\n")
                    fh.flush()
                    print(json.dumps(row), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--figure", choices=["oracle", "edge", "scoring"])
    ap.add_argument("--off", default="")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--series", action="store_true")
    ap.add_argument("--figures", default="oracle,scoring,edge")
    ap.add_argument("--pieces", default=",".join(PIECES))
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--out", default="ablation.jsonl")
    ap.add_argument("--edge-child")
    a = ap.parse_args()
    if a.edge_child:
        edge_child(a.edge_child)
        return
    if a.series:
        series(a.figures.split(","), [p for p in a.pieces.split(",") if p], a.reps, Path(a.out))
        return
    off = [p for p in a.off.split(",") if p]
    r = one(a.figure, off)
    print(json.dumps({"figure": a.figure, "off": off, **r}) if a.json else r)


if __name__ == "__main__":
    main()

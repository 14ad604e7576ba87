"""Each speed-up piece switched off in turn, timed on a figure a user sees (issue 20).

    python -m kopa_bench.perf.ablation --figure oracle|edge|scoring [--off PIECE[,PIECE]] [--json]
    python -m kopa_bench.perf.ablation --series --figures oracle,edge,scoring --reps 2 --out FILE.jsonl

One run = one fresh process (cold memos, as a user's command starts), so `--series` alternates
the baseline and every piece-off configuration in turn and repeats the round, which cancels the
box's slow drift. Each run prints wall seconds and the CPU seconds of the process and its
children (world workers), so a piece that only moves work to another core shows as such.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


PIECES = {
    "pool": "world worker processes (world/pool.py; KOPA_WORLD_WORKERS=0)",
    "key_index": "per-plan key index and key universe (world/keyindex.py; KOPA_WORLD_INDEX=0)",
    "key_universe": "key universe only (absent keys answered without a query)",
    "world_memo": "World.rows_for answer memo",
    "answer_memo": "sandbox rendered-answer memo (sandbox/memo.py)",
    "parse_memo": "client parse memo (client/parse_memo.py)",
    "asgi_direct": "direct ASGI call instead of httpx.ASGITransport (client/inprocess.py)",
    "switch_interval": "1 ms thread switch interval while a pool is open",
    "heap_freeze": "gc.freeze while a batch is scored (scoring/heap.py)",
    "sql_fold": "constant scalar sub-selects folded to literals (World._fold_constant_subqueries)",
    "sql_specialise": "optional-parameter guards specialised per call (world/store.specialise)",
    "gold_share": "scoring reuses the scripted agent's own gold run (GoldCache.shared)",
}


# the pieces on each figure's path (the others are not reached there)
RELEVANT = {
    "oracle": set(PIECES) - {"heap_freeze"} | {"heap_freeze"},
    "scoring": {"heap_freeze", "answer_memo", "parse_memo", "world_memo", "asgi_direct", "key_index"},
    "edge": set(PIECES) - {"heap_freeze", "gold_share"},
}


def switch_off(pieces: list[str]) -> None:
    """Monkeypatch the named pieces away before anything runs."""
    for p in pieces:
        if p not in PIECES:
            raise SystemExit(f"unknown piece {p!r}; choose from {', '.join(PIECES)}")
    if "pool" in pieces:
        os.environ["KOPA_WORLD_WORKERS"] = "0"
    if "key_index" in pieces:
        os.environ["KOPA_WORLD_INDEX"] = "0"
    from kopa_bench.world import store

    if "key_universe" in pieces:
        store.World.KEY_UNIVERSE_AFTER = 10 ** 12
    if "world_memo" in pieces:
        store.World.MEMO_SIZE = 0
    if "sql_fold" in pieces:
        store.World._fold_constant_subqueries = lambda self, sql: sql
    if "sql_specialise" in pieces:
        store.specialise = lambda sql, bound: sql
    if "answer_memo" in pieces:
        from kopa_bench.sandbox import memo

        memo.AnswerStore.get = lambda self, key: None
        memo.AnswerStore.put = lambda self, key, start, body: None
        memo.AnswerStore.__contains__ = lambda self, key: False
    if "parse_memo" in pieces:
        from kopa_bench.client import parse_memo

        parse_memo.MAX_BODY = -1
    if "asgi_direct" in pieces:
        from kopa_bench.client import executor

        init = executor.KopaClient.__init__

        def no_direct(self, *a, **kw):
            kw["asgi_direct"] = False
            init(self, *a, **kw)

        executor.KopaClient.__init__ = no_direct
    if "switch_interval" in pieces:
        from kopa_bench.world import pool

        pool._lower_switch_interval = lambda: None
        pool._restore_switch_interval = lambda: None
    if "heap_freeze" in pieces:
        from kopa_bench.runner import batch

        batch.heap_frozen = contextlib.nullcontext
    if "gold_share" in pieces:
        from kopa_bench.runner import batch

        init = batch.GoldCache.__init__

        def unshared(self, client, clock=None, shared=None):
            init(self, client, clock, None)

        batch.GoldCache.__init__ = unshared


def fig_oracle() -> dict:
    from kopa_bench.catalog import get_catalog
    from kopa_bench.runner.batch import run_benchmark
    from kopa_bench.tasks.models import load_tasks
    from kopa_bench.world import get_world

    get_catalog()
    world = get_world()
    tasks = load_tasks("test")
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        res = run_benchmark(tasks, "oracle", d, concurrency=8, world=world)
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

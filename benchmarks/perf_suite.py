"""KOPA performance suite: every figure is a ratio or a rate measured in the same run.

    kopa perf [--json] [--quick]          (or: python -m benchmarks.perf_suite [--json])

  inprocess_vs_raw        sandbox in-process call (client + ASGI + protocol) / the raw DuckDB query it wraps, p50   goal <= 3x
  server_vs_bare          `kopa sandbox serve` req/s / a bare Starlette handler's req/s (same uvicorn, same load)   goal >= 0.5x
  oracle_test_split_s     full oracle run over the 145 test tasks incl. scoring (run_benchmark, concurrency 8,    goal <= 3 s
                          world, catalog and tasks loaded before the clock starts; the world worker processes
                          of a concurrent run start inside it: oracle_world_workers, KOPA_WORLD_WORKERS)

In-process figures use KopaClient's default sandbox path: the direct ASGI call (client/inprocess.py,
no httpx; tests/test_inprocess_fastpath.py checks it answers as httpx.ASGITransport does).
  edge_probe_per_s        EDGE distinct probe executions/s: probes the run had not executed before, each reaching  goal >= 2000
                          the sandbox and the world (verification over the candidate graph, Thompson-sampled);
                          edge_probe_requested_per_s also counts repeats the EDGE executor answered from its memo
                          edge_world_s / edge_world_sql_s: the run's time inside world answers / their SQL
                          in the EDGE process (with world worker processes: what it computed itself plus
                          the time it waited for a worker; edge_world_workers, _worker_answers);
                          edge_free_world_ceiling_per_s: the rate if the world answered in no time
                          edge_cpu_ms_per_distinct: CPU per distinct probe in EDGE's and its workers' processes;
                          edge_cpu_ceiling_per_s: the rate all this machine's CPUs would allow at that cost
  scoring_145x8_s         score_episode over 8 oracle episodes per test task (gold computed once)                 goal <= 1 s
  runner_speedup          N concurrent episodes vs 1 against a fake OpenAI server with fixed latency              goal >= 0.8 N
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

GOALS = {
    "inprocess_vs_raw": ("<=", 3.0),
    "server_vs_bare": (">=", 0.5),
    "oracle_test_split_s": ("<=", 3.0),
    "edge_probe_per_s": (">=", 2000.0),
    "scoring_145x8_s": ("<=", 1.0),
    "runner_speedup_ratio": (">=", 0.8),  # speed-up / N
}


INPROCESS_PATH = "in-process sandbox, direct ASGI call (client/inprocess.py; no httpx)"


def met(name: str, value) -> bool | None:
    if value is None or name not in GOALS:
        return None
    op, goal = GOALS[name]
    return value <= goal if op == "<=" else value >= goal


# ---- 1, 2: the sandbox -------------------------------------------------------------------------------
def sandbox_inprocess(calls: int) -> dict:
    from benchmarks.sandbox_speed import inprocess

    r = inprocess(calls)
    return {"inprocess_vs_raw": r["inprocess_vs_raw_ratio_p50"], "inprocess_call_p50_ms": r["inprocess_call_p50_ms"],
            "raw_query_p50_ms": r["raw_query_p50_ms"], "inprocess_warm_call_p50_ms": r["inprocess_warm_call_p50_ms"]}


def sandbox_server(requests: int, concurrency: int, workers: int = 1) -> dict:
    """The headline repeats 200 calls (answered from the world memo after the warm-up); the
    `cold` figures send only distinct calls, each running its DuckDB query."""
    from benchmarks.sandbox_speed import server

    r = server(requests, concurrency, workers)
    return {"server_vs_bare": r["sandbox_vs_bare_rps_ratio"], "sandbox_rps": r["sandbox_rps"],
            "bare_starlette_rps": r["bare_starlette_rps"], "server_workers": workers,
            "server_cold_vs_bare": r.get("sandbox_cold_vs_bare_rps_ratio"), "sandbox_cold_rps": r.get("sandbox_cold_rps"),
            "server_errors": r["sandbox_errors"] + r["bare_starlette_errors"] + r.get("sandbox_cold_errors", 0)}


# ---- 3: the oracle over the test split -----------------------------------------------------------------
def oracle_run(concurrency: int = 8) -> dict:
    from kopa_bench.runner.batch import run_benchmark
    from kopa_bench.tasks.models import load_tasks
    from kopa_bench.world import get_world

    from kopa_bench.catalog import get_catalog

    get_catalog()  # setup, as for the world: parsing the YAML specs is not part of a run
    world = get_world()
    tasks = load_tasks("test")
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        c0 = time.process_time()
        res = run_benchmark(tasks, "oracle", d, concurrency=concurrency, world=world)
        dt = time.perf_counter() - t0
        cpu = time.process_time() - c0
    assert res.ran == len(tasks), res
    return {"oracle_test_split_s": dt, "oracle_cpu_s": cpu, "oracle_tasks": len(tasks), "oracle_success": res.success_rate,
            "oracle_path": INPROCESS_PATH, "oracle_world_workers": res.run["summary"]["world_workers"]}


# ---- 4: EDGE probes ---------------------------------------------------------------------------------------
def edge_probes(iterations: int = 10, paths: int = 300) -> dict:
    try:
        from edge_synth.pipeline import EdgePipeline
        from edge_synth.verify import Verifier
        from edge_synth.verify_config import VerifyConfig
    except ImportError as exc:
        return {"edge_probe_per_s": None, "edge_note": f"unavailable: {exc}"}

    async def go():
        e = EdgePipeline(seed=0, concurrency=64)
        g = await e.candidates()
        st = e.executor.stats
        seen: list[tuple[str, dict]] = []
        inner = e.client.call

        async def recording(tool, args=None):  # the distinct probes, replayed below
            seen.append((tool, dict(args or {})))
            return await inner(tool, args)

        e.client.call = recording
        world = e.client.app.state.ctx.world
        timing = time_world(world)
        r0, b0 = st.requested, st.backend
        batcher = getattr(e.executor, "batcher", None)
        worker_cpu = lambda: batcher.pool.worker_cpu_s() if batcher and batcher.pool else 0.0  # noqa: E731
        t0, c0, w0 = time.perf_counter(), time.process_time(), worker_cpu()
        v = Verifier(g, e.executor, e.sampler, VerifyConfig(iterations=iterations, paths_per_iter=paths))
        try:
            await v.run()
        finally:
            dt = time.perf_counter() - t0
            timing["cpu_s"], timing["worker_cpu_s"] = time.process_time() - c0, worker_cpu() - w0
            untime_world(world)
        e.client.call = inner
        batched = batcher.stats["prefetched"] if batcher else 0
        pool = batcher.pool if batcher else None
        timing["workers"] = pool.workers if pool else 0
        timing["pool"] = dict(pool.stats) if pool else {}
        await e.aclose()
        return (st.requested - r0) / dt, (st.backend - b0) / dt, st.requested - r0, st.backend - b0, seen, batched, \
            timing, dt

    try:
        req, back, n, nb, seen, batched, timing, dt = asyncio.run(go())
    except Exception as exc:  # EDGE is still being finished: report, do not fail the suite
        return {"edge_probe_per_s": None, "edge_note": f"unavailable: {type(exc).__name__}: {exc}"[:300]}
    out = {"edge_probe_per_s": back, "edge_distinct_probes": nb, "edge_probe_requested_per_s": req,
           "edge_probes_requested": n, "edge_path": INPROCESS_PATH,
           # distinct probes whose world answer came from a batched query (World.prefetch)
           "edge_world_batched": batched}
    out.update(edge_breakdown(timing, dt, nb))
    out.update(replay_probes(seen))
    return out


def time_world(world) -> dict:
    """Clock the world's share of an EDGE run on this World instance: every answer it computes
    (`_compute_rows`: SQL or a Python handler, not memo hits) and, inside those, the SQL it sends
    through `World.sql`. Undone by :func:`untime_world`."""
    timing = {"world_s": 0.0, "answers": 0, "sql_s": 0.0, "sql_queries": 0}
    cls = type(world)

    def compute_rows(op, params, offset, limit):
        t = time.perf_counter()
        try:
            return cls._compute_rows(world, op, params, offset, limit)
        finally:
            timing["world_s"] += time.perf_counter() - t
            timing["answers"] += 1

    def sql(query, params=None):
        t = time.perf_counter()
        try:
            return cls.sql(world, query, params)
        finally:
            timing["sql_s"] += time.perf_counter() - t
            timing["sql_queries"] += 1

    world._compute_rows, world.sql = compute_rows, sql  # instance attributes shadow the methods
    return timing


def untime_world(world) -> None:
    for name in ("_compute_rows", "sql"):
        world.__dict__.pop(name, None)


def edge_breakdown(timing: dict, dt: float, distinct: int) -> dict:
    """Where an EDGE run's wall time went, and the rate it could reach if the world were free
    (answers in no time): the part of the cost no world speed-up can remove."""
    pool = timing.get("pool") or {}
    world_s = timing["world_s"] + pool.get("waited_s", 0.0)  # computed here, or waited for a worker
    outside = max(dt - world_s, 1e-9)
    extra = {}
    if pool:
        extra = {"edge_world_worker_answers": pool["answered"],
                 "edge_world_taken_back": pool["taken_back"] + pool["stolen"],
                 "edge_world_waited_s": round(pool["waited_s"], 2)}
    return {"edge_wall_s": round(dt, 2), "edge_world_s": round(world_s, 2),
            "edge_world_workers": timing.get("workers", 0), **extra,
            "edge_world_answers": timing["answers"], "edge_world_sql_s": round(timing["sql_s"], 2),
            "edge_world_sql_queries": timing["sql_queries"],
            "edge_sql_ms_per_query": round(1000 * timing["sql_s"] / timing["sql_queries"], 3) if timing["sql_queries"] else None,
            # request path (ASGI, render, parse) plus EDGE's own sampling and bookkeeping
            "edge_outside_world_s": round(outside, 2),
            "edge_free_world_ceiling_per_s": round(distinct / outside, 1), **cpu_budget(timing, distinct)}


def cpu_budget(timing: dict, distinct: int, cpus: int | None = None) -> dict:
    """The CPU one distinct probe costs in all the run's processes (EDGE's and its world workers'),
    and the rate this machine's CPUs would allow at that cost if every one were kept busy: the
    bound no scheduling can pass. (2,000/s on 2 CPUs needs <= 1 ms per distinct probe.)"""
    if "cpu_s" not in timing or not distinct:
        return {}
    cpus = cpus or os.cpu_count() or 1
    total = timing["cpu_s"] + timing.get("worker_cpu_s", 0.0)
    return {"edge_cpu_s": round(timing["cpu_s"], 2), "edge_worker_cpu_s": round(timing.get("worker_cpu_s", 0.0), 2),
            "edge_cpu_ms_per_distinct": round(1000 * total / distinct, 3),
            "edge_cpu_ceiling_per_s": round(cpus * distinct / total, 1) if total else None, "edge_cpus": cpus}


def replay_probes(calls: list[tuple[str, dict]], concurrency: int = 64) -> dict:
    """The execution path alone: a run's distinct probes again, through a fresh in-process client
    with the world, answer and parse memos emptied (so each one runs its query), without EDGE's
    own sampling and bookkeeping."""
    from kopa_bench.client import KopaClient, parse_memo
    from kopa_bench.world import get_world
    from edge_synth.env import usable_catalog

    if not calls:
        return {}
    world = get_world()

    async def go():
        client = KopaClient(catalog=usable_catalog(), world=world, max_retries=0, backoff_s=0.0)
        client.app  # build the app before the clock
        world.clear_memo()
        client.app.state.answers.clear()
        parse_memo.clear()
        sem = asyncio.Semaphore(concurrency)

        async def one(tool, args):
            async with sem:
                return await client.call(tool, args)

        t0 = time.perf_counter()
        res = await asyncio.gather(*(one(t, a) for t, a in calls))
        dt = time.perf_counter() - t0
        await client.aclose()
        return dt, sum(r.ok for r in res)

    dt, ok = asyncio.run(go())
    return {"edge_replay_distinct_per_s": len(calls) / dt, "edge_replay_calls": len(calls), "edge_replay_ok": ok}


# ---- 5: scoring ---------------------------------------------------------------------------------------------
def scoring(per_task: int = 8) -> dict:
    """`kopa bench score`'s batch (runner.batch.score_episodes) over 145 x 8 oracle episodes,
    their gold runs computed before the clock starts."""
    from kopa_bench.runner.batch import EPISODES, GoldCache, read_episodes, run_benchmark, score_episodes
    from kopa_bench.tasks.models import load_tasks
    from kopa_bench.world import get_world
    from kopa_bench.client import KopaClient

    world = get_world()
    tasks = load_tasks("test")
    with tempfile.TemporaryDirectory() as d:
        run_benchmark(tasks, "oracle", d, concurrency=8, world=world)
        base = read_episodes(Path(d) / EPISODES)
    episodes = [e.model_copy(update={"seed": s}) for e in base for s in range(per_task)]

    async def go():
        client = KopaClient(world=world)
        cache = GoldCache(client)
        for t in tasks:  # the gold runs, before the clock
            await cache.get(t)
        t0 = time.perf_counter()
        scores, failures = await score_episodes(tasks, episodes, cache)
        dt = time.perf_counter() - t0
        await client.aclose()
        assert not failures and len(scores) == len(episodes), failures
        return dt, scores

    dt, scores = asyncio.run(go())
    return {"scoring_145x8_s": dt, "scoring_episodes": len(episodes),
            "scoring_success": sum(s.success for s in scores) / len(episodes)}


# ---- 6: runner concurrency against a fake OpenAI-compatible server ------------------------------------------
def fake_openai_app(latency_s: float):
    """/v1/chat/completions answering like the oracle (the gold calls, then the answer) after a fixed delay."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from kopa_bench.runner.scripted import OracleBackend

    oracle = OracleBackend("oracle")
    n = {"i": 0}

    async def chat(request: Request):
        body = await request.json()
        turn = await oracle.generate(body["messages"], body.get("tools"))
        await asyncio.sleep(latency_s)
        n["i"] += 1
        msg = {"role": "assistant", "content": turn.content or None}
        if turn.tool_calls:
            msg["tool_calls"] = [{"id": c.id, "type": "function",
                                  "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
                                 for c in turn.tool_calls]
        return JSONResponse({"id": f"fake-{n['i']}", "object": "chat.completion", "model": body.get("model", "fake"),
                             "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls" if turn.tool_calls else "stop"}],
                             "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})

    async def health(request: Request):
        return JSONResponse({"ok": True})

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]), Route("/health", health)])


def serve_fake_openai(port: int, latency_s: float) -> None:
    import uvicorn

    uvicorn.run(fake_openai_app(latency_s), host="127.0.0.1", port=port, log_level="warning", access_log=False)


def runner_speedup(n: int = 8, latency_ms: float = 100.0, episodes: int = 16) -> dict:
    from benchmarks.load_test import free_port, start, stop
    from kopa_bench.runner.batch import run_benchmark
    from kopa_bench.tasks.models import load_tasks
    from kopa_bench.world import get_world

    world = get_world()
    tasks = load_tasks("test")[:episodes]
    port = free_port()
    proc = start([sys.executable, "-m", "benchmarks.perf_suite", "--fake-openai", str(port), str(latency_ms / 1000)],
                 port, "/health")
    spec = f"openai:http://127.0.0.1:{port}/v1#fake"
    times = {}
    try:
        # warm-up pass (not timed): both processes answer from warm world memos afterwards, so the
        # serial pass is not charged for the cold start that the concurrent pass would skip
        with tempfile.TemporaryDirectory() as d:
            run_benchmark(tasks, spec, d, concurrency=n, world=world)
        for c in (1, n):
            with tempfile.TemporaryDirectory() as d:
                t0 = time.perf_counter()
                res = run_benchmark(tasks, spec, d, concurrency=c, world=world)
                times[c] = time.perf_counter() - t0
                assert res.ran == len(tasks), res
                success = res.success_rate
    finally:
        stop(proc)
    speedup = times[1] / times[n]
    return {"runner_speedup": speedup, "runner_speedup_ratio": speedup / n, "runner_n": n,
            "runner_serial_s": times[1], "runner_concurrent_s": times[n], "runner_episodes": len(tasks),
            "runner_latency_ms": latency_ms, "runner_success": success}


# ---- the suite -------------------------------------------------------------------------------------------------
def run_suite(quick: bool = False, log=lambda *_: None) -> dict:
    out: dict = {}
    steps = [
        ("sandbox in-process vs raw DuckDB", lambda: sandbox_inprocess(100 if quick else 400)),
        ("sandbox server vs bare Starlette", lambda: sandbox_server(1000 if quick else 3000, 32)),
        ("oracle over the test split", oracle_run),
        ("EDGE probes", lambda: edge_probes(3 if quick else 10, 300)),
        ("scoring 145 x 8", scoring),
        ("runner speed-up", lambda: runner_speedup(8, 100.0, 16)),
    ]
    for label, fn in steps:
        log(f"[perf] {label} ...")
        t0 = time.perf_counter()
        try:
            out.update(fn())
        except Exception as exc:
            out[f"error_{label.split()[0].lower()}"] = f"{type(exc).__name__}: {exc}"[:300]
        log(f"[perf] {label}: {time.perf_counter() - t0:.1f}s")
    out["goals_met"] = {k: met(k, out.get(k)) for k in GOALS}
    out["machine"] = machine()
    return out


def machine() -> dict:
    model = ""
    try:
        model = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = None
    try:
        mem = round(int(next(l.split()[1] for l in open("/proc/meminfo") if l.startswith("MemTotal"))) / 2 ** 20, 1)
    except (OSError, StopIteration):
        pass
    return {"nproc": os.cpu_count(), "cpu": model, "ram_gib": mem, "python": sys.version.split()[0],
            "date": time.strftime("%Y-%m-%d %H:%M %Z")}


LABELS = [
    ("inprocess_vs_raw", "sandbox in-process call / raw DuckDB query (p50)", "x"),
    ("server_vs_bare", "sandbox server req/s / bare Starlette req/s", "x"),
    ("oracle_test_split_s", "oracle over the test split incl. scoring", "s"),
    ("edge_probe_per_s", "EDGE distinct probe executions/s", "/s"),
    ("scoring_145x8_s", "scoring 145 x 8 trajectories", "s"),
    ("runner_speedup_ratio", "runner speed-up / N (fake model, fixed latency)", "x"),
]


def print_table(res: dict) -> None:
    for key, label, unit in LABELS:
        v = res.get(key)
        op, goal = GOALS[key]
        status = {True: "met", False: "MISSED", None: "n/a"}[met(key, v)]
        vs = "unavailable" if v is None else f"{v:.3f}{unit}" if unit != "/s" else f"{v:.0f}{unit}"
        print(f"{label:52s} {vs:>14s}   goal {op} {goal:g}{unit if unit != '/s' else ''}   {status}")
    extra = {k: v for k, v in res.items() if k not in dict((k, 1) for k, *_ in LABELS) and k not in ("goals_met", "machine")}
    print("details: " + json.dumps(extra, ensure_ascii=False, default=str))


def main(argv: list[str] | None = None) -> dict | None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--fake-openai"]:
        serve_fake_openai(int(argv[1]), float(argv[2]))
        return None
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args(argv)
    res = run_suite(a.quick, log=(lambda m: print(m, file=sys.stderr)))
    if a.json:
        print(json.dumps(res, ensure_ascii=False, default=str))
    else:
        print_table(res)
    return res


if __name__ == "__main__":
    main()

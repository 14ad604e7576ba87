"""KOPA performance suite: every figure is a ratio or a rate measured in the same run.

    kopa perf [--json] [--quick]          (or: python -m kopa_bench.perf.suite [--json])

  inprocess_vs_raw        sandbox in-process call (client + ASGI + protocol) / the raw DuckDB query it wraps, p50   goal <= 3x
  server_vs_bare          `kopa sandbox serve` req/s / a bare Starlette handler's req/s (same uvicorn, same load)   goal >= 0.5x
  oracle_test_split_s     full oracle run over the 145 test tasks incl. scoring (run_benchmark, concurrency 8,    goal <= 3 s
                          world, catalog and tasks loaded before the clock starts)

  scoring_145x8_s         score_episode over 8 oracle episodes per test task (gold computed once)                 goal <= 1 s
  runner_speedup          N concurrent episodes vs 1 against a fake OpenAI server with fixed latency              goal >= 0.8 N

  edge_*_probes_to_goal   EDGE link probes verification needs to reach recall 0.90 at re-probe precision >= 0.95,
                          for Thompson, uniform and prior-only allocation (None: not reached; the best recall
                          reached at that precision is reported beside it). Read from the committed
                          docs/results/edge_probe_budget.json; `--probe-budget` re-measures it (minutes of
                          verification: kopa_bench/perf/probe_budget.py)

In-process figures use KopaClient's default sandbox transport, the direct ASGI call (client/inprocess.py).
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


GOALS = {
    "inprocess_vs_raw": ("<=", 3.0),
    "server_vs_bare": (">=", 0.5),
    "oracle_test_split_s": ("<=", 3.0),
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
    from kopa_bench.perf.sandbox_speed import inprocess

    r = inprocess(calls)
    return {"inprocess_vs_raw": r["inprocess_vs_raw_ratio_p50"], "inprocess_call_p50_ms": r["inprocess_call_p50_ms"],
            "raw_query_p50_ms": r["raw_query_p50_ms"], "inprocess_warm_call_p50_ms": r["inprocess_warm_call_p50_ms"]}


def sandbox_server(requests: int, concurrency: int, workers: int = 1) -> dict:
    """The headline repeats 200 calls (answered from the world memo after the warm-up); the
    `cold` figures send only distinct calls, each running its DuckDB query."""
    from kopa_bench.perf.sandbox_speed import server

    r = server(requests, concurrency, workers)
    return {"server_vs_bare": r["sandbox_vs_bare_rps_ratio"], "sandbox_rps": r["sandbox_rps"],
            "bare_starlette_rps": r["bare_starlette_rps"], "server_workers": workers,
            "server_cold_vs_bare": r.get("sandbox_cold_vs_bare_rps_ratio"), "sandbox_cold_rps": r.get("sandbox_cold_rps"),
            "server_errors": r["sandbox_errors"] + r["bare_starlette_errors"] + r.get("sandbox_cold_errors", 0)}


# ---- 3: the oracle over the test split -----------------------------------------------------------------
def oracle_run(concurrency: int = 8) -> dict:
    from kopa_bench.runner.benchmark import run_benchmark
    from kopa_bench.runner.run_config import RunConfig
    from kopa_bench.tasks.task_schema import load_tasks
    from kopa_bench.world import get_world

    from kopa_bench.catalog import get_catalog

    get_catalog()  # setup, as for the world: parsing the YAML specs is not part of a run
    world = get_world()
    tasks = load_tasks("test")
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        c0 = time.process_time()
        res = run_benchmark(tasks, RunConfig(model="oracle", concurrency=concurrency), d, world=world)
        dt = time.perf_counter() - t0
        cpu = time.process_time() - c0
    assert res.ran == len(tasks), res
    return {"oracle_test_split_s": dt, "oracle_cpu_s": cpu, "oracle_tasks": len(tasks), "oracle_success": res.success_rate,
            "oracle_path": INPROCESS_PATH, "oracle_world_workers": res.run["summary"]["world_workers"]}


# ---- 5: scoring ---------------------------------------------------------------------------------------------
def scoring(per_task: int = 8) -> dict:
    """`kopa bench score`'s batch (runner.gold_scoring.score_episodes) over 145 x 8 oracle episodes,
    their gold runs computed before the clock starts."""
    from kopa_bench.episodes import EPISODES, read_episodes
    from kopa_bench.runner.benchmark import run_benchmark
    from kopa_bench.runner.gold_scoring import GoldCache, score_episodes
    from kopa_bench.runner.run_config import RunConfig
    from kopa_bench.tasks.task_schema import load_tasks
    from kopa_bench.world import get_world
    from kopa_bench.client import KopaClient

    world = get_world()
    tasks = load_tasks("test")
    with tempfile.TemporaryDirectory() as d:
        run_benchmark(tasks, RunConfig(model="oracle", concurrency=8), d, world=world)
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
    from kopa_bench.perf.load_test import free_port, start, stop
    from kopa_bench.runner.benchmark import run_benchmark
    from kopa_bench.runner.run_config import RunConfig
    from kopa_bench.tasks.task_schema import load_tasks
    from kopa_bench.world import get_world

    world = get_world()
    tasks = load_tasks("test")[:episodes]
    port = free_port()
    proc = start([sys.executable, "-m", "kopa_bench.perf.suite", "--fake-openai", str(port), str(latency_ms / 1000)],
                 port, "/health")
    spec = f"openai:http://127.0.0.1:{port}/v1#fake"
    times = {}
    try:
        # warm-up pass (not timed): both processes answer from warm world memos afterwards, so the
        # serial pass is not charged for the cold start that the concurrent pass would skip
        with tempfile.TemporaryDirectory() as d:
            run_benchmark(tasks, RunConfig(model=spec, concurrency=n), d, world=world)
        for c in (1, n):
            with tempfile.TemporaryDirectory() as d:
                t0 = time.perf_counter()
                res = run_benchmark(tasks, RunConfig(model=spec, concurrency=c), d, world=world)
                times[c] = time.perf_counter() - t0
                assert res.ran == len(tasks), res
                success = res.success_rate
    finally:
        stop(proc)
    speedup = times[1] / times[n]
    return {"runner_speedup": speedup, "runner_speedup_ratio": speedup / n, "runner_n": n,
            "runner_serial_s": times[1], "runner_concurrent_s": times[n], "runner_episodes": len(tasks),
            "runner_latency_ms": latency_ms, "runner_success": success}


# ---- 7: EDGE's probe budget --------------------------------------------------------------------------------
def edge_probe_budget(measure: bool = False) -> dict:
    """The committed measurement (docs/results/edge_probe_budget.json), or a new one with `measure`."""
    from kopa_bench.perf import probe_budget

    if measure:
        with tempfile.TemporaryDirectory() as d:
            res = probe_budget.main(["--out", d])
        source = "measured now"
    else:
        if not probe_budget.RESULT.exists():
            return {"edge_probe_budget_source": f"{probe_budget.RESULT} missing: run `kopa perf --probe-budget`"}
        res = json.loads(probe_budget.RESULT.read_text(encoding="utf-8"))
        source = str(probe_budget.RESULT.relative_to(probe_budget.RESULT.parents[2]))
    return {**probe_budget.summary_line(res), "edge_probe_budget_source": source}


# ---- the suite -------------------------------------------------------------------------------------------------
def run_suite(quick: bool = False, log=lambda *_: None, probe_budget: bool = False) -> dict:
    out: dict = {}
    steps = [
        ("sandbox in-process vs raw DuckDB", lambda: sandbox_inprocess(100 if quick else 400)),
        ("sandbox server vs bare Starlette", lambda: sandbox_server(1000 if quick else 3000, 32)),
        ("oracle over the test split", oracle_run),
        ("scoring 145 x 8", scoring),
        ("runner speed-up", lambda: runner_speedup(8, 100.0, 16)),
        ("EDGE probe budget", lambda: edge_probe_budget(probe_budget)),
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
    for name in ("thompson", "uniform", "prior_only"):
        n, best = res.get(f"edge_{name}_probes_to_goal"), res.get(f"edge_{name}_best_recall_at_precision")
        unit = "top-k edges" if name == "prior_only" else "link probes"
        vs = (f"{n} {unit}" if n is not None else f"not reached (best recall {best})" if best is not None
              else "not reached (precision < 0.95 throughout)")
        print(f"{'EDGE ' + name + ': recall 0.90 at precision >= 0.95':52s} {vs:>14s}")
    shown = {k for k, *_ in LABELS} | {k for k in res if k.startswith("edge_") and k.endswith(("_to_goal", "_precision"))}
    extra = {k: v for k, v in res.items() if k not in shown and k not in ("goals_met", "machine")}
    print("details: " + json.dumps(extra, ensure_ascii=False, default=str))


def main(argv: list[str] | None = None) -> dict | None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--fake-openai"]:
        serve_fake_openai(int(argv[1]), float(argv[2]))
        return None
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--probe-budget", action="store_true", help="re-measure EDGE's probe budget (minutes)")
    a = ap.parse_args(argv)
    res = run_suite(a.quick, log=(lambda m: print(m, file=sys.stderr)), probe_budget=a.probe_budget)
    if a.json:
        print(json.dumps(res, ensure_ascii=False, default=str))
    else:
        print_table(res)
    return res


if __name__ == "__main__":
    main()

"""Sandbox speed: in-process call latency vs the raw DuckDB query it wraps, and server
requests/s on loopback vs a bare Starlette handler. Prints numbers; asserts nothing.

    python -m kopa_bench.perf.sandbox_speed [--calls 400] [--requests 3000] [--concurrency 32] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time

TOOL = "airkorea_getNearbyMsrstnList"


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def inprocess(calls: int) -> dict:
    """p50 of one in-process sandbox call vs the DuckDB query it wraps, both uncached.

    World.rows_for memoises answers and the app memoises rendered answers, so a repeated call
    never reaches DuckDB. The headline ratio compares like with like: the raw query is
    World.answer (no memo) and both memos are cleared before every timed client call, so
    each call validates, runs its query and renders. The warm figures (memo
    hit, what repeated calls cost) are reported beside it."""
    from kopa_bench.catalog import get_catalog
    from kopa_bench.client import KopaClient
    from kopa_bench.protocols import validate_params
    from kopa_bench.world import get_world

    world = get_world()
    ref = get_catalog().get(TOOL)
    tm = world.sql("SELECT DISTINCT tmX, tmY FROM air_tm_dongs ORDER BY tmX, tmY LIMIT 200")
    args = [{"tmX": r["tmX"], "tmY": r["tmY"]} for r in tm]
    raw, full, warm = [], [], []
    for i in range(calls):  # the raw query: exactly what the endpoint asks DuckDB, without the memo
        params, _ = validate_params(ref.op, args[i % len(args)])
        t0 = time.perf_counter()
        world.answer(ref.op, params, 0, 10)
        raw.append((time.perf_counter() - t0) * 1000)
    client = KopaClient(world=world)

    async def run():
        answers = client.app.state.answers  # the sandbox's memo of rendered answers
        for i in range(calls):
            world.clear_memo()
            answers.clear()
            t0 = time.perf_counter()
            r = await client.call(TOOL, args[i % len(args)])
            full.append((time.perf_counter() - t0) * 1000)
            assert r.ok, r.error
        for i in range(calls):  # fill the memo
            await client.call(TOOL, args[i % len(args)])
        for i in range(calls):  # memo warm: what a repeated call costs
            t0 = time.perf_counter()
            r = await client.call(TOOL, args[i % len(args)])
            warm.append((time.perf_counter() - t0) * 1000)
            assert r.ok, r.error
        await client.aclose()

    asyncio.run(run())
    out = {"raw_query_p50_ms": statistics.median(raw), "raw_query_p95_ms": _pct(raw, 0.95),
           "inprocess_call_p50_ms": statistics.median(full), "inprocess_call_p95_ms": _pct(full, 0.95),
           "inprocess_warm_call_p50_ms": statistics.median(warm)}
    out["inprocess_vs_raw_ratio_p50"] = out["inprocess_call_p50_ms"] / out["raw_query_p50_ms"]
    out["inprocess_path"] = INPROCESS_PATH
    return out


INPROCESS_PATH = "KopaClient('sandbox'): direct ASGI call (client/inprocess.py), no httpx"


BARE_APP = """
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route
async def ok(request):
    return Response('{"response":{"header":{"resultCode":"00"}}}', media_type="application/json")
app = Starlette(routes=[Route("/B552584/MsrstnInfoInqireSvc/getNearbyMsrstnList", ok)])
"""


def _targets(world, offset: int, n: int) -> list[str]:
    from urllib.parse import urlencode

    tm = world.sql(f"SELECT DISTINCT tmX, tmY FROM air_tm_dongs ORDER BY tmX, tmY LIMIT {int(n)} OFFSET {int(offset)}")
    return [PATH + "?" + urlencode({"tmX": r["tmX"], "tmY": r["tmY"], "serviceKey": "KOPA-SANDBOX", "returnType": "json"})
            for r in tm]


PATH = "/B552584/MsrstnInfoInqireSvc/getNearbyMsrstnList"


def server(requests: int, concurrency: int, workers: int = 1, cold_requests: int | None = None) -> dict:
    """Sandbox vs a bare Starlette handler, same uvicorn settings, same load generator.

    The old version failed with httpx.ReadError: its httpx client kept only 20 idle connections
    (httpx's default max_keepalive_connections) for `concurrency` workers, so under load it
    closed and reopened connections on every request; the churn (and any reset by the server)
    surfaced as an uncaught ReadError that aborted the whole run. Now: persistent keep-alive
    connections (kopa_bench.perf.load_test.hammer), errors counted instead of raised, and readiness
    polled on a real route of each app.

    Two sandbox figures: `sandbox_rps` repeats 200 distinct calls (after a warm-up, so they are
    answered from the world's memo, as repeated calls are in a benchmark run), and
    `sandbox_cold_rps` sends calls that are all distinct (every one runs its DuckDB query).
    """
    from kopa_bench.perf.load_test import free_port, hammer, start, stop
    from kopa_bench.world import get_world

    world = get_world()
    targets = _targets(world, 0, 200)
    cold_n = cold_requests if cold_requests is not None else min(requests, 2000)
    cold = _targets(world, 200, cold_n + 200)  # 200 for the warm-up, then cold_n never seen
    results = {"sandbox_workers": workers}
    bare_dir = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"kopa_bare_{os.getpid()}")
    os.makedirs(bare_dir, exist_ok=True)
    with open(os.path.join(bare_dir, "kopa_bare_app.py"), "w") as fh:
        fh.write(BARE_APP)
    for name, cmd_for in (
        ("sandbox", lambda p: [sys.executable, "-m", "kopa_bench.cli", "sandbox", "serve", "--port", str(p),
                               "--workers", str(workers)]),
        ("bare_starlette", lambda p: [sys.executable, "-m", "uvicorn", "--app-dir", bare_dir, "kopa_bare_app:app",
                                      "--port", str(p), "--log-level", "warning", "--no-access-log",
                                      "--workers", str(workers)]),
    ):
        port = free_port()
        proc = start(cmd_for(port), port, PATH)
        try:
            asyncio.run(hammer("127.0.0.1", port, targets, 200, concurrency))  # warm-up
            res = asyncio.run(hammer("127.0.0.1", port, targets, requests, concurrency))
            if name == "sandbox" and cold_n:
                asyncio.run(hammer("127.0.0.1", port, cold[:200], 200, concurrency))  # warm-up, other calls
                c = asyncio.run(hammer("127.0.0.1", port, cold[200:], len(cold) - 200, concurrency))
                results.update(sandbox_cold_rps=c["rps"], sandbox_cold_p50_ms=c["p50_ms"],
                               sandbox_cold_errors=c["errors"], sandbox_cold_requests=c["requests"])
        finally:
            stop(proc)
        results[f"{name}_rps"] = res["rps"]
        results[f"{name}_p50_ms"] = res["p50_ms"]
        results[f"{name}_p99_ms"] = res["p99_ms"]
        results[f"{name}_errors"] = res["errors"]
    results["sandbox_vs_bare_rps_ratio"] = results["sandbox_rps"] / results["bare_starlette_rps"]
    if "sandbox_cold_rps" in results:
        results["sandbox_cold_vs_bare_rps_ratio"] = results["sandbox_cold_rps"] / results["bare_starlette_rps"]
    return results


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--calls", type=int, default=400)
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--workers", type=int, default=1, help="uvicorn workers for both servers")
    ap.add_argument("--skip-server", action="store_true")
    a = ap.parse_args(argv)
    out = inprocess(a.calls)
    if not a.skip_server:
        out.update(server(a.requests, a.concurrency, a.workers))
    if a.json:
        print(json.dumps(out, indent=1))
    else:
        for k, v in out.items():
            print(f"{k:32s} {v:10.3f}" if isinstance(v, float) else f"{k:32s} {v}")
    return out


if __name__ == "__main__":
    main()

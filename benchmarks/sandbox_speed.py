"""Sandbox speed: in-process call latency vs the raw DuckDB query it wraps, and server
requests/s on loopback vs a bare Starlette handler. Prints numbers; asserts nothing.

    python -m benchmarks.sandbox_speed [--calls 400] [--requests 3000] [--concurrency 32] [--json]
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
    from kopa_bench.catalog import get_catalog
    from kopa_bench.client import KopaClient
    from kopa_bench.protocols import validate_params
    from kopa_bench.world import get_world

    world = get_world()
    ref = get_catalog().get(TOOL)
    tm = world.sql("SELECT tmX, tmY FROM air_tm_dongs ORDER BY region_cd LIMIT 200")
    args = [{"tmX": r["tmX"], "tmY": r["tmY"]} for r in tm]
    raw, full = [], []
    for i in range(calls):  # the raw query: exactly what the endpoint asks DuckDB
        params, _ = validate_params(ref.op, args[i % len(args)])
        t0 = time.perf_counter()
        world.rows_for(ref.op, params, 0, 10)
        raw.append((time.perf_counter() - t0) * 1000)
    client = KopaClient(world=world)

    async def run():
        for i in range(calls):
            t0 = time.perf_counter()
            r = await client.call(TOOL, args[i % len(args)])
            full.append((time.perf_counter() - t0) * 1000)
            assert r.ok, r.error

    asyncio.run(run())
    out = {"raw_query_p50_ms": statistics.median(raw), "raw_query_p95_ms": _pct(raw, 0.95),
           "inprocess_call_p50_ms": statistics.median(full), "inprocess_call_p95_ms": _pct(full, 0.95)}
    out["inprocess_vs_raw_ratio_p50"] = out["inprocess_call_p50_ms"] / out["raw_query_p50_ms"]
    return out


BARE_APP = """
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route
async def ok(request):
    return Response('{"response":{"header":{"resultCode":"00"}}}', media_type="application/json")
app = Starlette(routes=[Route("/B552584/MsrstnInfoInqireSvc/getNearbyMsrstnList", ok)])
"""


def server(requests: int, concurrency: int) -> dict:
    """Sandbox vs a bare Starlette handler, same uvicorn settings, same load generator.

    The old version failed with httpx.ReadError: its httpx client kept only 20 idle connections
    (httpx's default max_keepalive_connections) for `concurrency` workers, so under load it
    closed and reopened connections on every request; the churn (and any reset by the server)
    surfaced as an uncaught ReadError that aborted the whole run. Now: persistent keep-alive
    connections (benchmarks.load_test.hammer), errors counted instead of raised, and readiness
    polled on a real route of each app.
    """
    from urllib.parse import urlencode

    from benchmarks.load_test import free_port, hammer, start, stop
    from kopa_bench.world import get_world

    world = get_world()
    tm = world.sql("SELECT tmX, tmY FROM air_tm_dongs ORDER BY region_cd LIMIT 200")
    path = "/B552584/MsrstnInfoInqireSvc/getNearbyMsrstnList"
    targets = [path + "?" + urlencode({"tmX": r["tmX"], "tmY": r["tmY"], "serviceKey": "KOPA-SANDBOX", "returnType": "json"})
               for r in tm]
    results = {}
    bare_dir = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"kopa_bare_{os.getpid()}")
    os.makedirs(bare_dir, exist_ok=True)
    with open(os.path.join(bare_dir, "kopa_bare_app.py"), "w") as fh:
        fh.write(BARE_APP)
    for name, cmd_for in (
        ("sandbox", lambda p: [sys.executable, "-m", "kopa_bench.cli", "sandbox", "serve", "--port", str(p)]),
        ("bare_starlette", lambda p: [sys.executable, "-m", "uvicorn", "--app-dir", bare_dir, "kopa_bare_app:app",
                                      "--port", str(p), "--log-level", "warning", "--no-access-log"]),
    ):
        port = free_port()
        proc = start(cmd_for(port), port, path)
        try:
            asyncio.run(hammer("127.0.0.1", port, targets, 200, concurrency))  # warm-up
            res = asyncio.run(hammer("127.0.0.1", port, targets, requests, concurrency))
        finally:
            stop(proc)
        results[f"{name}_rps"] = res["rps"]
        results[f"{name}_p50_ms"] = res["p50_ms"]
        results[f"{name}_p99_ms"] = res["p99_ms"]
        results[f"{name}_errors"] = res["errors"]
    results["sandbox_vs_bare_rps_ratio"] = results["sandbox_rps"] / results["bare_starlette_rps"]
    return results


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--calls", type=int, default=400)
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--skip-server", action="store_true")
    a = ap.parse_args(argv)
    out = inprocess(a.calls)
    if not a.skip_server:
        out.update(server(a.requests, a.concurrency))
    if a.json:
        print(json.dumps(out, indent=1))
    else:
        for k, v in out.items():
            print(f"{k:32s} {v:10.3f}" if isinstance(v, float) else f"{k:32s} {v}")
    return out


if __name__ == "__main__":
    main()

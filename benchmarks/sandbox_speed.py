"""Sandbox speed: in-process call latency vs the raw DuckDB query it wraps, and server
requests/s on loopback vs a bare Starlette handler. Prints numbers; asserts nothing.

    python -m benchmarks.sandbox_speed [--calls 400] [--requests 3000] [--concurrency 32] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


BARE_APP = """
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route
async def ok(request):
    return Response('{"response":{"header":{"resultCode":"00"}}}', media_type="application/json")
app = Starlette(routes=[Route("/B552584/MsrstnInfoInqireSvc/getNearbyMsrstnList", ok)])
"""


def _serve(cmd: list[str], port: int) -> subprocess.Popen:
    # stderr to a file: a pipe nobody reads would fill up and stall the server under load
    log = open(os.path.join(os.environ.get("TMPDIR", "/tmp"), f"kopa_bench_server_{port}.log"), "w+")
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log)
    proc.log = log  # type: ignore[attr-defined]
    import httpx

    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=0.5)
            return proc
        except httpx.HTTPError:
            if proc.poll() is not None:
                log.seek(0)
                raise RuntimeError(log.read()[-2000:])
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"server on port {port} did not start")


async def _hammer(url: str, params: list[dict], n: int, concurrency: int) -> tuple[float, list[float], int]:
    import httpx

    lat: list[float] = []
    errors = 0
    sem = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=concurrency), timeout=30) as c:
        async def one(i: int):
            nonlocal errors
            async with sem:
                t0 = time.perf_counter()
                r = await c.get(url, params=params[i % len(params)])
                lat.append((time.perf_counter() - t0) * 1000)
                if r.status_code != 200:
                    errors += 1

        t0 = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(n)))
        return n / (time.perf_counter() - t0), lat, errors


def server(requests: int, concurrency: int) -> dict:
    from kopa_bench.world import get_world

    world = get_world()
    tm = world.sql("SELECT tmX, tmY FROM air_tm_dongs ORDER BY region_cd LIMIT 200")
    params = [{"tmX": r["tmX"], "tmY": r["tmY"], "serviceKey": "KOPA-SANDBOX", "returnType": "json"} for r in tm]
    path = "/B552584/MsrstnInfoInqireSvc/getNearbyMsrstnList"
    results = {}
    bare_file = os.path.join(os.environ.get("TMPDIR", "/tmp"), "kopa_bare_app.py")
    with open(bare_file, "w") as fh:
        fh.write(BARE_APP)
    for name, cmd_for in (
        ("sandbox", lambda p: [sys.executable, "-m", "kopa_bench.cli", "sandbox", "serve", "--port", str(p)]),
        ("bare_starlette", lambda p: [sys.executable, "-m", "uvicorn", "--app-dir", os.path.dirname(bare_file),
                                      "kopa_bare_app:app", "--port", str(p), "--log-level", "warning", "--no-access-log"]),
    ):
        port = _free_port()
        proc = _serve(cmd_for(port), port)
        try:
            asyncio.run(_hammer(f"http://127.0.0.1:{port}{path}", params, 200, concurrency))  # warm-up
            rps, lat, errors = asyncio.run(_hammer(f"http://127.0.0.1:{port}{path}", params, requests, concurrency))
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        results[f"{name}_rps"] = rps
        results[f"{name}_p50_ms"] = statistics.median(lat)
        results[f"{name}_p99_ms"] = _pct(lat, 0.99)
        results[f"{name}_errors"] = errors
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

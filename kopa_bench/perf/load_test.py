"""Load test: `kopa sandbox serve` on 127.0.0.1 under N requests at C concurrency.

    python -m kopa_bench.perf.load_test [--requests 20000] [--concurrency 64] [--json]

Starts the server as a subprocess, sends a bounded number of requests (a mix of platforms, all
valid calls) over C keep-alive connections, stops by itself and prints: zero-error count (2xx
answers with the platform's success code), errors, p50/p99 latency, requests/s and the server's
peak RSS (VmHWM from /proc/<pid>/status).

The load generator is a minimal HTTP/1.1 keep-alive client on asyncio streams: httpx's pool
costs more CPU per request than the server on a small machine, so it would measure itself.
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
from pathlib import Path
from urllib.parse import urlencode



# ---- a tiny keep-alive HTTP/1.1 client --------------------------------------------------------------
class Conn:
    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.r: asyncio.StreamReader | None = None
        self.w: asyncio.StreamWriter | None = None

    async def _open(self) -> None:
        self.r, self.w = await asyncio.open_connection(self.host, self.port, limit=2 ** 24)

    async def get(self, target: str) -> tuple[int, bytes]:
        """One GET; reconnects once if the server closed the idle connection."""
        for attempt in (0, 1):
            if self.w is None:
                await self._open()
            try:
                self.w.write(f"GET {target} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n\r\n".encode())
                await self.w.drain()
                return await self._read()
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def _read(self) -> tuple[int, bytes]:
        head = await self.r.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)}
        if "content-length" in headers:
            body = await self.r.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int((await self.r.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    await self.r.readuntil(b"\r\n")
                    break
                parts.append(await self.r.readexactly(size))
                await self.r.readexactly(2)
            body = b"".join(parts)
        else:
            body = await self.r.read()
            self.close()
        if headers.get("connection", "").lower() == "close":
            self.close()
        return status, body

    def close(self) -> None:
        if self.w is not None:
            self.w.close()
        self.r = self.w = None


async def hammer(host: str, port: int, targets: list[str], n: int, concurrency: int,
                 ok=lambda status, body: status == 200) -> dict:
    """n GETs over `concurrency` connections (each worker takes the next request index)."""
    lat: list[float] = []
    errors: dict[str, int] = {}
    good = 0
    next_i = 0

    async def worker() -> None:
        nonlocal good, next_i
        conn = Conn(host, port)
        while next_i < n:
            i = next_i
            next_i += 1
            t0 = time.perf_counter()
            try:
                status, body = await asyncio.wait_for(conn.get(targets[i % len(targets)]), 30)
            except Exception as exc:  # counted, never fatal: the run stops by itself
                errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
                conn.close()
                continue
            lat.append((time.perf_counter() - t0) * 1000)
            if ok(status, body):
                good += 1
            else:
                errors[f"HTTP{status}"] = errors.get(f"HTTP{status}", 0) + 1
        conn.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall = time.perf_counter() - t0
    lat.sort()
    return {"requests": n, "ok": good, "errors": sum(errors.values()), "error_kinds": errors,
            "rps": n / wall, "wall_s": wall,
            "p50_ms": statistics.median(lat) if lat else None,
            "p99_ms": lat[min(len(lat) - 1, int(0.99 * len(lat)))] if lat else None}


# ---- the server -------------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(proc: subprocess.Popen, port: int, log, path: str = "/", timeout: float = 120) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
                if s.recv(16).startswith(b"HTTP/1.1"):
                    return
        except OSError:
            pass
        if proc.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"server exited (rc {proc.returncode}): {log.read()[-2000:]}")
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"server on port {port} did not start within {timeout} s")


def start(cmd: list[str], port: int, ready_path: str = "/") -> subprocess.Popen:
    # stdout/stderr to a file: a pipe nobody reads fills up and stalls the server under load
    log = open(os.path.join(os.environ.get("TMPDIR", "/tmp"), f"kopa_server_{port}.log"), "w+")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    proc.log = log  # type: ignore[attr-defined]
    wait_ready(proc, port, log, ready_path)
    return proc


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
    proc.log.close()  # type: ignore[attr-defined]


def peak_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    try:
        import psutil

        return psutil.Process(pid).memory_info().rss / 2 ** 20
    except Exception:
        return None


def sandbox_cmd(port: int, workers: int = 1) -> list[str]:
    return [sys.executable, "-m", "kopa_bench.cli", "sandbox", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--workers", str(workers)]


def mixed_targets(n_per_tool: int = 50) -> list[str]:
    """Valid sandbox requests across platforms: the first calls of the gold programs."""
    from kopa_bench.catalog import get_catalog
    from kopa_bench.client.executor import SANDBOX_KEY
    from kopa_bench.protocols import get_protocol
    from kopa_bench.tasks.task_schema import load_tasks

    cat = get_catalog()
    out = []
    for split in ("test", "dev"):
        for t in load_tasks(split):
            for s in t.program:
                if any(isinstance(v, dict) or (isinstance(v, str) and "$" in v) for v in s.args.values()):
                    continue
                ref = cat.get(s.tool)
                full = {p.name: p.default for p in ref.op.params if not p.model_facing and p.default is not None}
                full.update(s.args)
                spec = get_protocol(ref.platform.protocol).build_request(ref, full, SANDBOX_KEY, ref.platform.sandbox_prefix)
                if spec.method != "GET":
                    continue
                q = urlencode({k: v for k, v in spec.params.items() if v is not None})
                out.append(spec.url + ("?" + q if q else ""))
    return sorted(set(out))


def sandbox_ok(status: int, body: bytes) -> bool:
    if status != 200:
        return False
    head = body[:400]
    return not any(m in head for m in (b"OpenAPI_ServiceResponse", b"ERROR-", b'"err"', b"INFO-100", b"INVALID_KEY"))


def peak_rss_tree_mb(pid: int) -> float | None:
    """Peak RSS of the server and its worker processes (uvicorn --workers), summed."""
    total, seen = 0.0, False
    for p in [pid, *children(pid)]:
        v = peak_rss_mb(p)
        if v is not None:
            total, seen = total + v, True
    return total if seen else None


def children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def run(requests: int = 20000, concurrency: int = 64, workers: int = 1) -> dict:
    port = free_port()
    targets = mixed_targets()
    proc = start(sandbox_cmd(port, workers), port, "/__kopa/health")
    try:
        asyncio.run(hammer("127.0.0.1", port, targets, min(500, requests), concurrency, sandbox_ok))  # warm-up
        res = asyncio.run(hammer("127.0.0.1", port, targets, requests, concurrency, sandbox_ok))
        res["server_peak_rss_mb"] = peak_rss_tree_mb(proc.pid)
    finally:
        stop(proc)
    res.update(concurrency=concurrency, distinct_targets=len(targets), workers=workers)
    return res


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=20000)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--workers", type=int, default=1, help="`kopa sandbox serve --workers`")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    res = run(a.requests, a.concurrency, a.workers)
    if a.json:
        print(json.dumps(res))
    else:
        print(f"{res['requests']} requests at concurrency {res['concurrency']} ({res['distinct_targets']} distinct calls, "
              f"{res['workers']} worker(s))")
        print(f"  zero-error (2xx + platform success): {res['ok']}   errors: {res['errors']} {res['error_kinds'] or ''}")
        print(f"  p50 {res['p50_ms']:.1f} ms   p99 {res['p99_ms']:.1f} ms   {res['rps']:.0f} req/s   ({res['wall_s']:.1f} s)")
        print(f"  server peak RSS (all workers): {res['server_peak_rss_mb']:.0f} MiB")
    return res


if __name__ == "__main__":
    main()

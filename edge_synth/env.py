"""Execution environment for EDGE: a sandbox client plus a memoising, concurrent probe executor.

The sandbox world is deterministic for a fixed seed and clock, so a call with the same tool and
arguments always returns the same records. :class:`ProbeExecutor` exploits that: identical calls
are executed once (in-flight calls are shared), environmental failures are never cached, and a
semaphore bounds concurrency. Counters separate *requested* executions (what probing asked for)
from *backend* executions (what actually reached the sandbox).
"""

from __future__ import annotations

import asyncio
import glob
import json
import logging
import os
import time
from dataclasses import dataclass, field
from typing import Any

from kopa_bench.client.result import ToolResult

ENV_ERRORS = {"transient", "quota"}
log = logging.getLogger(__name__)


def batching_default() -> bool:
    """Batched world answers for probes: off unless `KOPA_WORLD_BATCH=1`. Measured on the default
    verification traffic (about 7 SQL requests start per loop turn, over ~40 operations), only
    1-2% of answers batch and distinct probes/s was the same with and without (435 vs 444/s,
    BENCHMARKS.md "Issue 8, session 4"), while the dry run doubles part of the request path."""
    return os.environ.get("KOPA_WORLD_BATCH", "0") not in ("0", "false", "no", "off")


def _cached_world_path() -> str | None:
    root = os.environ.get("KOPA_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "kopa")
    files = sorted(glob.glob(os.path.join(root, "world", "*.duckdb")), key=os.path.getmtime)
    return files[-1] if files else None


def load_world(path: str | None = None):
    """The default world; if it cannot be built (a generator mid-edit), the newest cached file.

    `KOPA_EDGE_WORLD` (a .duckdb path) overrides both.
    """
    from kopa_bench.world.store import get_world

    path = path or os.environ.get("KOPA_EDGE_WORLD")
    if path:
        return get_world(path=path)
    try:
        return get_world()
    except Exception as exc:  # noqa: BLE001 - fall back to the newest built world
        cached = _cached_world_path()
        if cached is None:
            raise
        import logging

        logging.getLogger(__name__).warning("default world failed to build (%s); using cached %s", exc, cached)
        return get_world(path=cached)


def make_client(backend: str = "sandbox", world=None, faults=None, catalog=None):
    """A KopaClient on the in-process sandbox (or a URL) with EDGE's world fallback."""
    from kopa_bench.client import KopaClient

    if backend == "sandbox" and world is None:
        world = load_world()
    return KopaClient(backend, catalog=catalog or usable_catalog(), world=world, faults=faults,
                      max_retries=0, backoff_s=0.0)


def call_key(tool: str, args: dict[str, Any]) -> str:
    return tool + "|" + json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)


@dataclass
class ExecStats:
    requested: int = 0
    backend: int = 0
    cache_hits: int = 0
    elapsed_s: float = 0.0
    by_outcome: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"requested": self.requested, "backend": self.backend, "cache_hits": self.cache_hits,
                "by_outcome": dict(self.by_outcome)}


class _Recorded(BaseException):
    """Raised by the stand-in world at a request's first world call: its exact arguments.
    A BaseException, so that an endpoint's `except Exception` (NEIS answers INFO-200 to any world
    error) does not turn the dry run into an answer."""

    def __init__(self, request: tuple):
        super().__init__("world request recorded")
        self.request = request


class _RecordingWorld:
    """A stand-in for `ctx.world`: `rows_for` records the request instead of answering it;
    everything else (clock, meta) is the real world's."""

    def __init__(self, world):
        self._world = world

    def rows_for(self, op, params, offset: int = 0, limit: int | None = None):
        raise _Recorded((op, dict(params), offset, limit))

    def sql(self, *a, **kw):
        raise _NotRecordable("the request queries the world directly before its first rows_for")

    @property
    def con(self):
        raise _NotRecordable("the request queries the world directly before its first rows_for")

    def __getattr__(self, name):
        return getattr(self._world, name)


class _NotRecordable(BaseException):
    """The dry run would do real work before reaching `rows_for`: it is dropped."""


class WorldBatcher:
    """Micro-batching of world answers for in-process sandbox probes (the dataloader pattern),
    without changing the order in which the event loop runs anything.

    Right before a probe's request is sent, `queue` learns its exact world request (operation,
    validated parameters, page) by a dry run of the same request through the sandbox's routes
    with a recording stand-in for the world; the dry run stops at the first `rows_for`, before
    any answer is rendered, and is driven synchronously (one `send`): if it would suspend, it is
    dropped. The first request queued in a loop turn schedules a flush (`call_soon`); the
    in-process client runs each request in a task of its own (`asyncio.wait_for`), scheduled
    after the flush, so by the time the requests of this turn run, the flush has handed them all
    to `World.prefetch`, which answers each SQL operation's requests with one DuckDB query and
    memoises them under `rows_for`'s key. Every probe then runs its full in-process request as
    before and finds its answer in the world's memo. Nothing awaits the batch, so tasks run in
    exactly the order they run without it: EDGE verification, whose outcome depends on that
    order, verifies the same graph (tests/test_world_batch.py). A request the batch does not
    answer (handler operations, ties, errors, a client that runs requests inline) runs its own
    query as before.

    With `workers`, work goes ahead to worker processes (kopa_bench/world/pool.py) instead: the
    whole in-process request when the client's sandbox is the default one (catalog, keys, no
    faults; `KopaClient.compute_ahead`, no dry run needed), else the world answer the dry run
    finds (`World.compute_ahead`). Again nothing awaits: the graph is the same
    (tests/test_world_pool.py).
    """

    def __init__(self, client: Any, batch: bool = True, workers: int = 0):
        from kopa_bench.client import KopaClient

        self.ok = isinstance(client, KopaClient) and client.backend == "sandbox" and client.cache is None
        self.client = client
        self.batch = batch  # World.prefetch: batched SQL per loop turn
        self.workers = workers  # World.compute_ahead in this many worker processes (world/pool.py)
        self.pool = None
        self.http = False  # whole in-process requests computed ahead by the pool (see _setup)
        self.allow_http = True  # False: only world answers go ahead (found by the dry run)
        self._router = None
        self._world = None
        self._asgi = None
        self._queue: list[tuple] = []
        self._scheduled = False
        self.stats = {"flushes": 0, "queued": 0, "prefetched": 0, "dry_run_failed": 0, "ahead": 0}

    def _setup(self) -> bool:
        if self._router is not None:
            return True
        ctx = getattr(self.client.app.state, "ctx", None)
        if ctx is None or ctx.faults is not None:
            self.ok = False  # with faults an answer is a draw, not a pure function of the request
            return False
        from starlette.routing import Router

        from kopa_bench.client.inprocess import ASGICall
        from kopa_bench.protocols import get_protocol
        from kopa_bench.sandbox.context import make_context

        self._world = ctx.world
        if self.workers and self.pool is None:
            from kopa_bench.world.pool import WorldPool

            self.pool = WorldPool(ctx.world, self.workers)
            # a worker's own sandbox is the default one: whole requests go to it when the caller's
            # is that too; otherwise only world answers do (found by the dry run)
            self.http = self.allow_http and self.client.default_sandbox()
        dry = make_context(_RecordingWorld(ctx.world), ctx.catalog, keys=ctx.keys)
        routes: list = []
        for platform in ctx.catalog.platforms.values():
            routes.extend(get_protocol(platform.protocol).routes(platform, dry))
        self._router = Router(routes=routes, redirect_slashes=False)
        self._asgi = ASGICall(self._router)
        return True

    def request_spec(self, tool: str, args: dict[str, Any]):
        """The HTTP request KopaClient._execute sends for this call (same defaults, key and URL);
        None for a call it answers itself (an unknown tool, an argument error) or one with a body."""
        from kopa_bench.catalog.registry import UnknownToolError
        from kopa_bench.protocols import get_protocol, model_args_problem

        c = self.client
        try:
            ref = c.catalog.get(tool)
        except UnknownToolError:
            return None
        if not (ref.op.handler or ref.op.query) or not isinstance(args, dict) or model_args_problem(ref.op, args):
            return None
        proto = get_protocol(ref.platform.protocol)
        full_args = {p.name: p.default for p in ref.op.params if not p.model_facing and p.default is not None}
        full_args.update(args)
        spec = proto.build_request(ref, full_args, c.key_for(ref), c.base_url(ref))
        return None if spec.json is not None else spec

    def world_request(self, tool: str, args: dict[str, Any]) -> tuple | None:
        """(op, params, offset, limit) of the call's first world request; None if it makes
        none (an argument error, a handler operation) or it cannot be told without waiting."""
        spec = self.request_spec(tool, args)
        if spec is None:
            return None
        scope = self._asgi.scope(spec.method, spec.url, spec.params or None)

        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message):
            return None

        coro = self._router(scope, receive, send)
        try:
            coro.send(None)
        except _Recorded as rec:
            return rec.request
        except StopIteration:
            return None  # answered without the world (an error page)
        except _NotRecordable:
            coro.close()
            return None
        except Exception as exc:  # noqa: BLE001 - the real request will meet (and report) it
            self.stats["dry_run_failed"] += 1
            log.debug("dry run of %s failed: %s", tool, exc)
            return None
        coro.close()  # it would have waited for something: not worth changing the schedule
        self.stats["dry_run_failed"] += 1
        return None

    def queue(self, tool: str, args: dict[str, Any]) -> None:
        try:
            if not self.ok or not self._setup():
                return
            if self.http:  # the whole request goes ahead: no dry run needed
                spec = self.request_spec(tool, args)
                if spec is not None:
                    self.stats["ahead"] += self.client.compute_ahead(self.pool, spec)
                return
            req = self.world_request(tool, args)
        except Exception as exc:  # noqa: BLE001 - batching is an optimisation; the call proceeds as without it
            self.stats["dry_run_failed"] += 1
            log.debug("no batched answer for %s: %s", tool, exc)
            return
        if req is None:
            return
        if self.pool is not None:
            self.stats["ahead"] += self._world.compute_ahead(self.pool, *req)
        if not self.batch or req[0].handler or not req[0].query:
            return  # World.prefetch batches SQL operations only
        self._queue.append(req)
        self.stats["queued"] += 1
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def close(self) -> None:
        """Stop the worker processes, if any (they also stop when this process exits)."""
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def _flush(self) -> None:
        queue, self._queue, self._scheduled = self._queue, [], False
        self.stats["flushes"] += 1
        try:
            self.stats["prefetched"] += self._world.prefetch(queue)
        except Exception as exc:  # noqa: BLE001 - each probe then computes its own answer
            log.warning("batched world answers failed (%s: %s); probes run their own queries", type(exc).__name__, exc)


class ProbeExecutor:
    """`await ex.call(tool, args)`: memoised, concurrency-bounded execution over any client.

    `batch=True` (default: `KOPA_WORLD_BATCH`, off) shares the world's computation between
    concurrent distinct in-process probes; `world_workers=N` (default: `KOPA_WORLD_WORKERS`, else
    one per CPU beyond this one, at most 4) computes their world answers ahead in N worker
    processes (`WorldBatcher`, world/pool.py). Results are identical either way."""

    def __init__(self, client: Any, concurrency: int = 32, memo: bool = True, batch: bool | None = None,
                 world_workers: int | None = None):
        from kopa_bench.world.pool import default_workers

        self.client = client
        self.memo = memo
        batch = batching_default() if batch is None else batch
        workers = default_workers() if world_workers is None else world_workers
        self.batcher = WorldBatcher(client, batch=batch, workers=workers) if (batch or workers) else None
        self._sem: asyncio.Semaphore | None = None
        self._sem_loop = None
        self.concurrency = concurrency
        self._done: dict[str, ToolResult] = {}
        self._pending: dict[str, asyncio.Future] = {}
        self.stats = ExecStats()

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._sem is None or self._sem_loop is not loop:
            self._sem, self._sem_loop = asyncio.Semaphore(self.concurrency), loop
            self._pending = {}
        return self._sem

    async def call(self, tool: str, args: dict[str, Any]) -> ToolResult:
        self.stats.requested += 1
        key = call_key(tool, args)
        if self.memo:
            hit = self._done.get(key)
            if hit is not None:
                self.stats.cache_hits += 1
                return hit
            fut = self._pending.get(key)
            if fut is not None and fut.get_loop() is asyncio.get_running_loop():
                self.stats.cache_hits += 1
                return await asyncio.shield(fut)
        sem = self._semaphore()
        fut = asyncio.get_running_loop().create_future()
        if self.memo:
            self._pending[key] = fut
        try:
            async with sem:
                self.stats.backend += 1
                if self.batcher is not None:
                    self.batcher.queue(tool, args)  # no await: the schedule stays as it was
                res = await self.client.call(tool, dict(args))
        except BaseException as exc:
            fut.set_exception(exc)
            fut.exception()  # mark retrieved
            self._pending.pop(key, None)
            raise
        kind = "ok" if res.ok else (res.error.type if res.error else "error")
        self.stats.by_outcome[kind] = self.stats.by_outcome.get(kind, 0) + 1
        if self.memo and not (res.error is not None and res.error.type in ENV_ERRORS):
            self._done[key] = res
        self._pending.pop(key, None)
        fut.set_result(res)
        return res

    def close(self) -> None:
        if self.batcher is not None:
            self.batcher.close()

    def cached(self, tool: str, args: dict[str, Any]) -> ToolResult | None:
        return self._done.get(call_key(tool, args))


class Timer:
    def __enter__(self):
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *a):
        self.s = time.perf_counter() - self.t0


def usable_catalog():
    """The catalog restricted to platforms whose protocol module imports (others are mid-build)."""
    from kopa_bench.catalog import get_catalog
    from kopa_bench.catalog.registry import Catalog, load_platforms
    from kopa_bench.protocols import get_protocol

    full = get_catalog()
    ok = []
    for p in load_platforms():
        try:
            get_protocol(p.protocol)
        except Exception:  # noqa: BLE001
            continue
        ok.append(p)
    if len(ok) == len(full.platforms):
        return full
    return Catalog(ok)

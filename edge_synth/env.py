"""Execution environment for EDGE: a sandbox client plus a memoising, concurrent probe executor.

The sandbox world is deterministic for a fixed seed and clock, so a call with the same tool and
arguments always returns the same records. :class:`ProbeExecutor` exploits that: identical calls
are executed once (in-flight calls are shared), environmental failures are never cached, and a
semaphore bounds concurrency. Counters separate *requested* executions (what probing asked for)
from *backend* executions (what actually reached the sandbox). Every probe goes through the
ordinary `KopaClient`, so EDGE sends exactly the requests the benchmark and the Space send.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

from kopa_bench.client import KopaClient
from kopa_bench.client.result import ToolResult
from kopa_bench.settings import get_settings

ENV_ERRORS = {"transient", "quota"}


def load_world(path: str | None = None):
    """The default world, or the world file at `path` (default: the `KOPA_EDGE_WORLD` setting)."""
    from kopa_bench.world.store import get_world

    path = path or get_settings().edge_world
    return get_world(path=path) if path else get_world()


def make_client(backend: str = "sandbox", world=None, faults=None, catalog=None,
                workers: int | None = None) -> KopaClient:
    """A KopaClient for probing: no retries (a probe that fails is evidence, not bad luck). On the
    in-process sandbox without faults, `workers` world worker processes (default: the
    `KOPA_WORLD_WORKERS` setting) compute answers ahead (kopa_bench.speedups)."""
    if backend == "sandbox" and world is None:
        world = load_world()
    client = KopaClient(backend, catalog=catalog, world=world, faults=faults, max_retries=0, backoff_s=0.0)
    workers = get_settings().world_workers if workers is None else workers
    if backend == "sandbox" and faults is None and workers:
        from kopa_bench.speedups import use_world_workers

        use_world_workers([client], workers, ordered=True)
    return client


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


class ProbeExecutor:
    """`await ex.call(tool, args)`: memoised, concurrency-bounded execution over any client."""

    def __init__(self, client: Any, concurrency: int = 32, memo: bool = True):
        self.client = client
        self.memo = memo
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

    def cached(self, tool: str, args: dict[str, Any]) -> ToolResult | None:
        return self._done.get(call_key(tool, args))


class Timer:
    def __enter__(self):
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *a):
        self.s = time.perf_counter() - self.t0

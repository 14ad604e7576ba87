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
import os
import time
from dataclasses import dataclass, field
from typing import Any

from kopa_bench.client.result import ToolResult

ENV_ERRORS = {"transient", "quota"}


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


def usable_catalog():
    """The catalog restricted to platforms whose protocol module imports (others are mid-build)."""
    from kopa_bench.catalog import get_catalog
    from kopa_bench.catalog.registry import Catalog, load_platforms
    from kopa_bench.protocols.base import get_protocol

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

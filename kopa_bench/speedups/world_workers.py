"""World worker processes answering in-process sandbox requests ahead of time.

Without faults, a sandbox answer is a pure function of the request (read-only world, fixed
clock), so another process holding the same world file can compute it. `KopaClient` tells its
transport of each request just before sending it (`Transport.expect`); this transport hands the
request to a `ProcessPoolExecutor` worker then, and when the request is sent takes the worker's
answer (waiting for it if the worker has started), or cancels it and answers in this process if no
worker has started yet. Nothing awaits the pool, so the event loop runs everything in the order it
runs without workers: answers, and so EDGE's graph, are the same.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import multiprocessing.connection
import os
import threading
from collections import OrderedDict
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from ..client.inprocess import query_string
from ..client.transport import Exchange, InProcessTransport
from ..protocols.base import RequestSpec

log = logging.getLogger(__name__)
MAX_AHEAD = 4096  # requests told of and not sent yet, at most (a caller that gave up leaves them)

_worker: InProcessTransport | None = None
_loop: asyncio.AbstractEventLoop | None = None


def _start_worker(world_path: str, now: str) -> None:
    """In each worker: the default sandbox app over the caller's world file and clock."""
    global _worker, _loop
    from datetime import datetime

    from ..sandbox.app import create_app
    from ..clock import WorldClock
    from ..world.store import World

    world = World(Path(world_path), WorldClock(datetime.fromisoformat(now)))
    _worker = InProcessTransport(create_app(world=world))
    _loop = asyncio.new_event_loop()
    threading.Thread(target=_exit_with_parent, daemon=True).start()


def _exit_with_parent() -> None:
    """A worker outlives a caller killed with -9 otherwise: the pool's queues stay open in it."""
    multiprocessing.connection.wait([multiprocessing.parent_process().sentinel])
    os._exit(0)


def _answer(method: str, url: str, params: dict[str, Any] | None) -> tuple:
    ex = _loop.run_until_complete(_worker.send(RequestSpec(method, url, params or {})))
    return ex.status, ex.headers, ex.content, ex.text


def _key(request: RequestSpec) -> tuple:
    return request.method.upper(), request.url, query_string(request.params or None)


class WorldWorkerTransport:
    """An `InProcessTransport` whose requests worker processes may answer ahead of time."""

    def __init__(self, inner: InProcessTransport, world, workers: int):
        self.inner = inner
        self.workers = workers
        self._pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                         initializer=_start_worker,
                                         initargs=(str(world.path), world.clock.now().isoformat()))
        self._ahead: OrderedDict[tuple, Future] = OrderedDict()
        self.stats = {"ahead": 0, "from_workers": 0, "taken_back": 0, "failed": 0}

    def expect(self, request: RequestSpec) -> None:
        if request.json is not None:
            return
        key = _key(request)
        if key in self._ahead:
            return
        while len(self._ahead) >= MAX_AHEAD:
            self._ahead.popitem(last=False)[1].cancel()
        try:
            self._ahead[key] = self._pool.submit(_answer, request.method, request.url, request.params or None)
        except (BrokenProcessPool, RuntimeError) as exc:  # a worker died: this process answers from now on
            if not self.stats["failed"]:
                log.warning("world worker pool unusable (%s); answering in this process", exc)
            self.stats["failed"] += 1
            return
        self.stats["ahead"] += 1

    async def send(self, request: RequestSpec) -> Exchange:
        fut = self._ahead.pop(_key(request), None) if self._ahead else None
        if fut is not None:
            if fut.cancel():
                self.stats["taken_back"] += 1
            else:
                try:
                    answer = Exchange(*fut.result())  # blocks without yielding: the loop's order stays
                    self.stats["from_workers"] += 1
                    return answer
                except Exception as exc:  # noqa: BLE001 - a failed or dead worker: answer here
                    self.stats["failed"] += 1
                    log.debug("a world worker failed (%s: %s); answering in this process", type(exc).__name__, exc)
        return await self.inner.send(request)

    async def aclose(self) -> None:
        for fut in self._ahead.values():
            fut.cancel()
        self._ahead.clear()
        self._pool.shutdown(wait=False, cancel_futures=True)
        await self.inner.aclose()


def use_world_workers(client, workers: int) -> bool:
    """Give an in-process sandbox client without faults `workers` world worker processes;
    False (nothing changes) when its answers are not a pure function of the request there."""
    from ..catalog.registry import get_catalog
    from ..sandbox.context import DEFAULT_SANDBOX_KEY

    if workers < 1 or client.backend != "sandbox":
        return False
    ctx = client.app.state.ctx  # a worker's sandbox is the default one: only then are its answers ours
    if ctx.faults is not None or ctx.catalog is not get_catalog() or ctx.keys != {DEFAULT_SANDBOX_KEY}:
        return False
    if isinstance(client.transport, WorldWorkerTransport):
        return True
    if not isinstance(client.transport, InProcessTransport):
        return False
    client.transport = WorldWorkerTransport(client.transport, client.world, workers)
    return True

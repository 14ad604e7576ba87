"""World worker processes answering in-process sandbox requests beside the caller.

Without faults, a sandbox answer is a pure function of the request (read-only world, fixed
clock), so another process holding the same world file can compute it. One `ProcessPoolExecutor`
per world serves every client on it, in one of two modes:

* ordered (EDGE): `KopaClient` tells its transport of each request just before sending it
  (`Transport.expect`); the request goes to a worker then, and when it is sent the caller takes
  the worker's answer (waiting, without yielding, if the worker has started) or cancels it and
  answers itself if no worker has. Nothing awaits the pool, so the event loop runs everything in
  the order it runs without workers: answers, and so EDGE's graph, are the same.
* concurrent (the benchmark runner): a request whose answer the sandbox has not rendered yet goes
  to a worker with room and the episode awaits it while the others go on; the answer joins the
  sandbox's memo. Episodes interleave differently; every episode and its score are the same.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import multiprocessing.connection
import os
import sys
import threading
from collections import OrderedDict
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from ..client.inprocess import ASGICall, query_string
from ..client.transport import Exchange, InProcessTransport
from ..protocols.base import RequestSpec
from ..sandbox.memo import answer_key

log = logging.getLogger(__name__)
MAX_AHEAD = 4096  # requests told of and not sent yet, at most (a caller that gave up leaves them)

_worker: InProcessTransport | None = None
_loop: asyncio.AbstractEventLoop | None = None


def _start_worker(world_path: str, now: str) -> None:
    """In each worker: the default sandbox app over the caller's world file and clock."""
    global _worker, _loop
    from datetime import datetime

    from ..clock import WorldClock
    from ..sandbox.app import create_app
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


def _ready() -> bool:
    return _worker is not None


def _key(request: RequestSpec) -> tuple:
    return request.method.upper(), request.url, query_string(request.params or None)


class WorldWorkers:
    """The worker processes of one world file and clock, shared by every client on that world."""

    def __init__(self, world, workers: int):
        self.world, self.workers = world, workers
        self.pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_start_worker,
                                        initargs=(str(world.path), world.clock.now().isoformat()))
        self.busy = 0  # concurrent mode: requests the workers hold
        # concurrent mode: requests in flight before this process answers itself, deep enough that a
        # worker's queue does not run dry while this process does an episode's own work (BENCHMARKS.md)
        self.room = 8 * workers
        self.broken = False
        self.users = 0
        self.stats = {"ahead": 0, "from_workers": 0, "taken_back": 0, "failed": 0}
        # start the workers now (they take about a second to open the world); nothing is handed to
        # them before they are ready, or it would wait behind that start while this process is free
        self.ready = self.pool.submit(_ready)

    def submit(self, request: RequestSpec) -> Future | None:
        if self.broken:
            return None
        try:
            return self.pool.submit(_answer, request.method, request.url, request.params or None)
        except (BrokenProcessPool, RuntimeError) as exc:  # a worker died: callers answer from now on
            self.broken = True
            self.stats["failed"] += 1
            log.warning("world worker pool unusable (%s); answering in this process", exc)
            return None

    def release(self) -> None:
        self.users -= 1
        if self.users <= 0:
            self.pool.shutdown(wait=False, cancel_futures=True)


class WorldWorkerTransport:
    """An `InProcessTransport` whose requests world worker processes may answer."""

    def __init__(self, inner: InProcessTransport, workers: WorldWorkers, ordered: bool):
        self.inner, self.workers, self.ordered = inner, workers, ordered
        self._ahead: OrderedDict[tuple, Future] = OrderedDict()
        self._scope = ASGICall(inner.app).scope
        self._answers = getattr(inner.app.state, "answers", None)
        workers.users += 1

    @property
    def stats(self) -> dict[str, int]:
        return self.workers.stats

    def expect(self, request: RequestSpec) -> None:
        if not self.ordered or request.json is not None:
            return
        key = _key(request)
        if key in self._ahead:
            return
        while len(self._ahead) >= MAX_AHEAD:
            self._ahead.popitem(last=False)[1].cancel()
        fut = self.workers.submit(request)
        if fut is not None:
            self._ahead[key] = fut
            self.stats["ahead"] += 1

    async def send(self, request: RequestSpec) -> Exchange:
        if request.json is None:
            answer = self._from_ahead(request) if self.ordered else await self._from_a_free_worker(request)
            if answer is not None:
                return answer
        return await self.inner.send(request)

    def _from_ahead(self, request: RequestSpec) -> Exchange | None:
        fut = self._ahead.pop(_key(request), None) if self._ahead else None
        if fut is None:
            return None
        if fut.cancel():
            self.stats["taken_back"] += 1
            return None
        try:
            answer = Exchange(*fut.result())  # blocks without yielding: the loop's order stays
        except Exception as exc:  # noqa: BLE001 - a failed or dead worker: answer here
            self.stats["failed"] += 1
            log.debug("a world worker failed (%s: %s); answering in this process", type(exc).__name__, exc)
            return None
        self.stats["from_workers"] += 1
        return answer

    async def _from_a_free_worker(self, request: RequestSpec) -> Exchange | None:
        key = answer_key(self._scope(request.method, request.url, request.params or None))
        w = self.workers
        if key is None or self._answers is None or key in self._answers or w.busy >= w.room or not w.ready.done():
            return None  # rendered already, every worker busy, or none started yet: this process answers
        fut = w.submit(request)
        if fut is None:
            return None
        w.busy += 1
        try:
            answer = Exchange(*await asyncio.wrap_future(fut))
        except Exception as exc:  # noqa: BLE001 - a failed or dead worker: answer here
            self.stats["failed"] += 1
            log.debug("a world worker failed (%s: %s); answering in this process", type(exc).__name__, exc)
            return None
        finally:
            w.busy -= 1
        self.stats["from_workers"] += 1
        self._answers.put_answer(key, answer.status, answer.headers, answer.content)
        return answer

    async def aclose(self) -> None:
        for fut in self._ahead.values():
            fut.cancel()
        self._ahead.clear()
        self.workers.release()
        await self.inner.aclose()


def _spawnable() -> bool:
    """Whether spawned workers can import this program's main module, as multiprocessing's spawn
    does first: not when it names a file that is not there (a script read from stdin). A script
    needs the usual `if __name__ == "__main__":` guard, like any multiprocessing program."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    return getattr(main, "__spec__", None) is not None or path is None or os.path.isfile(path)


def use_world_workers(clients: list, workers: int, *, ordered: bool) -> WorldWorkers | None:
    """Give the in-process sandbox clients without faults `workers` world worker processes, one
    pool for all of them; None (nothing changes) for clients whose answers are not a pure function
    of the request or whose sandbox is not the default one a worker builds."""
    from ..catalog.registry import get_catalog
    from ..sandbox.context import DEFAULT_SANDBOX_KEY

    def eligible(c) -> bool:
        if c.backend != "sandbox" or not isinstance(c.transport, InProcessTransport):
            return False
        ctx = c.app.state.ctx
        return ctx.faults is None and ctx.catalog is get_catalog() and ctx.keys == {DEFAULT_SANDBOX_KEY}

    chosen = [c for c in clients if eligible(c)]
    if workers < 1 or not chosen or not _spawnable():
        return None
    pool = WorldWorkers(chosen[0].world, workers)
    for c in chosen:
        if c.world is pool.world:
            c.transport = WorldWorkerTransport(c.transport, pool, ordered)
    return pool

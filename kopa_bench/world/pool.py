"""World answers computed ahead in worker processes, beside the process that will ask for them.

EDGE verification spends about half of its time in the world (DuckDB planning the catalog's SQL,
the Python generators of NEIS/KMA/juso) and the other half in its own sampling and the request
path, all on one Python thread. A world answer is a pure function of (operation, parameters,
page) on a read-only file, so another process holding the same file can compute it. The caller
learns a request before it runs (edge_synth.env.WorldBatcher's dry run), hands it to the pool
(`World.compute_ahead`) and carries on; when the request itself reaches `World.rows_for`, the
answer is in the memo already, or it waits for that one answer, or, if no worker has started on
it yet, takes it back and computes it itself. Nothing in the caller awaits the pool, so the order
in which anything runs is the order it runs without the pool: the answers, and so an EDGE graph,
are the same (tests/test_world_pool.py).

Workers are plain child processes (`python -m kopa_bench.world.pool`, not multiprocessing: that
would re-run the caller's main script in each child), fed pickled requests over a pipe; they open
the world file read-only with the caller's clock. A request is sent to a worker only when the
worker has fewer than two outstanding, so most wait in the caller's queue, where `rows_for` can
still take them back. A worker that dies fails its requests, which the caller then computes
itself. `KOPA_WORLD_WORKERS` sets their number (0: no pool).
"""

from __future__ import annotations

import asyncio
import logging
import os
import pickle
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Callable

from ..client.redact import redact  # a failed request's message may quote its URL, key included

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class OpQuery:
    """What `World._compute_rows` reads of an operation: sent instead of the catalog object,
    so a worker answers exactly the SQL (or handler) the caller's catalog holds."""

    tool: str
    query: str | None
    handler: str | None


def default_workers() -> int:
    """`KOPA_WORLD_WORKERS`, else one per CPU beyond the caller's own, at most 4 (0 on one CPU)."""
    raw = os.environ.get("KOPA_WORLD_WORKERS")
    if raw is None:
        return max(0, min(4, (os.cpu_count() or 1) - 1))
    try:
        n = int(raw)
    except ValueError:
        n = -1
    if n < 0:
        raise ValueError(f"KOPA_WORLD_WORKERS={raw!r} is not a whole number >= 0; use 0 (no worker processes) "
                         "or e.g. 1")
    return n


def _write(stream, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<I", len(data)) + data)
    stream.flush()


def _read(stream):
    head = stream.read(4)
    if len(head) < 4:
        raise EOFError("the other side closed the pipe")
    (n,) = struct.unpack("<I", head)
    data = stream.read(n)
    if len(data) < n:
        raise EOFError("the other side closed the pipe mid-message")
    return pickle.loads(data)


READY = 0  # the request id of a worker's first message: its world is open, requests may come


def serve(inp=None, out=None) -> None:
    """A worker: open the world named by the first message, then answer requests until EOF."""
    from ..clock import WorldClock
    from .store import World

    inp = inp or sys.stdin.buffer
    if out is None:  # the answers own the real stdout; a stray print goes to stderr instead
        out = os.fdopen(os.dup(1), "wb")
        os.dup2(2, 1)
    path, now = _read(inp)
    world = World(path, WorldClock(now))
    http = _SandboxHTTP(world)  # before saying ready: the first request must not pay for it
    _write(out, (READY, True, None, time.process_time()))
    while True:
        try:
            rid, kind, payload = _read(inp)
        except EOFError:
            return
        ok = True
        try:
            if kind == "rows":
                answer = world._compute_rows(*payload)
            else:
                answer = http.request(*payload)
        except Exception as exc:  # noqa: BLE001 - the caller recomputes and reports it
            ok, answer = False, f"{type(exc).__name__}: {exc}"[:500]
        try:  # with the CPU this worker has used so far (WorldPool.worker_cpu_s)
            _write(out, (rid, ok, answer, time.process_time()))
        except (BrokenPipeError, OSError):
            return  # the caller is gone (closed, or killed): so is this worker


class _SandboxHTTP:
    """A worker's own in-process sandbox: the default catalog and keys, no faults, on the
    worker's world: the configuration of `KopaClient().app` (edge_synth.env.WorldBatcher sends
    whole requests only from a client whose sandbox is that too)."""

    def __init__(self, world):
        import asyncio

        from ..client.inprocess import ASGICall
        from ..sandbox.app import create_app

        self.loop = asyncio.new_event_loop()
        self.asgi = ASGICall(create_app(world=world))

    def request(self, method: str, url: str, params: dict[str, Any] | None):
        a = self.loop.run_until_complete(self.asgi.request(method, url, params))
        return a.status_code, a.headers, a.content, a.text


class WorkerFailed(RuntimeError):
    """A worker could not answer a request (it failed or died); the caller computes it itself."""


class _Worker:
    def __init__(self, pool: "WorldPool", path: str, now: str):
        import kopa_bench

        root = os.path.dirname(os.path.dirname(os.path.abspath(kopa_bench.__file__)))
        env = dict(os.environ)
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.proc = subprocess.Popen([sys.executable, "-m", "kopa_bench.world.pool"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env)
        self.pool = pool
        self.outstanding: dict[int, Future] = {}
        self.alive = True
        # nothing is sent before the worker says it is ready (~0.5 s to import and open the
        # world): a request sent earlier would wait for that, where its caller could compute it
        self.ready = False
        self.started = threading.Event()  # set when ready or gone (WorldPool.wait_ready)
        self.cpu_s = 0.0  # the worker's CPU time, as of its latest message
        _write(self.proc.stdin, (path, now))
        self.reader = threading.Thread(target=self._read_loop, name="kopa-world-worker", daemon=True)
        self.reader.start()

    def send(self, rid: int, fut: Future, job: tuple) -> None:
        self.outstanding[rid] = fut
        _write(self.proc.stdin, (rid, *job))

    def _read_loop(self) -> None:
        while True:
            try:
                rid, ok, value, self.cpu_s = _read(self.proc.stdout)
            except (EOFError, OSError, pickle.UnpicklingError) as exc:
                self.pool._worker_gone(self, exc)
                return
            if rid == READY:
                self.pool._ready(self)
                continue
            fut = self.pool._finished(self, rid, ok)
            if fut is None:
                continue
            if ok:
                fut.set_result(value)
            else:
                fut.set_exception(WorkerFailed(value))


# While a pool is open the caller's thread switch interval is at most this (sys.setswitchinterval):
# each worker's answers are read by a thread of the caller, which waits for the GIL while EDGE's
# own thread computes; at Python's default 5 ms a worker's pipe fills and the worker idles.
# EDGE 2 x 300 paths, one worker on 2 CPUs, alternated runs: 5 ms 37.1 / 37.1 / 37.2 s,
# 1 ms 35.6 / 35.7 s, 0.5 ms 35.4 s (the worker answered 21,000 instead of 19,500 requests).
READER_SWITCH_S = 0.001
_switch_lock = threading.Lock()
_switch = {"open": 0, "saved": 0.0}  # open pools; the interval before the first of them


def _lower_switch_interval() -> None:
    with _switch_lock:
        if _switch["open"] == 0:
            _switch["saved"] = sys.getswitchinterval()
            sys.setswitchinterval(min(_switch["saved"], READER_SWITCH_S))
        _switch["open"] += 1


def _restore_switch_interval() -> None:
    with _switch_lock:
        if _switch["open"] > 0:
            _switch["open"] -= 1
            if _switch["open"] == 0:
                sys.setswitchinterval(_switch["saved"])


class WorldPool:
    """Worker processes answering world requests of one world file (see the module doc)."""

    MAX_OUTSTANDING = 2  # per worker: the rest wait here, where the caller can take them back
    # While it waits, the caller steals from the newest end while more than this many wait for
    # a worker (they are the workers' next). EDGE 2 x 300 paths, whole requests, one worker on
    # 2 CPUs: 1 -> 48.2 s, 3 -> 48.0, 6 -> 43.6, 12 -> 46.6, 24 -> 61.3 (it waits instead).
    KEEP_QUEUED = 6
    # offer_http (the runner's concurrent episodes): a worker takes up to this many at once.
    # Oracle over the test split, 8 episodes, one worker on 2 CPUs: 2 -> 2.37 s, 4 -> 2.04 s
    OFFER_OUTSTANDING = 4

    def __init__(self, world, workers: int):
        if workers < 1:
            raise ValueError(f"a world pool needs at least one worker, not {workers}")
        self._lock = threading.Lock()
        self._queue: deque[tuple[int, Future, tuple]] = deque()
        self._next_id = 0
        self._closed = False
        # submitted: handed to the pool; answered: by a worker; taken_back: not started by a worker
        # when the caller needed it, computed by the caller; stolen: computed by the caller while
        # it waited for another answer; waited_s: the caller blocked on a worker
        self.stats = {"submitted": 0, "answered": 0, "taken_back": 0, "stolen": 0, "failed": 0,
                      "waited_s": 0.0}
        now = world.clock.now().isoformat()
        self.world_path, self.world_now = str(world.path), now  # what a client must serve to use it
        self._workers = [_Worker(self, str(world.path), now) for _ in range(workers)]
        self.workers = workers
        _lower_switch_interval()

    def submit(self, op, params: dict[str, Any], offset: int, limit: int | None) -> Future:
        """One world answer, `World._compute_rows(op, params, offset, limit)`."""
        return self._submit("rows", (OpQuery(op.tool, op.query, op.handler), dict(params), offset, limit))

    def submit_http(self, method: str, url: str, params: dict[str, Any] | None) -> Future:
        """One whole in-process sandbox request (routing, validation, world answer, rendering):
        (status, headers, content, text), as `ASGICall.request` gives them. Only for callers whose
        sandbox is the default one (catalog, keys, no faults): the worker's is."""
        return self._submit("http", _http_job(method, url, params))

    def offer_http(self, method: str, url: str, params: dict[str, Any] | None) -> Future | None:
        """For callers that can await (the benchmark runner, `KopaClient.use_world_pool`): a whole
        in-process request sent to a worker with room at once, or None when every worker is
        busy (then the caller computes it: nothing waits in a queue)."""
        with self._lock:
            if self._closed:
                return None
            for w in self._workers:
                if w.alive and w.ready and len(w.outstanding) < self.OFFER_OUTSTANDING:
                    fut: Future = Future()
                    fut.set_running_or_notify_cancel()
                    self._next_id += 1
                    try:
                        w.send(self._next_id, fut, ("http", _http_job(method, url, params)))
                    except (OSError, ValueError):  # that worker died; its reader reports it
                        w.outstanding.pop(self._next_id, None)
                        continue
                    self.stats["submitted"] += 1
                    return fut
        return None

    async def wait(self, fut: Future) -> Any | None:
        """The answer to an offered request, awaited (the event loop runs the other episodes
        meanwhile, so nothing is counted as waited); None if the worker failed: the caller
        computes it and meets the error."""
        try:
            return await asyncio.wrap_future(fut)
        except Exception as exc:  # noqa: BLE001 - recomputed by the caller, where the error is reported
            log.debug("world worker failed (%s: %s); computing here", type(exc).__name__, redact(str(exc)))
            return None

    def _submit(self, kind: str, payload: tuple) -> Future:
        fut: Future = Future()
        with self._lock:
            if self._closed or not any(w.alive for w in self._workers):
                fut.set_exception(WorkerFailed("the world pool is closed or its workers are gone"))
                return fut
            self.stats["submitted"] += 1
            self._next_id += 1
            self._queue.append((self._next_id, fut, (kind, payload)))
            failed = self._dispatch()
        _fail(failed)
        return fut

    def collect(self, fut: Future, kind: str, run: Callable[[tuple], Any]) -> Any | None:
        """The answer of a request this pool was given, for the caller that needs it now: None if
        no worker had started on it (taken back: the caller computes it) or the worker failed
        (the caller computes it and meets the error itself). While a worker has it, the caller
        runs newer queued requests of the same `kind` with `run(payload)` (their futures get the
        result, or the exception it raises)."""
        if fut.cancel():
            self.stats["taken_back"] += 1
            return None
        while not fut.done():
            job = self._steal(kind)
            if job is None:
                break
            other, payload = job
            try:
                other.set_result(run(payload))
            except Exception as exc:  # noqa: BLE001 - that request's own turn recomputes and reports it
                other.set_exception(exc)
        t = time.perf_counter()
        try:
            return fut.result()
        except Exception as exc:  # noqa: BLE001 - recomputed by the caller, where the error is reported
            log.debug("world worker failed (%s: %s); computing here", type(exc).__name__, redact(str(exc)))
            return None
        finally:
            self.stats["waited_s"] += time.perf_counter() - t

    def _steal(self, kind: str) -> tuple[Future, tuple] | None:
        """The newest request of `kind` no worker has started (workers take the oldest first,
        the caller needs them in that order too), now the caller's to compute. None when no
        such request waits beyond the KEEP_QUEUED oldest."""
        with self._lock:
            for i in range(len(self._queue) - 1, self.KEEP_QUEUED - 1, -1):
                _, fut, (k, payload) = self._queue[i]
                if k != kind:
                    continue
                del self._queue[i]
                if fut.set_running_or_notify_cancel():
                    self.stats["stolen"] += 1
                    return fut, payload
        return None

    def _dispatch(self) -> list[tuple[Future, BaseException]]:
        """Send queued requests to workers with room (holding the lock). Returns the requests that
        could not be sent, to be failed once the lock is released (a future's callbacks run when
        it is failed, and they take the world's memo lock)."""
        failed = []
        for w in self._workers:
            while w.alive and w.ready and self._queue and len(w.outstanding) < self.MAX_OUTSTANDING:
                rid, fut, payload = self._queue.popleft()
                if not fut.set_running_or_notify_cancel():
                    continue  # taken back by the caller
                try:
                    w.send(rid, fut, payload)
                except (OSError, ValueError) as exc:  # the worker died; its reader fails what it had
                    w.outstanding.pop(rid, None)
                    failed.append((fut, WorkerFailed(f"worker pipe: {exc}")))
        return failed

    def _ready(self, w: _Worker) -> None:
        with self._lock:
            w.ready = True
            failed = self._dispatch()
        _fail(failed)
        w.started.set()

    def worker_cpu_s(self) -> float:
        """CPU time the workers have used, as of each one's latest answer (for `kopa perf`:
        the CPU an EDGE run costs in all its processes)."""
        return sum(w.cpu_s for w in self._workers)

    def wait_ready(self, timeout: float = 60.0) -> bool:
        """Block until every worker has said it is ready or is gone; False on time-out. Not
        needed for correctness (requests are computed here until then): for tests and timings
        that must not count the workers' start."""
        deadline = time.monotonic() + timeout
        return all(w.started.wait(max(0.0, deadline - time.monotonic())) for w in self._workers)

    def _finished(self, w: _Worker, rid: int, ok: bool) -> Future | None:
        with self._lock:
            fut = w.outstanding.pop(rid, None)
            self.stats["answered" if ok else "failed"] += fut is not None
            failed = self._dispatch()
        _fail(failed)
        return fut

    def _worker_gone(self, w: _Worker, exc: BaseException) -> None:
        w.started.set()  # gone: nobody waits for it to be ready
        with self._lock:
            w.alive = False
            lost, w.outstanding = list(w.outstanding.values()), {}
            failed = []
            if not any(x.alive for x in self._workers):
                lost += [f for _, f, _ in self._queue if f.set_running_or_notify_cancel()]
                self._queue.clear()
            else:
                failed = self._dispatch()
        if not self._closed:
            log.warning("a world worker stopped (%s: %s); its requests are computed in this process",
                        type(exc).__name__, redact(str(exc)))
        self.stats["failed"] += len(lost)
        _fail(failed + [(f, WorkerFailed(f"the worker stopped: {exc}")) for f in lost])

    def close(self, wait: bool = True) -> None:
        """Stop the workers: they exit when their input ends. `wait=False` does not wait for
        them to finish exiting (interpreter shutdown, ~0.1 s each): a finished benchmark run
        need not."""
        with self._lock:
            if not self._closed:
                _restore_switch_interval()
            self._closed = True
            for _, f, _ in self._queue:
                f.cancel()
            self._queue.clear()
        for w in self._workers:
            try:
                w.proc.stdin.close()
            except OSError:
                pass
        if not wait:
            return
        for w in self._workers:
            try:
                w.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                w.proc.kill()
                w.proc.wait()
            w.reader.join(timeout=5)


def _http_job(method: str, url: str, params: dict[str, Any] | None) -> tuple:
    return method, url, dict(params) if params else None


def _fail(failed: list[tuple[Future, BaseException]]) -> None:
    for fut, exc in failed:
        fut.set_exception(exc)


if __name__ == "__main__":
    serve()

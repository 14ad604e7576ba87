"""KopaClient: the one executor every other part uses (benchmark, EDGE, training, Space).

Backends:
  "sandbox"          in-process sandbox app, no server: body-less requests go straight to the ASGI
                     app (client/inprocess.py, same scope and reading as httpx), the others
                     over httpx.ASGITransport; `asgi_direct=False` sends all through httpx
  "http://host:port" a running `kopa sandbox serve`
  "live"             the real hosts, with the user's keys from environment variables
plus an optional ReplayCache in front of any of them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from typing import Any

import httpx

from ..catalog.registry import Catalog, ToolRef, UnknownToolError, get_catalog
from ..protocols import Parsed, get_protocol, model_args_problem
from .cache import CacheMiss, ReplayCache
from . import parse_memo
from ..sandbox.memo import ResponseMemo
from .inprocess import ASGICall, query_string
from .redact import redact, register_secret
from .result import ToolErrorInfo, ToolResult

log = logging.getLogger(__name__)
SANDBOX_KEY = "KOPA-SANDBOX"
MAX_BACKOFF_S = 5.0

FIXES = {
    "auth": "check the service key for this platform (live: set {env}; sandbox: the key is KOPA-SANDBOX)",
    "quota": "the platform's request quota is exhausted; wait and retry later, or use another route",
    "no_service": "the operation does not exist on this platform",
    "transient": "a temporary failure; retrying the same call may work",
    "platform": "check the arguments against the tool's parameter descriptions",
}


def _request_key(spec) -> tuple:
    return spec.method.upper(), spec.url, query_string(spec.params or None)


class KopaClient:
    MAX_AHEAD = 4096  # requests computed ahead and not yet sent, at most (compute_ahead)

    def __init__(self, backend: str = "sandbox", *, catalog: Catalog | None = None, world=None,
                 keys: dict[str, str] | None = None, cache: ReplayCache | None = None, faults=None,
                 timeout: float = 15.0, max_retries: int = 3, backoff_s: float = 0.2, app=None,
                 asgi_direct: bool = True):
        self.catalog = catalog or get_catalog()
        self.backend = backend
        self.cache = cache
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self._keys = dict(keys or {})
        for k in self._keys.values():
            register_secret(k)
        self._app = app
        self._world = world
        self._faults = faults
        self._http: httpx.AsyncClient | None = None
        self._http_loop: asyncio.AbstractEventLoop | None = None
        self.asgi_direct = asgi_direct and backend == "sandbox"
        self._asgi: ASGICall | None = None
        # in-process requests a world pool computes ahead (compute_ahead): request key -> (pool, future)
        self._ahead: dict[tuple, tuple] = {}
        self._pool = None  # use_world_pool: every in-process request goes through this pool
        if backend not in ("sandbox", "live") and not backend.startswith(("http://", "https://")):
            raise ValueError(f"backend {backend!r}: use 'sandbox', 'live' or a sandbox URL like http://127.0.0.1:8000")

    # -- plumbing --------------------------------------------------------------------------
    @property
    def app(self):
        if self._app is None:
            from ..sandbox.app import create_app

            self._app = create_app(world=self._world, catalog=self.catalog, faults=self._faults)
        return self._app

    def _client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._http is None or self._http_loop is not loop:
            if self.backend == "sandbox":
                transport = httpx.ASGITransport(app=self.app)
                self._http = httpx.AsyncClient(transport=transport, timeout=self.timeout)
            else:
                limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
                self._http = httpx.AsyncClient(timeout=self.timeout, limits=limits, follow_redirects=False)
            self._http_loop = loop
        return self._http

    def default_sandbox(self) -> bool:
        """Whether requests go to an in-process sandbox configured as a world worker's own is
        (world/pool.py `_SandboxHTTP`): the default catalog and keys, no fault injection. Only
        then can a worker answer this client's requests byte for byte."""
        if not self.asgi_direct:
            return False
        from ..sandbox.context import DEFAULT_SANDBOX_KEY

        ctx = getattr(self.app.state, "ctx", None)
        return (ctx is not None and ctx.faults is None and self.catalog is get_catalog()
                and ctx.catalog is get_catalog() and ctx.keys == {DEFAULT_SANDBOX_KEY})

    def use_world_pool(self, pool) -> bool:
        """Send every in-process request of this client through `pool` (world/pool.py), for
        concurrent episodes (the benchmark runner): a request goes to a worker with room as it is
        sent and the episode awaits the answer while the others go on; when every worker is busy,
        this process computes it. Answers are the same bytes; only the order in which episodes
        interleave changes. False (and nothing changes) unless this client's sandbox is the
        default one on the pool's world file."""
        world = self.app.state.ctx.world if self.default_sandbox() else None
        if pool is None or world is None or (str(world.path), world.clock.now().isoformat()) != (
                pool.world_path, pool.world_now):
            self._pool = None
            return False
        self._pool = pool
        return True

    def compute_ahead(self, pool, spec) -> bool:
        """Have a worker of `pool` (world/pool.py) run this in-process request while the caller
        goes on; `_send` then takes its answer (or takes the request back if no worker has
        started on it). The pool's sandbox is the default one: only for a client using that."""
        if not self.asgi_direct or spec.json is not None:
            return False
        key = _request_key(spec)
        if key in self._ahead:
            return False
        while len(self._ahead) >= self.MAX_AHEAD:  # never sent after all (a caller gave up): drop the oldest
            _, fut = self._ahead.pop(next(iter(self._ahead)))
            fut.cancel()
        self._ahead[key] = (pool, pool.submit_http(spec.method, spec.url, spec.params or None))
        return True

    def _answer_ahead(self, spec) -> tuple | None:
        ahead = self._ahead.pop(_request_key(spec), None) if self._ahead else None
        if ahead is None:
            return None
        pool, fut = ahead
        return pool.collect(fut, "http", self._run_now)

    def _run_now(self, job: tuple) -> tuple:
        """Run a later request now (`job`: method, url, params), driving its in-process
        coroutine to the end without the event loop (it never suspends without faults); if it
        would suspend, it is dropped and runs normally when its turn comes."""
        if self._asgi is None:
            self._asgi = ASGICall(self.app)
        coro = self._asgi.request(*job)
        try:
            coro.send(None)
        except StopIteration as done:
            a = done.value
            return a.status_code, a.headers, a.content, a.text
        coro.close()
        raise RuntimeError("the in-process request suspended; it runs in its turn")

    async def _inprocess(self, spec) -> tuple[int, dict[str, str], bytes, str]:
        if self._asgi is None:
            self._asgi = ASGICall(self.app)
        a = await self._asgi.request(spec.method, spec.url, spec.params or None)
        return a.status_code, a.headers, a.content, a.text

    async def _send_pooled(self, spec) -> tuple[int, dict[str, str], bytes, str]:
        """`_send` through the world pool (use_world_pool). An answer the sandbox's memo holds
        (one memo for every app on this world: the run's gold and agent clients share it,
        sandbox/app.py) is replayed from there; else a worker with room computes it while the
        other episodes go on, and its answer joins that memo, which it would otherwise never
        reach; else this process computes it."""
        if self._asgi is None:
            self._asgi = ASGICall(self.app)
        answers = self.app.state.answers
        key = ResponseMemo._key(self._asgi.scope(spec.method, spec.url, spec.params or None))
        if key is not None and key not in answers:
            fut = self._pool.offer_http(spec.method, spec.url, spec.params or None)
            answer = await self._pool.wait(fut) if fut is not None else None
            if answer is not None:
                status, headers, content, _ = answer
                answers.put_answer(key, status, headers, content)
                return answer
        return await self._inprocess(spec)

    async def _send(self, spec) -> tuple[int, dict[str, str], bytes, str]:
        """One HTTP exchange: (status, headers as dict(httpx.Headers), body bytes, text)."""
        if self.asgi_direct and spec.json is None:
            if self._pool is not None:
                return await self._send_pooled(spec)
            # Without use_world_pool (EDGE), a worker's answer is taken without awaiting: the
            # in-process request below never suspends either, so the event loop runs everything
            # in the same order
            ahead = self._answer_ahead(spec)
            return ahead if ahead is not None else await self._inprocess(spec)
        resp = await self._client().request(spec.method, spec.url, params=spec.params or None, json=spec.json)
        return resp.status_code, dict(resp.headers), resp.content, resp.text

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None
        if self.cache is not None:
            self.cache.close()

    def base_url(self, ref: ToolRef) -> str:
        if self.backend == "live":
            return ref.platform.live_base_url
        root = "http://sandbox" if self.backend == "sandbox" else self.backend.rstrip("/")
        return f"{root}{ref.platform.sandbox_prefix}"

    def key_for(self, ref: ToolRef) -> str | None:
        if ref.platform.id in self._keys:
            return self._keys[ref.platform.id]
        if self.backend == "live":
            key = os.environ.get(ref.platform.key_env)
            register_secret(key)
            return key
        return self._keys.get("*", SANDBOX_KEY)

    # -- the call --------------------------------------------------------------------------
    async def call(self, tool: str, arguments: Any = None) -> ToolResult:
        """Execute one tool call. Never raises for a tool-level problem: it comes back as a
        ToolResult with `error`, which the runner shows to the model."""
        t0 = time.perf_counter()
        args = {} if arguments is None else arguments
        try:
            ref = self.catalog.get(tool)
        except UnknownToolError as exc:
            return self._fail(tool, args if isinstance(args, dict) else {}, "unknown_tool", str(exc), t0)
        if not isinstance(args, dict):
            return self._fail(tool, {}, "argument", f"arguments for {tool} must be a JSON object, got {type(args).__name__}", t0)
        problem = model_args_problem(ref.op, args)
        if problem:
            return self._fail(tool, args, "argument", problem, t0)
        if self.cache is not None:
            try:
                hit = self.cache.get(tool, args)
            except CacheMiss as exc:
                return self._fail(tool, args, "transient", str(exc), t0)
            if hit is not None:
                return hit
        result = await self._execute(ref, args, t0)
        if self.cache is not None:
            self.cache.put(result)
        return result

    def call_sync(self, tool: str, arguments: Any = None) -> ToolResult:
        return asyncio.run(self._once(tool, arguments))

    async def _once(self, tool: str, arguments: Any) -> ToolResult:
        try:
            return await self.call(tool, arguments)
        finally:
            if self._http is not None:
                await self._http.aclose()
                self._http = None

    async def _execute(self, ref: ToolRef, args: dict[str, Any], t0: float) -> ToolResult:
        key = self.key_for(ref)
        if self.backend == "live" and not key:
            return self._fail(ref.op.tool, args, "auth",
                              f"no key for {ref.platform.name_en}: set the environment variable {ref.platform.key_env}", t0)
        proto = get_protocol(ref.platform.protocol)
        full_args = {p.name: p.default for p in ref.op.params if not p.model_facing and p.default is not None}
        full_args.update(args)
        spec = proto.build_request(ref, full_args, key, self.base_url(ref))
        parsed: Parsed | None = None
        raw = ""
        attempt = 0
        for attempt in range(1, self.max_retries + 2):
            try:
                # wait_for: the in-process ASGI transport ignores httpx time-outs, so a stalled
                # endpoint (the `timeout` fault) would otherwise hang the run
                status, headers, content, raw = await asyncio.wait_for(self._send(spec), timeout=self.timeout)
                if status >= 500:
                    parsed = Parsed(False, f"HTTP{status}", f"server error {status}",
                                    error_type="transient", retryable=True)
                else:
                    parsed = parse_memo.parse(proto, ref, status, headers, content)
                    if status == 429 and not parsed.ok:  # rate limited: retry, then say so
                        parsed.error_type = "quota"
            except (httpx.TimeoutException, asyncio.TimeoutError):
                parsed = Parsed(False, "TIMEOUT", f"no answer within {self.timeout:g}s", error_type="transient", retryable=True)
            except httpx.HTTPError as exc:
                parsed = Parsed(False, "HTTP", f"{type(exc).__name__}: {redact(str(exc))}", error_type="transient", retryable=True)
            if parsed.ok or not parsed.retryable or attempt > self.max_retries:
                break
            await asyncio.sleep(min(self.backoff_s * 2 ** (attempt - 1), MAX_BACKOFF_S))  # bounded exponential
        assert parsed is not None
        elapsed = (time.perf_counter() - t0) * 1000
        if parsed.ok:
            return ToolResult(tool=ref.op.tool, arguments=args, ok=True, result_code=parsed.code,
                              result_msg=parsed.msg, total_count=parsed.total, records=parsed.records,
                              raw=redact(raw[:20000]) if raw else None, elapsed_ms=elapsed, attempts=attempt)
        fix = FIXES.get(parsed.error_type or "platform", "").format(env=ref.platform.key_env)
        message = f"{ref.op.tool} failed with {ref.platform.name_en} code {parsed.code} ({parsed.msg}); {fix}"
        return ToolResult(tool=ref.op.tool, arguments=args, ok=False, result_code=parsed.code, result_msg=parsed.msg,
                          error=ToolErrorInfo(type=parsed.error_type or "platform", message=redact(message),
                                              code=parsed.code, retryable=parsed.retryable),
                          raw=redact(raw[:20000]) if raw else None, elapsed_ms=elapsed, attempts=attempt)

    def _fail(self, tool: str, args: dict, kind: str, message: str, t0: float) -> ToolResult:
        return ToolResult(tool=tool, arguments=args, ok=False, result_code="", result_msg="",
                          error=ToolErrorInfo(type=kind, message=redact(message)),
                          elapsed_ms=(time.perf_counter() - t0) * 1000)

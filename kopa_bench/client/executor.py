"""KopaClient: the one executor every other part uses (benchmark, EDGE, training, Space).

Backends:
  "sandbox"          the in-process sandbox app, no server (client/transport.py InProcessTransport)
  "http://host:port" a running `kopa sandbox serve`
  "live"             the real hosts, with the user's keys from environment variables
plus an optional ReplayCache in front of any of them. A call is validated, built into one
`RequestSpec` (`request_spec`), and sent by the client's transport (`transport=` replaces it).
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

import httpx
from tenacity import AsyncRetrying, retry_if_result, stop_after_attempt, wait_exponential

from ..catalog.registry import Catalog, ToolRef, UnknownToolError, get_catalog
from ..protocols import Parsed, RequestSpec, get_protocol
from .arguments import argument_problem
from .cache import CacheMiss, ReplayCache
from .redact import redact, register_secret
from .result import ToolErrorInfo, ToolResult
from .transport import HTTPXTransport, InProcessTransport, Transport

SANDBOX_KEY = "KOPA-SANDBOX"
MAX_BACKOFF_S = 5.0

FIXES = {
    "auth": "check the service key for this platform (live: set {env}; sandbox: the key is KOPA-SANDBOX)",
    "quota": "the platform's request quota is exhausted; wait and retry later, or use another route",
    "no_service": "the operation does not exist on this platform",
    "transient": "a temporary failure; retrying the same call may work",
    "platform": "check the arguments against the tool's parameter descriptions",
}


class KopaClient:
    def __init__(self, backend: str = "sandbox", *, catalog: Catalog | None = None, world=None,
                 keys: dict[str, str] | None = None, cache: ReplayCache | None = None, faults=None,
                 timeout: float = 15.0, max_retries: int = 3, backoff_s: float = 0.2, app=None,
                 transport: Transport | None = None):
        if backend not in ("sandbox", "live") and not backend.startswith(("http://", "https://")):
            raise ValueError(f"backend {backend!r}: use 'sandbox', 'live' or a sandbox URL like http://127.0.0.1:8000")
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
        self._transport = transport

    @property
    def app(self):
        """The in-process sandbox app (built on first use); only for the "sandbox" backend."""
        if self._app is None:
            if self.backend != "sandbox":
                raise ValueError(f"backend {self.backend!r} has no in-process sandbox app")
            from ..sandbox.app import create_app

            self._app = create_app(world=self._world, catalog=self.catalog, faults=self._faults)
        return self._app

    @property
    def world(self):
        """The world the in-process sandbox serves; None for a URL or the live hosts."""
        return self.app.state.ctx.world if self.backend == "sandbox" else None

    @property
    def transport(self) -> Transport:
        if self._transport is None:
            self._transport = (InProcessTransport(self.app, timeout=self.timeout) if self.backend == "sandbox"
                               else HTTPXTransport(timeout=self.timeout))
        return self._transport

    @transport.setter
    def transport(self, transport: Transport) -> None:
        self._transport = transport

    async def aclose(self, *, cache: bool = True) -> None:
        """Close the transport and, unless `cache=False` (clients sharing one cache), the cache."""
        if self._transport is not None:
            await self._transport.aclose()
        if cache and self.cache is not None:
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
        problem = argument_problem(ref, args)
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
            await self.aclose(cache=False)  # asyncio.run's loop ends here; a later call opens anew

    def request_spec(self, tool: str, arguments: dict[str, Any]) -> RequestSpec:
        """The HTTP request a call sends: the tool's hidden defaults, the key and the base URL of
        this client's backend added to the model-facing arguments (not validated here)."""
        ref = self.catalog.get(tool)
        full_args = {p.name: p.default for p in ref.op.params if not p.model_facing and p.default is not None}
        full_args.update(arguments)
        return get_protocol(ref.platform.protocol).build_request(ref, full_args, self.key_for(ref), self.base_url(ref))

    async def _exchange(self, ref: ToolRef, spec: RequestSpec) -> tuple[Parsed, str]:
        """One attempt: the parsed answer (errors as a transient Parsed) and the raw text."""
        try:
            # wait_for: an in-process app ignores httpx time-outs, so a stalled endpoint (the
            # `timeout` fault) would otherwise hang the run
            ex = await asyncio.wait_for(self.transport.send(spec), timeout=self.timeout)
        except (httpx.TimeoutException, asyncio.TimeoutError):
            return Parsed(False, "TIMEOUT", f"no answer within {self.timeout:g}s", error_type="transient",
                          retryable=True), ""
        except httpx.HTTPError as exc:
            return Parsed(False, "HTTP", f"{type(exc).__name__}: {redact(str(exc))}", error_type="transient",
                          retryable=True), ""
        if ex.status >= 500:
            return Parsed(False, f"HTTP{ex.status}", f"server error {ex.status}", error_type="transient",
                          retryable=True), ex.text
        parsed = get_protocol(ref.platform.protocol).parse_response(ref, ex.status, ex.headers, ex.content)
        if ex.status == 429 and not parsed.ok:  # rate limited: retried, then reported as such
            parsed.error_type = "quota"
        return parsed, ex.text

    async def _execute(self, ref: ToolRef, args: dict[str, Any], t0: float) -> ToolResult:
        if self.backend == "live" and not self.key_for(ref):
            return self._fail(ref.op.tool, args, "auth",
                              f"no key for {ref.platform.name_en}: set the environment variable {ref.platform.key_env}", t0)
        spec = self.request_spec(ref.op.tool, args)
        self.transport.expect(spec)
        parsed, raw = await self._exchange(ref, spec)
        attempt = 1
        if not parsed.ok and parsed.retryable and self.max_retries:
            # most calls need no retry, so tenacity takes over only after a retryable failure:
            # waits of backoff, 2x, 4x... (bounded) between attempts
            await asyncio.sleep(min(self.backoff_s, MAX_BACKOFF_S))
            retrying = AsyncRetrying(stop=stop_after_attempt(self.max_retries),
                                     wait=wait_exponential(multiplier=2 * self.backoff_s, max=MAX_BACKOFF_S),
                                     retry=retry_if_result(lambda out: not out[0].ok and out[0].retryable),
                                     retry_error_callback=lambda state: state.outcome.result(), reraise=True)
            async for try_ in retrying:
                with try_:
                    attempt = 1 + try_.retry_state.attempt_number
                    out = await self._exchange(ref, spec)
                if not try_.retry_state.outcome.failed:
                    try_.retry_state.set_result(out)
            parsed, raw = out
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

"""How a built request reaches a platform: the seam between KopaClient and the wire.

`KopaClient` builds one `RequestSpec` per call (`KopaClient.request_spec`) and hands it to its
transport, which answers with an `Exchange`. Two transports ship here: `HTTPXTransport` (a URL, the
live hosts, or an ASGI app through `httpx.ASGITransport`) and `InProcessTransport` (the sandbox app
called directly, client/inprocess.py). Anything else that answers `send` (a worker pool, a recorder
in a test) plugs in the same way.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import httpx

from ..protocols.base import RequestSpec
from .inprocess import ASGICall


@dataclass(frozen=True)
class Exchange:
    """One HTTP answer as the protocol parsers read it: status, lower-cased headers, body bytes, text."""

    status: int
    headers: dict[str, str]
    content: bytes
    text: str


@runtime_checkable
class Transport(Protocol):
    def expect(self, request: RequestSpec) -> None:
        """Told of a request just before it is sent; a transport that computes answers ahead
        (kopa_bench.speedups) starts on it here, one that does not ignores it."""

    async def send(self, request: RequestSpec) -> Exchange: ...

    async def aclose(self) -> None: ...


class HTTPXTransport:
    """httpx over the network, or over an ASGI app (`app=`), one client per event loop."""

    def __init__(self, *, app: Any = None, timeout: float = 15.0):
        self.app = app
        self.timeout = timeout
        self._http: httpx.AsyncClient | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._http is None or self._loop is not loop:
            if self.app is not None:
                self._http = httpx.AsyncClient(transport=httpx.ASGITransport(app=self.app), timeout=self.timeout)
            else:
                limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
                self._http = httpx.AsyncClient(timeout=self.timeout, limits=limits, follow_redirects=False)
            self._loop = loop
        return self._http

    def expect(self, request: RequestSpec) -> None:
        return None

    async def send(self, request: RequestSpec) -> Exchange:
        resp = await self._client().request(request.method, request.url, params=request.params or None,
                                            json=request.json)
        return Exchange(resp.status_code, dict(resp.headers), resp.content, resp.text)

    async def aclose(self) -> None:
        if self._http is not None:
            http, self._http = self._http, None
            await http.aclose()


class InProcessTransport:
    """The sandbox app called directly (no httpx) for body-less requests, as httpx would call it;
    requests with a body (odcloud's JSON POST) go through httpx.ASGITransport."""

    def __init__(self, app: Any, *, timeout: float = 15.0):
        self.app = app
        self._direct = ASGICall(app)
        self._bodies = HTTPXTransport(app=app, timeout=timeout)

    def expect(self, request: RequestSpec) -> None:
        return None

    async def send(self, request: RequestSpec) -> Exchange:
        if request.json is not None:
            return await self._bodies.send(request)
        a = await self._direct.request(request.method, request.url, request.params or None)
        return Exchange(a.status_code, a.headers, a.content, a.text)

    async def aclose(self) -> None:
        await self._bodies.aclose()

"""The in-process sandbox call without httpx: the same ASGI request, handed straight to the app.

`httpx.AsyncClient(transport=ASGITransport(app))` costs more per call than most sandbox answers
(building and re-parsing the URL, cookies, header models, the response stream): about a third
of an in-process call. `ASGICall` sends the app the scope httpx would send (same method, path,
raw path, query string, headers, client and server) and reads the answer back as httpx would
(status, lower-cased header dict, body bytes, text decoded by the Content-Type charset), so the
protocol parsers see identical inputs. tests/test_inprocess_fastpath.py checks scope and results
against the httpx path over a sample of calls.

Only requests without a body take this path; the client sends the others (odcloud's JSON POST)
through httpx, whose body encoding it would otherwise have to copy.
"""

from __future__ import annotations

import asyncio
import codecs
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx

# What httpx.ASGITransport puts in every scope (its defaults).
_CLIENT = ("127.0.0.1", 123)
_URL_CACHE_MAX = 8192


@dataclass
class ASGIAnswer:
    status_code: int
    headers: dict[str, str]
    content: bytes
    text: str


def query_value(v: Any) -> str:
    """The text a scalar becomes in a query string (httpx's primitive_value_to_str: JSON-style
    booleans, None as empty)."""
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return ""
    return str(v)


def query_string(params: dict[str, Any] | None) -> str:
    """The query string httpx builds from `params=` (QueryParams -> urlencode of its items)."""
    if not params:
        return ""
    items: list[tuple[str, str]] = []
    for k, v in params.items():
        if isinstance(v, (list, tuple)):
            items.extend((str(k), query_value(x)) for x in v)
        else:
            items.append((str(k), query_value(v)))
    return urlencode(items)


def _decode_headers(raw: list[tuple[bytes, bytes]]) -> dict[str, str]:
    """dict(httpx.Headers(raw)): lower-cased names, repeated names joined by ', '."""
    for enc in ("ascii", "utf-8", "iso-8859-1"):  # httpx.Headers.encoding's order
        try:
            pairs = [(k.decode(enc).lower(), v.decode(enc)) for k, v in raw]
            break
        except UnicodeDecodeError:
            continue
    out: dict[str, str] = {}
    for k, v in pairs:
        out[k] = f"{out[k]}, {v}" if k in out else v
    return out


def _charset(content_type: str | None) -> str:
    """httpx.Response.text's codec: the Content-Type charset if Python knows it, else utf-8."""
    if content_type:
        for part in content_type.split(";")[1:]:
            name, _, value = part.partition("=")
            if name.strip().lower() == "charset":
                value = value.strip().strip("'\"")
                try:
                    codecs.lookup(value)
                    return value
                except LookupError:
                    break
    return "utf-8"


_DEFAULT_HEADERS: list[tuple[bytes, bytes]] | None = None


def _httpx_default_headers() -> list[tuple[bytes, bytes]]:
    """The default headers of an httpx client, in its order, without Host (added per URL).
    Taken from httpx itself, once; the ASGI transport spares it loading certificates."""
    global _DEFAULT_HEADERS
    if _DEFAULT_HEADERS is None:
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=None))
        req = client.build_request("GET", "http://sandbox/")
        _DEFAULT_HEADERS = [(k.lower(), v) for k, v in req.headers.raw if k.lower() != b"host"]
    return _DEFAULT_HEADERS


class ASGICall:
    """Send body-less requests to an ASGI app the way httpx.ASGITransport would."""

    def __init__(self, app, user_agent_headers: list[tuple[bytes, bytes]] | None = None):
        self.app = app
        self._urls: dict[str, tuple] = {}
        self._default_headers = user_agent_headers if user_agent_headers is not None else _httpx_default_headers()

    def _url_parts(self, url: str) -> tuple:
        hit = self._urls.get(url)
        if hit is None:
            u = httpx.URL(url)  # the same normalisation httpx applies to the request URL
            host_header = u.netloc.decode("ascii")
            hit = (u.scheme, u.path, u.raw_path.split(b"?")[0], u.query.decode("ascii"), (u.host, u.port), host_header)
            if len(self._urls) >= _URL_CACHE_MAX:
                self._urls.clear()
            self._urls[url] = hit
        return hit

    def scope(self, method: str, url: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        scheme, path, raw_path, base_query, server, host = self._url_parts(url)
        # httpx.Request: URL(url, params=params) replaces the URL's own query when params are given
        query = query_string(params) if params else base_query
        method = method.upper()
        headers = [(b"host", host.encode("ascii"))]
        if method in ("POST", "PUT", "PATCH"):  # httpx adds it to body-less requests of these methods
            headers.append((b"content-length", b"0"))
        return {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "headers": headers + self._default_headers,
            "scheme": scheme,
            "path": path,
            "raw_path": raw_path,
            "query_string": query.encode("ascii"),
            "server": server,
            "client": _CLIENT,
            "root_path": "",
        }

    async def request(self, method: str, url: str, params: dict[str, Any] | None = None) -> ASGIAnswer:
        scope = self.scope(method, url, params)
        status: int | None = None
        raw_headers: list = []
        parts: list[bytes] = []
        done = asyncio.Event()
        sent_body = False

        async def receive() -> dict[str, Any]:
            nonlocal sent_body
            if sent_body:
                await done.wait()
                return {"type": "http.disconnect"}
            sent_body = True
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message) -> None:
            nonlocal status, raw_headers
            if message["type"] == "http.response.start":
                status = message["status"]
                raw_headers = message.get("headers") or []
            elif message["type"] == "http.response.body":
                body = message.get("body", b"")
                if body and scope["method"] != "HEAD":
                    parts.append(body)
                if not message.get("more_body", False):
                    done.set()

        # like ASGITransport(raise_app_exceptions=True): an exception in the app propagates
        await self.app(scope, receive, send)
        assert done.is_set() and status is not None, "the ASGI app returned without a complete response"
        headers = _decode_headers(list(raw_headers))
        content = parts[0] if len(parts) == 1 else b"".join(parts)
        return ASGIAnswer(status, headers, content, content.decode(_charset(headers.get("content-type")), errors="replace"))

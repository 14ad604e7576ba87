"""ResponseMemo: replay the rendered answer to a GET the sandbox has already answered.

Without fault injection the sandbox is deterministic: the world is read-only and its clock is
fixed, so an answer depends only on the method, the path, the query string, (odcloud) the
Authorization header and (services that negotiate the format) the Accept header. Benchmark runs ask the same questions many times (the gold program, the
agent, the scorer's gold; EDGE probes; load tests), and rendering a large answer as XML or JSON
costs more than finding it, so the bytes of each answer are kept (LRU, bounded in bytes).
Server errors, streamed answers and requests with a body are never memoised.
"""

from __future__ import annotations

import threading
from typing import Any

from cachetools import LRUCache


class AnswerStore:
    """The memoised answers (LRU, bounded in bytes); shared by the apps on one world (app.state.answers)."""

    def __init__(self, max_bytes: int = 64 * 2 ** 20):
        self.max_bytes = max_bytes
        self._memo: LRUCache = LRUCache(maxsize=max_bytes, getsizeof=lambda hit: len(hit[1]) + 1)
        self._lock = threading.Lock()

    def get(self, key: tuple) -> tuple[dict, bytes] | None:
        with self._lock:
            return self._memo.get(key)

    def put(self, key: tuple, start: dict, body: bytes) -> None:
        if len(body) > self.max_bytes // 8:  # one huge answer would evict everything else
            return
        with self._lock:
            self._memo[key] = (start, body)

    def __contains__(self, key: tuple) -> bool:
        with self._lock:
            return key in self._memo

    def put_answer(self, key: tuple, status: int, headers: dict[str, str], body: bytes) -> None:
        """Keep an answer rendered elsewhere (a world worker process), read back as a client
        reads it (lower-cased header dict); server errors are not kept, as ResponseMemo keeps none."""
        if status < 500:
            start = {"type": "http.response.start", "status": status,
                     "headers": [(k.encode("utf-8"), v.encode("utf-8")) for k, v in headers.items()]}
            self.put(key, start, body)

    def clear(self) -> None:
        with self._lock:
            self._memo.clear()


def answer_key(scope) -> tuple | None:
    """The memo key of an ASGI request (path, query string, Authorization, Accept), or None for a
    request whose answer is not kept (not a GET, or a GET with a body)."""
    if scope["type"] != "http" or scope["method"] != "GET":
        return None
    auth = accept = b""
    for name, value in scope.get("headers") or ():
        if name == b"content-length" and value not in (b"", b"0") or name == b"transfer-encoding":
            return None  # a GET with a body: not a plain question
        if name == b"authorization":
            auth = value
        elif name == b"accept":
            accept = value
    return scope["path"], scope.get("query_string", b""), auth, accept


class ResponseMemo:
    def __init__(self, app, store: AnswerStore | None = None):
        self.app = app
        self.store = store if store is not None else AnswerStore()

    async def __call__(self, scope, receive, send) -> None:
        key = answer_key(scope)
        if key is None:
            await self.app(scope, receive, send)
            return
        hit = self.store.get(key)
        if hit is not None:
            start, body = hit
            await send(start)
            await send({"type": "http.response.body", "body": body, "more_body": False})
            return
        start_msg: dict[str, Any] = {}
        chunks: list[bytes] = []
        complete = False

        async def capture(message) -> None:
            nonlocal complete
            if message["type"] == "http.response.start":
                start_msg.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    complete = True
            await send(message)

        await self.app(scope, receive, capture)
        status = start_msg.get("status", 500)
        if not complete or status >= 500 or len(chunks) != 1:  # streamed or failed: not a stable answer
            return
        body = chunks[0]
        start = {"type": "http.response.start", "status": status, "headers": list(start_msg.get("headers") or [])}
        self.store.put(key, start, body)

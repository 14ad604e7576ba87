"""A fake OpenAI-compatible server for tests: Starlette + uvicorn on a free local port, in a
thread of the test process, answering /v1/chat/completions with whatever `reply(body)` returns
(a completion body, or (HTTP status, body) to play a failing server)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tests.test_space_helpers import free_port

Reply = Callable[[dict], "dict | tuple[int, dict]"]


def completion(message: dict[str, Any], n: int = 1, model: str | None = None) -> dict[str, Any]:
    """A chat.completion body around one assistant message."""
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return {"id": f"chatcmpl-{n}", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}


@contextmanager
def serving(reply: Reply, port: int | None = None, start_s: float = 20.0) -> Iterator[str]:
    """Yield the server's base URL (`http://127.0.0.1:<port>/v1`; a free port unless given); stop it afterwards."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def chat(request: Request):
        out = reply(await request.json())
        status, body = out if isinstance(out, tuple) else (200, out)
        return JSONResponse(body, status_code=status)

    port = port or free_port()
    server = uvicorn.Server(uvicorn.Config(Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])]),
                                           host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_s
    while not server.started:
        assert time.monotonic() < deadline, "the fake OpenAI server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=10)

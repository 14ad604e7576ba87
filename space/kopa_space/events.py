"""Watch an episode as it happens without a second agent loop.

`run_episode` (kopa_bench.runner.agent) is the only agent loop. The Space wraps the model
backend and the tool client in thin proxies that report every assistant turn and every tool
call to a queue; the Gradio generator drains that queue and redraws the chat.

Episodes run on one long-lived background event loop, not on Gradio's: a local model can
hold the loop for seconds per turn, and cached backends (an httpx client, a loaded model)
must always be used from the loop they were created on.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

# Event kinds, in the order a turn produces them.
MODEL_START = "model_start"  # the model is thinking (turn index)
ASSISTANT = "assistant"  # an AssistantTurn came back
CALL_START = "call_start"  # a tool call was sent (tool, arguments)
CALL_END = "call_end"  # its ToolResult came back
DONE = "done"  # run_episode returned an Episode
FAILED = "failed"  # run_episode (or setup) raised


@dataclass
class Event:
    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    t: float = field(default_factory=time.perf_counter)


Emit = Callable[[Event], None]


class InstrumentedBackend:
    """Delegates to a Backend; reports each `generate` before and after."""

    def __init__(self, inner: Any, emit: Emit):
        self._inner, self._emit, self._turn = inner, emit, 0

    def __getattr__(self, name: str) -> Any:  # kind, model_name, aclose, ...
        return getattr(self._inner, name)

    async def generate(self, messages, tools, **kw):
        turn = self._turn
        self._turn += 1
        self._emit(Event(MODEL_START, {"turn": turn}))
        out = await self._inner.generate(messages, tools, **kw)
        self._emit(Event(ASSISTANT, {"turn": turn, "assistant": out}))
        return out


class InstrumentedClient:
    """Delegates to a KopaClient; reports each call with its arguments, then its result."""

    def __init__(self, inner: Any, emit: Emit):
        self._inner, self._emit = inner, emit
        self._ids = itertools.count()

    def __getattr__(self, name: str) -> Any:  # backend, catalog, aclose, ...
        return getattr(self._inner, name)

    async def call(self, tool: str, arguments: Any = None):
        seq = next(self._ids)
        self._emit(Event(CALL_START, {"seq": seq, "tool": tool, "arguments": arguments}))
        result = await self._inner.call(tool, arguments)
        self._emit(Event(CALL_END, {"seq": seq, "tool": tool, "result": result}))
        return result


class RunnerLoop:
    """One background thread running an asyncio loop, started on first use."""

    _instance: "RunnerLoop | None" = None
    _lock = threading.Lock()

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="kopa-space-runner", daemon=True)
        self.thread.start()

    @classmethod
    def get(cls) -> "RunnerLoop":
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def submit(self, coro):
        """Schedule `coro` on the runner loop; returns a concurrent.futures.Future."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)


async def stream(job: Callable[[Emit], Any]):
    """Run `job(emit)` (a coroutine function) on the runner loop and yield its events live.

    The last event is DONE (data["value"] = the job's return value) or FAILED (data["error"]).
    Leaving the generator early (the browser went away) cancels the job.
    """
    ui_loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Event] = asyncio.Queue()

    def emit(ev: Event) -> None:
        ui_loop.call_soon_threadsafe(queue.put_nowait, ev)

    async def wrapped():
        try:
            value = await job(emit)
        except BaseException as exc:  # reported to the UI, which explains it in plain words
            emit(Event(FAILED, {"error": exc}))
            if not isinstance(exc, Exception):
                raise
        else:
            emit(Event(DONE, {"value": value}))

    fut = RunnerLoop.get().submit(wrapped())
    try:
        while True:
            ev = await queue.get()
            yield ev
            if ev.kind in (DONE, FAILED):
                return
    finally:
        if not fut.done():
            fut.cancel()

"""A canned-response stand-in for KopaClient, for tests of gold programs and scoring.

Routes map (tool, argument subset) -> records. The most specific matching route wins
(the one constraining the most arguments), so a test can give a general answer for a tool
and a special one for particular arguments.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Iterable

from kopa_bench.client.result import ToolErrorInfo, ToolResult


@dataclass
class Route:
    tool: str
    args: dict[str, Any] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)
    total_count: int | None = None
    result_code: str = "00"
    error: dict[str, Any] | None = None  # {"type": "platform", "message": ...} makes the call fail

    def matches(self, tool: str, arguments: dict[str, Any]) -> bool:
        if tool != self.tool:
            return False
        return all(k in arguments and str(arguments[k]).strip() == str(v).strip() for k, v in self.args.items())

    def result(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        if self.error is not None:
            return ToolResult(tool=tool, arguments=dict(arguments), ok=False, result_code=self.error.get("code", "99"), error=ToolErrorInfo(**self.error))
        total = self.total_count if self.total_count is not None else len(self.records)
        code = self.result_code if self.records or self.result_code != "00" else "03"
        msg = "NORMAL_CODE" if self.records else "NODATA_ERROR"
        return ToolResult(tool=tool, arguments=dict(arguments), ok=True, result_code=code, result_msg=msg, total_count=total, records=[dict(r) for r in self.records])


class FakeClient:
    """`await FakeClient(routes).call(tool, args) -> ToolResult`, recording every call.

    Args:
        routes: Route objects or dicts with the Route fields.
        default: what an unmatched call returns: "nodata" (ok, empty, code "03") or "error"
            (an `argument` error naming the tool), so a test can choose strictness.
        delay: seconds each call sleeps, to observe concurrency (see `max_in_flight`).
    """

    backend = "fake"  # what an episode records as its tool backend
    catalog = None  # offered tools come from the default catalog
    world = None

    def __init__(self, routes: Iterable[Route | dict[str, Any]] = (), *, default: str = "nodata", delay: float = 0.0):
        if default not in ("nodata", "error"):
            raise ValueError(f"default={default!r}; use 'nodata' or 'error'")
        self.routes = [r if isinstance(r, Route) else Route(**r) for r in routes]
        self.default = default
        self.delay = delay
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.in_flight = 0
        self.max_in_flight = 0

    def add(self, tool: str, args: dict[str, Any] | None = None, records: list[dict] | None = None, **kw: Any) -> "FakeClient":
        self.routes.append(Route(tool=tool, args=args or {}, records=records or [], **kw))
        return self

    def lookup(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        """The canned result for a call, without recording it."""
        hits = [r for r in self.routes if r.matches(tool, arguments)]
        if hits:
            return max(hits, key=lambda r: len(r.args)).result(tool, arguments)
        if self.default == "error":
            return ToolResult(tool=tool, arguments=dict(arguments), ok=False, error=ToolErrorInfo(type="argument", message=f"no canned result for {tool}({arguments})"))
        return ToolResult(tool=tool, arguments=dict(arguments), ok=True, result_code="03", result_msg="NODATA_ERROR", total_count=0)

    async def call(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        self.calls.append((tool, dict(arguments)))
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
            return self.lookup(tool, arguments)
        finally:
            self.in_flight -= 1

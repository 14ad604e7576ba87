"""`run_episode`: one agent on one task, as a pure coroutine (no files, no logging setup, no UI).

The loop: system prompt + the task's query -> the model answers or calls tools -> calls of one
turn run together (asyncio.gather) through the client -> each result goes back as a `tool`
message -> ... until a turn without calls (the final answer) or the step limit.

Every problem with a call is a *result* the model sees, never an exception: a malformed call
(ParsedCall.error), a tool that does not exist, a tool this task does not offer, arguments that
do not fit the schema, and platform errors all come back as `{"error": {...}}` tool messages and
are recorded in CallRecord.error_kind (and, for the agent's own mistakes, Episode.errors).
"""

from __future__ import annotations

import asyncio
import json
import time
from datetime import datetime
from typing import Any, Protocol

from kopa_bench.catalog import get_catalog, tool_schemas
from kopa_bench.catalog.registry import Catalog
from kopa_bench.client.result import ToolErrorInfo, ToolResult
from kopa_bench.episodes import CallErrorKind, CallRecord, Episode, Timings, Tokens
from kopa_bench.runner.backends.contract import AssistantTurn, Backend, BackendError, ContextOverflowError
from kopa_bench.runner.parsing import ParsedCall
from kopa_bench.clock import KST, WorldClock
from kopa_bench.runner.run_config import RunConfig
from kopa_bench.tasks.task_schema import Task
from kopa_bench.tasks.program import ToolExecutor
from kopa_bench.world.store import World

_WEEKDAYS_KO = "월화수목금토일"

SYSTEM_PROMPT = """당신은 한국 공공데이터 API 도구를 사용하는 에이전트입니다.
You are an agent that answers requests by calling Korean public-data API tools.

- 현재 시각 / current time: {now} (KST, {weekday}요일).
- 필요한 정보는 반드시 도구를 호출해서 확인하세요. 추측하지 마세요. 한 도구의 결과(코드, 이름, 좌표 등)를 다음 도구의 인자로 넘겨야 할 수 있습니다. 서로 독립적인 호출은 한 번에 여러 개를 함께 요청해도 됩니다.
  Get every fact from the tools, never guess; pass values from one result into the next call; independent calls may be issued together in one turn.
- 도구가 오류를 돌려주면 메시지를 읽고 인자를 고쳐 다시 시도하세요.
  If a tool returns an error, read it, fix the call and retry.
- 마지막 답변은 한국어로, 확인한 사실(이름, 수치와 단위, 날짜)을 분명히 적어 주세요.
  Give the final answer in Korean, stating the facts you found (names, numbers with units, dates)."""


class AgentToolClient(ToolExecutor, Protocol):
    """What an episode's tool calls run on (KopaClient, testing.FakeClient): the executor, plus
    the tool backend it records ("live" means real time), the catalog tools are offered from and
    the world it serves (None: the default one)."""

    @property
    def backend(self) -> str: ...
    @property
    def catalog(self) -> Catalog | None: ...
    @property
    def world(self) -> World | None: ...


def world_now(client: AgentToolClient | None = None, clock: Any = None) -> datetime:
    """The 'now' an agent is told: the given clock, else the client's world clock, else the
    default world clock; the real time only for the live backend."""
    if clock is not None:
        return clock.now() if hasattr(clock, "now") else WorldClock(clock).now()
    if client is not None and client.backend == "live":
        return datetime.now(KST)
    world = client.world if client is not None else None
    return world.clock.now() if world is not None else WorldClock().now()


def system_prompt(now: datetime) -> str:
    return SYSTEM_PROMPT.format(now=now.strftime("%Y-%m-%d %H:%M"), weekday=_WEEKDAYS_KO[now.weekday()])


def build_messages(task: Task, now: datetime) -> list[dict[str, Any]]:
    return [{"role": "system", "content": system_prompt(now)}, {"role": "user", "content": task.query}]


def offered_tools(task: Task, catalog: Catalog, lang: str = "both") -> list[dict[str, Any]]:
    """JSON-schema tool definitions for the tools this task offers (a misconfigured task raises)."""
    missing = [t for t in task.tools if t not in catalog]
    if missing:
        raise ValueError(f"task {task.id} offers tools {missing} that are not in the catalog; "
                         "fix the task's `tools` (`kopa bench check-data` lists such problems)")
    return tool_schemas(catalog, list(dict.fromkeys(task.tools)), lang=lang)


def _error_result(tool: str, args: dict | None, kind: str, message: str) -> ToolResult:
    return ToolResult(tool=tool, arguments=args or {}, ok=False, error=ToolErrorInfo(type=kind, message=message))


def _kind(result: ToolResult) -> CallErrorKind | None:
    if result.error is None and result.ok:
        return None
    etype = result.error.type if result.error else "platform"
    return etype if etype in ("parse", "unknown_tool", "argument") else "platform"


async def _execute(call: ParsedCall, offered: set[str], catalog: Catalog, client: ToolExecutor) -> ToolResult:
    """Run one parsed call, turning every agent mistake into an error result."""
    if call.error is not None:
        return _error_result(call.name or "", None, "parse",
                             f"could not parse this tool call: {call.error}. Write the call as a JSON object "
                             '{"name": <tool>, "arguments": {...}}.')
    if call.name not in offered:
        known = "exists but is not offered in this task" if call.name in catalog else "does not exist"
        return _error_result(call.name, call.arguments, "unknown_tool",
                             f"tool {call.name!r} {known}; available tools: {sorted(offered)}")
    try:
        return await client.call(call.name, call.arguments)
    except Exception as exc:  # a client must not raise, but one bad call must not end the episode
        return _error_result(call.name, call.arguments, "platform", f"{type(exc).__name__}: {exc}")


def _unique_ids(turn: AssistantTurn, step: int, seen: set[str]) -> None:
    for i, c in enumerate(turn.tool_calls):
        if not c.id or c.id in seen:
            c.id = f"call_{step}_{i}"
            while c.id in seen:
                c.id += "x"
        seen.add(c.id)


async def run_episode(task: Task, backend: Backend, client: AgentToolClient, *, seed: int = 0,
                      config: RunConfig | None = None, catalog: Catalog | None = None, clock: Any = None,
                      model: str | None = None, backend_label: str | None = None) -> Episode:
    """Run `backend` on `task` (its `tools` offered, its query the user message) with tools
    executed by `client`; returns the finished Episode.

    `config` (default RunConfig()) gives max_steps, temperature, max_tool_records, max_tokens and
    tool_lang; `catalog` and `clock` (WorldClock / ISO string) default to the client's; `model`
    and `backend_label` are recorded (default: the backend's name, the client's backend).
    """
    config = config or RunConfig()
    if config.max_steps < 1:
        raise ValueError(f"max_steps={config.max_steps}; it must be at least 1")
    catalog = catalog or client.catalog or get_catalog()
    if config.tool_lang not in ("both", "ko", "en"):
        raise ValueError(f"tool_lang={config.tool_lang!r}; use both, ko or en")
    tools = offered_tools(task, catalog, config.tool_lang)
    offered = set(task.tools)
    messages = build_messages(task, world_now(client, clock))
    ep = Episode(task_id=task.id, seed=seed, model=model or backend.model_name or type(backend).__name__,
                 backend=backend_label or client.backend, max_tool_records=config.max_tool_records,
                 stop_reason="step_limit")
    timings, tokens = Timings(), Tokens()
    seen_ids: set[str] = set()
    t_start = time.perf_counter()
    for step in range(config.max_steps):
        t0 = time.perf_counter()
        try:
            turn = await backend.generate(messages, tools, temperature=config.temperature, seed=seed,
                                          max_tokens=config.max_tokens)
        except ContextOverflowError as exc:  # the model ran out of room: an ending, not a crash
            timings.model_s += time.perf_counter() - t0
            ep.stop_reason = "context_limit"
            ep.errors.append(f"context window full at step {step}: {exc}")
            break
        except (BackendError, asyncio.TimeoutError, OSError) as exc:  # the server, not the model: retried on rerun
            timings.model_s += time.perf_counter() - t0
            ep.stop_reason = "infra_error"
            ep.errors.append(f"backend failed at step {step}: {type(exc).__name__}: {exc}")
            break
        timings.model_s += time.perf_counter() - t0
        tokens.prompt += turn.usage.prompt_tokens
        tokens.completion += turn.usage.completion_tokens
        ep.steps = step + 1
        _unique_ids(turn, step, seen_ids)
        messages.append(turn.to_message(arguments_as="json"))
        if not turn.tool_calls:
            ep.final_answer = turn.content.strip()
            ep.stop_reason = "answer"
            break
        ep.final_answer = turn.content.strip()  # kept if the step limit ends the episode
        t1 = time.perf_counter()
        results = await asyncio.gather(*(_execute(c, offered, catalog, client) for c in turn.tool_calls))
        timings.tools_s += time.perf_counter() - t1
        for c, result in zip(turn.tool_calls, results):
            kind = _kind(result)
            ep.calls.append(CallRecord(id=c.id, turn=step, tool=c.name, arguments=c.arguments,
                                       raw_arguments=c.raw or json.dumps(c.arguments or {}, ensure_ascii=False),
                                       result=result, error_kind=kind))
            if kind in ("parse", "unknown_tool", "argument"):
                ep.errors.append(f"turn {step} {c.id} {kind}: {result.error.message if result.error else ''}"[:300])
            messages.append({"role": "tool", "tool_call_id": c.id, "name": c.name,
                             "content": result.for_model(config.max_tool_records)})
    timings.total_s = time.perf_counter() - t_start
    ep.messages, ep.timings, ep.tokens = messages, timings, tokens
    return ep

"""Scripted agents: reference points that need no model.

oracle      runs the gold program through the runner's own tool loop (one assistant turn per
            parallel group, with that group's calls) and answers stating every gold fact. Its
            success rate is the benchmark's ceiling on a backend: below 1.0 means the tasks, the
            gold or the scorer are broken, not the agent.
no-tool     answers at once with a vague guess and no calls (the floor: success 0).
first-call  makes only the first gold call, then answers with what that call alone supports
            (success 0 on any task that needs a second call).

The backends learn the task from the user message (the task's query). `bind(tasks, client)`
gives them the task list and the client the gold program runs on (the benchmark runner binds
its scoring client, then scores with the agent's own gold runs: `shared_gold`); unbound, they load
every split's tasks and use an in-process sandbox client.
"""

from __future__ import annotations

import asyncio
import json
from itertools import groupby
from typing import Any, Iterable

from kopa_bench.runner.backends.contract import DEFAULT_MAX_TOKENS, AssistantTurn, Backend
from kopa_bench.runner.parsing import ParsedCall
from kopa_bench.tasks.facts import ResolvedFact, compute_answer
from kopa_bench.tasks.task_schema import Task
from kopa_bench.tasks.program import GoldRun, StepRun, ToolExecutor, execute_program

MAX_ATTEMPTS = 3  # an oracle retries a failed call (e.g. an injected fault) this often


def format_fact(f: ResolvedFact) -> str:
    """One answer line that the scorer's normaliser reads as stating `f`."""
    if f.kind == "bool":
        yes = f.value if isinstance(f.value, bool) else str(f.value).strip().lower() in ("true", "y", "1")
        return f"- {f.context or f.description}: {'예' if yes else '아니오'}"
    if f.kind == "list":  # as a person lists them: "현미밥, 돼지불고기, 배추김치"
        unit = f" {f.unit}" if f.unit and f.item_kind == "number" else ""
        return f"- {f.description}: " + ", ".join(f"{_plain(v)}{unit}" for v in f.value)
    return f"- {f.description}: {_plain(f.value)}{' ' + f.unit if f.unit and f.kind == 'number' else ''}"


def _plain(value: Any) -> Any:
    return int(value) if isinstance(value, float) and value.is_integer() else value


def answer_text(facts: Iterable[ResolvedFact], head: str = "도구로 조회한 결과를 정리했습니다.") -> str:
    return "\n".join([head, *(format_fact(f) for f in facts)])


class ScriptedBackend(Backend):
    """Base for scripted agents: task lookup by query, cached gold runs, call bookkeeping."""

    spec = ""  # the backend spec naming this agent

    def __init__(self, name: str, tasks: Iterable[Task] | None = None, client: ToolExecutor | None = None):
        self.model_name = name
        self._tasks: dict[str, Task] = {}
        self._client = client
        self._gold: dict[str, tuple[GoldRun | None, list[ResolvedFact], str]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        if tasks is not None:
            self.bind(tasks, client)

    @classmethod
    def from_spec(cls, rest: str = "", **kw: Any) -> ScriptedBackend:
        return cls(cls.spec, **kw)

    def bind(self, tasks: Iterable[Task], client: ToolExecutor | None = None) -> ScriptedBackend:
        """Give the agent its tasks (found by query) and the client its gold program runs on."""
        for t in tasks:
            self._tasks[t.query.strip()] = t
        if client is not None:
            self._client = client
        return self

    def _task(self, messages: list[dict]) -> Task:
        query = next((m.get("content", "") for m in messages if m.get("role") == "user"), "").strip()
        if query not in self._tasks:
            from kopa_bench.tasks.task_schema import load_tasks

            for split in ("test", "dev"):
                self.bind(load_tasks(split))
        try:
            return self._tasks[query]
        except KeyError:
            raise ValueError(f"{self.model_name}: no known task has the query {query[:60]!r}; "
                             "bind the tasks with backend.bind(tasks)") from None

    async def gold(self, task: Task) -> tuple[GoldRun | None, list[ResolvedFact], str]:
        """(gold run, facts, error) for `task`, executed once per backend."""
        lock = self._locks.setdefault(task.id, asyncio.Lock())
        async with lock:
            if task.id not in self._gold:
                if self._client is None:
                    from kopa_bench.client import KopaClient

                    self._client = KopaClient("sandbox")
                try:
                    run = await execute_program(task, self._client)
                    self._gold[task.id] = (run, compute_answer(task, run), "")
                except Exception as exc:  # reported in the answer; the scorer re-runs gold itself
                    self._gold[task.id] = (None, [], f"{type(exc).__name__}: {exc}")
            return self._gold[task.id]

    async def shared_gold(self, task: Task) -> tuple[GoldRun, list[ResolvedFact]] | None:
        """This agent's gold run of `task` on the client it is bound to, for a scorer using that
        same client (same calls, same clock), which then need not execute every gold call again;
        None when the program failed (the scorer runs it itself and reports why)."""
        run, facts, _ = await self.gold(task)
        return None if run is None else (run, facts)

    @staticmethod
    def history(messages: list[dict]) -> tuple[set[str], dict[str, int]]:
        """(steps whose call succeeded, attempts per step) from ids `call_<step>_t<turn>`."""
        step_of: dict[str, str] = {}
        attempts: dict[str, int] = {}
        done: set[str] = set()
        for m in messages:
            if m.get("role") == "assistant":
                for tc in m.get("tool_calls") or []:
                    cid = tc.get("id", "")
                    if cid.startswith("call_") and "_t" in cid:
                        sid = cid[5:cid.rindex("_t")]
                        step_of[cid] = sid
                        attempts[sid] = attempts.get(sid, 0) + 1
            elif m.get("role") == "tool" and m.get("tool_call_id") in step_of:
                try:
                    ok = "error" not in json.loads(m.get("content") or "{}")
                except json.JSONDecodeError:
                    ok = False
                if ok:
                    done.add(step_of[m["tool_call_id"]])
        return done, attempts

    @staticmethod
    def calls_for(steps: list[StepRun], turn: int) -> list[ParsedCall]:
        return [ParsedCall(id=f"call_{s.step_id}_t{turn}", name=s.tool, arguments=dict(s.args),
                           raw=json.dumps(s.args, ensure_ascii=False)) for s in steps]


class OracleBackend(ScriptedBackend):
    spec = "oracle"

    async def generate(self, messages, tools, *, temperature=0.0, seed=None, max_tokens=DEFAULT_MAX_TOKENS) -> AssistantTurn:
        task = self._task(messages)
        run, facts, error = await self.gold(task)
        if run is None:
            return AssistantTurn(content=f"정답 프로그램을 실행하지 못했습니다 ({error}).")
        done, attempts = self.history(messages)
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        for _, group in groupby(run.executed, key=lambda s: s.group):
            todo = [s for s in group if s.step_id not in done]
            if todo:
                retry = [s for s in todo if attempts.get(s.step_id, 0) < MAX_ATTEMPTS]
                if not retry:
                    break  # give up on this group; answer with what there is
                return AssistantTurn(content="", tool_calls=self.calls_for(retry, turn))
        return AssistantTurn(content=answer_text(facts))


class NoToolBackend(ScriptedBackend):
    spec = "no-tool"

    async def generate(self, messages, tools, *, temperature=0.0, seed=None, max_tokens=DEFAULT_MAX_TOKENS) -> AssistantTurn:
        self._task(messages)  # fail loudly on an unknown query, like the others
        return AssistantTurn(content="도구를 쓰지 않고 일반적인 경향으로 추정해 답변드리면, 대체로 보통 수준일 것으로 보입니다. "
                                     "정확한 값은 해당 기관의 공식 자료를 확인해 주세요.")


class FirstCallBackend(ScriptedBackend):
    spec = "first-call"

    async def generate(self, messages, tools, *, temperature=0.0, seed=None, max_tokens=DEFAULT_MAX_TOKENS) -> AssistantTurn:
        task = self._task(messages)
        run, facts, error = await self.gold(task)
        if run is None or not run.executed:
            return AssistantTurn(content=f"조회를 진행하지 못했습니다 ({error or 'no gold step'}).")
        first = run.executed[0]
        _, attempts = self.history(messages)
        if not attempts:
            return AssistantTurn(content="", tool_calls=self.calls_for([first], 0))
        # state only what the first call alone supports
        own = [f for f in facts if f.sources and all(s.step == first.step_id for s in f.sources)]
        if own:
            return AssistantTurn(content=answer_text(own, "첫 번째 조회 결과만으로 답변드립니다."))
        return AssistantTurn(content="첫 번째 조회 결과를 받았지만 추가 조회를 하지 않아 최종 답은 확인하지 못했습니다.")

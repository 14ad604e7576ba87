"""run_episode and the scripted agents on the fixture tasks (real tools on the sandbox)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from kopa_bench.runner.agent import run_episode
from kopa_bench.runner.backends import DEFAULT_MAX_TOKENS, AssistantTurn, Backend, make_backend
from kopa_bench.runner.parsing import ParsedCall
from kopa_bench.runner.run_config import RunConfig
from kopa_bench.scoring import score_episode
from kopa_bench.tasks import compute_answer, execute_program, parse_tasks
from kopa_bench.testing.fake_client import FakeClient

FIXTURE = Path(__file__).parent / "data" / "tasks_fixture.json"


@pytest.fixture(scope="module")
def tasks():
    return parse_tasks(json.loads(FIXTURE.read_text(encoding="utf-8")), str(FIXTURE))


def _run_and_score(task, backend, client, **kw):
    async def go():
        ep = await run_episode(task, backend, client, **kw)
        gold = await execute_program(task, client)
        return ep, score_episode(task, gold, ep, compute_answer(task, gold), visible_records=ep.max_tool_records)

    return asyncio.run(go())


@pytest.mark.parametrize("name,expected", [("oracle", True), ("no-tool", False), ("first-call", False)])
def test_scripted_agents(tasks, client, name, expected) -> None:
    backend = make_backend(name).bind(tasks, client)
    for task in tasks:
        ep, score = _run_and_score(task, backend, client)
        assert score.success is expected, (name, task.id, score.diagnosis, ep.final_answer)
        assert ep.stop_reason == "answer" and not ep.errors
        if name == "oracle":
            # one assistant turn per parallel group, each with that group's calls, then the answer
            groups = sorted({s.group for s in task.program})
            assert ep.steps == len(groups) + 1 and len(ep.calls) == task.n_calls
            assert [sorted(c.tool for c in ep.calls if c.turn == i) for i in range(len(groups))] == \
                   [sorted(s.tool for s in task.program if s.group == g) for g in groups]
            assert score.action_recall == 1.0 and score.data_flow in (1.0, None)
        elif name == "no-tool":
            assert ep.calls == [] and ep.steps == 1 and score.grounded == 0.0
        else:
            assert len(ep.calls) == 1 and ep.calls[0].tool == task.program[0].tool


class Scripted(Backend):
    """Replays fixed turns and records the messages it was shown."""

    def __init__(self, turns):
        self.turns, self.seen = list(turns), []

    async def generate(self, messages, tools, *, temperature=0.0, seed=None, max_tokens=DEFAULT_MAX_TOKENS):
        self.seen.append([dict(m) for m in messages])
        self.tools = tools
        return self.turns.pop(0) if self.turns else AssistantTurn(content="끝")


def test_bad_calls_become_tool_errors(tasks, client, catalog) -> None:
    task = tasks[0]
    not_offered = next(t for t in catalog.tool_names if t not in task.tools) if len(catalog) > len(task.tools) else None
    calls = [
        ParsedCall(id="a", name="", arguments=None, raw='{"name": "airkorea_getTMStdrCrdnt", "arguments": {umdName', error="invalid JSON"),
        ParsedCall(id="b", name="airkorea_doesNotExist", arguments={"x": 1}, raw='{"x": 1}'),
        ParsedCall(id="c", name="airkorea_getTMStdrCrdnt", arguments={"wrong": "혜화동"}, raw='{"wrong": "혜화동"}'),
        ParsedCall(id="d", name="airkorea_getTMStdrCrdnt", arguments={"umdName": "혜화동"}, raw='{"umdName": "혜화동"}'),
    ]
    if not_offered:
        calls.append(ParsedCall(id="e", name=not_offered, arguments={}, raw="{}"))
    backend = Scripted([AssistantTurn(tool_calls=calls), AssistantTurn(content="종로구입니다.")])
    ep = asyncio.run(run_episode(task, backend, client))
    assert ep.stop_reason == "answer" and ep.final_answer == "종로구입니다." and ep.steps == 2
    kinds = [c.error_kind for c in ep.calls]
    assert kinds[:4] == ["parse", "unknown_tool", "argument", None]
    if not_offered:
        assert kinds[4] == "unknown_tool" and "not offered" in ep.calls[4].result.error.message
    assert len(ep.errors) == len(calls) - 1 and ep.error_counts["unknown_tool"] == 1 + bool(not_offered)
    # the model saw one tool message per call, errors as {"error": ...}, the good call's items
    tool_msgs = [m for m in backend.seen[1] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_msgs] == [c.id for c in calls]
    bodies = [json.loads(m["content"]) for m in tool_msgs]
    assert [("error" in b) for b in bodies] == [True, True, True, False] + [True] * bool(not_offered)
    assert bodies[2]["error"]["type"] == "argument" and bodies[3]["items"][0]["umdName"] == "혜화동"
    # offered tools are the task's, as JSON schemas; the system prompt carries the world clock
    assert sorted(t["function"]["name"] for t in backend.tools) == sorted(task.tools)
    assert "2026-11-30 09:00" in backend.seen[0][0]["content"]


def test_parallel_calls_run_concurrently_and_step_limit(tasks) -> None:
    task = tasks[2]
    fake = FakeClient([{"tool": "airkorea_getCtprvnRltmMesureDnsty", "records": [{"stationName": "중구", "pm10Value": "80"}]}], delay=0.2)
    group = [ParsedCall(id=f"p{i}", name="airkorea_getCtprvnRltmMesureDnsty", arguments={"sidoName": s}, raw="{}")
             for i, s in enumerate(["서울", "부산", "대구"])]
    backend = Scripted([AssistantTurn(tool_calls=group)] * 5)
    ep = asyncio.run(run_episode(task, backend, fake, config=RunConfig(max_steps=2)))
    assert fake.max_in_flight == 3  # the three calls of one turn were in flight together
    assert ep.stop_reason == "step_limit" and ep.steps == 2 and len(ep.calls) == 6
    assert ep.timings.tools_s < 2 * 0.2 * 3 * 0.9  # two turns of 0.2 s each, not six sequential calls
    assert len({c.id for c in ep.calls}) == 6  # repeated model ids made unique


class Overflowing(Scripted):
    """Makes one good call, then the conversation no longer fits the context window."""

    async def generate(self, messages, tools, *, temperature=0.0, seed=None, max_tokens=DEFAULT_MAX_TOKENS):
        if self.turns:
            return await super().generate(messages, tools)
        from kopa_bench.runner.backends import ContextOverflowError

        raise ContextOverflowError("the prompt is 33302 tokens and the context window 32768; fix: ...")


def test_context_overflow_ends_the_episode_and_keeps_its_calls(tasks, client) -> None:
    task = tasks[0]
    call = ParsedCall(id="d", name="airkorea_getTMStdrCrdnt", arguments={"umdName": "혜화동"}, raw='{"umdName": "혜화동"}')
    ep, score = _run_and_score(task, Overflowing([AssistantTurn(tool_calls=[call])]), client)
    assert ep.stop_reason == "context_limit" and ep.steps == 1
    assert [c.tool for c in ep.calls] == ["airkorea_getTMStdrCrdnt"] and ep.calls[0].error_kind is None
    assert "33302" in ep.errors[-1] and not score.success
    assert score.action_recall > 0  # the call it made before running out of room still counts

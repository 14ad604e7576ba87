"""Golden scorer cases: each JSON file holds a task, a canned world, a trajectory and the scores it must get."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kopa_bench.client.result import ToolErrorInfo, ToolResult
from kopa_bench.episodes import CallRecord, Episode
from kopa_bench.scoring.episode_score import score_episode
from kopa_bench.tasks.facts import compute_answer
from kopa_bench.tasks.task_schema import Task
from kopa_bench.tasks.program import execute_program_sync
from kopa_bench.testing.fake_client import FakeClient

CASES = sorted((Path(__file__).parent / "data" / "scorer_golden").glob("*.json"))


def _result(c: dict, client: FakeClient) -> ToolResult:
    """The canned result of a call, or the error it came back with (`error`: a ToolErrorInfo)."""
    if "error" in c:
        return ToolResult(tool=c["tool"], arguments=c["arguments"], ok=False, error=ToolErrorInfo(**c["error"]))
    return client.lookup(c["tool"], c["arguments"])


def _episode(spec: dict, client: FakeClient) -> Episode:
    calls = [
        CallRecord(id=f"call_{i}", turn=i, tool=c["tool"], arguments=c["arguments"], error_kind=c.get("error_kind"),
                   raw_arguments=json.dumps(c["arguments"], ensure_ascii=False), result=_result(c, client))
        for i, c in enumerate(spec.pop("calls"))
    ]
    return Episode(calls=calls, **spec)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_golden(path: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    task = Task.model_validate(case["task"])
    client = FakeClient(case["world"])
    gold = execute_program_sync(task, client, clock=case["clock"])
    score = score_episode(task, gold, _episode(case["episode"], client), compute_answer(task, gold))
    got = score.model_dump()
    for key, want in case["expected"].items():
        assert got[key] == pytest.approx(want), f"{path.stem}: {key} = {got[key]}, expected {want}; diagnosis: {score.diagnosis}"
    for needle in case["expected_diagnosis"]:
        assert any(needle in d for d in score.diagnosis), f"{path.stem}: no diagnosis line contains {needle!r}: {score.diagnosis}"
    json.loads(score.model_dump_json())  # scores serialise

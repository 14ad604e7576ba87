"""Partial gold runs (`execute_program(..., partial=True)`): a program that fails part way returns
what ran, the failed call last with its error result, and says why it stopped; without `partial`
the same program raises, the error carrying the failed call's run."""

from __future__ import annotations

import asyncio

import pytest

from kopa_bench.tasks.program import ProgramError, execute_program
from kopa_bench.testing.fake_client import FakeClient
from tests.test_program import CLOCK, task

SEQ = [
    {"id": "s1", "tool": "air_tm", "args": {"umdName": "성수동"}, "group": 0},
    {"id": "s2", "tool": "air_near", "args": {"tmX": "$s1.items[0].tmX"}, "group": 1},
    {"id": "s3", "tool": "air_station", "args": {"stationName": "$s2.items[0].stationName"}, "group": 2},
]
BAD_ARG = {"type": "argument", "message": "tmX is not a TM coordinate"}


def run(program, client, **kw):
    return asyncio.run(execute_program(task(program), client, clock=CLOCK, **kw))


def test_a_failed_second_call_stops_the_run_and_is_its_last_step() -> None:
    client = FakeClient([{"tool": "air_tm", "records": [{"tmX": "203000"}]},
                         {"tool": "air_near", "error": BAD_ARG},
                         {"tool": "air_station", "records": [{"pm10Value": "1"}]}])
    gold = run(SEQ, client, partial=True)
    assert [s.step_id for s in gold.steps] == ["s1", "s2"]
    assert [t for t, _ in client.calls] == ["air_tm", "air_near"]  # s3 never ran
    last = gold.steps[-1]
    assert last.args == {"tmX": "203000"} and not last.ok
    assert last.result.error.type == "argument" and last.result.error.message == BAD_ARG["message"]
    assert gold.stopped and "step s2" in gold.stopped and BAD_ARG["message"] in gold.stopped
    assert [s.step_id for s in gold.executed] == ["s1", "s2"]  # the failed call counts as a call made
    assert gold.step("s1").ok and gold.step("s1").records == [{"tmX": "203000"}]


def test_without_partial_the_failure_raises_with_the_failed_run() -> None:
    client = FakeClient([{"tool": "air_tm", "records": [{"tmX": "203000"}]}, {"tool": "air_near", "error": BAD_ARG}])
    with pytest.raises(ProgramError, match="step s2") as info:
        run(SEQ, client)
    failed = info.value.run
    assert failed is not None and failed.step_id == "s2" and failed.tool == "air_near"
    assert failed.args == {"tmX": "203000"} and failed.result.error.message == BAD_ARG["message"]


def test_a_reference_into_an_empty_result_stops_there() -> None:
    """s1 comes back empty: s2's `$s1.items[0].tmX` has nothing to read, so the run stops before
    calling s2; no call failed, so the last step is s1 with its empty result."""
    client = FakeClient([])  # every call: ok, no records
    gold = run(SEQ, client, partial=True)
    assert [s.step_id for s in gold.steps] == ["s1"] and gold.step("s1").ok and gold.step("s1").records == []
    assert [t for t, _ in client.calls] == ["air_tm"]
    assert gold.stopped and "$s1.items[0].tmX" in gold.stopped and "out of range" in gold.stopped
    with pytest.raises(ProgramError, match=r"\$s1.items\[0\].tmX") as info:
        run(SEQ, FakeClient([]))
    assert info.value.run is None  # not a failed call: nothing to carry


def test_a_complete_run_is_not_stopped() -> None:
    client = FakeClient([{"tool": "air_tm", "records": [{"tmX": "1"}]}, {"tool": "air_near", "records": [{"stationName": "a"}]},
                         {"tool": "air_station", "records": [{"pm10Value": "1"}]}])
    full, part = run(SEQ, client), run(SEQ, client, partial=True)
    assert full.stopped is None and part.stopped is None
    assert [s.model_dump() for s in part.steps] == [s.model_dump() for s in full.steps]


def test_a_failure_in_a_parallel_group_keeps_its_siblings_and_is_deterministic() -> None:
    """s2 and s3 run together and s2 fails: s3's call was made too, so the partial run keeps it, and
    the failed call is last. With two failures the first in program order is reported, however
    the calls' timing falls."""
    prog = [SEQ[0],
            {"id": "s2", "tool": "air_near", "args": {"tmX": "$s1.items[0].tmX"}, "group": 1},
            {"id": "s3", "tool": "tour_loc", "args": {"mapX": "$s1.items[0].tmX"}, "group": 1}]
    client = FakeClient([{"tool": "air_tm", "records": [{"tmX": "1"}]}, {"tool": "air_near", "error": BAD_ARG},
                         {"tool": "tour_loc", "records": [{"title": "서울숲"}]}])
    gold = run(prog, client, partial=True)
    assert [s.step_id for s in gold.steps] == ["s1", "s3", "s2"] and gold.step("s3").records == [{"title": "서울숲"}]
    assert not gold.steps[-1].ok and "step s2" in gold.stopped

    class SlowFirst(FakeClient):
        async def call(self, tool, arguments):
            if tool == "air_near":  # s2 fails last in time
                await asyncio.sleep(0.05)
            return await super().call(tool, arguments)

    both = SlowFirst([{"tool": "air_tm", "records": [{"tmX": "1"}]}], default="error")
    assert "step s2" in run(prog, both, partial=True).stopped
    with pytest.raises(ProgramError, match="step s2"):
        run(prog, both)

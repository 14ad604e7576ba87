"""Gold program executor: references, picks, conditions, transforms, parallel groups, clock, errors."""

from __future__ import annotations

import asyncio
import json

import pytest

from kopa_bench.tasks.facts import FactError, compute_answer
from kopa_bench.tasks.task_schema import Task, TaskFileError, parse_tasks
from kopa_bench.tasks.program import ProgramError, execute_program, execute_program_sync
from kopa_bench.tasks.refs import RefError, clock_value, parse_ref
from kopa_bench.testing.fake_client import FakeClient
from kopa_bench.transforms import TRANSFORMS, Transform

CLOCK = "2026-11-30T14:20:00+09:00"
TOOLS = ["air_tm", "air_near", "air_station", "tour_loc", "tour_area", "air_fcst"]


@pytest.fixture(autouse=True)
def _transforms(monkeypatch):
    # simple stand-ins, scoped to each test so they never shadow kopa_bench.transforms elsewhere
    for name, fn, params in (("tm_to_wgs84_x", lambda v: round(float(v) / 1000, 3), ()),
                             ("prefix", lambda v, n=5: str(v)[:n], ("n",))):
        monkeypatch.setitem(TRANSFORMS, name, Transform(name, "test stand-in", "any", "any", fn, params))


def task(program: list[dict], answer: list[dict] | None = None, **kw) -> Task:
    base = dict(id="kopa-dev-900", split="dev", query="성수동 근처 미세먼지", domain="district", platforms=["airkorea"],
                shape="conditional", difficulty="hard", tools=TOOLS, program=program,
                answer=answer or [{"id": "f1", "description": "x", "value": "$s1.count", "kind": "number"}])
    base.update(kw)
    return Task.model_validate(base)


# The conditional example from task-examples.md (#6), shortened: grade decides the content type.
COND = [
    {"id": "s1", "tool": "air_tm", "args": {"umdName": "성수동"}, "group": 0, "pick": {"contains": {"sggName": "성동구"}}},
    {"id": "s2", "tool": "air_near", "args": {"tmX": "$s1.picked.tmX", "tmY": "$s1.picked.tmY"}, "group": 1},
    {"id": "s3", "tool": "air_station", "args": {"stationName": "$s2.items[0].stationName", "dataTerm": "DAILY"}, "group": 2},
    {"id": "s4", "tool": "tour_loc", "args": {"contentTypeId": 14, "mapX": {"$ref": "$s1.picked.tmX", "transform": "tm_to_wgs84_x"}},
     "group": 3, "condition": {"ref": "$s3.items[0].pm10Grade", "op": ">=", "value": 3}},
    {"id": "s5", "tool": "tour_loc", "args": {"contentTypeId": 12, "mapX": {"$ref": "$s1.picked.tmX", "transform": "tm_to_wgs84_x"}},
     "group": 3, "condition": {"ref": "$s3.items[0].pm10Grade", "op": "<", "value": 3}},
    {"id": "s6", "tool": "tour_area", "args": {"title": "{$s4.items[0].title} 주변"}, "group": 4},
]
ANSWER = [
    {"id": "f1", "description": "측정소", "value": "$s2.items[0].stationName"},
    {"id": "f2", "description": "장소", "value": {"compute": "coalesce", "of": ["$s4.items[0].title", "$s5.items[0].title"]}},
    {"id": "f3", "description": "실내", "value": {"compute": "ran", "step": "s4"}, "kind": "bool"},
]


def world(grade: str) -> FakeClient:
    return FakeClient([
        {"tool": "air_tm", "records": [{"sggName": "경기 광주시", "tmX": "1", "tmY": "2"}, {"sggName": "서울 성동구", "tmX": "203000", "tmY": "451000"}]},
        {"tool": "air_near", "args": {"tmX": "203000"}, "records": [{"stationName": "성동구"}, {"stationName": "광진구"}]},
        {"tool": "air_station", "args": {"stationName": "성동구"}, "records": [{"pm10Grade": grade, "pm10Value": "120"}]},
        {"tool": "tour_loc", "args": {"contentTypeId": "14"}, "records": [{"title": "성수 갤러리"}]},
        {"tool": "tour_loc", "args": {"contentTypeId": "12"}, "records": [{"title": "서울숲"}]},
        {"tool": "tour_area", "records": [{"title": "x"}]},
    ])


@pytest.mark.parametrize("grade,ran,skipped,place", [("3", "s4", {"s5"}, "성수 갤러리"), ("1", "s5", {"s4", "s6"}, "서울숲")])
def test_conditional_branches(grade, ran, skipped, place) -> None:
    t = task(COND, ANSWER)
    gold = execute_program_sync(t, world(grade))
    assert {s.step_id for s in gold.steps if s.skipped} == skipped  # s6 reads s4: skipped with it
    assert gold.step(ran).args == {"contentTypeId": int(ran == "s4") * 2 + 12, "mapX": 203.0}
    facts = {f.id: f.value for f in compute_answer(t, gold)}
    assert facts == {"f1": "성동구", "f2": place, "f3": ran == "s4"}
    edges = {(e.step, e.arg): (e.source_step, e.transform) for e in gold.edges}
    assert edges[("s2", "tmX")] == ("s1", None) and edges[(ran, "mapX")] == ("s1", "tm_to_wgs84_x")
    if ran == "s4":
        assert gold.step("s6").args == {"title": "성수 갤러리 주변"} and gold.step("s6").edges[0].template


def test_parallel_group_runs_concurrently_with_clock() -> None:
    prog = [
        {"id": "s1", "tool": "air_tm", "args": {"umdName": "성수동"}, "group": 0},
        {"id": "s2", "tool": "air_near", "args": {"code": {"$ref": "$s1.items[0].code", "transform": "prefix", "args": {"n": 5}},
                                                  "ym": {"$clock": "this_month"}}, "group": 1},
        {"id": "s3", "tool": "air_near", "args": {"code": {"$ref": "$s1.items[0].code", "transform": "prefix"},
                                                  "ym": {"$clock": "last_month"}}, "group": 1},
    ]
    client = FakeClient([{"tool": "air_tm", "records": [{"code": "1120000000"}]}], delay=0.05)
    t = task(prog, shape="fan-out")
    assert [[s.id for s in g] for g in t.parallel_groups] == [["s2", "s3"]] and t.has_parallel and t.n_calls == 3
    gold = asyncio.run(execute_program(t, client, clock=CLOCK))
    assert client.max_in_flight == 2
    assert gold.step("s2").args == {"code": "11200", "ym": "202611"} and gold.step("s3").args["ym"] == "202610"


def test_pick_argmax_skips_dash_and_where_ref() -> None:
    prog = [
        {"id": "s1", "tool": "air_tm", "args": {}, "group": 0, "pick": {"argmax": "pm25Value"}},
        {"id": "s2", "tool": "air_near", "args": {}, "group": 1, "pick": {"where": {"sido": "$s1.picked.sido"}, "argmin": "v"}},
    ]
    client = FakeClient([
        {"tool": "air_tm", "records": [{"sido": "경기", "pm25Value": "-"}, {"sido": "서울", "pm25Value": "9"}, {"sido": "경기", "pm25Value": "12"}]},
        {"tool": "air_near", "records": [{"sido": "서울", "v": "1"}, {"sido": "경기", "v": "7"}, {"sido": "경기", "v": "5"}]},
    ])
    gold = execute_program_sync(task(prog), client)
    assert gold.step("s1").picked_index == 2 and gold.step("s2").picked == {"sido": "경기", "v": "5"}


def test_pick_near_and_contains_by_reference() -> None:
    """A client-side filter on a later step: the record nearest an earlier step's point, or the
    one whose name contains an earlier step's name (both references)."""
    prog = [
        {"id": "s1", "tool": "air_tm", "args": {}, "group": 0},
        {"id": "s2", "tool": "air_near", "args": {}, "group": 1,
         "pick": {"near": {"lat": "$s1.items[0].y", "lon": "$s1.items[0].x", "lat_field": "la", "lon_field": "lo",
                           "max_km": 2}}},
        {"id": "s3", "tool": "tour_area", "args": {}, "group": 1, "pick": {"contains": {"STAT_NAME": "$s1.items[0].name"}}},
    ]
    client = FakeClient([
        {"tool": "air_tm", "records": [{"x": "127.0016", "y": "37.5820", "name": "기준금리"}]},
        {"tool": "air_near", "records": [{"n": "청운", "la": "37.5775", "lo": "126.9758"}, {"n": "없음", "la": "-", "lo": "-"},
                                         {"n": "혜화", "la": "37.5822", "lo": "127.0019"}]},
        {"tool": "tour_area", "records": [{"STAT_NAME": "2.1 국민계정"}, {"STAT_NAME": "1.3.1 한국은행 기준금리 및 여수신금리"}]},
    ])
    gold = execute_program_sync(task(prog), client)
    assert gold.step("s2").picked["n"] == "혜화" and gold.step("s3").picked_index == 1
    # s2 and s3 read s1: the dependency is seen in pick.near / pick.contains too
    with pytest.raises(ValueError, match="same group"):
        task([{"id": "s1", "tool": "air_tm", "args": {}}, dict(prog[1], group=0)])
    far = [prog[0], dict(prog[1], pick={"near": dict(prog[1]["pick"]["near"], max_km=0.01)})]
    assert execute_program_sync(task(far), client).step("s2").picked is None


def test_refs_and_clock_values() -> None:
    r = parse_ref("$s2.items[*].pm25Value")
    assert r.step == "s2" and r.path == ("items", "*", "pm25Value")
    with pytest.raises(RefError, match="valid roots"):
        parse_ref("$s2.rows[0].x")
    with pytest.raises(RefError, match="malformed"):
        parse_ref("$s2..x")
    assert clock_value("now_kma_base_time", CLOCK) == "1400"
    assert clock_value("now_kma_base_date", "2026-12-01T01:00:00") == "20261130"
    assert clock_value("last_month", "2026-01-15T00:00:00") == "202512"


def test_validation_errors_name_the_problem() -> None:
    with pytest.raises(ValueError, match="not an earlier step"):
        task([{"id": "s1", "tool": "air_tm", "args": {"x": "$s2.items[0].a"}}])
    with pytest.raises(ValueError, match="same group"):
        task([{"id": "s1", "tool": "air_tm", "args": {}}, {"id": "s2", "tool": "air_tm", "args": {"x": "$s1.count"}}])
    with pytest.raises(ValueError, match="not in `tools`"):
        task([{"id": "s1", "tool": "nope", "args": {}}])
    with pytest.raises(ValueError, match="at least 5"):
        task([{"id": "s1", "tool": "air_tm", "args": {}}], tools=TOOLS[:3])
    with pytest.raises(ValueError, match="groups must not decrease"):
        task([{"id": "s1", "tool": "air_tm", "args": {}, "group": 1}, {"id": "s2", "tool": "air_tm", "args": {}, "group": 0}])
    with pytest.raises(TaskFileError, match="x.json: task kopa-dev-900"):
        parse_tasks([json.loads(task(COND, ANSWER).model_dump_json()) | {"tools": []}], "x.json")


def test_missing_values_fail_loudly() -> None:
    t = task([{"id": "s1", "tool": "air_tm", "args": {}}, {"id": "s2", "tool": "air_near", "args": {"s": "$s1.items[0].stationName"}, "group": 1}])
    with pytest.raises(ProgramError, match=r"step s2.*returned 0 records"):
        execute_program_sync(t, FakeClient())
    with pytest.raises(ProgramError, match="gold call air_tm"):
        execute_program_sync(t, FakeClient([{"tool": "air_tm", "error": {"type": "platform", "message": "SERVICE ERROR"}}]))
    t2 = task([{"id": "s1", "tool": "air_tm", "args": {}}], [{"id": "f1", "description": "d", "value": "$s1.items[0].nope"}])
    gold = execute_program_sync(t2, FakeClient([{"tool": "air_tm", "records": [{"a": "1"}]}]))
    with pytest.raises(FactError, match="fact f1.*'nope' missing"):
        compute_answer(t2, gold)


def test_task_and_gold_run_serialise() -> None:
    t = task(COND, ANSWER)
    assert Task.model_validate_json(t.model_dump_json()) == t
    gold = execute_program_sync(t, world("3"))
    assert json.loads(gold.model_dump_json())["steps"][3]["args"]["mapX"] == 203.0


def test_call_options_validate() -> None:
    with pytest.raises(ValueError, match="`args` has no 'nope'"):
        task([{"id": "s1", "tool": "air_tm", "args": {"a": 1}, "optional": ["nope"]}])
    with pytest.raises(ValueError, match="non-empty list"):
        task([{"id": "s1", "tool": "air_tm", "args": {"a": 1}, "alternatives": {"a": []}}])
    with pytest.raises(ValueError, match="not an earlier step"):
        task([{"id": "s1", "tool": "air_tm", "args": {}, "after": ["s2"]}])
    with pytest.raises(ValueError, match="same group"):
        task([{"id": "s1", "tool": "air_tm", "args": {}}, {"id": "s2", "tool": "air_tm", "args": {}, "after": ["s1"]}])
    with pytest.raises(ValueError, match="not an earlier step"):
        task([{"id": "s1", "tool": "air_tm", "args": {"a": 1}, "alternatives": {"a": ["$s2.count"]}}])


def test_alternatives_resolve_and_edges_know_their_place() -> None:
    t = task([
        {"id": "s1", "tool": "air_tm", "args": {"umdName": "성수동"}},
        {"id": "s2", "tool": "air_near", "group": 1, "alternatives": {"name": ["$s1.items[1].sggName", "성동"]},
         "args": {"name": "$s1.items[0].sggName", "pts": ["$s1.count", {"x": {"$ref": "$s1.items[1].tmX", "transform": "prefix", "args": {"n": 3}}}]}},
    ])
    gold = execute_program_sync(t, world("3"))
    s2 = gold.step("s2")
    assert s2.alternatives == {"name": ["서울 성동구", "성동"]}
    assert s2.args["pts"] == [2, {"x": "203"}]
    places = {(e.arg, tuple(e.at)): (e.path, e.value) for e in s2.edges}
    assert places == {("name", ()): ("$s1.items[0].sggName", "경기 광주시"), ("pts", (0,)): ("$s1.count", 2),
                      ("pts", (1, "x")): ("$s1.items[1].tmX", "203")}
    assert next(e for e in s2.edges if e.at == [1, "x"]).expr == {"$ref": "$s1.items[1].tmX", "transform": "prefix", "args": {"n": 3}}


def test_check_data_names_bad_call_options(catalog) -> None:
    from kopa_bench.tasks.check import call_option_problems

    tools = ["law_lawService", "law_lawSearch", "law_precSearch", "law_precService", "neis_schoolInfo"]
    t = task([{"id": "s1", "tool": "law_lawSearch", "args": {"query": "민법", "search": 1}, "match_ignore": ["zz"],
               "optional": ["search"], "alternatives": {"search": [3], "query": ["민법전"]}}], tools=tools)
    probs = call_option_problems(t, catalog)
    assert any("match_ignore names ['zz']" in p for p in probs)
    assert any("alternative search=3 would be rejected" in p for p in probs)
    assert not any("alternative query" in p for p in probs) and len(probs) == 2

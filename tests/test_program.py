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


# ---- format 2.0: several picks per step, for_each steps, paged steps -------------------------------
NOWCAST = [{"category": "PTY", "obsrValue": "0"}, {"category": "T1H", "obsrValue": "3.1"}, {"category": "REH", "obsrValue": "61"}]


def test_named_picks_read_several_records_of_one_call() -> None:
    prog = [{"id": "s1", "tool": "air_tm", "args": {}, "picks": {"t1h": {"where": {"category": "T1H"}}, "reh": {"where": {"category": "REH"}}}},
            {"id": "s2", "tool": "air_near", "args": {"t": "$s1.picks.t1h.obsrValue"}, "group": 1}]
    answer = [{"id": "f1", "description": "기온", "value": "$s1.picks.t1h.obsrValue", "kind": "number"},
              {"id": "f2", "description": "습도", "value": "$s1.picks.reh.obsrValue", "kind": "number"}]
    client = FakeClient([{"tool": "air_tm", "records": NOWCAST}, {"tool": "air_near", "records": [{"a": "1"}]}])
    t = task(prog, answer)
    gold = execute_program_sync(t, client)
    assert len(client.calls) == 2 and gold.step("s1").picked_index_by_name == {"t1h": 1, "reh": 2}
    assert [(f.value, [s.index for s in f.sources]) for f in compute_answer(t, gold)] == [(3.1, [1]), (61, [2])]
    assert [(e.arg, e.path) for e in gold.edges] == [("t", "$s1.picks.t1h.obsrValue")]
    with pytest.raises(ValueError, match=r"no pick named 'wsd' \(its picks: \['reh', 't1h'\]\); add it to s1.picks"):
        task(prog, [{"id": "f1", "description": "풍속", "value": "$s1.picks.wsd.obsrValue"}])
    with pytest.raises(ValueError, match="not identifiers"):
        task([{"id": "s1", "tool": "air_tm", "args": {}, "picks": {"t-1": {"index": 0}}}])


HITS = [{"id": "A1", "kind": "x"}, {"id": "B2", "kind": "y"}, {"id": "C3", "kind": "x"}]


def detail_world() -> FakeClient:
    return FakeClient([{"tool": "air_tm", "records": HITS}] + [
        {"tool": "air_near", "args": {"id": h["id"]}, "records": [{"id": h["id"], "score": str(10 * (i + 1))}], "total_count": 1}
        for i, h in enumerate(HITS)])


def each_task(for_each: dict, answer: list[dict] | None = None, **step) -> Task:
    return task([{"id": "s1", "tool": "air_tm", "args": {}},
                 {"id": "s2", "tool": "air_near", "args": {"id": "$each.id"}, "group": 1, "for_each": for_each, **step}],
                answer or [{"id": "f1", "description": "최고점", "value": {"compute": "max", "of": "$s2.items[*].score"}, "kind": "number"}])


def test_for_each_expands_into_one_gold_call_per_record() -> None:
    answer = [{"id": "f1", "description": "최고점", "value": {"compute": "max", "of": "$s2.items[*].score"}, "kind": "number"},
              {"id": "f2", "description": "둘째", "value": "$s2.runs[1].items[0].score", "kind": "number"},
              {"id": "f3", "description": "최고점 id", "value": "$s2.picked.id"}]
    t = each_task({"of": "$s1.items"}, answer, pick={"argmax": "score"})
    client = detail_world()
    gold = execute_program_sync(t, client)
    assert [s.step_id for s in gold.executed] == ["s1", "s2[0]", "s2[1]", "s2[2]"]
    assert [a["id"] for _, a in client.calls[1:]] == ["A1", "B2", "C3"]
    agg = gold.step("s2")
    assert agg.aggregate and agg.expansions == ["s2[0]", "s2[1]", "s2[2]"] and len(agg.records) == 3 and agg.total_count == 3
    # data flow is traced to the exact record each call came from
    assert [(e.step, e.source_step, e.path) for e in gold.edges] == [
        ("s2[0]", "s1", "$s1.items[0].id"), ("s2[1]", "s1", "$s1.items[1].id"), ("s2[2]", "s1", "$s1.items[2].id")]
    facts = compute_answer(t, gold)
    assert [f.value for f in facts] == [30, 20, "C3"]
    assert [(s.step, s.index) for s in facts[1].sources] == [("s2[1]", 0)]
    assert t.step("s2[1]").id == "s2"


def test_for_each_where_limit_values_and_lists() -> None:
    gold = execute_program_sync(each_task({"of": "$s1.items", "where": {"kind": "x"}}), detail_world())
    assert [s.args["id"] for s in gold.executed[1:]] == ["A1", "C3"] and gold.step("s2[1]").edges[0].path == "$s1.items[2].id"
    gold = execute_program_sync(each_task({"of": "$s1.items", "limit": 2}), detail_world())
    assert [s.args["id"] for s in gold.executed[1:]] == ["A1", "B2"]
    values = task([{"id": "s1", "tool": "air_tm", "args": {}},
                   {"id": "s2", "tool": "air_near", "args": {"id": "$each"}, "group": 1, "for_each": {"of": "$s1.items[*].id"}}])
    gold = execute_program_sync(values, detail_world())
    assert [e.path for e in gold.edges] == ["$s1.items[0].id", "$s1.items[1].id", "$s1.items[2].id"]
    literal = task([{"id": "s2", "tool": "air_near", "args": {"id": "$each"}, "for_each": {"of": ["A1", "C3"]}}],
                   [{"id": "f1", "description": "x", "value": "$s2.count", "kind": "number"}])
    gold = execute_program_sync(literal, detail_world())
    assert [s.args["id"] for s in gold.executed] == ["A1", "C3"] and gold.edges == []  # a written list is literal, no data flow


def test_for_each_over_named_picks() -> None:
    """A list of picks: each element is the picked record, traced through its pick."""
    t = task([{"id": "s1", "tool": "air_tm", "args": {}, "picks": {"x": {"where": {"kind": "x"}}, "y": {"where": {"kind": "y"}}}},
              {"id": "s2", "tool": "air_near", "args": {"id": "$each.id"}, "group": 1, "for_each": {"of": ["$s1.picks.y", "$s1.picks.x"]}}],
             [{"id": "f1", "description": "x", "value": "$s2.count", "kind": "number"}])
    gold = execute_program_sync(t, detail_world())
    assert [s.args["id"] for s in gold.executed[1:]] == ["B2", "A1"]
    assert [(e.source_step, e.path) for e in gold.edges] == [("s1", "$s1.picks.y.id"), ("s1", "$s1.picks.x.id")]


def test_for_each_bound_and_schema_errors() -> None:
    with pytest.raises(ProgramError, match=r"step s2 for_each: '\$s1.items' gives 3 elements, more than for_each.max=2; raise max"):
        execute_program_sync(each_task({"of": "$s1.items", "max": 2}), detail_world())
    with pytest.raises(ValueError, match="one value, not a list"):
        each_task({"of": "$s1.items[0]"})
    with pytest.raises(ValueError, match=r"\$each exists only in the args of a step with a for_each"):
        task([{"id": "s1", "tool": "air_tm", "args": {"x": "$each.id"}}])
    with pytest.raises(ValueError, match="never read \\$each"):
        task([{"id": "s1", "tool": "air_tm", "args": {}}, {"id": "s2", "tool": "air_near", "args": {}, "group": 1, "for_each": {"of": "$s1.items"}}])
    with pytest.raises(ValueError, match=r"an argument may not read one expansion \(runs\[k\]\)"):
        task([{"id": "s1", "tool": "air_tm", "args": {}},
              {"id": "s2", "tool": "air_near", "args": {"id": "$each.id"}, "group": 1, "for_each": {"of": "$s1.items"}},
              {"id": "s3", "tool": "tour_area", "args": {"x": "$s2.runs[0].items[0].score"}, "group": 2}])
    with pytest.raises(ValueError, match="neither for_each nor pages"):
        task([{"id": "s1", "tool": "air_tm", "args": {}}], [{"id": "f1", "description": "d", "value": "$s1.runs[0].count"}])
    with pytest.raises(ValueError, match="reserved"):
        task([{"id": "each", "tool": "air_tm", "args": {}}])


STATIONS = [{"name": f"st{i}", "pm": str(v)} for i, v in enumerate([5, 9, 3, 7, 12, 4, 8])]


def paged_world(total: int | None) -> FakeClient:
    """7 stations, 3 per page; `total` None = a total that counts only the page's rows (Seoul's quirk)."""
    routes = [{"tool": "air_tm", "args": {"pageNo": str(p + 1)}, "records": STATIONS[3 * p:3 * p + 3],
               **({"total_count": total} if total is not None else {})} for p in range(3)]
    routes += [{"tool": "air_tm", "args": {"START_INDEX": str(1 + 3 * p)}, "records": STATIONS[3 * p:3 * p + 3]} for p in range(3)]
    return FakeClient(routes)


def paged_task(pages: dict, args: dict) -> Task:
    return task([{"id": "s1", "tool": "air_tm", "args": args, "pages": pages, "pick": {"argmax": "pm"}},
                 {"id": "s2", "tool": "air_near", "args": {"s": "$s1.picked.name"}, "group": 1}],
                [{"id": "f1", "description": "최고", "value": "$s1.picked.name"}, {"id": "f2", "description": "수", "value": "$s1.count", "kind": "number"}])


@pytest.mark.parametrize("total", [7, None])
def test_pages_are_fetched_until_the_last_and_picks_see_them_all(total) -> None:
    t = paged_task({"page": "pageNo", "size": "numOfRows"}, {"numOfRows": 3, "pageNo": 1})
    client = paged_world(total)
    gold = execute_program_sync(t, client)
    assert [s.args.get("pageNo") for s in gold.executed] == [1, 2, 3, None] and [s.page for s in gold.executed[:3]] == [0, 1, 2]
    assert gold.step("s1[2]").page_params == ["pageNo", "numOfRows"]
    assert gold.step("s1").picked == {"name": "st4", "pm": "12"}  # on page 2 of 3
    assert gold.step("s2").args == {"s": "st4"} and [e.source_step for e in gold.edges] == ["s1"]
    assert [f.value for f in compute_answer(t, gold)] == ["st4", 7]


def test_row_range_pages_and_the_bound() -> None:
    t = paged_task({"start": "START_INDEX", "end": "END_INDEX"}, {"START_INDEX": 1, "END_INDEX": 3})
    gold = execute_program_sync(t, paged_world(None))
    assert [(s.args["START_INDEX"], s.args["END_INDEX"]) for s in gold.executed[:3]] == [(1, 3), (4, 6), (7, 9)]
    with pytest.raises(ProgramError, match="2 pages fetched and the last was full; raise pages.max_pages"):
        execute_program_sync(paged_task({"start": "START_INDEX", "end": "END_INDEX", "max_pages": 2}, {"START_INDEX": 1, "END_INDEX": 3}), paged_world(None))
    with pytest.raises(ValueError, match="either page\\+size"):
        paged_task({"page": "pageNo"}, {"pageNo": 1})
    with pytest.raises(ValueError, match="args.numOfRows must be a literal integer"):
        paged_task({"page": "pageNo", "size": "numOfRows"}, {"pageNo": 1})
    with pytest.raises(ValueError, match="both for_each and pages"):
        each_task({"of": "$s1.items"}, pages={"page": "pageNo", "size": "numOfRows"}, args={"id": "$each.id", "numOfRows": 3})


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

"""List facts and catalog code labels in the task model and compute_answer (issue 21, answers)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from kopa_bench.catalog import get_catalog
from kopa_bench.tasks.facts import FactError, compute_answer
from kopa_bench.tasks.program import execute_program_sync
from kopa_bench.tasks.task_schema import Fact, Task, load_tasks
from kopa_bench.testing.fake_client import FakeClient

TOOLS = ["airkorea_getMsrstnAcctoRltmMesureDnsty", "airkorea_getCtprvnRltmMesureDnsty", "airkorea_getNearbyMsrstnList",
         "airkorea_getTMStdrCrdnt", "airkorea_getMsrstnList", "kma_getVilageFcst", "neis_mealServiceDietInfo"]
WORLD = [
    {"tool": "airkorea_getMsrstnAcctoRltmMesureDnsty", "records": [{"dataTime": "2026-11-30 14:00", "pm10Grade": "3", "pm10Value": "88"}]},
    {"tool": "kma_getVilageFcst", "records": [{"category": "TMP", "fcstValue": "3"}, {"category": "PTY", "fcstValue": "3"}]},
    {"tool": "neis_mealServiceDietInfo", "records": [{"DDISH_NM": "현미밥<br/>돼지불고기(10.13)<br/> <br/>우유(2)"},
                                                     {"DDISH_NM": "쌀밥"}]},
]


def _task(answer: list[dict], program: list[dict]) -> Task:
    return Task.model_validate({"id": "t", "split": "dev", "query": "q", "domain": "district", "platforms": ["airkorea"],
                                "shape": "sequential", "difficulty": "easy", "tools": TOOLS, "program": program, "answer": answer})


def _facts(answer: list[dict], program: list[dict]):
    task = _task(answer, program)
    client = FakeClient(WORLD)
    return compute_answer(task, execute_program_sync(task, client, clock="2026-11-30T14:20:00+09:00"))


AIR = [{"id": "s1", "tool": "airkorea_getMsrstnAcctoRltmMesureDnsty", "args": {"stationName": "종로구", "dataTerm": "DAILY"}}]
KMA = [{"id": "s1", "tool": "kma_getVilageFcst", "args": {"base_date": "20261130", "base_time": "1100", "nx": 60, "ny": 127},
        "pick": {"where": {"category": "PTY"}}}]
MEAL = [{"id": "s1", "tool": "neis_mealServiceDietInfo", "args": {"ATPT_OFCDC_SC_CODE": "B10", "SD_SCHUL_CODE": "7010536"}}]


def test_code_labels_come_from_the_catalog_field():
    f = _facts([{"id": "f1", "description": "등급", "value": "$s1.items[0].pm10Grade", "kind": "code"}], AIR)[0]
    assert f.codes["3"][0] == "나쁨" and f.codes["2"][0] == "보통"
    f = _facts([{"id": "f1", "description": "강수형태", "value": "$s1.picked.fcstValue", "kind": "code"}], KMA)[0]
    assert f.codes["3"][0] == "눈"  # the PTY table, chosen by the record's category
    f = _facts([{"id": "f1", "description": "PM10", "value": "$s1.items[0].pm10Value", "kind": "number"}], AIR)[0]
    assert f.codes == {}


def test_list_fact_split_and_blank_items_dropped():
    f = _facts([{"id": "f1", "description": "메뉴", "value": "$s1.items[0].DDISH_NM", "kind": "list", "split": "<br/>"}], MEAL)[0]
    assert f.kind == "list" and f.value == ["현미밥", "돼지불고기(10.13)", "우유(2)"] and f.needed == 3 and f.direct
    f = _facts([{"id": "f1", "description": "메뉴", "value": "$s1.items[*].DDISH_NM", "kind": "text"}], MEAL)[0]
    assert f.kind == "list" and len(f.value) == 2 and f.need == "all"
    f = _facts([{"id": "f1", "description": "메뉴", "value": "$s1.items[0].DDISH_NM", "kind": "list", "split": "<br/>", "need": "any"}], MEAL)[0]
    assert f.needed == 1


def test_list_fact_errors_name_the_fix():
    with pytest.raises(FactError, match="lower `need`"):
        _facts([{"id": "f1", "description": "메뉴", "value": "$s1.items[*].DDISH_NM", "kind": "list", "need": 3}], MEAL)
    with pytest.raises(FactError, match="with `split`"):
        _facts([{"id": "f1", "description": "메뉴", "value": "$s1.items[0].DDISH_NM", "kind": "list"}], MEAL)


@pytest.mark.parametrize("extra,message", [({"need": 2}, "apply to list facts only"), ({"split": "<br/>"}, "apply to list facts only"),
                                           ({"kind": "list", "need": 0}, "whole number"),
                                           ({"kind": "list", "ordered": True, "item_kind": "number"}, "ordered lists need")])
def test_fact_options_are_checked(extra, message):
    with pytest.raises(ValidationError, match=message):
        Fact.model_validate({"id": "f1", "description": "d", "value": "$s1.count", **extra})


def test_existing_facts_serialise_as_before():
    for task in load_tasks("dev"):
        for fact in task.model_dump(mode="json")["answer"]:
            assert not {"item_kind", "need", "ordered", "split"} & set(fact), fact


def test_catalog_code_tables():
    cat = get_catalog()
    for tool in ("airkorea_getMsrstnAcctoRltmMesureDnsty", "airkorea_getCtprvnRltmMesureDnsty"):
        grades = [f for f in cat.get(tool).op.fields if f.name.endswith(("Grade", "Grade1h"))]
        assert grades and all(f.code_table()["4"][0] == "매우나쁨" for f in grades)
    fcst = next(f for f in cat.get("kma_getUltraSrtNcst").op.fields if f.name == "obsrValue")
    assert fcst.code_table({"category": "SKY"})["4"][0] == "흐림" and fcst.code_table({"category": "T1H"}) == {}


def test_list_aliases_name_the_list_not_an_item():
    from kopa_bench.scoring.normalize import fact_in_text

    fact = {"kind": "list", "value": ["현미밥", "돼지불고기"], "aliases": ["오늘 메뉴"]}
    assert not fact_in_text(fact, "오늘 메뉴는 현미밥이에요")


@pytest.mark.parametrize("spec,message", [({"codes": {"1": []}}, "needs a label"),
                                          ({"codes_by": "category", "codes": {"PTY": "비"}}, "maps each category value")])
def test_catalog_codes_are_checked(spec, message):
    from kopa_bench.catalog.models import ItemField

    with pytest.raises(ValidationError, match=message):
        ItemField(name="x", **spec)


def test_check_data_flags_a_code_outside_the_field_codes():
    import asyncio

    from kopa_bench.tasks.check import gold_problems

    task = _task([{"id": "f1", "description": "등급", "value": "$s1.items[0].pm10Value", "kind": "code"},
                  {"id": "f2", "description": "등급", "value": "$s1.items[0].pm10Grade", "kind": "code"}], AIR)
    world = [{"tool": "airkorea_getMsrstnAcctoRltmMesureDnsty", "records": [{"pm10Grade": "9", "pm10Value": "88"}]}]
    problems = asyncio.run(gold_problems([task], FakeClient(world), get_catalog()))
    assert [p.message.split(":")[0] for p in problems] == ["fact f2 (등급)"]
    assert "none of its field's codes ['1', '2', '3', '4']" in problems[0].message

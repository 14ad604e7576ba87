"""EDGE requests read like a person: no API identifiers, type-aware comparisons, named values,
no empty entity slots, deterministic from the seed. Runs on the catalog only (no world build)."""

from __future__ import annotations

import random
import re

import pytest

from kopa_bench.catalog import get_catalog
from edge_synth.labels_ko import FIELD_KO, TOPIC_KO
from edge_synth.queries import field_label, make_query, render_query

SHAPES = ["sequential", "fan-out", "reduction", "parallel", "comparison", "conditional"]
TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
HIGHER = re.compile(r"더 (높은|낮은|많은|적은|큰|작은)")


@pytest.fixture(scope="module")
def cat():
    return get_catalog()


@pytest.fixture(scope="module")
def identifiers(cat):
    """Every field and parameter name of the catalog (and of the undeclared fields EDGE asks about)."""
    names = set(FIELD_KO) | {"total_count"}
    for ref in cat:
        names |= {f.name for f in ref.op.fields} | {p.name for p in ref.op.params}
    return {n for n in names if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", n) and len(n) >= 3}


def _leaks(q: str, identifiers: set[str]) -> list[str]:
    return [t for t in TOKEN.findall(q) if t in identifiers]


def _args(op, rng):
    out = {}
    for p in op.model_params:
        if p.example is not None and rng.random() < 0.8:
            out[p.name] = p.example
    return out


def _fields(op):
    # declared fields plus undeclared ones the real records carry (named by the labels table)
    return [f.name for f in op.fields] + ["so2Value", "lclsSystm1", "INDST_SPECL_CCCCL_EXST_YN", "estbDd",
                                         "no_such_field_xyz", "total_count"]


def _fact(i, sid, tool, field, value="1"):
    return {"id": f"f{i}", "description": f"{tool}.{field}", "value": f"${sid}.items[0].{field}",
            "field": field, "tool": tool, "resolved": value}


def random_traj(cat, shape: str, rng: random.Random) -> dict:
    """A trajectory of `shape` over random catalog tools with example arguments and random facts."""
    tools = sorted(r.op.tool for r in cat if r.op.fields)
    n = {"sequential": rng.choice([2, 3]), "fan-out": rng.choice([3, 4]), "reduction": 2,
         "parallel": rng.choice([2, 3]), "comparison": 4, "conditional": 3}[shape]
    picked = [rng.choice(tools) for _ in range(n)]
    if shape == "comparison":
        picked = [picked[0], picked[0], picked[2], picked[2]]
    prog = []
    for i, t in enumerate(picked, start=1):
        op = cat.get(t).op
        args = _args(op, rng) if i == 1 or shape in ("parallel", "comparison") and i <= 2 else {}
        if i > 1 and shape not in ("parallel",) and not (shape == "comparison" and i == 2):
            args = {"x": f"$s{i - 1}.items[0].y"}
        prog.append({"id": f"s{i}", "tool": t, "args": args, "group": 0})
    facts, plan = [], {}
    fact_steps = {"sequential": [prog[-1]["id"]], "fan-out": [s["id"] for s in prog[1:]],
                  "reduction": ["s2"], "parallel": [s["id"] for s in prog], "comparison": ["s3", "s4"],
                  "conditional": ["s2"]}[shape]
    for sid in fact_steps:
        tool = next(s["tool"] for s in prog if s["id"] == sid)
        fs = _fields(cat.get(tool).op)
        field = fs[0] if shape == "comparison" else rng.choice(fs)
        value = rng.choice(["12", "0.031", "서울 종로구", "B10", "20261130"])
        if shape == "comparison":
            value = "12" if sid == "s3" else "15"
        facts.append(_fact(len(facts) + 1, sid, tool, field, value))
    if shape == "reduction":
        f = rng.choice(_fields(cat.get(prog[0]["tool"]).op))
        prog[0]["pick"] = {"argmax": f}
        plan["reduce"] = (f, True)
        facts.append({**_fact(len(facts) + 1, "s1", prog[0]["tool"], f), "value": f"$s1.picked.{f}"})
    if shape == "conditional":
        prog[1]["condition"] = {"ref": "$s1.items[0].so2Value", "op": ">=", "value": 3}
        prog[2]["condition"] = {"ref": "$s1.items[0].so2Value", "op": "<", "value": 3}
        facts.append({**_fact(len(facts) + 1, "s1", prog[0]["tool"], "so2Value"), "value": "$s1.items[0].so2Value"})
        facts.append({"id": "fb", "description": "branch", "value": {"compute": "ran", "step": "s2"},
                      "field": "branch", "tool": "", "resolved": True})
    es = ["s1", "s2"] if shape == "comparison" else [s["id"] for s in prog] if shape == "parallel" else ["s1"]
    return {"task": {"shape": shape, "program": prog}, "facts": facts, "plan": plan, "entity_steps": es}


def test_every_declared_field_and_tool_has_a_korean_name(cat):
    missing = [(r.op.tool, f.name) for r in cat for f in r.op.fields if not f.desc_ko]
    assert not missing, f"fields without desc_ko in the catalog specs: {missing[:10]}"
    unnamed = [(r.op.tool, f.name) for r in cat for f in r.op.fields if field_label(cat, r.op.tool, f.name) is None]
    assert not unnamed, f"fields field_label cannot name: {unnamed[:10]}"
    assert all(re.search(r"[가-힣]", v) for v in FIELD_KO.values())
    assert not [r.op.tool for r in cat if r.op.tool not in TOPIC_KO], "add the tool to labels_ko.TOPIC_KO"


def test_unknown_field_is_dropped_not_printed(cat):
    assert field_label(cat, "airkorea_getCtprvnRltmMesureDnsty", "so2Value") == "아황산가스 농도"
    assert field_label(cat, "airkorea_getCtprvnRltmMesureDnsty", "no_such_field_xyz") is None


@pytest.mark.parametrize("shape", SHAPES)
def test_no_catalog_identifier_in_generated_queries(cat, identifiers, shape):
    leaks = []
    for i in range(60):
        rng = random.Random(f"{shape}:{i}")
        q, reg = make_query(random_traj(cat, shape, rng), cat, random.Random(i))
        assert reg in ("banmal", "jondae")
        if _leaks(q, identifiers):
            leaks.append((q, _leaks(q, identifiers)))
    assert not leaks, leaks[:5]


def test_no_empty_entity_slot_when_the_first_step_has_no_literal_args(cat):
    for shape in SHAPES:
        for i in range(20):
            t = random_traj(cat, shape, random.Random(f"e{shape}{i}"))
            for s in t["task"]["program"]:
                s["args"] = {k: v for k, v in s["args"].items() if str(v).startswith("$")}
            q, _ = make_query(t, cat, random.Random(i))
            assert not re.match(r"^(기준으로|관련해서|에 대해|중에서|의 |으로 |로 )", q), q
            assert not re.search(r"(, |요, |데 |아, )(기준으로|관련해서|에 대해|중에서)", q), q


def _comparison(cat, field: str, v1: str, v2: str, diff: bool) -> dict:
    tool = "airkorea_getCtprvnRltmMesureDnsty"
    prog = [{"id": "s1", "tool": tool, "args": {"sidoName": "서울"}, "group": 0},
            {"id": "s2", "tool": tool, "args": {"sidoName": "부산"}, "group": 0},
            {"id": "s3", "tool": tool, "args": {"sidoName": "$s1.items[0].sidoName"}, "group": 1},
            {"id": "s4", "tool": tool, "args": {"sidoName": "$s2.items[0].sidoName"}, "group": 1}]
    facts = [_fact(1, "s3", tool, field, v1), _fact(2, "s4", tool, field, v2)]
    if diff:
        facts.append({"id": "f3", "description": "diff", "field": field, "tool": tool, "resolved": 1,
                      "value": {"compute": "diff", "a": "$s3.items[0]." + field, "b": "$s4.items[0]." + field}})
    return {"task": {"shape": "comparison", "program": prog}, "facts": facts, "plan": {}, "entity_steps": ["s1", "s2"]}


def test_comparison_wording_follows_the_field_type(cat):
    for seed in range(40):
        q_num, _ = make_query(_comparison(cat, "so2Value", "0.003", "0.005", True), cat, random.Random(seed))
        q_txt, _ = make_query(_comparison(cat, "stationName", "중구", "종로구", False), cat, random.Random(seed))
        assert "아황산가스 농도" in q_num and HIGHER.search(q_num), q_num
        assert "측정소명" in q_txt and not HIGHER.search(q_txt), q_txt
        assert re.search(r"각각|어떻게 다른지", q_txt), q_txt


def test_bare_values_say_what_they_are(cat):
    tool = "tourapi_locationBasedList2"
    prog = [{"id": "s1", "tool": tool, "args": {"mapX": 126.97, "mapY": 37.57, "radius": 1000}, "group": 0},
            {"id": "s2", "tool": "tourapi_detailCommon2", "args": {"contentId": "$s1.items[0].contentid"}, "group": 1}]
    t = {"task": {"shape": "sequential", "program": prog}, "facts": [_fact(1, "s2", "tourapi_detailCommon2", "addr1")],
         "plan": {}, "entity_steps": ["s1"]}
    qs = [make_query(t, cat, random.Random(i))[0] for i in range(30)]
    assert all("경도 126.97" in q for q in qs), qs[:3]
    city = [{"id": "s1", "tool": "tago_getRouteNoList", "args": {"cityCode": 26, "routeNo": "5"}, "group": 0},
            {"id": "s2", "tool": "tago_getRouteAcctoThrghSttnList", "args": {"cityCode": 26, "routeId": "$s1.items[0].routeid"}, "group": 1}]
    t2 = {"task": {"shape": "sequential", "program": city}, "facts": [], "plan": {}, "entity_steps": ["s1"]}
    # a region code is said as the place it names (TAGO city code 26 is 울산), never as a bare code
    qs2 = [make_query(t2, cat, random.Random(i))[0] for i in range(20)]
    assert all("울산" in q and "26" not in q for q in qs2), qs2[:3]


def test_same_seed_same_query_and_seeds_vary(cat):
    outs = {}
    for shape in SHAPES:
        t = random_traj(cat, shape, random.Random(shape))
        a = [render_query(t, cat, random.Random(f"0:q:{i}")) for i in range(25)]
        b = [render_query(t, cat, random.Random(f"0:q:{i}")) for i in range(25)]
        assert a == b
        outs[shape] = {x[0] for x in a}
        assert len({x[2] for x in a}) >= 2, f"{shape}: one template only"
    assert all(len(v) >= 5 for v in outs.values()), {k: len(v) for k, v in outs.items()}

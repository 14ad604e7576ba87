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


# -- multi-branch shapes about one subject (plans over a small hand-made verified graph) -------------

CTP, RT, LST = "airkorea_getCtprvnRltmMesureDnsty", "airkorea_getMsrstnAcctoRltmMesureDnsty", "airkorea_getMsrstnList"
VF, NC, FEST = "kma_getVilageFcst", "kma_getUltraSrtNcst", "tourapi_searchFestival2"


def _bind(frm, to, kind="station_name"):
    return {"from_field": frm, "to_param": to, "transform": "identity", "transform_args": {}, "from_kind": kind,
            "to_kind": kind, "prior": 0.9, "record_ref": False, "posterior": 0.9}


@pytest.fixture(scope="module")
def synth(cat):
    import networkx as nx

    from edge_synth.seeds import SeedSampler
    from edge_synth.shapes import Synthesizer

    vg = nx.DiGraph()
    measures = {"pm10Value": "measure", "pm25Value": "measure", "stationName": "station_name", "dataTime": "datetime"}
    vg.add_node(CTP, field_kinds=measures)
    vg.add_node(RT, field_kinds={"pm10Value": "measure", "o3Value": "measure", "dataTime": "datetime"})
    vg.add_node(LST, field_kinds={"addr": "address", "stationName": "station_name", "dmX": "lat", "dmY": "lon"})
    for t in (VF, NC, FEST):
        vg.add_node(t, field_kinds={})
    vg.add_edge(CTP, RT, bindings=[_bind("stationName", "stationName")], posterior=0.9)
    vg.add_edge(CTP, LST, bindings=[_bind("stationName", "stationName")], posterior=0.9)
    # a branch in another domain fed by another field: never a partner of the air-quality branches
    vg.add_edge(CTP, FEST, bindings=[_bind("dataTime", "eventStartDate", "date")], posterior=0.9)
    sampler = SeedSampler(cat, seed=0)
    return Synthesizer(vg, cat, sampler, executor=None, seed=0)


def _refs(args: dict) -> set[str]:
    return {v for v in args.values() if isinstance(v, str) and v.startswith("$")}


def _literals(args: dict) -> dict:
    return {k: v for k, v in args.items() if not (isinstance(v, str) and v.startswith("$")) and not isinstance(v, dict)}


def test_comparison_sides_differ_in_one_subject_input_and_share_the_rest(synth):
    from edge_synth.shapes import SUBJECT_KINDS

    plans = [p for p in (synth.comparison(random.Random(f"c{i}")) for i in range(60)) if p]
    assert len(plans) >= 20
    assert {len(p["steps"]) for p in plans} == {2, 4}  # one tool's measure, or a second tool's after each side
    for plan in plans:
        s1, s2 = plan["steps"][:2]
        assert s1["tool"] == s2["tool"]
        changed = [k for k in s1["args"] if s1["args"][k] != s2["args"].get(k)]
        assert changed == [plan["axis"]], (s1["args"], s2["args"])
        assert synth.sampler.param_kind[(s1["tool"], plan["axis"])] in SUBJECT_KINDS
        if len(plan["steps"]) == 4:
            s3, s4 = plan["steps"][2:]
            assert s3["tool"] == s4["tool"] and plan["compare"] == ("s3", "s4")
            # B is asked the same thing on both sides: same literal inputs, each side's own reference
            assert _literals(s3["args"]) == _literals(s4["args"])
            assert all(r.startswith("$s1.") for r in _refs(s3["args"]))
            assert all(r.startswith("$s2.") for r in _refs(s4["args"]))
        else:
            assert plan["compare"] == ("s1", "s2") and synth._numeric_fields(s1["tool"])


def test_conditional_branches_read_the_same_field_of_the_same_answer(synth, cat):
    plans = [p for p in (synth.conditional(random.Random(f"k{i}")) for i in range(60)) if p]
    assert len(plans) >= 20
    for plan in plans:
        s1, s2, s3 = plan["steps"]
        assert {s2["tool"], s3["tool"]} == {RT, LST}, "the festival branch shares no subject with the others"
        assert _refs(s2["args"]) & _refs(s3["args"]), (s2["args"], s3["args"])  # the same station of A
        shared = set(_literals(s2["args"])) & set(_literals(s3["args"]))
        assert all(s2["args"][k] == s3["args"][k] for k in shared)
        # the decision is on a measured value with a name, never on how many results a list has
        field = plan["cond_ref"].rsplit(".", 1)[1]
        assert field != "total_count" and field_label(cat, s1["tool"], field)
        assert set(plan["branch_fields"]) == {"s2", "s3"}


def test_parallel_calls_share_one_subject(synth):
    vg = synth.vg
    for t in (VF, NC, FEST):
        vg.remove_node(t)  # roots: the air-quality tools only
    for t in (VF, NC, FEST):
        vg.add_node(t, field_kinds={})
    synth.roots = sorted(n for n in vg.nodes if n in synth.catalog and synth.sampler.is_root(n))
    plans = [p for p in (synth.parallel(random.Random(f"p{i}")) for i in range(80)) if p]
    assert len(plans) >= 10
    for plan in plans:
        values = set()
        for st in plan["steps"]:
            subj = [(n, k) for n, k in synth._subject_params(st["tool"], optional=True) if n in st["args"]]
            assert subj, st
            values.add(next(str(st["args"][n]) for n, _k in subj))
        # one subject, possibly in two forms of one name (서울 / 서울특별시)
        assert len({v[:2] for v in values}) == 1, [s["args"] for s in plan["steps"]]


def test_rejected_templates_are_never_produced(cat):
    from edge_synth.queries import REJECTED_TEMPLATES

    for shape in SHAPES:
        for i in range(80):
            t = random_traj(cat, shape, random.Random(f"r{shape}{i}"))
            q, _reg, tid = render_query(t, cat, random.Random(i))
            assert tid not in REJECTED_TEMPLATES, (tid, q)
            assert not re.search(r"\d+건 이상", q), q  # a decision on a result count


def test_conditional_asks_for_what_each_branch_answers(cat):
    t = random_traj(cat, "conditional", random.Random("named"))
    prog = t["task"]["program"]
    prog[1]["tool"], prog[2]["tool"] = RT, LST
    t["plan"] = {"branch_fields": {"s2": "pm10Value", "s3": "addr"}}
    for i in range(20):
        q, _reg, _tid = render_query(t, cat, random.Random(i))
        assert "미세먼지 농도" in q and "주소" in q and "아황산가스 농도" in q and "3 이상" in q, q


def test_final_answer_addresses_a_comparison_and_a_conditional(cat):
    from edge_synth.answers import answer_text

    t = _comparison(cat, "so2Value", "0.003", "0.005", True)
    t["facts"][2]["resolved"] = -0.002
    a = answer_text(t, cat, "jondae")
    assert "서울" in a and "부산" in a and "0.003" in a and "0.005" in a and "0.002만큼 더 높습니다" in a, a
    c = random_traj(cat, "conditional", random.Random("ans"))
    c["facts"] = [{**c["facts"][0], "value": "$s2.items[0].pm10Value", "field": "pm10Value", "tool": RT, "resolved": "41"},
                  {**c["facts"][1], "resolved": "5"}, c["facts"][2]]
    c["task"]["program"][1]["tool"] = RT
    a = answer_text(c, cat, "banmal")
    assert "기준 3 이상이라서" in a and "미세먼지 농도: 41" in a, a


# -- requests no person would make are rejected (edge_synth/plausible.py) ----------------------------

class _Step:
    def __init__(self, records, skipped=False):
        self.records, self.skipped = records, skipped


class _Run:
    def __init__(self, by_id):
        self.by_id = by_id


def _traj(cat, shape, prog, records, facts, plan=None, entity_steps=("s1",)):
    return {"task": {"shape": shape, "program": prog}, "run": _Run({k: _Step(v) for k, v in records.items()}),
            "facts": facts, "plan": plan or {}, "entity_steps": list(entity_steps)}


@pytest.fixture(scope="module")
def kinds(cat):
    from edge_synth.seeds import SeedSampler

    return SeedSampler(cat, seed=0).param_kind


HOURLY = [{"stationName": "종로구", "dataTime": "2026-11-30 09:00", "pm10Value": "31", "o3Value": "0.02"},
          {"stationName": "종로구", "dataTime": "2026-11-30 08:00", "pm10Value": "28", "o3Value": "0.02"}]


def test_a_named_station_with_its_current_readings_is_plausible(cat, kinds):
    from edge_synth.plausible import rejection

    prog = [{"id": "s1", "tool": RT, "args": {"stationName": "종로구", "dataTerm": "DAILY"}, "group": 0}]
    t = _traj(cat, "parallel", prog, {"s1": HOURLY}, [{**_fact(1, "s1", RT, "pm10Value", "31")}], entity_steps=["s1"])
    assert rejection(t, cat, kinds) is None  # hourly readings, newest first: "the" current value


@pytest.mark.parametrize("case, reason", [
    ("coordinates", "opaque_subject"), ("code", "opaque_subject"), ("nothing", "no_subject"),
    ("three_steps", "hidden_steps"), ("domains", "unrelated_domains"), ("list", "arbitrary_record"),
    ("echo", "echo"), ("bookkeeping", "meta_field")])
def test_requests_no_person_makes_are_rejected(cat, kinds, case, reason):
    from edge_synth.plausible import rejection

    prog = [{"id": "s1", "tool": RT, "args": {"stationName": "종로구", "dataTerm": "DAILY"}, "group": 0},
            {"id": "s2", "tool": LST, "args": {"stationName": "$s1.items[0].stationName"}, "group": 1}]
    records = {"s1": HOURLY[:1], "s2": [{"stationName": "종로구", "addr": "서울 종로구 종로35가길 19", "mangName": "도시대기"}]}
    facts = [_fact(1, "s2", LST, "addr", "서울 종로구 종로35가길 19")]
    shape = "sequential"
    if case == "coordinates":
        prog[0] = {"id": "s1", "tool": "airkorea_getNearbyMsrstnList", "args": {"tmX": "200420.3", "tmY": "453527.7"},
                   "group": 0}
    elif case == "code":
        prog[0] = {"id": "s1", "tool": "tago_getSttnAcctoArvlPrearngeInfoList",
                   "args": {"cityCode": "25", "nodeId": "DJB8001793"}, "group": 0}
    elif case == "nothing":
        prog[0] = {"id": "s1", "tool": LST, "args": {}, "group": 0}
    elif case == "three_steps":
        prog.append({"id": "s3", "tool": RT, "args": {"stationName": "$s2.items[0].stationName"}, "group": 2})
        records["s3"] = HOURLY[:1]
    elif case == "domains":
        prog[1] = {"id": "s2", "tool": "tourapi_areaBasedList2", "args": {"areaCode": "1"}, "group": 1}
        facts = [_fact(1, "s2", "tourapi_areaBasedList2", "title", "경복궁")]
    elif case == "list":
        records["s1"] = [{**HOURLY[0], "stationName": n} for n in ("종로구", "중구")]  # one hour, many stations
    elif case == "echo":
        facts = [_fact(1, "s2", LST, "stationName", "종로구")]
    elif case == "bookkeeping":
        facts = [_fact(1, "s2", LST, "stationCode", "111123")]
    t = _traj(cat, shape, prog, records, facts)
    assert rejection(t, cat, kinds) == reason


def test_rubric_verdicts_are_complete_and_the_card_states_their_share():
    from edge_synth.query_rubric import CRITERIA, card_section, load_verdicts, sample, summary

    rows = load_verdicts()
    assert rows, "edge_synth/eval/query_rubric.jsonl is missing"
    for r in rows:
        assert all(isinstance(r[k], bool) for k in CRITERIA) and r["pass"] == all(r[k] for k in CRITERIA), r
        assert r["reason"].strip() and r["query"].strip() and r["id"].startswith(f"edge-{r['shape']}-"), r
    by_round = summary(rows)
    for rnd, s in by_round.items():
        ids = [r["id"] for r in rows if r["round"] == rnd]
        assert len(ids) == len(set(ids)) == s["judged"] == 100
        assert f"| {rnd} | {s['run']} | 100 | {s['passed']} | {s['pass_share']:.0%} |" in card_section()
    fake = [{"id": f"edge-x-{i:04d}"} for i in range(300)]
    assert sample(fake) == sample(list(reversed(fake))) and len(sample(fake)) == 100  # seeded, order-free

"""Every reference chain link whose two ends are catalog tools runs as a tiny gold program.

tests/data/reference_chains.jsonl lists 100 real output -> input links between Korean public
APIs. tests/data/reference_chain_programs.json holds, per link, a program in the KOPA Step
schema: a `from` step, an optional pick, and a `to` step whose bound argument references the
from-step's field through the link's transform (helper steps where the `to` side needs more,
e.g. a law's MST). Links that cannot be a catalog-to-catalog binding are listed under
`unmapped` with the reason. Each program runs with kopa_bench.tasks.execute_program on the
in-process sandbox; both ends must succeed with records (and a pick-bound link must pick one).
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from kopa_bench.tasks.task_schema import Task
from kopa_bench.tasks.program import execute_program
from kopa_bench.tasks.refs import iter_refs

DATA = Path(__file__).parent / "data"
LINKS = [json.loads(line) for line in (DATA / "reference_chains.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
PROGRAMS = json.loads((DATA / "reference_chain_programs.json").read_text(encoding="utf-8"))
BY_INDEX = {p["index"]: p for p in PROGRAMS["links"]}


def _op_name(op_id: str) -> str:
    """'airkorea.MsrstnInfoInqireSvc.getTMStdrCrdnt' -> 'getTMStdrCrdnt'; 'neis.schoolInfo' -> 'schoolInfo';
    'vworld.getcoord (request=getAddress variant)' -> 'getAddress' (the variant is its own operation)."""
    m = re.search(r"\(\s*\w+\s*=\s*(\w+)\s+variant\s*\)", op_id)
    return m.group(1) if m else op_id.split(":")[-1].split(".")[-1].split()[0]


def _tools_by_op(catalog) -> dict[str, str]:
    return {ref.op.name: ref.name for ref in catalog}


def test_every_link_is_mapped_or_explained(catalog):
    mapped, unmapped = set(BY_INDEX), {u["index"] for u in PROGRAMS["unmapped"]}
    assert not mapped & unmapped
    assert mapped | unmapped == set(range(len(LINKS)))
    for u in PROGRAMS["unmapped"]:
        assert len(u["reason"]) > 20, u
    by_op = _tools_by_op(catalog)
    for i, p in BY_INDEX.items():
        link = LINKS[i]
        assert (p["from_operation"], p["to_operation"]) == (link["from_operation"], link["to_operation"])
        # the program's from/to tools are the link's operations, mapped by operation name
        assert by_op.get(_op_name(link["from_operation"])) == p["from_tool"], (i, link["from_operation"])
        assert by_op.get(_op_name(link["to_operation"])) == p["to_tool"], (i, link["to_operation"])


def _task(index: int, catalog, program: list[dict] | None = None) -> Task:
    prog = program if program is not None else BY_INDEX[index]["program"]
    tools = list(dict.fromkeys(s["tool"] for s in prog))
    tools += [t for t in catalog.tool_names if t not in tools][: max(0, 5 - len(tools))]
    last = prog[-1]["id"]
    return Task.model_validate({
        "id": f"chain-{index:03d}", "split": "test", "query": "reference chain", "domain": "district",
        "platforms": ["sandbox"], "shape": "sequential", "difficulty": "easy", "tools": tools, "program": prog,
        "answer": [{"id": "f1", "description": "records of the last step", "value": f"${last}.count", "kind": "number"}],
    })


def _params():
    for i in sorted(BY_INDEX):
        why = BY_INDEX[i].get("not_executable")
        yield pytest.param(i, id=f"link{i:02d}", marks=[pytest.mark.xfail(reason=why, strict=True)] if why else [])


def _run_link_program(index: int, spec: dict, client, catalog, program: list[dict] | None = None, clock=None):
    task = _task(index, catalog, program)
    to_step = task.step(spec["to_step"])
    # the to step is bound to the from step (an argument, or the pick that plays the client-side filter)
    bound = {r.step for r in iter_refs(to_step.args)}
    if to_step.pick is not None:
        bound |= {r.step for r in iter_refs(to_step.pick.where)}
    if to_step.condition is not None:
        bound |= {r.step for r in iter_refs(to_step.condition.ref)}
    assert spec["from_step"] in bound, f"link {index}: step {to_step.id} does not reference {spec['from_step']}"

    gold = asyncio.run(execute_program(task, client, clock))  # None: the default world clock
    for sid in (spec["from_step"], spec["to_step"]):
        run = gold.step(sid)
        assert not run.skipped, f"link {index}: {sid} skipped ({run.skip_reason})"
        assert run.ok and run.records, f"link {index}: {sid} {run.tool}({run.args}) gave no records ({run.result_code})"
    to_run = gold.step(spec["to_step"])
    if to_step.pick is not None:
        assert to_run.picked is not None, f"link {index}: the pick on {to_step.id} matched no record"
    assert any(e.source_step == spec["from_step"] for e in to_run.edges) or to_step.pick is not None or to_step.condition is not None
    return gold


@pytest.mark.parametrize("index", list(_params()))
def test_reference_chain_executes(index, client, catalog):
    """Both ends of the link answer with records and the consumer is bound to the producer
    (the helper asserts each step; here, the end-to-end outcome)."""
    gold = _run_link_program(index, BY_INDEX[index], client, catalog)
    spec = BY_INDEX[index]
    assert gold.step(spec["from_step"]).records and gold.step(spec["to_step"]).records, index


NOT_EXECUTABLE = sorted(i for i, p in BY_INDEX.items() if p.get("not_executable"))


@pytest.mark.parametrize("index", NOT_EXECUTABLE)
def test_a_non_executable_link_runs_its_pattern_as_a_variant(index, client, catalog):
    """A link left xfail because of the calendar still has its mechanism exercised: the same
    to-step and pick, fed by a real operation whose date falls inside the world's horizon."""
    variant = BY_INDEX[index].get("executable_variant")
    assert variant, f"link {index} is not executable and has no executable_variant showing its pattern"
    assert variant["to_tool"] == BY_INDEX[index]["to_tool"]
    assert [s["tool"] for s in variant["program"]][-1] == variant["to_tool"]
    _run_link_program(index, variant, client, catalog, variant["program"])


def test_holiday_forecast_link_premise(world, call):
    """Why link 26 is xfail: no KASI rest day falls on any fcstDate of the forecast at the world clock."""
    from kopa_bench.transforms import apply_transform

    now = world.clock.now()
    base = {"base_date": apply_transform("kma_base_date", now), "base_time": apply_transform("kma_base_time", now)}
    first = call("kma_getVilageFcst", nx=60, ny=127, numOfRows=1000, pageNo=1, **base)
    assert first.ok and first.records, first.result_code
    records = list(first.records)
    for page in range(2, -(-first.total_count // 1000) + 1):
        records += call("kma_getVilageFcst", nx=60, ny=127, numOfRows=1000, pageNo=page, **base).records
    horizon = {r["fcstDate"] for r in records}
    assert min(horizon) == now.strftime("%Y%m%d") and len(horizon) == 4, sorted(horizon)  # today .. day+3
    rest_days = set()
    for ym in sorted({d[:6] for d in horizon}):
        rest_days |= {str(r["locdate"]) for r in call("kasi_getRestDeInfo", solYear=ym[:4], solMonth=ym[4:]).records}
    assert "20261225" in rest_days  # the next 공휴일, three weeks out
    assert not rest_days & horizon


@pytest.mark.parametrize("index", NOT_EXECUTABLE)
def test_a_calendar_link_executes_when_its_premise_holds(index, catalog):
    """Link 26 (rest day -> forecast fcstDate) executes end to end, unchanged, in a world whose
    clock stands two days before 성탄절: the short-range forecast then covers 20261225. The world
    is built from the clock, so this is the same generator at another "now", not a special case."""
    from kopa_bench.client import KopaClient
    from kopa_bench.sandbox import create_app
    from kopa_bench.clock import WorldClock
    from kopa_bench.world.store import get_world

    when = BY_INDEX[index].get("premise_clock")
    assert when, f"link {index} is not executable at the default clock and names no premise_clock where it is"
    world = get_world(clock=WorldClock(when))
    assert world.clock.now().isoformat().startswith(when[:16])
    client = KopaClient(catalog=catalog, world=world, app=create_app(world=world, catalog=catalog))
    _run_link_program(index, BY_INDEX[index], client, catalog, clock=world.clock)


def test_every_bill_law_exists_in_law_search(world, call):
    """Assembly bills amend laws that law.go.kr knows (bill -> lawSearch chains resolve)."""
    from kopa_bench.transforms import apply_transform
    from kopa_bench.world.gen.assembly import NEW_LAWS

    # NEW_LAWS are the generator's brand-new special-law bills; a real new-law or repeal bill does
    # not name a law after the transform ("...특별법안", "...에 관한"): no current law answers to those
    bills = [r["BILL_NAME"] for r in world.sql("SELECT DISTINCT BILL_NAME FROM asm_bills") if r["BILL_NAME"] not in NEW_LAWS]
    names = {n for n in (apply_transform("bill_to_law_name", b) for b in bills) if n.endswith(("법", "법률"))}
    missing = [n for n in sorted(names) if not any(r["법령명한글"] == n for r in call("law_lawSearch", query=n, display=100).records)]
    assert missing == []


def test_law_search_matches_abbreviation(call):
    for abbr, full in (("중대재해처벌법", "중대재해 처벌 등에 관한 법률"), ("정보통신망법", "정보통신망 이용촉진 및 정보보호 등에 관한 법률")):
        names = [r["법령명한글"] for r in call("law_lawSearch", query=abbr).records]
        assert full in names, (abbr, names)


def test_school_addresses_are_in_juso(world):
    missing = world.sql(
        "SELECT s.SCHUL_NM, s.ORG_RDNMA FROM neis_schools s "
        "WHERE NOT EXISTS (SELECT 1 FROM juso_addr j WHERE j.roadAddrPart1 = s.ORG_RDNMA)"
    )
    assert missing == []


def test_kosis_district_populations_are_plausible(world):
    rows = world.sql("SELECT C1, DT FROM kosis_population WHERE ITM_ID = 'T20' AND PRD_DE = (SELECT max(PRD_DE) FROM kosis_population)")
    pop = {r["C1"]: int(r["DT"]) for r in rows}
    assert 450_000 < pop["11680"] < 650_000  # 강남구
    assert 150_000 < pop["11170"] < 280_000  # 용산구
    assert 100_000 < pop["11110"] < 180_000  # 종로구
    assert pop["11710"] > pop["11110"] * 3  # 송파구 >> 종로구
    seoul = sum(v for c, v in pop.items() if len(c) == 5 and c.startswith("11"))
    assert seoul == pop["11"]

"""EDGE probes over more than one answer of A: record tries left when every record of A's answer
was tried go to another input of A (a folder row alone in a filtered table list), and an empty B
answer that a companion bound from A's record caused (a month before B has data) is checked by a
control call with the companion refilled. FakeClient and catalog only (no world)."""

from __future__ import annotations

import asyncio
import random

import pytest

from kopa_bench.catalog import get_catalog
from kopa_bench.client.result import ToolResult
from kopa_bench.testing.fake_client import FakeClient

TL, IL = "ecos_StatisticTableList", "ecos_StatisticItemList"
FOLDER = {"P_STAT_CODE": "0000000003", "STAT_CODE": "3.1.", "SRCH_YN": "N"}
TABLE = {"P_STAT_CODE": "3.1.", "STAT_CODE": "731Y001", "SRCH_YN": "Y"}


@pytest.fixture(scope="module")
def cat():
    return get_catalog()


def _bind(f, p, t="identity", fk="id", pk="id"):
    from edge_synth.bindings import Binding

    return Binding.from_dict({"from_field": f, "to_param": p, "transform": t, "transform_args": {}, "record_ref": False,
                              "from_kind": fk, "to_kind": pk, "prior": 0.8})


def _ecos():
    c = FakeClient(default="nodata")
    c.add(TL, {"STAT_CODE": "3.1."}, [FOLDER])
    c.add(TL, {}, [FOLDER, TABLE])
    c.add(IL, {"STAT_CODE": "731Y001"}, [{"ITEM_CODE": "0000001", "ITEM_NAME": "원/미국달러"}])
    return c


def _probe(cat, client, binding, inputs, **opts):
    from edge_synth.env import ProbeExecutor
    from edge_synth.probing import ProbeOptions, probe_link
    from edge_synth.seeds import SeedSampler

    s = SeedSampler(cat, seed=0)
    it = iter(inputs)
    s.seed_args = lambda tool, split, rng: dict(next(it))  # A's seed inputs, in this order
    return asyncio.run(probe_link(ProbeExecutor(client, memo=False), s, TL, IL, [binding], random.Random(0),
                                  ProbeOptions(**opts)))


def test_one_record_answer_passes_its_tries_to_another_input(cat):
    code = _bind("STAT_CODE", "STAT_CODE")
    inputs = [{"STAT_CODE": "3.1."}, {}, {}]
    pr = _probe(cat, _ecos(), code, inputs, record_tries=3)
    assert pr.outcome == "success" and pr.answers == 2 and pr.b_args["STAT_CODE"] == "731Y001"
    assert pr.records_tried == 2  # the folder row, then the table (the folder's value is not bound twice)
    # one try (the single-record figure), or the option off: the folder row alone decides
    assert _probe(cat, _ecos(), code, inputs, record_tries=1).outcome == "empty"
    assert _probe(cat, _ecos(), code, inputs, record_tries=3, other_answers=False).outcome == "empty"


def test_wrong_binding_stays_empty_within_the_same_tries(cat):
    wrong = _bind("P_STAT_CODE", "STAT_CODE")  # a parent folder's code: never a table
    pr = _probe(cat, _ecos(), wrong, [{"STAT_CODE": "3.1."}, {}, {}, {}, {}], record_tries=3)
    assert pr.outcome == "empty" and pr.records_tried <= 3


def test_given_upstream_answer_gets_no_other_input(cat):
    from edge_synth.env import ProbeExecutor
    from edge_synth.probing import ProbeOptions, probe_link
    from edge_synth.seeds import SeedSampler

    c = _ecos()
    up = ({"STAT_CODE": "3.1."}, ToolResult(tool=TL, arguments={"STAT_CODE": "3.1."}, ok=True, result_code="00",
                                             records=[FOLDER]))
    pr = asyncio.run(probe_link(ProbeExecutor(c, memo=False), SeedSampler(cat, seed=0), TL, IL,
                                [_bind("STAT_CODE", "STAT_CODE")], random.Random(0), ProbeOptions(record_tries=3), up))
    assert pr.outcome == "empty" and pr.answers == 1


# -- a companion that emptied B's answer --------------------------------------------------------
MOIS, RENT = "mois_getStanReginCdList", "molit_getRTMSDataSvcAptRent"
DONG = {"region_cd": "2626010100", "adpt_de": "19880423", "locatadd_nm": "부산광역시 동래구 칠산동"}


def _rent_probe(cat, b_routes, seed_redraws=0, **opts):
    from edge_synth.env import ProbeExecutor
    from edge_synth.probing import ProbeOptions, probe_link
    from edge_synth.seeds import SeedSampler

    c = FakeClient(default="nodata")
    c.add(MOIS, {}, [DONG])
    for args, recs in b_routes:
        c.add(RENT, args, recs)
    s = SeedSampler(cat, seed=0)
    s.add_context(RENT, {"LAWD_CD": "26260", "DEAL_YMD": "202610"})
    s.seed_args = lambda tool, split, rng: {}
    bindings = [_bind("region_cd", "LAWD_CD", "lawd_cd", "legal_code", "lawd5"),
                _bind("adpt_de", "DEAL_YMD", "yyyymm", "date", "yyyymm")]
    outs = []
    for i in range(12):  # the companion is bound in about half of the probes
        pr = asyncio.run(probe_link(ProbeExecutor(c, memo=False), s, MOIS, RENT, bindings, random.Random(i),
                                    ProbeOptions(soft_companions=True, seed_redraws=seed_redraws, **opts)))
        outs.append(pr)
    return outs


def test_empty_caused_by_a_companion_is_uninformative(cat):
    lease = [{"aptNm": "래미안", "deposit": "30,000"}]
    outs = _rent_probe(cat, [({"LAWD_CD": "26260", "DEAL_YMD": "202610"}, lease)])
    bound = [p for p in outs if p.b_args.get("DEAL_YMD") == "198804"]
    free = [p for p in outs if p.b_args.get("DEAL_YMD") == "202610"]
    assert bound and free
    # 1988: no lease reports yet; the control call with a working month answers
    assert all(p.outcome == "empty_uninformative" and p.controls == 1 for p in bound)
    assert all(p.outcome == "success" for p in free)
    off = _rent_probe(cat, [({"LAWD_CD": "26260", "DEAL_YMD": "202610"}, lease)], companion_control=False)
    assert {p.outcome for p in off if p.b_args.get("DEAL_YMD") == "198804"} == {"empty"}


def test_empty_for_the_tested_value_stays_a_failure(cat):
    # the district answers in no month: the control call is empty too, and the probe fails
    outs = _rent_probe(cat, [({"LAWD_CD": "11680", "DEAL_YMD": "202610"}, [{"aptNm": "은마"}])])
    assert all(p.outcome == "empty" for p in outs)

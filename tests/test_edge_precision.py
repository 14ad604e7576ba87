"""EDGE precision/recall rules: value kinds from documentation, paging/count fields never carry
data, temporal bindings need shared-entity evidence, A's own arguments pass through, and the
counterfactual of a single-record producer comes from another execution. Catalog only (no world)."""

from __future__ import annotations

import asyncio
import random

import networkx as nx
import pytest

from kopa_bench.catalog import get_catalog
from kopa_bench.testing.fake_client import FakeClient


@pytest.fixture(scope="module")
def cat():
    return get_catalog()


def test_kinds_from_names_descriptions_and_values():
    from edge_synth.values import infer_kind

    assert infer_kind("radius", "반경 (미터)", [2000]) == "measure"  # not a year
    assert infer_kind("STATION_CD", "전철역코드 4자리", ["0222"]) == "id"  # not a time of day
    assert infer_kind("totalCount", "", ["12"]) == "meta"
    assert infer_kind("BILL_NAME", "법률안명", ["도로교통법 일부개정법률안"]) == "bill_name"
    assert infer_kind("참조조문", "", ["민법 제750조"]) == "law_ref"
    assert infer_kind("ORIG_NM", "선거구", ["서울 마포구을"]) == "constituency"


def test_paging_and_count_params_are_control(cat):
    from edge_synth.control_params import CONTROL_PARAMS

    for name in ("START_INDEX", "END_INDEX", "numOfRows", "pageNo", "totalCount", "countPerPage"):
        assert CONTROL_PARAMS.match(name), name
    assert not CONTROL_PARAMS.match("STAT_CODE")


def test_new_kinds_propose_documented_transforms(cat):
    from edge_synth.candidates import infer_io_kinds, score_binding

    k = infer_io_kinds(cat)
    bill = k.fields["assembly_nzmimeepazxkubdpn"]["BILL_NAME"]
    query = k.params["law_lawSearch"]["query"]
    assert [c.transform for c in score_binding("BILL_NAME", bill, "query", query, 0.0)][0] == "bill_to_law_name"
    ref = k.fields["law_precService"]["참조조문"]
    jo = k.params["law_lawService"]["JO"]
    assert [c.transform for c in score_binding("참조조문", ref, "JO", jo, 0.0)] == ["law_article_jo"]


def _verifier(cat, edges):
    from edge_synth.seeds import SeedSampler
    from edge_synth.verify import Verifier

    g = nx.DiGraph()
    for a, b, bnds in edges:
        g.add_node(a), g.add_node(b)
        g.add_edge(a, b, bindings=bnds, prior=0.8)
    v = Verifier(g, None, SeedSampler(cat, seed=0))
    for arm in v.arms.values():  # every arm looks executable and sensitive
        arm.alpha, arm.beta, arm.successes, arm.sens_pos, arm.n = 20.0, 1.0, 19, 3, 19
    return v


def _b(f, p, fk, pk, t="identity"):
    return {"from_field": f, "to_param": p, "transform": t, "from_kind": fk, "to_kind": pk, "prior": 0.8,
            "transform_args": {}, "record_ref": False}


def test_temporal_binding_alone_is_not_an_edge(cat):
    v = _verifier(cat, [
        # a measurement time -> the year of solar terms: executable, sensitive, meaningless
        ("airkorea_getCtprvnRltmMesureDnsty", "kasi_get24DivisionsInfo", [_b("dataTime", "solYear", "datetime", "year", "year")]),
        # a holiday (the calendar's own record) -> the deal month of that holiday
        ("kasi_getRestDeInfo", "molit_getRTMSDataSvcAptTrade", [_b("locdate", "DEAL_YMD", "date", "yyyymm", "yyyymm")]),
        # a holiday -> anniversaries of its year: the year is A's own argument passed back (below)
        ("kasi_getRestDeInfo", "kasi_getAnniversaryInfo", [_b("locdate", "solYear", "date", "year", "year")]),
        # an entity code plus a date: kept, date included
        ("juso_addrLinkApi", "molit_getRTMSDataSvcAptRent",
         [_b("admCd", "LAWD_CD", "legal_code", "lawd5", "lawd_cd"), _b("x", "DEAL_YMD", "date", "yyyymm", "yyyymm")]),
    ])
    for arm in v.arms.values():
        if arm.dst == "kasi_getAnniversaryInfo":
            arm.passthrough = arm.successes  # every success bound solYear=A's own solYear
    vg = v.verified_graph()
    assert not vg.has_edge("airkorea_getCtprvnRltmMesureDnsty", "kasi_get24DivisionsInfo")
    assert vg.has_edge("kasi_getRestDeInfo", "molit_getRTMSDataSvcAptTrade")
    assert not vg.has_edge("kasi_getRestDeInfo", "kasi_getAnniversaryInfo")
    assert {b["to_param"] for b in vg.edges["juso_addrLinkApi", "molit_getRTMSDataSvcAptRent"]["bindings"]} == {"LAWD_CD", "DEAL_YMD"}


def test_a_arguments_pass_through_to_b(cat):
    from edge_synth.probing import inherited_args
    from edge_synth.seeds import SeedSampler

    s = SeedSampler(cat, seed=0)
    out = inherited_args(s, "tago_getSttnAcctoArvlPrearngeInfoList", {"cityCode": "25", "routeId": "DJB30300002"},
                         {"nodeId": "DJB8001793"})
    assert out == {"cityCode": "25"}
    assert inherited_args(s, "tago_getSttnAcctoArvlPrearngeInfoList", {}, {}) == {}


def test_single_record_producer_gets_a_counterfactual_from_another_execution(cat):
    from edge_synth.env import ProbeExecutor
    from edge_synth.bindings import Binding
    from edge_synth.probing import ProbeOptions, probe_link
    from edge_synth.seeds import SeedSampler

    a, b = "airkorea_getNearbyMsrstnList", "airkorea_getMsrstnAcctoRltmMesureDnsty"
    c = FakeClient(default="nodata")
    c.add(a, {}, [{"stationName": "종로구", "addr": "서울 종로구", "tm": "1.2"}])  # one record only
    for i, st in enumerate(("종로구", "중구")):
        c.add(b, {"stationName": st}, [{"dataTime": "2026-11-30 09:00", "pm10Value": str(30 + i)}])
    s = SeedSampler(cat, seed=0)
    s.harvest(a, [{"stationName": "중구"}])  # the same field, seen in another execution
    bnd = _b("stationName", "stationName", "station_name", "station_name")
    pr = asyncio.run(probe_link(ProbeExecutor(c), s, a, b, [Binding.from_dict(bnd)], random.Random(0),
                                ProbeOptions(sensitivity=True)))
    assert pr.outcome == "success"
    assert pr.sensitive is True  # 중구 gives other readings than 종로구


def test_plain_numbers_bind_only_by_name():
    """A bus stop's order, a deal's day or a solar term's time equal a class period or a forecast
    hour by coincidence: no candidate unless names or documentation link them."""
    from edge_synth.candidates import score_binding

    num = {"kind": "number", "desc": "정류소 순번"}
    perio = {"kind": "number", "desc": "교시"}
    assert score_binding("nodeord", num, "PERIO", perio, 1.0) == []
    assert score_binding("kst", {"kind": "hhmm", "desc": "절입 시각 HHMM KST time HHMM"}, "base_time",
                         {"kind": "hhmm", "desc": "발표시각 HHMM issue time HHMM"}, 1.0) == []
    # the same name passes (a timetable's own period into another timetable query)
    assert score_binding("PERIO", perio, "PERIO", perio, 0.5)
    # and so does a documented reference
    assert score_binding("nodeord", num, "PERIO", perio, 0.5, xref=True)


def test_address_cut_only_for_region_name_filters(cat):
    """MOIS locatadd_nm is a 'contains' search over region names (example '서울특별시 강남구'): a
    tourist spot's address is cut to its first two tokens; a juso keyword is never cut."""
    from edge_synth.candidates import infer_io_kinds, score_binding

    kinds = infer_io_kinds(cat)
    loc = kinds.params["mois_getStanReginCdList"]["locatadd_nm"]
    addr = {"kind": "address", "desc": "주소"}
    got = score_binding("addr1", addr, "locatadd_nm", loc, 0.5)
    assert [(c.transform, c.transform_args) for c in got] == [("first_tokens", {"n": 2})]
    kw = kinds.params["juso_addrLinkApi"]["keyword"]
    assert all(c.transform != "first_tokens" for c in score_binding("addr1", addr, "keyword", kw, 0.5))

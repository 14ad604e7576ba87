"""EDGE composite parameter groups: keys and coordinate pairs flow whole from one record, format
groups are filled consistently, documented joined fields, substring filters, settled arms.
Catalog and fake clients only (no world)."""

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


@pytest.fixture(scope="module")
def groups(cat):
    from edge_synth.groups import derive_groups

    return derive_groups(cat)


def _members(groups, tool, kind):
    return [set(g.members) for g in groups.get(tool, []) if g.kind == kind]


def test_groups_derived_from_the_catalog(groups):
    assert {"nx", "ny"} in _members(groups, "kma_getUltraSrtNcst", "coord")
    assert {"mapX", "mapY"} in _members(groups, "tourapi_locationBasedList2", "coord")
    assert {"ATPT_OFCDC_SC_CODE", "SD_SCHUL_CODE"} in _members(groups, "neis_elsTimetable", "key")
    assert {"cityCode", "routeId"} in _members(groups, "tago_getRouteAcctoThrghSttnList", "key")
    assert {"CYCLE", "START_TIME", "END_TIME"} in _members(groups, "ecos_StatisticSearch", "format")
    # a region code filter of a statistics table is not part of the table's key
    assert all("objL1" not in m for m in _members(groups, "kosis_statisticsParameterData", "key"))
    # free selectors (weekday, direction) of a timetable are not a key
    assert not _members(groups, "seoul_SearchSTNTimeTableByIDService", "key")


def _b(f, p, t="identity", **kw):
    """A binding in its graph (JSON) form."""
    return {"from_field": f, "to_param": p, "transform": t, "transform_args": {}, "record_ref": False,
            "from_kind": "id", "to_kind": "id", "prior": 0.8, **kw}


def test_half_a_key_is_never_bound_from_context(cat, groups):
    """Only cityCode flows from a nearby stop; routeId would come from another call: unbound."""
    from edge_synth.env import ProbeExecutor
    from edge_synth.bindings import Binding
    from edge_synth.probing import ProbeOptions, probe_link
    from edge_synth.seeds import SeedSampler

    a, b = "tago_getCrdntPrxmtSttnList", "tago_getRouteAcctoThrghSttnList"
    c = FakeClient(default="nodata")
    c.add(a, {}, [{"citycode": "25", "nodeid": "DJB8001793", "gpslati": "36.3", "gpslong": "127.4"}])
    s = SeedSampler(cat, seed=0)
    s.groups = groups
    pr = asyncio.run(probe_link(ProbeExecutor(c), s, a, b, [Binding.from_dict(_b("citycode", "cityCode"))],
                                random.Random(0),
                                ProbeOptions(soft_companions=True, mandatory=frozenset({"cityCode", "routeId"}))))
    assert pr.outcome == "unbound" and "routeId" in pr.detail


def test_verified_set_drops_half_keys(cat, groups):
    from edge_synth.seeds import SeedSampler
    from edge_synth.verify import Verifier

    g = nx.DiGraph()
    a, b = "tourapi_searchFestival2", "kma_getUltraSrtFcst"
    g.add_node(a, field_kinds={"mapx": "lon", "mapy": "lat"}), g.add_node(b)
    g.add_edge(a, b, bindings=[_b("mapy", "ny", "kma_ny", record_ref=True)], prior=0.8)
    a2, b2 = "neis_schoolInfo", "neis_mealServiceDietInfo"
    g.add_node(a2, field_kinds={"ATPT_OFCDC_SC_CODE": "id", "SD_SCHUL_CODE": "id"}), g.add_node(b2)
    g.add_edge(a2, b2, bindings=[_b("ATPT_OFCDC_SC_CODE", "ATPT_OFCDC_SC_CODE"),
                                 _b("SD_SCHUL_CODE", "SD_SCHUL_CODE")], prior=0.8)
    s = SeedSampler(cat, seed=0)
    s.groups = groups
    v = Verifier(g, None, s)
    for arm in v.arms.values():
        arm.alpha, arm.beta, arm.successes, arm.sens_pos, arm.n = 20.0, 1.0, 19, 3, 19
    vg = v.verified_graph()
    assert not vg.has_edge(a, b)  # ny without nx: some other grid cell
    assert {x["to_param"] for x in vg.edges[a2, b2]["bindings"]} == {"ATPT_OFCDC_SC_CODE", "SD_SCHUL_CODE"}


def test_candidates_join_documented_fields_and_skip_coincidental_substrings(cat):
    from edge_synth.candidates import composite_fields, infer_io_kinds, score_binding
    from edge_synth.walks import ref_expr

    op = cat.get("tourapi_areaBasedList2").op
    assert composite_fields(op) == {"lDongRegnCd+lDongSignguCd": (["lDongRegnCd", "lDongSignguCd"], "LAWD_CD")}
    k = infer_io_kinds(cat)
    joined = k.fields["tourapi_areaBasedList2"]["lDongRegnCd+lDongSignguCd"]
    assert joined["kind"] == "lawd5"
    cands = score_binding("lDongRegnCd+lDongSignguCd", joined, "LAWD_CD",
                          k.params["molit_getRTMSDataSvcAptTrade"]["LAWD_CD"], 0.0)
    assert cands and cands[0].transform == "identity" and cands[0].as_dict()["parts"] == ["lDongRegnCd", "lDongSignguCd"]
    assert cands[0].value({"lDongRegnCd": "11", "lDongSignguCd": "680"}) == "11680"
    assert ref_expr("s1", cands[0]) == "{$s1.items[0].lDongRegnCd}{$s1.items[0].lDongSignguCd}"
    # a region code is no evidence for a stock short-code 'contains' filter; the same field is
    sub = k.params["fsc_getItemInfo"]["likeSrtnCd"]
    assert sub["substring"]
    assert not score_binding("sido_cd", k.fields["mois_getStanReginCdList"]["sido_cd"], "likeSrtnCd", sub, 0.0)
    assert score_binding("srtnCd", k.fields["fsc_getStockPriceInfo"]["srtnCd"], "likeSrtnCd", sub, 0.0)


def test_format_group_members_follow_a_working_input(cat, groups):
    from edge_synth.seeds import SeedSampler

    s = SeedSampler(cat, seed=0)
    s.groups = groups
    t = "ecos_StatisticSearch"
    s.add_context(t, {"STAT_CODE": "731Y001", "CYCLE": "D", "START_TIME": "20240101", "END_TIME": "20240131"})
    s.add_context(t, {"STAT_CODE": "722Y001", "CYCLE": "M", "START_TIME": "202401", "END_TIME": "202412"})
    args = s.sample_args(t, "train", random.Random(0), fixed={"STAT_CODE": "731Y001", "CYCLE": "D"})
    assert (args["START_TIME"], args["END_TIME"]) == ("20240101", "20240131")
    args = s.sample_args(t, "train", random.Random(0), fixed={"START_TIME": "202611"})
    assert args["CYCLE"] == "M" and len(args["END_TIME"]) == 6


def test_settled_arms_stop_drawing_probes():
    from edge_synth.bandit import Arm
    from edge_synth.verify_config import VerifyConfig

    cfg = VerifyConfig()
    strong = Arm("a", "b", None, alpha=15.0, beta=1.5, n=12, successes=12, sens_pos=3)
    unsure = Arm("a", "b", None, alpha=4.0, beta=3.0, n=5, successes=3, sens_pos=2)
    unchecked = Arm("a", "b", None, alpha=15.0, beta=1.5, n=12, successes=12)
    assert strong.settled(cfg) and not unsure.settled(cfg) and not unchecked.settled(cfg)

"""Client-side selection links (edge_synth/selections.py): matching, candidates, probes, graph."""

from __future__ import annotations

import asyncio
import random

import networkx as nx
import pytest

from kopa_bench.catalog import get_catalog
from kopa_bench.testing.fake_client import FakeClient
from edge_synth.bandit import Arm
from edge_synth.env import ProbeExecutor
from edge_synth.seeds import SeedSampler
from edge_synth.selections import (add_selections, next_page, probe_selection, read_all, select, selection_candidates,
                                   selection_key)

NEAREST = {"src": "vworld_getcoord", "dst": "seoul_bikeList", "match": "nearest", "from_field": "point",
           "to_field": "point", "from_point": {"system": "wgs84", "lat": "y", "lon": "x"},
           "to_point": {"system": "wgs84", "lat": "stationLatitude", "lon": "stationLongitude"}, "prior": 0.6}
STATIONS = [{"stationName": "청운우체국", "stationLatitude": "37.5775", "stationLongitude": "126.9758"},
            {"stationName": "혜화역 1번출구", "stationLatitude": "37.5822", "stationLongitude": "127.0019"},
            {"stationName": "부산역", "stationLatitude": "35.1151", "stationLongitude": "129.0422"}]


@pytest.fixture(scope="module")
def cat():
    return get_catalog()


def test_nearest_picks_the_closest_record_within_range():
    hyehwa = selection_key(NEAREST, {"x": "127.0016", "y": "37.5820"})
    assert select(NEAREST, hyehwa, STATIONS, max_km=2.0) == [1]
    # a point far from every record picks nothing: outside B's coverage
    jeju = selection_key(NEAREST, {"x": "126.53", "y": "33.50"})
    assert select(NEAREST, jeju, STATIONS, max_km=2.0) == []
    # TM and UTM-K points go through the transform library
    utmk = dict(NEAREST, from_point={"system": "utmk", "x": "entX", "y": "entY"})
    from kopa_bench import geo

    x, y = geo.wgs84_to_utmk(37.5820, 127.0016)
    assert select(utmk, selection_key(utmk, {"entX": x, "entY": y}), STATIONS, 2.0) == [1]
    assert selection_key(NEAREST, {"x": "0", "y": "0"}) is None  # not a place in Korea


def test_equal_and_contains_refuse_short_values():
    eq = {"match": "equal", "from_field": "code", "to_field": "code"}
    assert selection_key(eq, {"code": "2"}) is None  # a meal code 2 equals unrelated codes 2
    assert selection_key(eq, {"code": "ST-102"}) == "st-102"
    recs = [{"code": "ST-102"}, {"code": "ST-103"}]
    assert select(eq, "st-102", recs, 2.0) == [0]
    ct = {"match": "contains", "from_field": "KEYSTAT_NAME", "to_field": "STAT_NAME"}
    tables = [{"STAT_NAME": "1.3.1. 한국은행 기준금리 및 여수신금리"}, {"STAT_NAME": "4.2.1. 소비자물가지수"}]
    assert select(ct, selection_key(ct, {"KEYSTAT_NAME": "한국은행 기준금리"}), tables, 2.0) == [0]
    assert selection_key(ct, {"KEYSTAT_NAME": "%"}) is None


def test_candidates_come_from_field_kinds(cat):
    g = nx.DiGraph()
    g.add_node("vworld_getcoord", field_kinds={"x": "lon", "y": "lat", "text": "address"}, param_kinds={"address": "address"})
    g.add_node("seoul_bikeList", field_kinds={"stationLatitude": "lat", "stationLongitude": "lon",
                                              "stationName": "station_name", "stationId": "id"}, param_kinds={})
    g.add_node("hira_getParmacyBasisList", field_kinds={"XPos": "lon", "YPos": "lat", "yadmNm": "name"},
               param_kinds={"xPos": "lon", "yPos": "lat"})
    g.add_node("ecos_KeyStatisticList", field_kinds={"KEYSTAT_NAME": "name", "UNIT_NAME": "name"}, param_kinds={})
    g.add_node("ecos_StatisticTableList", field_kinds={"STAT_NAME": "name", "UNIT_NAME": "name"},
               param_kinds={"STAT_CODE": "id"})
    ids = {s["id"] for s in selection_candidates(g, cat)}
    assert "vworld_getcoord|seoul_bikeList|point|point|select:nearest" in ids
    # the pharmacy search takes coordinates itself: a binding, not a client-side filter
    assert not any(i.startswith("vworld_getcoord|hira_getParmacyBasisList|point") for i in ids)
    assert "ecos_KeyStatisticList|ecos_StatisticTableList|KEYSTAT_NAME|STAT_NAME|select:contains" in ids
    assert not any("UNIT_NAME" in i for i in ids)  # units name no entity
    skipped = {s["id"] for s in selection_candidates(g, cat, skip={("vworld_getcoord", "seoul_bikeList")})}
    assert "vworld_getcoord|seoul_bikeList|point|point|select:nearest" not in skipped


def test_probe_succeeds_only_when_a_value_of_a_picks_part_of_b(cat):
    c = FakeClient(default="nodata")
    c.add("vworld_getcoord", {}, [{"x": "127.0016", "y": "37.5820"}])
    c.add("seoul_bikeList", {}, STATIONS)
    s = SeedSampler(cat, seed=0)
    s.add_context("vworld_getcoord", {"address": "서울특별시 종로구 대학로 1"})
    s.add_context("seoul_bikeList", {})
    ex = ProbeExecutor(c)
    other = (33.50, 126.53)  # an earlier probe's point (Jeju): it picks another (no) station
    pr = asyncio.run(probe_selection(ex, s, NEAREST, random.Random(1), other_keys=[other]))
    assert pr.outcome == "success" and pr.picked == [1] and pr.sensitive is True
    # B is read as a filtering client reads it: a window wider than a 100-row default
    from edge_synth.selections import wide_args

    assert wide_args(cat.get("ecos_StatisticTableList").op, {}) == {"START": 1, "END": 1000}
    # the window is written out (1000 rows is the bike list's default) so the next page can be read
    assert wide_args(cat.get("seoul_bikeList").op, {}) == {"START_INDEX": 1, "END_INDEX": 1000}
    assert wide_args(cat.get("hira_getParmacyBasisList").op, {"sgguCd": "110019"})["numOfRows"] == 100
    # inside the area B's records cover (records within 5 km on every side) but 2 km from none of
    # them: a failure
    ring = [{"stationName": f"s{i}", "stationLatitude": f"{37.60 + dy:.4f}", "stationLongitude": f"{127.00 + dx:.4f}"}
            for i, (dy, dx) in enumerate(((0.03, 0.03), (0.03, -0.03), (-0.03, 0.03), (-0.03, -0.03)))]
    c2 = FakeClient(default="nodata")
    c2.add("vworld_getcoord", {}, [{"x": "127.00", "y": "37.60"}])  # the middle of the ring, ~4 km from each
    c2.add("seoul_bikeList", {}, ring)
    pr2 = asyncio.run(probe_selection(ProbeExecutor(c2), s, NEAREST, random.Random(1)))
    assert pr2.outcome == "empty"
    # 3 km beyond the edge of B's area (stations to the south only): no evidence either way
    c4 = FakeClient(default="nodata")
    c4.add("vworld_getcoord", {}, [{"x": "127.00", "y": "37.61"}])  # 3 km north of Hyehwa
    c4.add("seoul_bikeList", {}, STATIONS)
    assert asyncio.run(probe_selection(ProbeExecutor(c4), s, NEAREST, random.Random(1))).outcome == "empty_uninformative"
    # outside that area (Jeju: no station within 5 km) the nearest record is undefined: no evidence
    c3 = FakeClient(default="nodata")
    c3.add("vworld_getcoord", {}, [{"x": "126.53", "y": "33.50"}])
    c3.add("seoul_bikeList", {}, STATIONS)
    pr3 = asyncio.run(probe_selection(ProbeExecutor(c3), s, NEAREST, random.Random(1)))
    assert pr3.outcome == "empty_uninformative"


def test_a_full_page_may_continue():
    from edge_synth.selections import maybe_partial, page_size

    assert page_size({"START_INDEX": 1, "END_INDEX": 1000}) == 1000 and page_size({"numOfRows": 100}) == 100
    assert maybe_partial({"START_INDEX": 1, "END_INDEX": 2}, STATIONS[:2], 2)  # Seoul reports the page's count
    assert not maybe_partial({"START_INDEX": 1, "END_INDEX": 1000}, STATIONS, 3)
    assert maybe_partial({}, STATIONS, 40)


def test_paging_reads_the_whole_list():
    assert next_page({"START_INDEX": 1, "END_INDEX": 1000}) == {"START_INDEX": 1001, "END_INDEX": 2000}
    assert next_page({"numOfRows": 100, "pageNo": 2})["pageNo"] == 3
    assert next_page({"keyword": "x"}) is None
    c = FakeClient(default="nodata")
    c.add("seoul_bikeList", {"START_INDEX": 1, "END_INDEX": 2}, STATIONS[:2])
    c.add("seoul_bikeList", {"START_INDEX": 3, "END_INDEX": 4}, STATIONS[2:])
    res = asyncio.run(read_all(ProbeExecutor(c), "seoul_bikeList", {"START_INDEX": 1, "END_INDEX": 2}))
    assert [r["stationName"] for r in res.records] == [r["stationName"] for r in STATIONS]
    assert len(c.calls) == 2  # the short second page ends it


def test_verified_selections_are_edges_walks_do_not_bind(cat):
    from builders.edge_dataset import graph_rows
    from edge_synth.walks import successors

    vg = nx.DiGraph()
    vg.add_node("vworld_getcoord", domain="geo")
    vg.add_node("seoul_bikeList", domain="transport")
    arm = Arm("vworld_getcoord", "seoul_bikeList", None, alpha=9.0, beta=1.0, n=8, successes=8, sens_pos=3)
    assert add_selections(vg, [(NEAREST, arm)]) == 1
    d = vg.edges["vworld_getcoord", "seoul_bikeList"]
    assert d["link"] == "select" and d["bindings"] == [] and d["selections"][0]["posterior"] == 0.9
    assert successors(vg, "vworld_getcoord") == []
    row = graph_rows(vg)[0]
    assert row["link"] == "select" and row["selections"][0]["match"] == "nearest"


def test_repeated_joins_are_one_piece_of_evidence(cat):
    """Tools without inputs answer the same every time: the join is computed once, decided by it."""
    from edge_synth.selections import SelectionVerifier
    from edge_synth.verify_config import VerifyConfig

    sel = {"src": "ecos_KeyStatisticList", "dst": "ecos_StatisticTableList", "match": "contains",
           "from_field": "KEYSTAT_NAME", "to_field": "STAT_NAME", "prior": 0.5}
    sel["id"] = "keystat"
    c = FakeClient(default="nodata")
    c.add("ecos_KeyStatisticList", {}, [{"KEYSTAT_NAME": "한국은행 기준금리"}, {"KEYSTAT_NAME": "실업률"},
                                         {"KEYSTAT_NAME": "소비자물가지수"}])
    c.add("ecos_StatisticTableList", {}, [{"STAT_NAME": "1.3.1. 한국은행 기준금리 및 여수신금리"},
                                           {"STAT_NAME": "4.2.1. 소비자물가지수"}, {"STAT_NAME": "2.1. 국민계정"}])
    s = SeedSampler(cat, seed=0)
    v = SelectionVerifier([sel], ProbeExecutor(c), s, VerifyConfig())
    asyncio.run(v.run())
    arm = v.arms["keystat"]
    assert arm.n == 1 and arm.successes == 1 and v.exhausted("keystat") and v.duplicates >= 2
    assert [x["id"] for x, _ in v.verified()] == ["keystat"]
    # the same pair whose join is empty is not verified however often it is repeated
    c.routes = [r for r in c.routes if r.tool != "ecos_StatisticTableList"]
    c.add("ecos_StatisticTableList", {}, [{"STAT_NAME": "2.1. 국민계정"}, {"STAT_NAME": "3.1. 환율"}])
    v2 = SelectionVerifier([sel], ProbeExecutor(c), s, VerifyConfig())
    asyncio.run(v2.run())
    assert v2.verified() == []


def test_selection_edges_make_executed_trajectories(cat, monkeypatch):
    """A sequential trajectory over a select edge: s2 lists B and picks the record nearest s1's
    point (pick.near); facts come from the picked record; the request says 'nearest'."""
    from kopa_bench.tasks import Task
    import edge_synth.shapes as shapes
    from edge_synth.export import rl_task, sft_messages
    from edge_synth.queries import make_query

    monkeypatch.setattr(shapes, "SELECT_SHARE", 1.0)
    vg = nx.DiGraph()
    vg.add_node("vworld_getcoord", domain="geo", field_kinds={"x": "lon", "y": "lat"})
    vg.add_node("seoul_bikeList", domain="traffic", field_kinds={"stationName": "station_name", "stationLatitude": "lat",
                                                                  "stationLongitude": "lon"})
    arm = Arm("vworld_getcoord", "seoul_bikeList", None, alpha=9.0, beta=1.0, n=8, successes=8, sens_pos=3)
    add_selections(vg, [(NEAREST, arm)])
    c = FakeClient(default="nodata")
    c.add("vworld_getcoord", {}, [{"x": "127.0016", "y": "37.5820"}])
    c.add("seoul_bikeList", {}, STATIONS)
    s = SeedSampler(cat, seed=0)
    syn = shapes.Synthesizer(vg, cat, s, ProbeExecutor(c), seed=0)
    t = next(t for t in (asyncio.run(syn.build("sequential", f"t-{i}")) for i in range(10)) if t is not None)
    prog = t["task"]["program"]
    assert [p["tool"] for p in prog] == ["vworld_getcoord", "seoul_bikeList"]
    assert prog[1]["pick"]["near"]["lat"] == "$s1.items[0].y" and prog[1]["group"] == 1
    assert all(f["value"].startswith("$s2.picked.") for f in t["task"]["answer"])
    assert t["facts"] and all(str(f["resolved"]) in STATIONS[1].values() for f in t["facts"])  # the Hyehwa station
    t["query"], t["register"] = make_query(t, cat, random.Random(0))
    assert "가까운" in t["query"]
    Task.model_validate(rl_task(t))
    assert any(m.get("tool_calls") for m in sft_messages(t, cat))

"""EDGE recall rules: documented cross-references raise a binding's prior, a
tool's documented example call reveals the optional parameters its platform needs, an empty
answer for one record of a mixed list is retried with the most unlike record, joint-group
members share a probe's outcome, and a changed total count is sensitivity. Catalog and fake
clients only (no world)."""

from __future__ import annotations

import asyncio
import random

import pytest

from kopa_bench.catalog import get_catalog
from kopa_bench.testing.fake_client import FakeClient


@pytest.fixture(scope="module")
def cat():
    return get_catalog()


def _b(f, p, t="identity", fk="id", pk="id"):
    """A binding in its graph (JSON) form."""
    return {"from_field": f, "to_param": p, "transform": t, "transform_args": {}, "record_ref": False,
            "from_kind": fk, "to_kind": pk, "prior": 0.8}


def _typed(*bindings):
    from edge_synth.bindings import Binding

    return [Binding.from_dict(b) for b in bindings]


def _one_edge_verifier(cat, a, b, bindings, executor=None):
    """A Verifier over the single candidate edge a -> b, with the catalog's parameter groups."""
    import networkx as nx

    from edge_synth.groups import derive_groups
    from edge_synth.seeds import SeedSampler
    from edge_synth.verify import Verifier
    from edge_synth.verify_config import VerifyConfig

    g = nx.DiGraph()
    g.add_nodes_from([a, b])
    g.add_edge(a, b, bindings=bindings, prior=0.8)
    s = SeedSampler(cat, seed=0)
    s.groups = derive_groups(cat)
    return Verifier(g, executor, s, VerifyConfig())


class _Sub:
    def __init__(self, cat, names):
        self._c, self._n = cat, set(names)

    def __iter__(self):
        return (r for r in self._c if r.op.tool in self._n)

    def get(self, name):
        return self._c.get(name)


def test_documented_cross_reference_raises_the_prior(cat):
    from edge_synth.candidates import cross_reference, score_binding

    a, b = cat.get("law_precSearch").op, cat.get("law_precService").op
    # 판례일련번호 is documented as 'precService ID': the field names B's operation and parameter
    assert cross_reference(a, "판례일련번호", "precService ID", b, "ID", "판례일련번호 precedent serial id")
    assert not cross_reference(a, "사건번호", "", b, "ID", "판례일련번호 precedent serial id")
    # B's parameter names A's operation and field ('schoolInfo의 ATPT_OFCDC_SC_CODE')
    s, t = cat.get("neis_schoolInfo").op, cat.get("neis_hisTimetable").op
    pdesc = t.param("ATPT_OFCDC_SC_CODE").desc_ko
    assert cross_reference(s, "ATPT_OFCDC_SC_CODE", "", t, "ATPT_OFCDC_SC_CODE", pdesc)
    assert not cross_reference(s, "ORG_FAXNO", "", t, "ATPT_OFCDC_SC_CODE", pdesc)
    # a name elsewhere in the description is no reference: SD_SCHUL_CODE is 'unique only together
    # with ATPT_OFCDC_SC_CODE', which does not make the office code a school code
    sdesc = f"{t.param('SD_SCHUL_CODE').desc_ko} {t.param('SD_SCHUL_CODE').desc_en}"
    assert "ATPT_OFCDC_SC_CODE" in sdesc
    assert not cross_reference(s, "ATPT_OFCDC_SC_CODE", "", t, "SD_SCHUL_CODE", sdesc)
    assert cross_reference(s, "SD_SCHUL_CODE", "", t, "SD_SCHUL_CODE", sdesc)
    f, p = {"kind": "id", "desc": "precService ID"}, {"kind": "id", "desc": "판례일련번호"}
    plain = score_binding("판례일련번호", f, "ID", p, 0.0)[0]
    linked = score_binding("판례일련번호", f, "ID", p, 0.0, xref=True)[0]
    assert linked.prior >= 0.5 > plain.prior and linked.xref and not plain.xref


def test_example_call_reveals_co_required_optionals(cat):
    """KOSIS marks its period optional but rejects a call without one: the documented example
    request answers, dropping the period does not, so every later call fills it."""
    from edge_synth.env import ProbeExecutor
    from edge_synth.bootstrap import bootstrap_samples
    from edge_synth.seeds import SeedSampler

    t = "kosis_statisticsParameterData"
    op = cat.get(t).op
    ex = {p.name: p.example for p in op.model_params if p.example is not None}
    c = FakeClient(default="error")
    c.add(t, {"orgId": ex["orgId"], "tblId": ex["tblId"], "startPrdDe": ex["startPrdDe"], "endPrdDe": ex["endPrdDe"]},
          [{"C1": "11680", "DT": "530000"}])
    sub = _Sub(cat, [t])
    s = SeedSampler(sub, seed=0)
    samples = asyncio.run(bootstrap_samples(ProbeExecutor(c), s, sub, rounds=1, per_tool=2))
    assert s.co_required[t] == ["endPrdDe", "startPrdDe"]
    assert samples[t] and s.contexts[t]
    args = s.sample_args(t, "train", random.Random(0), fixed={"objL1": "11140"})
    assert args["objL1"] == "11140" and args["startPrdDe"] == ex["startPrdDe"] and args["endPrdDe"] == ex["endPrdDe"]
    assert "startPrdDe" not in s.required(t)  # the catalog's own contract is unchanged


def test_next_record_changes_the_category():
    from edge_synth.record_order import RetryOrder

    def next_record(recs, used, rng):
        return RetryOrder(recs).next(used, rng)

    recs = [{"code": f"E{i}", "kind": "초등학교"} for i in range(6)] + \
           [{"code": f"M{i}", "kind": "중학교"} for i in range(3)] + [{"code": "H0", "kind": "고등학교"}]
    used = [recs[0]]
    nxt = next_record(recs, used, random.Random(0))
    assert nxt["kind"] != "초등학교"
    used.append(nxt)
    assert {next_record(recs, used, random.Random(0))["kind"], nxt["kind"]} == {"중학교", "고등학교"}
    assert next_record(recs[:1], recs[:1], random.Random(0)) is None


def _next_record_reference(recs, used, rng, sample=100):
    """The next record as first written (a max over a fresh sample, every value read per call)."""
    from edge_synth.record_order import record_categories

    used_ids = {id(u) for u in used}
    left = [r for r in recs if id(r) not in used_ids]
    if not left:
        return None
    cats = record_categories(recs, sample)
    seen = {f: {str(u.get(f)) for u in used} for f in cats}
    pick = rng.sample(left, min(len(left), sample))
    return max(pick, key=lambda r: sum(1.0 / k for f, k in cats.items() if str(r.get(f)) not in seen[f]))


def test_retry_order_picks_what_the_reference_picks():
    """RetryOrder shares work across the retries of one answer; every pick (and the random
    draws behind it) must stay those of the reference, or verification builds another graph."""
    from edge_synth.record_order import RetryOrder

    gen = random.Random(11)
    for trial in range(300):
        n = gen.choice([1, 2, 5, 30, 150, 400])
        recs = [{"kind": gen.choice("ABC"), "grade": gen.choice("xyzw") if gen.random() < 0.9 else None,
                 "code": str(gen.randrange(n * 3)), "flag": gen.choice(["Y", "N"]), "nested": {"a": 1}}
                for _ in range(n)]
        if trial % 7 == 0:
            recs += [dict(recs[0]) for _ in range(3)]  # equal records stay distinct records
        order, used = RetryOrder(recs), [recs[gen.randrange(len(recs))]]
        seed = gen.randrange(10**6)
        ours, ref = random.Random(seed), random.Random(seed)
        for _ in range(6):
            got, want = order.next(used, ours), _next_record_reference(recs, used, ref)
            assert got is want, (trial, n)
            if got is None:
                break
            used.append(got)
        assert ours.random() == ref.random()  # the same random draws were consumed


def test_empty_answer_is_retried_with_another_record(cat):
    from edge_synth.env import ProbeExecutor
    from edge_synth.probing import ProbeOptions, probe_link
    from edge_synth.seeds import SeedSampler

    a, b = "ecos_StatisticTableList", "ecos_StatisticItemList"
    recs = [{"STAT_CODE": "1.3.", "SRCH_YN": "N"}, {"STAT_CODE": "2.1.", "SRCH_YN": "N"},
            {"STAT_CODE": "3.2.", "SRCH_YN": "N"}, {"STAT_CODE": "722Y001", "SRCH_YN": "Y"}]
    c = FakeClient(default="nodata")
    c.add(b, {"STAT_CODE": "722Y001"}, [{"ITEM_CODE": "0101000", "ITEM_NAME": "기준금리"}])
    from kopa_bench.client.result import ToolResult

    res = ToolResult(tool=a, arguments={}, ok=True, result_code="00", records=recs)
    s = SeedSampler(cat, seed=0)
    one = [asyncio.run(probe_link(ProbeExecutor(c), s, a, b, _typed(_b("STAT_CODE", "STAT_CODE")), random.Random(i),
                                  upstream=({}, res))) for i in range(6)]
    assert all(p.records_tried == 1 for p in one)
    assert any(p.outcome == "empty" for p in one)  # a category row alone looks like a wrong link
    tries = [asyncio.run(probe_link(ProbeExecutor(c), s, a, b, _typed(_b("STAT_CODE", "STAT_CODE")), random.Random(i),
                                    ProbeOptions(record_tries=3), upstream=({}, res))) for i in range(6)]
    assert all(p.outcome == "success" and p.b_args["STAT_CODE"] == "722Y001" for p in tries)
    assert all(p.records_tried <= 2 for p in tries)  # the searchable row is the most unlike one
    # a wrong binding stays empty however many records are tried
    wrong = asyncio.run(probe_link(ProbeExecutor(c), s, a, b, _typed(_b("SRCH_YN", "STAT_CODE")), random.Random(0),
                                   ProbeOptions(record_tries=3), upstream=({}, res)))
    assert wrong.outcome == "empty" and wrong.records_tried == 2  # only two distinct values


def test_joint_group_members_share_the_outcome(cat):
    a, b = "tourapi_detailCommon2", "tago_getCrdntPrxmtSttnList"
    v = _one_edge_verifier(cat, a, b, [_b("mapy", "gpsLati", fk="lat", pk="lat"), _b("mapx", "gpsLong", fk="lon", pk="lon")])
    lat, lon = v.edge_arms[(a, b)]
    # only coordinate pairs share outcomes (one point); a composite key's members do not
    assert v.groups.partners(b, v.arms[lat].binding.to_param, "coord") == {"gpsLong"}
    assert v.groups.partners("neis_classInfo", "SD_SCHUL_CODE", "coord") == set()
    base = {"edge": (a, b), "arms": [lat], "companions": [lon], "joint": [lon], "depth": 0, "echoed": False,
            "passthrough": False}
    v._record([dict(base, outcome="success", sensitive=True, key=("A1", "B1"))], 0)
    assert v.arms[lat].successes == 1 and v.arms[lon].successes == 1 and v.arms[lon].sens_pos == 0
    v._record([dict(base, outcome="empty", sensitive=None, key=("A2", "B2"))], 0)
    assert v.arms[lon].n == 2 and v.arms[lon].structural == 1
    # an insensitive success is the tested member's value being ignored: not the partner's success
    v._record([dict(base, outcome="success", sensitive=False, key=("A3", "B3"))], 0)
    assert v.arms[lon].n == 2 and v.arms[lat].sens_neg == 1
    # a companion bound only to fill B (not a joint member) is not credited
    v._record([dict(base, joint=[], outcome="success", sensitive=True, key=("A4", "B4"))], 0)
    assert v.arms[lon].n == 2


def test_changed_total_count_is_sensitivity(cat):
    from edge_synth.env import ProbeExecutor
    from edge_synth.probing import ProbeOptions, probe_link
    from edge_synth.seeds import SeedSampler

    a, b = "kasi_getRestDeInfo", "tourapi_searchFestival2"
    page = [{"title": "가을축제", "eventstartdate": "20261010"}]
    c = FakeClient(default="nodata")
    c.add(b, {"eventStartDate": "20260101"}, page, total_count=40)
    c.add(b, {"eventStartDate": "20260301"}, page, total_count=31)  # same first page, fewer events
    from kopa_bench.client.result import ToolResult

    res = ToolResult(tool=a, arguments={"solYear": "2026"}, ok=True, result_code="00",
                     records=[{"locdate": "20260101"}, {"locdate": "20260301"}])
    pr = asyncio.run(probe_link(ProbeExecutor(c), SeedSampler(cat, seed=0), a, b,
                                _typed(_b("locdate", "eventStartDate", "identity", "date", "date")), random.Random(0),
                                ProbeOptions(sensitivity=True), upstream=({"solYear": "2026"}, res)))
    assert pr.outcome == "success" and pr.sensitive is True


def test_format_companion_in_an_unseen_shape_is_left_to_a_working_input(cat):
    """ECOS CYCLE 'A' from a table record, periods from a monthly working input: ERROR-101. The
    companion is left out when no working input of B had that shape, so CYCLE and periods come
    from one consistent input."""
    from edge_synth.env import ProbeExecutor
    from edge_synth.groups import derive_groups
    from edge_synth.probing import ProbeOptions, probe_link
    from edge_synth.seeds import SeedSampler
    from kopa_bench.client.result import ToolResult

    a, b = "ecos_StatisticTableList", "ecos_StatisticSearch"
    s = SeedSampler(cat, seed=0)
    s.groups = derive_groups(cat)
    ctx = {"STAT_CODE": "722Y001", "CYCLE": "M", "START_TIME": "202401", "END_TIME": "202412"}
    s.add_context(b, ctx)
    assert s.shape_known(b, "CYCLE", "M") and not s.shape_known(b, "CYCLE", "A")
    c = FakeClient(default="nodata")
    c.add(b, {"STAT_CODE": "901Y009", "CYCLE": "M"}, [{"TIME": "202401", "DATA_VALUE": "113.2"}])
    res = ToolResult(tool=a, arguments={}, ok=True, result_code="00",
                     records=[{"STAT_CODE": "901Y009", "CYCLE": "A"}])
    bnds = _typed(_b("STAT_CODE", "STAT_CODE"), _b("CYCLE", "CYCLE", fk="id", pk="id"))
    for i in range(4):
        pr = asyncio.run(probe_link(ProbeExecutor(c), s, a, b, bnds, random.Random(i),
                                    ProbeOptions(soft_companions=True), upstream=({}, res)))
        assert pr.b_args["CYCLE"] == "M" and pr.outcome == "success"


def test_example_slices_remember_narrowed_working_inputs(cat):
    """A bill list's default page holds no passed bill; its documented PROC_RESULT example does."""
    from edge_synth.env import ProbeExecutor
    from edge_synth.bootstrap import example_slices
    from edge_synth.seeds import SeedSampler

    t = "assembly_nzmimeepazxkubdpn"
    c = FakeClient(default="nodata")
    c.add(t, {"AGE": "22"}, [{"BILL_ID": "PRC_X", "PROC_RESULT": "철회"}])
    c.add(t, {"AGE": "22", "PROC_RESULT": "원안가결"}, [{"BILL_ID": "PRC_Y", "PROC_RESULT": "원안가결"}])
    sub = _Sub(cat, [t])
    s = SeedSampler(sub, seed=0)
    s.add_context(t, {"AGE": "22"})
    out = asyncio.run(example_slices(ProbeExecutor(c), s, sub))
    assert {"AGE": "22", "PROC_RESULT": "원안가결"} in s.contexts[t]
    assert any(r["BILL_ID"] == "PRC_Y" for r in out[t])
    n = len(s.contexts[t])
    asyncio.run(example_slices(ProbeExecutor(c), s, sub))  # once per tool
    assert len(s.contexts[t]) == n


def test_date_alone_links_a_dated_entity_only_to_a_calendar(cat):
    """A festival search takes only dates, but its records are located festivals: its start date
    handed to a school timetable names no shared entity, while
    the rest days of the festival's month (a calendar of days) and KASI -> molit still hold."""
    from tests.test_edge_precision import _b as b5
    from tests.test_edge_precision import _verifier as verifier

    v = verifier(cat, [
        ("tourapi_searchFestival2", "neis_misTimetable", [b5("eventstartdate", "TI_FROM_YMD", "date", "date", "yyyymmdd")]),
        ("tourapi_searchFestival2", "kasi_getRestDeInfo",
         [b5("eventstartdate", "solYear", "date", "year", "year"),
          b5("eventstartdate", "solMonth", "date", "month", "month_2d")]),
        ("kasi_getRestDeInfo", "molit_getRTMSDataSvcAptTrade", [b5("locdate", "DEAL_YMD", "date", "yyyymm", "yyyymm")]),
    ])
    assert v.evidence.names_days("kasi_getRestDeInfo") and not v.evidence.names_days("tourapi_searchFestival2")
    vg = v.verified_graph()
    assert not vg.has_edge("tourapi_searchFestival2", "neis_misTimetable")
    assert vg.has_edge("tourapi_searchFestival2", "kasi_getRestDeInfo")
    assert vg.has_edge("kasi_getRestDeInfo", "molit_getRTMSDataSvcAptTrade")


def test_composite_key_members_share_successes_only(cat):
    """NEIS office + school code bound from one record: B finding the school credits both
    members; an empty answer blames only the member under test (either could be wrong)."""
    a, b = "neis_schoolInfo", "neis_hisTimetable"
    v = _one_edge_verifier(cat, a, b, [_b("SD_SCHUL_CODE", "SD_SCHUL_CODE"), _b("ATPT_OFCDC_SC_CODE", "ATPT_OFCDC_SC_CODE")])
    school, office = v.edge_arms[(a, b)]
    assert v.groups.partners(b, "SD_SCHUL_CODE", "key") == {"ATPT_OFCDC_SC_CODE"}
    assert v.groups.partners(b, "SD_SCHUL_CODE", "key") & v.groups.partners(b, "SD_SCHUL_CODE", "coord") == set()
    base = {"edge": (a, b), "arms": [school], "companions": [office], "joint": [], "key_joint": [office],
            "depth": 0, "echoed": False, "passthrough": False}
    v._record([dict(base, outcome="success", sensitive=True, key=("A1", "B1"))], 0)
    assert v.arms[office].successes == 1 and v.arms[office].sens_pos == 0
    v._record([dict(base, outcome="empty", sensitive=None, key=("A2", "B2"))], 0)
    assert v.arms[office].n == 1 and v.arms[office].structural == 0 and v.arms[school].structural == 1
    # the same evidence twice is not new evidence
    v._record([dict(base, outcome="success", sensitive=True, key=("A1", "B1"))], 0)
    assert v.arms[office].successes == 1
    # an ignored value (insensitive success) credits nobody
    v._record([dict(base, outcome="success", sensitive=False, key=("A3", "B3"))], 0)
    assert v.arms[office].successes == 1


def test_point_outside_the_area_b_answered_is_no_evidence(cat):
    """TAGO lists stops only in the cities it covers: an empty answer for a tourist spot far from
    every point TAGO answered before says nothing about the coordinate binding."""
    from edge_synth.probing import outside_coverage
    from edge_synth.seeds import SeedSampler

    s = SeedSampler(cat, seed=0)
    b = "tago_getCrdntPrxmtSttnList"
    assert not outside_coverage(s, b, {"gpsLati": 33.5, "gpsLong": 126.5}, "gpsLati")  # nothing known yet
    for lat, lon in [(36.35, 127.38), (36.36, 127.40), (36.33, 127.42)]:  # Daejeon answered
        s.add_context(b, {"gpsLati": lat, "gpsLong": lon})
    assert outside_coverage(s, b, {"gpsLati": 33.5, "gpsLong": 126.5}, "gpsLati")  # Jeju
    assert not outside_coverage(s, b, {"gpsLati": 36.34, "gpsLong": 127.39}, "gpsLong")  # inside Daejeon
    # only a coordinate binding under test is judged by coverage
    assert not outside_coverage(s, b, {"gpsLati": 33.5, "gpsLong": 126.5}, "cityCode")


def test_date_outside_the_years_b_answered_is_no_evidence(cat):
    """Services keep different years: a holiday of 2003 bound into a lease month before any month
    the lease service answered says nothing about the date binding; a month inside them does."""
    from edge_synth.probing import outside_time_coverage
    from edge_synth.seeds import SeedSampler

    s = SeedSampler(cat, seed=0)
    b = "molit_getRTMSDataSvcAptRent"
    assert s.param_kind.get((b, "DEAL_YMD")) in ("yyyymm", "date")
    assert not outside_time_coverage(s, b, {"LAWD_CD": "11680", "DEAL_YMD": "200305"}, "DEAL_YMD")  # nothing known
    for ym in ("201501", "202401", "202610"):
        s.add_context(b, {"LAWD_CD": "11680", "DEAL_YMD": ym})
    assert outside_time_coverage(s, b, {"LAWD_CD": "11680", "DEAL_YMD": "200305"}, "DEAL_YMD")
    assert outside_time_coverage(s, b, {"LAWD_CD": "11680", "DEAL_YMD": "203001"}, "DEAL_YMD")
    assert not outside_time_coverage(s, b, {"LAWD_CD": "11680", "DEAL_YMD": "201907"}, "DEAL_YMD")
    # only a date binding under test is judged by time coverage
    assert not outside_time_coverage(s, b, {"LAWD_CD": "11680", "DEAL_YMD": "200305"}, "LAWD_CD")


def test_binding_set_is_trimmed_until_it_executes_together(cat):
    """Each binding held alone; together (the item's date into the price query's basDt) they
    answer nothing: the set is trimmed to what executes, weakest binding first."""
    import networkx as nx

    from edge_synth.env import ProbeExecutor

    a, b = "fsc_getItemInfo", "fsc_getStockPriceInfo"
    isin, day = _b("isinCd", "isinCd"), _b("basDt", "basDt", "identity", "date", "date")
    c = FakeClient(default="nodata")
    c.add(a, {}, [{"isinCd": "KR7005930003", "basDt": "20261126", "itmsNm": "삼성전자"}])
    c.add(b, {}, [{"isinCd": "KR7000660001", "basDt": "20261125", "clpr": "190000"}])  # no filter: every stock
    c.add(b, {"isinCd": "KR7005930003"}, [{"isinCd": "KR7005930003", "basDt": "20261125", "clpr": "71000"}])
    c.add(b, {"isinCd": "KR7005930003", "basDt": "20261126"}, [])  # no trading that day
    v = _one_edge_verifier(cat, a, b, [isin, day], ProbeExecutor(c))
    v.sampler.add_context(a, {})
    vg = nx.DiGraph()
    vg.add_nodes_from([a, b])
    vg.add_edge(a, b, bindings=[dict(isin, posterior=0.9), dict(day, posterior=0.7)], posterior=0.9)
    stats = asyncio.run(v.joint_sets(vg))
    assert stats["checked"] == 1 and stats["trimmed"] == 1
    assert [x["to_param"] for x in vg.edges[a, b]["bindings"]] == ["isinCd"]
    # a set that never executes, even trimmed to its best binding, removes the edge (B still lists
    # stocks without a filter: with B answering nothing at all, the control call would find every
    # empty answer explained by the context, no evidence either way)
    c.routes = [r for r in c.routes if r.tool != b or not r.args]
    c.add(b, {"isinCd": "KR7005930003"}, [])
    v.ex = ProbeExecutor(c)  # a fresh memo
    vg.edges[a, b]["bindings"] = [dict(isin, posterior=0.9), dict(day, posterior=0.7)]
    stats = asyncio.run(v.joint_sets(vg))
    assert stats["removed"] == 1 and not vg.has_edge(a, b)


def test_a_cycle_never_seen_learns_its_period_format(cat):
    """ECOS CYCLE 'D' bound from a table row while every working input was monthly: the periods
    are tried in each format (year, half, quarter, month, day) until ECOS answers, and the
    working input is remembered."""
    from edge_synth.env import ProbeExecutor
    from edge_synth.groups import derive_groups
    from edge_synth.formats import learn_format, period_shapes
    from edge_synth.seeds import SeedSampler

    assert period_shapes("202401", "202412") == [("2024", "2024"), ("2024S1", "2024S2"), ("2024Q1", "2024Q4"),
                                                 ("202401", "202412"), ("20240101", "20241231")]
    assert period_shapes("?", "2024") == []
    b = "ecos_StatisticSearch"
    c = FakeClient(default="nodata")
    c.add(b, {"CYCLE": "D", "START_TIME": "20240101", "END_TIME": "20241231"}, [{"TIME": "20240102", "DATA_VALUE": "1300"}])
    s = SeedSampler(cat, seed=0)
    s.groups = derive_groups(cat)
    s.add_context(b, {"STAT_CODE": "722Y001", "CYCLE": "M", "START_TIME": "202401", "END_TIME": "202412"})
    assert not s.shape_known(b, "CYCLE", "D")
    ok = asyncio.run(learn_format(ProbeExecutor(c), s, b, {"STAT_CODE": "731Y001", "CYCLE": "D"}, random.Random(0)))
    assert ok and s.shape_known(b, "CYCLE", "D")
    assert s.contexts[b][0]["START_TIME"] == "20240101" and s.contexts[b][0]["STAT_CODE"] == "731Y001"
    assert len(c.calls) == 5  # the day format is the fifth tried


def test_pool_cache_follows_harvests_exactly(cat):
    """Pools are cached and a harvested value invalidates only the pools that read its list:
    after every harvest, each cached pool equals a pool rebuilt from scratch."""
    from edge_synth.seeds import SeedSampler

    rng = random.Random(5)
    s = SeedSampler(cat, seed=0, harvest_cap=40)
    keys = [(ref.op.tool, p.name) for ref in cat for p in ref.op.model_params]
    # link sources: a few parameters also read another field's values
    for tool, pname in rng.sample(keys, 40):
        s.link_sources[(tool, pname)].add(rng.choice(["stationname", "basdt", "sggcd", "addr", "lawd_cd"]))
    fields = ["stationName", "basDt", "sggCd", "addr", "LAWD_CD", "SD_SCHUL_CODE", "umdName", "nx", "ny", "DEAL_YMD"]
    kinds = {"stationName": "station_name", "umdName": "dong_name", "basDt": "date", "addr": "address",
             "nx": "kma_nx", "ny": "kma_ny", "DEAL_YMD": "yyyymm"}
    splits = ["train", "test", "any"]
    for step in range(60):
        for tool, pname in rng.sample(keys, 30):  # fill part of the cache
            s.pool(tool, pname, rng.choice(splits))
        recs = [{f: rng.choice([f"{f}{rng.randrange(90)}", str(rng.randrange(20260101, 20261231)),
                                str(rng.randrange(1, 200)), "서울특별시 종로구 혜화동"])
                 for f in rng.sample(fields, 3)} for _ in range(rng.randrange(1, 6))]
        s.harvest("any_tool", recs, kinds)
        for (tool, pname, split), cached in s._pool_cache.items():
            assert cached == s._pool(tool, pname, split), (step, tool, pname, split)


def test_harvesting_an_answer_again_is_skipped_and_changes_nothing(cat):
    """harvest_answer skips a record list it harvested before (the executor's memoised answer);
    a full harvest of it again would add nothing either, and other lists are still harvested."""
    import copy

    from edge_synth.seeds import SeedSampler

    a, b = SeedSampler(cat, seed=0), SeedSampler(cat, seed=0)
    rng = random.Random(3)
    answers = [[{"stationName": f"st{rng.randrange(40)}", "addr": f"a{rng.randrange(40)}", "nx": str(rng.randrange(9))}
                for _ in range(rng.randrange(1, 30))] for _ in range(12)]
    kinds = {"stationName": "station_name", "addr": "address", "nx": "kma_nx"}
    for i in [0, 1, 0, 2, 1, 3, 0] + list(range(4, 12)) + [5, 5]:
        a.harvest_answer("t", answers[i], kinds)
        b.harvest("t", answers[i], kinds)
    assert copy.deepcopy(dict(a.by_field)) == dict(b.by_field) and dict(a.by_kind) == dict(b.by_kind)
    assert a._seen == b._seen and len(a._harvested) == 12
    assert a.by_field["stationname"]  # something was harvested

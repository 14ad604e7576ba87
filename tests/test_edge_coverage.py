"""EDGE probe allocation: a coverage phase gives every arm its own distinct probes before Thompson
sampling, repeated identical probes are not counted twice, probes per arm are reported; code
systems of different platforms do not bind into each other; a calendar day handed back to a
calendar is no evidence. FakeClient and catalog only (no world)."""

from __future__ import annotations

import asyncio

import pytest

from kopa_bench.catalog import get_catalog

from tests.test_edge import CTP, LST, NEAR, RT, TM, _Sub, fake


@pytest.fixture(scope="module")
def small():
    return _Sub(get_catalog(), [TM, NEAR, RT, CTP, LST])


def _verifier(cat, **cfg):
    from edge_synth.candidates import build_candidate_graph
    from edge_synth.env import ProbeExecutor
    from edge_synth.bootstrap import bootstrap_samples
    from edge_synth.seeds import SeedSampler
    from edge_synth.verify import Verifier
    from edge_synth.verify_config import VerifyConfig

    ex = ProbeExecutor(fake())
    sampler = SeedSampler(cat, seed=0)
    g = build_candidate_graph(cat)
    asyncio.run(bootstrap_samples(ex, sampler, cat, rounds=2, per_tool=2))
    return Verifier(g, ex, sampler, VerifyConfig(seed=0, **cfg))


def test_coverage_phase_probes_every_arm_before_thompson(small):
    v = _verifier(small, iterations=0, paths_per_iter=40, coverage_probes=3, coverage_rounds=6)
    summary = asyncio.run(v.run())
    assert v.thompson_paths == 0 and v.coverage_probes > 0
    # every arm was either decided (pruned), got its 3 distinct informative probes, or ran out of
    # coverage attempts (an upstream that never answers, inputs that only repeat)
    for aid, arm in v.arms.items():
        assert arm.pruned or arm.n >= 3 or v.coverage_probes >= len(v.arms), aid
    under = [a for a in v.arms.values() if not a.pruned and a.n < 3]
    assert summary["probes_per_arm"]["live_below_min"] == len(under)
    assert sum(summary["probes_per_arm"]["live_by_probes"].values()) == summary["probes_per_arm"]["live_arms"]
    assert {"coverage_probes", "thompson_paths", "duplicate_probes"} <= set(summary)


def test_thompson_gets_the_budget_coverage_left(small):
    v = _verifier(small, iterations=3, paths_per_iter=40, coverage_probes=2)
    asyncio.run(v.run())
    budget = 3 * 40
    left = max(budget - v.coverage_probes, budget // 3)  # never starved by coverage
    assert 0 < v.thompson_paths <= -(-left // 40) * 40


def test_identical_probe_is_not_counted_twice(small):
    from edge_synth.verify import Verifier

    v = _verifier(small, iterations=0, paths_per_iter=1)
    aid = next(iter(v.arms))
    arm = v.arms[aid]
    n0, a0 = arm.n, arm.alpha
    ev = {"edge": (arm.src, arm.dst), "arms": [aid], "outcome": "success", "depth": 0, "sensitive": True,
          "echoed": False, "passthrough": False, "key": ("A(x=1)", "B(y=2)")}
    Verifier._record(v, [ev], 0)
    Verifier._record(v, [dict(ev)], 1)
    assert arm.n == n0 + 1 and arm.alpha == a0 + 1 and v.duplicates == 1
    Verifier._record(v, [dict(ev, key=("A(x=1)", "B(y=3)"))], 2)  # another B call: new evidence
    assert arm.n == n0 + 2


def test_tago_and_tourapi_codes_are_separate_systems():
    from edge_synth.candidates import score_binding
    from edge_synth.values import infer_kind

    city = {"kind": infer_kind("citycode", "도시코드", ["25"]), "desc": "도시코드"}
    sgg = {"kind": infer_kind("sigunguCode", "시군구코드 district code within areaCode", ["1"]), "desc": "시군구코드"}
    area = {"kind": infer_kind("areaCode", "지역코드 area code", ["1"]), "desc": "지역코드"}
    assert (city["kind"], sgg["kind"], area["kind"]) == ("tago_city", "tour_sigungu", "tour_area")
    assert score_binding("citycode", city, "sigunguCode", sgg, 0.0) == []
    assert score_binding("sigungucode", sgg, "cityCode", {**city, "required": True}, 0.0) == []
    # same system still binds, and TourAPI areaCode2's generic `code` still feeds areaCode
    assert score_binding("citycode", city, "cityCode", city, 0.0)
    assert score_binding("sigungucode", sgg, "sigunguCode", sgg, 0.0)
    assert score_binding("code", {"kind": "id", "desc": "코드"}, "areaCode", area, 0.0)
    # ... but a NEIS meal code (1/2/3) is no TourAPI area code
    assert score_binding("MMEAL_SC_CODE", {"kind": "id", "desc": "식사코드"}, "areaCode", area, 0.0) == []


def test_an_address_is_not_cut_to_its_district():
    from edge_synth.values import transforms_for

    assert [t[0] for t in transforms_for("address", "address")] == ["identity"]


def test_calendar_day_handed_back_to_a_calendar_is_not_evidence():
    from tests.test_edge_precision import _b
    from tests.test_edge_precision import _verifier as verifier

    cat = get_catalog()
    v = verifier(cat, [
        ("kasi_getHoliDeInfo", "kasi_getRestDeInfo",
         [_b("locdate", "solYear", "date", "year", "year"), _b("locdate", "solMonth", "date", "month", "month_2d")]),
        ("kasi_getRestDeInfo", "molit_getRTMSDataSvcAptTrade", [_b("locdate", "DEAL_YMD", "date", "yyyymm", "yyyymm")]),
    ])
    vg = v.verified_graph()
    assert not vg.has_edge("kasi_getHoliDeInfo", "kasi_getRestDeInfo")
    assert vg.has_edge("kasi_getRestDeInfo", "molit_getRTMSDataSvcAptTrade")


def test_month_passed_back_counts_as_passthrough():
    from edge_synth.probing import norm_value

    assert norm_value("05") == norm_value(5) == "5"
    assert norm_value("0") == "0" and norm_value("종로구") == "종로구"


def test_dated_record_of_another_service_feeds_a_calendar():
    """The calendar rule refuses only same-service pairs: a festival (TourAPI, dated by its own
    start date) -> KASI rest days of the festival's month is evidence; KASI -> KASI is not."""
    from tests.test_edge_precision import _b
    from tests.test_edge_precision import _verifier as verifier

    cat = get_catalog()
    v = verifier(cat, [
        ("tourapi_searchFestival2", "kasi_getRestDeInfo",
         [_b("eventstartdate", "solYear", "date", "year", "year"),
          _b("eventstartdate", "solMonth", "date", "month", "month_2d")]),
        ("kasi_getHoliDeInfo", "kasi_getRestDeInfo", [_b("locdate", "solMonth", "date", "month", "month_2d")]),
    ])
    assert v.evidence.is_calendar("tourapi_searchFestival2") and v.evidence.is_calendar("kasi_getRestDeInfo")
    vg = v.verified_graph()
    assert vg.has_edge("tourapi_searchFestival2", "kasi_getRestDeInfo")
    assert not vg.has_edge("kasi_getHoliDeInfo", "kasi_getRestDeInfo")


def test_coverage_failure_with_an_unconfirmed_companion_is_not_credited(small):
    """In the coverage phase a failure whose B call bound a companion with no success yet is not
    the tested arm's fault (it may be the companion's); once the companion has succeeded, it is."""
    from edge_synth.verify import Verifier

    v = _verifier(small, iterations=0, paths_per_iter=1)
    aid, cid = list(v.arms)[:2]
    arm, comp = v.arms[aid], v.arms[cid]
    comp.successes = 0
    ev = {"edge": (arm.src, arm.dst), "arms": [aid], "companions": [cid], "outcome": "argument", "depth": 0,
          "sensitive": None, "echoed": False, "passthrough": False, "key": ("A(x=1)", "B(y=2)")}
    n0, b0 = arm.n, arm.beta
    for i in range(5):
        Verifier._record(v, [dict(ev, key=("A(x=1)", f"B(y={i})"))], -1, coverage=True)
    assert arm.n == n0 and arm.beta == b0 and not arm.pruned and v.companion_skipped == 5
    Verifier._record(v, [dict(ev, key=("A(x=1)", "B(y=9)"))], 0)  # Thompson phase: credited
    assert arm.n == n0 + 1 and arm.beta > b0
    comp.successes = 1  # a confirmed companion: the failure is the tested arm's
    Verifier._record(v, [dict(ev, key=("A(x=1)", "B(y=10)"))], -1, coverage=True)
    assert arm.n == n0 + 2 and v.companion_skipped == 5
    # successes and upstream failures are unaffected by companions
    comp.successes = 0
    Verifier._record(v, [dict(ev, outcome="success", key=("A(x=1)", "B(y=11)"))], -1, coverage=True)
    assert arm.successes >= 1 and arm.n == n0 + 3


def test_decision_phase_probes_arms_the_bandit_left_undecided(small):
    """An arm with a success but a posterior below `viable` (unlucky coverage probes) gets direct
    probes until it is verified, pruned or has `decide_probes` probes."""
    v = _verifier(small, iterations=0, paths_per_iter=40, decide_probes=0)
    asyncio.run(v.run())
    ok = [aid for aid, a in v.arms.items() if a.successes >= 2 and not a.pruned]
    assert ok, "the fake world has working links"
    aid = ok[0]
    arm = v.arms[aid]
    arm.alpha, arm.beta, arm.n, arm.successes = 2.0, 6.0, 3, 1  # as if 2 of 3 coverage probes failed
    v.seen_probes = {k for k in v.seen_probes if k[0] != aid}  # its probes may be run again
    v.cfg.decide_probes = 10
    assert aid in v.undecided()
    spent = asyncio.run(v.decide())
    assert spent > 0 and v.decision_probes == spent
    assert arm.n > 3 and (arm.pruned or arm.mean >= v.cfg.viable or arm.n >= 10 or aid not in v.undecided())
    assert "decision_probes" in v.summary()

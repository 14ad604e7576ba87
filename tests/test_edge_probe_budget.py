"""EDGE's probe budget: the uniform allocation spends the budget it is given (the one Thompson
spent), the recorder's checkpoints come in increasing probe counts with recall and precision in
[0, 1], the prior-only ranking and the goal search; the default allocation's settings keep the
verified graph's bytes. FakeClient and a five-tool catalog (no world)."""

from __future__ import annotations

import asyncio

import pytest

from kopa_bench.catalog import get_catalog

from tests.test_edge import CTP, LST, NEAR, RT, TM, _Sub
from tests.test_edge_coverage import _verifier


@pytest.fixture(scope="module")
def small():
    return _Sub(get_catalog(), [TM, NEAR, RT, CTP, LST])


def _refs(g, k=3):
    return [{"from_tool": a, "to_tool": b} for a, b in sorted(g.edges)[:k]]


def test_uniform_spends_the_budget_thompson_spent_and_checkpoints_are_monotone(small):
    from edge_synth.probe_budget import BudgetRecorder, curve, reprobe_verdicts

    t = _verifier(small, iterations=2, paths_per_iter=20)
    rec_t = BudgetRecorder(every=10)
    t.observer = rec_t
    asyncio.run(t.run())
    rec_t.finish(t)
    budget = t.executions
    assert budget > 0

    u = _verifier(small, iterations=2, paths_per_iter=20, allocation="uniform", probe_budget=budget)
    rec_u = BudgetRecorder(every=10)
    u.observer = rec_u
    summary = asyncio.run(u.run())
    rec_u.finish(u)
    assert u.executions == budget == summary["uniform_probes"] == summary["link_probes"]
    assert u.coverage_probes == 0 and u.thompson_paths == 0 and u.decision_probes == 0

    import json
    from pathlib import Path
    import tempfile

    from kopa_bench.perf.probe_budget import dump_recorder, load_recorder

    with tempfile.TemporaryDirectory() as d:  # the phases hand their checkpoints over as JSON
        path = Path(d) / "thompson.json"
        path.write_text(json.dumps(dump_recorder(rec_t, {"link_probes": budget})))
        snaps, binds, meta = load_recorder(path)
    assert snaps == rec_t.snapshots and meta == {"link_probes": budget}
    assert {k: [b.as_dict() for b in v] for k, v in binds.items()} == \
        {k: [b.as_dict() for b in v] for k, v in rec_t.bindings.items()}

    refs = _refs(t.g)
    verdicts = asyncio.run(reprobe_verdicts({**rec_t.bindings, **rec_u.bindings}, u.ex, u.sampler, n=1))
    for rec, v in ((rec_t, t), (rec_u, u)):
        probes = [s["probes"] for s in rec.snapshots]
        assert len(probes) >= 2 and probes == sorted(set(probes)) and probes[-1] == v.executions
        assert {e[:2] for e in rec.snapshots[-1]["edges"]} == set(v.verified_graph().edges)
        for p in curve(rec.snapshots, refs, verdicts):
            assert 0 <= p["recall"] <= 1 and 0 <= p["recall_with_selections"] <= 1
            assert p["precision"] is None or 0 <= p["precision"] <= 1


def test_observer_does_not_change_verification(small):
    from edge_synth.probe_budget import BudgetRecorder

    plain = _verifier(small, iterations=2, paths_per_iter=20)
    asyncio.run(plain.run())
    watched = _verifier(small, iterations=2, paths_per_iter=20)
    watched.observer = BudgetRecorder(every=1)
    asyncio.run(watched.run())
    assert plain.executions == watched.executions
    assert {k: (a.alpha, a.beta, a.n, a.pruned) for k, a in plain.arms.items()} == \
        {k: (a.alpha, a.beta, a.n, a.pruned) for k, a in watched.arms.items()}


def test_prior_ranking_and_goal_search(small):
    from edge_synth.candidates import build_candidate_graph
    from edge_synth.probe_budget import prior_ranking, probes_to_target, score

    g = build_candidate_graph(small)
    keys, bindings = prior_ranking(g)
    priors = [g.edges[k[:2]]["prior"] for k in keys]
    assert priors == sorted(priors, reverse=True) and set(bindings) == set(keys)
    refs = _refs(g, 2)
    full = score(keys, refs, {k: True for k in keys})
    assert full["recall"] == 1.0 and full["precision"] == 1.0
    pts = [{"probes": 10, "recall": 0.5, "recall_with_selections": 0.5, "precision": 1.0},
           {"probes": 20, "recall": 0.95, "recall_with_selections": 0.95, "precision": 0.9},
           {"probes": 30, "recall": 0.92, "recall_with_selections": 0.92, "precision": 0.96}]
    assert probes_to_target(pts) == {"reached": True, "probes": 30, "recall": 0.92, "precision": 0.96}
    miss = probes_to_target(pts[:2])
    assert not miss["reached"] and miss["best_recall_at_precision"] == 0.5 and miss["best_recall_any_precision"] == 0.95


def test_default_allocation_keeps_the_graph_settings_and_bad_values_are_refused():
    from edge_synth.verify_config import VerifyConfig

    d = VerifyConfig().as_dict()
    assert "allocation" not in d and "probe_budget" not in d  # a default run's verified.json is unchanged
    assert VerifyConfig(allocation="uniform", probe_budget=5).as_dict()["allocation"] == "uniform"
    with pytest.raises(ValueError, match="allocation 'greedy'"):
        VerifyConfig(allocation="greedy")
    with pytest.raises(ValueError, match="probe_budget -1"):
        VerifyConfig(probe_budget=-1)


def test_perf_reports_the_committed_probe_budget(tmp_path, monkeypatch, capsys):
    import json

    from kopa_bench.perf import probe_budget, suite

    res = {"link_probe_budget": 100, "probes_to_target": {
        "thompson": {"reached": True, "probes": 40, "recall": 0.91, "precision": 0.96},
        "uniform": {"reached": False, "max_probes": 100, "best_recall_at_precision": 0.8},
        "prior_only": {"reached": False, "max_k": 50, "best_recall_at_precision": None}}}
    path = tmp_path / "docs" / "results" / "edge_probe_budget.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(res))
    monkeypatch.setattr(probe_budget, "RESULT", path)
    out = suite.edge_probe_budget()
    assert out["edge_thompson_probes_to_goal"] == 40 and out["edge_uniform_probes_to_goal"] is None
    assert out["edge_uniform_best_recall_at_precision"] == 0.8 and out["edge_link_probe_budget"] == 100
    assert out["edge_probe_budget_source"] == "docs/results/edge_probe_budget.json"
    suite.print_table(out)
    text = capsys.readouterr().out
    assert "40 link probes" in text and "not reached (best recall 0.8)" in text
    monkeypatch.setattr(probe_budget, "RESULT", tmp_path / "none.json")
    assert "missing" in suite.edge_probe_budget()["edge_probe_budget_source"]

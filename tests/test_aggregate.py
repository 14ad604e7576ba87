"""pass@k / pass^k known values, bootstrap CIs, breakdowns."""

from __future__ import annotations

import pytest

from kopa_bench.scoring.aggregate import METRICS, aggregate, bootstrap_ci, pass_at_k, pass_hat_k
from kopa_bench.scoring.episode_score import EpisodeScore


def test_pass_at_k_known_values() -> None:
    assert pass_at_k(8, 0, 1) == 0.0
    assert pass_at_k(8, 8, 4) == 1.0
    assert pass_at_k(8, 2, 1) == pytest.approx(0.25)
    assert pass_at_k(4, 1, 4) == 1.0  # one success among 4 samples, all 4 drawn
    assert pass_at_k(8, 2, 4) == pytest.approx(1 - 15 / 70)  # C(6,4)/C(8,4)
    with pytest.raises(ValueError, match="at least 5 samples"):
        pass_at_k(4, 1, 5)


def test_pass_hat_k_known_values() -> None:
    assert pass_hat_k(8, 8, 4) == 1.0
    assert pass_hat_k(8, 2, 4) == 0.0
    assert pass_hat_k(8, 6, 4) == pytest.approx(15 / 70)
    assert pass_hat_k(4, 2, 1) == pytest.approx(0.5)  # k=1: pass^1 == pass@1
    assert pass_hat_k(4, 2, 1) == pass_at_k(4, 2, 1)


def _score(task: str, ok: bool, domain: str = "traffic", platforms=("seoul",)) -> EpisodeScore:
    return EpisodeScore(task_id=task, domain=domain, shape="sequential", difficulty="easy", platforms=list(platforms),
                        success=ok, response=1.0 if ok else 0.5, grounded=1.0 if ok else 0.0, action_precision=1.0,
                        action_recall=1.0, efficiency=1.0, n_calls=2, n_gold_calls=2)


def test_ci_contains_mean_and_breakdowns() -> None:
    scores = [_score(f"t{i}", (i + s) % 3 == 0, "law" if i % 2 else "traffic", ("seoul", "kma") if i < 3 else ("neis",))
              for i in range(10) for s in range(4)]
    rep = aggregate(scores, ks=(1, 4), n_boot=300, seed=1)
    succ = rep["metrics"]["success"]
    assert succ["ci_low"] <= succ["mean"] <= succ["ci_high"]
    assert rep["metrics"]["pass@4"]["mean"] >= rep["metrics"]["pass@1"]["mean"] >= rep["metrics"]["pass^4"]["mean"]
    assert rep["metrics"]["pass@1"]["mean"] == pytest.approx(succ["mean"])
    assert rep["metrics"]["efficiency"]["higher_is_better"] is False and METRICS["success"].higher_is_better
    assert set(rep["breakdown"]["domain"]) == {"law", "traffic"}
    assert rep["breakdown"]["platform"]["seoul"]["success"]["n_tasks"] == 3  # a task counts for each platform
    assert rep["metrics"]["data_flow"]["n_tasks"] == 0  # undefined everywhere -> left out, not zero


def test_bootstrap_is_seeded() -> None:
    vals = [0.0, 1.0, 1.0, 0.0, 1.0]
    assert bootstrap_ci(vals, seed=3) == bootstrap_ci(vals, seed=3)
    lo, hi = bootstrap_ci(vals, n_boot=500)
    assert lo <= sum(vals) / len(vals) <= hi

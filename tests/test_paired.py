"""Paired comparison of two runs (kopa_bench.scoring.paired, `kopa bench paired`): exact McNemar,
the task-clustered bootstrap CI of B - A, items only one run has, and the CLI on steps runs."""

from __future__ import annotations

import json
from math import comb
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kopa_bench.scoring.paired import mcnemar_exact, paired_compare

FIXTURE = Path(__file__).parent / "data" / "tasks_fixture.json"


@pytest.mark.parametrize("only_a, only_b, p", [(0, 0, 1.0), (0, 5, 0.0625), (5, 0, 0.0625), (1, 9, 0.021484375),
                                               (9, 1, 0.021484375), (3, 3, 1.0), (0, 10, 2 / 1024),
                                               (2, 8, 2 * (1 + 10 + 45) / 1024)])
def test_mcnemar_exact_known_values(only_a, only_b, p) -> None:
    assert mcnemar_exact(only_a, only_b) == pytest.approx(p, abs=1e-15)


def test_mcnemar_exact_is_a_two_sided_binomial_tail() -> None:
    for n in range(1, 30):
        for k in range(n + 1):
            tail = sum(comb(n, i) for i in range(min(k, n - k) + 1)) / 2 ** n
            assert mcnemar_exact(k, n - k) == pytest.approx(min(1.0, 2 * tail))
            assert 0.0 < mcnemar_exact(k, n - k) <= 1.0


def test_identical_runs_differ_by_nothing() -> None:
    a = {f"t{i}#0#{j}": float((i + j) % 2) for i in range(6) for j in range(3)}
    res = paired_compare(a, dict(a), cluster={k: k.split("#")[0] for k in a}, n_boot=200)
    assert res["diff"] == 0.0 and res["diff_ci"] == [0.0, 0.0] and res["mcnemar_p"] == 1.0
    assert res["a_right_b_wrong"] == res["b_right_a_wrong"] == 0 and not res["significant"]
    assert res["n_items"] == 18 and res["n_clusters"] == 6 and res["accuracy_a"] == res["accuracy_b"] == 0.5
    json.dumps(res, allow_nan=False)  # strict JSON


def test_counts_accuracies_and_a_clear_win() -> None:
    # i0: both right; i2: A right, B wrong; the other ten: B right, A wrong
    a = {f"i{i}": float(i in (0, 2)) for i in range(12)}
    b = {f"i{i}": float(i != 2) for i in range(12)}
    res = paired_compare(a, b, n_boot=500)
    assert (res["a_right_b_wrong"], res["b_right_a_wrong"]) == (1, 10)
    assert res["accuracy_a"] == pytest.approx(2 / 12) and res["accuracy_b"] == pytest.approx(11 / 12)
    assert res["diff"] == pytest.approx(9 / 12) and res["mcnemar_p"] == pytest.approx(mcnemar_exact(1, 10))
    lo, hi = res["diff_ci"]
    assert 0 < lo <= res["diff"] <= hi <= 1 and res["significant"]
    assert res["n_clusters"] == 12  # without a cluster map every item is its own unit


def test_the_ci_resamples_whole_tasks() -> None:
    """Ten tasks of ten steps each; B beats A on every step of tasks 0-4 and loses on every step of
    tasks 5-9, so B - A is 0 overall. Resampled by task, the difference swings with how many of
    the winning tasks are drawn; resampled step by step (as if all 100 were independent), the
    same data gives a much narrower interval. The items of one task move together."""
    a, b, cluster = {}, {}, {}
    for t in range(10):
        for s in range(10):
            k = f"t{t}#0#{s}"
            a[k], b[k] = (0.0, 1.0) if t < 5 else (1.0, 0.0)
            cluster[k] = f"t{t}"
    by_task = paired_compare(a, b, cluster=cluster, n_boot=2000)
    by_item = paired_compare(a, b, n_boot=2000)
    assert by_task["diff"] == by_item["diff"] == 0.0
    assert by_task["n_clusters"] == 10 and by_item["n_clusters"] == 100
    w_task = by_task["diff_ci"][1] - by_task["diff_ci"][0]
    w_item = by_item["diff_ci"][1] - by_item["diff_ci"][0]
    assert w_task > 2.5 * w_item, (by_task["diff_ci"], by_item["diff_ci"])
    # a resample of whole tasks can only move B - A in steps of one task's ten items: every bootstrap
    # difference is (winning tasks drawn - losing tasks drawn) / 10, so the CI ends are multiples of 0.2
    for end in by_task["diff_ci"]:
        assert round(end * 5, 9) == round(end * 5)
    # McNemar counts items, not tasks: 50 discordant each way
    assert (by_task["a_right_b_wrong"], by_task["b_right_a_wrong"]) == (50, 50) and by_task["mcnemar_p"] == 1.0


def test_the_bootstrap_is_seeded() -> None:
    a = {f"i{i}": float(i % 3 == 0) for i in range(30)}
    b = {f"i{i}": float(i % 2 == 0) for i in range(30)}
    assert paired_compare(a, b, n_boot=300, seed=4) == paired_compare(a, b, n_boot=300, seed=4)


def test_items_of_one_run_only_are_counted_and_left_out() -> None:
    a = {"x": 1.0, "y": 0.0, "only-a": 1.0}
    b = {"x": 1.0, "y": 1.0, "only-b1": 0.0, "only-b2": 0.0}
    res = paired_compare(a, b, n_boot=100)
    assert (res["only_in_a"], res["only_in_b"], res["n_items"]) == (1, 2, 2)
    assert res["accuracy_a"] == 0.5 and res["accuracy_b"] == 1.0  # on x and y alone
    assert (res["a_right_b_wrong"], res["b_right_a_wrong"]) == (0, 1)


def test_no_shared_item_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="share no scored item"):
        paired_compare({"a": 1.0}, {"b": 1.0})
    with pytest.raises(ValueError, match="share no scored item"):
        paired_compare({}, {})
    with pytest.raises(ValueError, match="n_boot=0"):
        paired_compare({"a": 1.0}, {"a": 1.0}, n_boot=0)


# -- kopa bench paired ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def runs(tmp_path_factory, world, catalog):
    """Steps runs of the fixture's three tasks by the oracle, the no-tool agent and the first-call
    agent, and an episodes run of the oracle."""
    from kopa_bench.runner.benchmark import run_benchmark
    from kopa_bench.runner.run_config import RunConfig
    from kopa_bench.runner.steps import run_steps
    from kopa_bench.tasks import parse_tasks

    tasks = parse_tasks(json.loads(FIXTURE.read_text(encoding="utf-8")))
    root = tmp_path_factory.mktemp("paired")
    out = {}
    for model in ("oracle", "no-tool", "first-call"):
        out[model] = root / model
        run_steps(tasks, RunConfig(model=model, mode="steps"), out[model], world=world, catalog=catalog)
    out["episodes"] = root / "episodes"
    run_benchmark(tasks, RunConfig(model="oracle"), out["episodes"], world=world, catalog=catalog)
    return out


def paired_json(a: Path, b: Path, *extra: str) -> dict:
    from kopa_bench.cli import app

    res = CliRunner().invoke(app, ["bench", "paired", str(a), str(b), "--json", "--n-boot", "200", *extra])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def step_items(run_dir: Path, world, catalog) -> dict[str, bool]:
    from kopa_bench.runner.steps import score_steps_run

    return {f"{s.task_id}#{s.seed}#{s.position}": s.correct for s in score_steps_run(run_dir, world=world, catalog=catalog)[0]}


def test_cli_paired_on_oracle_and_no_tool_steps_runs(runs, world, catalog) -> None:
    res = paired_json(runs["no-tool"], runs["oracle"])
    assert res["mode"] == "steps" and res["n_items"] == 9 and res["n_clusters"] == 3
    assert (res["accuracy_a"], res["accuracy_b"], res["diff"]) == (0.0, 1.0, 1.0)
    assert (res["a_right_b_wrong"], res["b_right_a_wrong"]) == (0, 9)
    assert res["mcnemar_p"] == pytest.approx(2 / 2 ** 9) and res["significant"]
    assert res["diff_ci"] == [1.0, 1.0] and res["only_in_a"] == res["only_in_b"] == 0
    assert res["run_a"] == str(runs["no-tool"]) and res["run_b"] == str(runs["oracle"])

    swapped = paired_json(runs["oracle"], runs["no-tool"])
    assert (swapped["a_right_b_wrong"], swapped["b_right_a_wrong"], swapped["diff"]) == (9, 0, -1.0)


def test_cli_paired_counts_agree_with_each_runs_scores(runs, world, catalog) -> None:
    """First-call (right on some first positions) against the oracle: the counts are the items'
    own scores, compared position by position."""
    a, b = step_items(runs["first-call"], world, catalog), step_items(runs["oracle"], world, catalog)
    assert set(a) == set(b) and 0 < sum(a.values()) < len(a)
    res = paired_json(runs["first-call"], runs["oracle"])
    assert res["accuracy_a"] == pytest.approx(sum(a.values()) / len(a)) and res["accuracy_b"] == 1.0
    assert res["b_right_a_wrong"] == sum(b[k] and not a[k] for k in a) == len(a) - sum(a.values())
    assert res["a_right_b_wrong"] == 0
    assert res["mcnemar_p"] == pytest.approx(mcnemar_exact(0, res["b_right_a_wrong"]))

    from kopa_bench.cli import app

    text = CliRunner().invoke(app, ["bench", "paired", str(runs["first-call"]), str(runs["oracle"]), "--n-boot", "200"])
    assert text.exit_code == 0 and "steps: 9 shared items over 3 tasks" in text.output and "McNemar" in text.output


def test_cli_paired_refuses_runs_of_two_modes_and_no_run(runs, tmp_path) -> None:
    from kopa_bench.cli import app

    res = CliRunner().invoke(app, ["bench", "paired", str(runs["oracle"]), str(runs["episodes"]), "--json"])
    assert res.exit_code == 2 and "steps run" in res.output and "episodes run" in res.output and "same mode" in res.output
    assert not res.stdout.strip().startswith("{")
    missing = tmp_path / "no-such-run"
    res = CliRunner().invoke(app, ["bench", "paired", str(runs["oracle"]), str(missing), "--json"])
    assert res.exit_code == 2 and "error:" in res.output and str(missing) in res.output, res.output
    res = CliRunner().invoke(app, ["bench", "paired", str(runs["oracle"]), str(runs["no-tool"]), "--n-boot", "0"])
    assert res.exit_code == 2 and "n_boot=0" in res.output, res.output

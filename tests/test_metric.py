"""The evaluate metric loads from its folder offline and matches the library scorer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kopa_bench.runner.benchmark import run_benchmark
from kopa_bench.runner.gold_scoring import score_run
from kopa_bench.runner.run_config import RunConfig
from kopa_bench.scoring.report import summarize_scores
from kopa_bench.tasks import execute_program_sync, parse_tasks

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "data" / "tasks_fixture.json"


@pytest.fixture()
def offline(monkeypatch):
    for var in ("HF_EVALUATE_OFFLINE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.setenv(var, "1")


def test_metric_matches_scorer(tmp_path, world, catalog, client, offline, monkeypatch) -> None:
    import evaluate

    tasks = parse_tasks(json.loads(FIXTURE.read_text(encoding="utf-8")))
    # a mixed run: oracle and first-call episodes in one file, so the numbers are not all 0 or 1
    run_benchmark(tasks, RunConfig(model="oracle"), tmp_path / "o", world=world, catalog=catalog)
    run_benchmark(tasks, RunConfig(model="first-call"), tmp_path / "f", world=world, catalog=catalog)
    lines = [l for d in ("o", "f") for l in (tmp_path / d / "episodes.jsonl").read_text(encoding="utf-8").splitlines()]
    scores = [s for d in ("o", "f") for s in score_run(tmp_path / d, world=world, catalog=catalog)[0]]
    expected = summarize_scores(scores, n_boot=200)

    by_id = {t.id: t for t in tasks}
    golds = {t.id: execute_program_sync(t, client) for t in tasks}
    refs = [json.dumps({"task": by_id[json.loads(l)["task_id"]].model_dump(mode="json"),
                        "gold": golds[json.loads(l)["task_id"]].model_dump(mode="json")}, ensure_ascii=False) for l in lines]
    metric = evaluate.load(str(ROOT / "kopa_bench" / "metrics" / "kopa_success"))
    got = metric.compute(predictions=lines, references=refs, n_boot=200)
    assert json.dumps(got, sort_keys=True) == json.dumps(expected, sort_keys=True)  # the very same numbers
    assert got["success_rate"] == pytest.approx(0.5) and set(got["pass_at_k"]) == {"1", "2"}
    for key in ("response", "grounded", "action_precision", "action_recall", "data_flow", "state", "efficiency", "breakdowns"):
        assert key in got

    # a bare task reference: the metric re-executes gold on the sandbox (patched to this world)
    from kopa_bench.client import executor

    monkeypatch.setattr(executor.KopaClient, "__init__", _with_world(executor.KopaClient.__init__, world, catalog))
    bare = [json.dumps(by_id[json.loads(l)["task_id"]].model_dump(mode="json"), ensure_ascii=False) for l in lines]
    assert metric.compute(predictions=lines, references=bare, n_boot=200)["success_rate"] == pytest.approx(0.5)


def _with_world(init, world, catalog):
    def patched(self, backend="sandbox", **kw):
        kw.setdefault("world", world)
        kw.setdefault("catalog", catalog)
        init(self, backend, **kw)

    return patched


def test_metric_scores_steps_runs_like_the_cli(tmp_path, world, catalog, client, offline) -> None:
    import evaluate

    from kopa_bench.runner.steps import run_steps, score_steps_run
    from kopa_bench.scoring.steps import summarize_step_scores

    tasks = parse_tasks(json.loads(FIXTURE.read_text(encoding="utf-8")))
    run_steps(tasks, RunConfig(model="first-call", mode="steps"), tmp_path, world=world, catalog=catalog)
    lines = (tmp_path / "episodes.jsonl").read_text(encoding="utf-8").splitlines()
    expected = summarize_step_scores(score_steps_run(tmp_path, world=world, catalog=catalog)[0], n_boot=200)
    by_id = {t.id: t for t in tasks}
    golds = {t.id: execute_program_sync(t, client) for t in tasks}
    refs = [json.dumps({"task": by_id[json.loads(l)["task_id"]].model_dump(mode="json"),
                        "gold": golds[json.loads(l)["task_id"]].model_dump(mode="json")}, ensure_ascii=False) for l in lines]
    metric = evaluate.load(str(ROOT / "kopa_bench" / "metrics" / "kopa_success"))
    got = metric.compute(predictions=lines, references=refs, n_boot=200)
    assert json.dumps(got, sort_keys=True) == json.dumps(expected, sort_keys=True)
    assert 0 < got["step_accuracy"] < 1 and got["breakdowns"]["position"]["1"]["step_accuracy"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="mix"):
        episode = json.dumps({"task_id": tasks[0].id})
        metric.compute(predictions=[lines[0], episode], references=refs[:2])


def test_metric_on_dataset_rows_equals_kopa_bench_score(tmp_path, world, catalog, offline, caplog) -> None:
    """Rows straight from `load_dataset(folder, "tasks")` are references as they are (no conversion), and
    the metric's numbers are `kopa bench score --json`'s on the same run folders."""
    import evaluate
    from datasets import load_dataset
    from typer.testing import CliRunner

    from builders.kopa_bench_dataset import build
    from kopa_bench.cli import app
    from kopa_bench.tasks import load_tasks

    folder = tmp_path / "kopa-bench"
    build(folder, world=world)
    rows = load_dataset(str(folder), "tasks", split="dev", cache_dir=str(tmp_path / "hfc"))
    by_id = {r["id"]: r for r in rows}
    tasks = load_tasks("dev")[:4]
    metric = evaluate.load(str(ROOT / "kopa_bench" / "metrics" / "kopa_success"))
    got_rates = []
    for model in ("oracle", "first-call"):
        run = tmp_path / model
        run_benchmark(tasks, RunConfig(model=model), run, world=world, catalog=catalog)
        res = CliRunner().invoke(app, ["bench", "score", str(run), "--json", "--n-boot", "200"])
        assert res.exit_code == 0, res.output
        cli = json.loads(res.stdout.strip().splitlines()[-1])
        lines = (run / "episodes.jsonl").read_text(encoding="utf-8").splitlines()
        refs = [by_id[json.loads(line)["task_id"]] for line in lines]
        assert isinstance(refs[0], dict) and isinstance(refs[0]["tags"], list)  # load_dataset's rows, untouched
        got = metric.compute(predictions=lines, references=refs, n_boot=200)
        for key in ("success_rate", "pass_at_k", "pass_hat_k", "response", "grounded", "action_precision",
                    "action_recall", "data_flow", "state", "efficiency", "breakdowns"):
            assert key in got
        for key, value in got.items():  # every number the metric gives is the CLI's
            assert json.dumps(value, sort_keys=True) == json.dumps(cli[key], sort_keys=True), key
        # {"task": row} (the shape the issue saw fail) scores the same
        wrapped = [json.dumps({"task": r}, ensure_ascii=False) for r in refs]
        assert metric.compute(predictions=lines, references=wrapped, n_boot=200) == got
        got_rates.append(got["success_rate"])
    assert got_rates[0] == 1.0 and got_rates[1] < 1.0  # oracle and a weak agent: the numbers are not trivial

    # a row from another world: its gold is re-executed here, and the metric says so
    import logging

    stale = dict(refs[0], world_hash="0" * 64)
    with caplog.at_level(logging.WARNING):
        metric.compute(predictions=lines[:1], references=[stale], n_boot=10)
    assert "built on world 000000000000" in caplog.text and world.content_hash[:12] in caplog.text

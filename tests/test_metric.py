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

"""The Space leaderboard reads what the CLI writes: `kopa bench score --json` files (like the
repo's docs/results/*.score.json), `kopa bench run` folders and scores.jsonl, and marks the rows
of incomplete runs."""

from __future__ import annotations

import json
import shutil
import sys

import pytest
from typer.testing import CliRunner

from kopa_bench.cli import app, bench_cmd
from kopa_bench.episodes import EPISODES
from tests.test_space_helpers import ROOT

pytest.importorskip("gradio")
sys.path.insert(0, str(ROOT / "space"))

from kopa_space.leaderboard_tab import build_leaderboard  # noqa: E402
from kopa_space.results import load_result, table  # noqa: E402

FIXTURE = ROOT / "tests" / "data" / "tasks_fixture.json"
DOCS_SCORE = ROOT / "docs" / "results" / "qwen2.5-coder-0.5b-llamacpp-dev.score.json"


@pytest.fixture(scope="module")
def runs(tmp_path_factory, world, catalog):
    """A whole oracle run, its `score --json` and `--scores-out` files, and a copy missing one episode."""
    root = tmp_path_factory.mktemp("results")
    runner = CliRunner()
    bench_cmd.CLIENT_DEFAULTS.update(world=world, catalog=catalog)
    try:
        whole = root / "oracle-run"
        res = runner.invoke(app, ["bench", "run", "--model", "oracle", "--tasks-file", str(FIXTURE), "--out", str(whole), "--no-progress"])
        assert res.exit_code == 0, res.output
        res = runner.invoke(app, ["bench", "score", str(whole), "--json", "--n-boot", "20",
                                  "--scores-out", str(root / "oracle-scores.jsonl")])
        assert res.exit_code == 0, res.output
        (root / "oracle.json").write_text(res.stdout, encoding="utf-8")
    finally:
        bench_cmd.CLIENT_DEFAULTS.clear()
    partial = root / "partial-run"
    shutil.copytree(whole, partial)
    lines = (partial / EPISODES).read_text(encoding="utf-8").splitlines(keepends=True)
    (partial / EPISODES).write_text("".join(lines[:2]), encoding="utf-8")
    return root


def test_score_json_files_load_like_the_docs_results(runs) -> None:
    docs = load_result(DOCS_SCORE)
    assert docs.model == "llamacpp:qwen2.5-coder-0.5b" and docs.agg["n_tasks"] == 32 and docs.status == "not recorded"
    assert docs.agg["metrics"]["success"]["mean"] == 0.0 and "shape" in docs.agg["breakdown"]
    assert docs.agg["metrics"]["grounded"]["ci_high"] == pytest.approx(0.04427083333333333)
    cli = load_result(runs / "oracle.json")
    assert cli.model == "oracle" and cli.status == "complete" and cli.agg["metrics"]["success"]["mean"] == 1.0
    jsonl = load_result(runs / "oracle-scores.jsonl")
    assert jsonl.agg["metrics"]["success"]["mean"] == 1.0 and jsonl.agg["n_episodes"] == 3


def test_run_folders_are_scored_and_incomplete_ones_marked(runs) -> None:
    whole, partial = load_result(runs / "oracle-run"), load_result(runs / "partial-run")
    assert whole.status == "complete" and whole.agg["n_episodes"] == 3 and whole.agg["metrics"]["success"]["mean"] == 1.0
    assert partial.status == "INCOMPLETE: 2 of 3" and partial.agg["n_episodes"] == 2
    kept = {json.loads(ln)["task_id"] for ln in (runs / "partial-run" / EPISODES).read_text(encoding="utf-8").splitlines()}
    dropped = sorted({t["id"] for t in json.loads(FIXTURE.read_text(encoding="utf-8"))} - kept)
    assert partial.completeness["missing"] == [f"{dropped[0]} seed 0"]
    headers, rows = table([partial, whole])
    assert headers[:2] == ["model", "run"] and [r[1] for r in rows] == ["complete", "INCOMPLETE: 2 of 3"]

    board, msg, _, _ = build_leaderboard(str(runs), [str(DOCS_SCORE)])
    statuses = sorted(r[1] for r in board["value"])
    assert statuses == ["INCOMPLETE: 2 of 3", "complete", "complete", "not recorded", "not recorded"], board["value"]
    assert "1 incomplete run(s)" in msg and "Skipped" not in msg


def test_empty_state_names_what_loads(tmp_path) -> None:
    _, msg, _, _ = build_leaderboard(str(tmp_path), [])
    assert "No results found" in msg
    for shape in ("kopa bench score RUN --json", "docs/results/*.score.json", "kopa bench run --out", "scores.jsonl"):
        assert shape in msg


def test_a_file_of_another_shape_is_named(tmp_path) -> None:
    (tmp_path / "x.json").write_text(json.dumps({"hello": 1}), encoding="utf-8")
    _, msg, _, _ = build_leaderboard(str(tmp_path), [])
    assert "x.json" in msg and "kopa bench score RUN --json" in msg

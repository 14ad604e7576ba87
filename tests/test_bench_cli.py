"""`kopa bench` end to end with typer's CliRunner on the fixture tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kopa_bench.cli import app
from kopa_bench.cli import bench_cmd

FIXTURE = Path(__file__).parent / "data" / "tasks_fixture.json"
AXES = ("response", "grounded", "action_precision", "action_recall", "data_flow", "state", "efficiency")


@pytest.fixture(autouse=True)
def _small_world(monkeypatch, world, catalog):
    monkeypatch.setattr(bench_cmd, "CLIENT_DEFAULTS", {"world": world, "catalog": catalog})


def invoke(*args):
    res = CliRunner().invoke(app, [str(a) for a in args])
    return res


def test_run_score_report(tmp_path) -> None:
    runs = {}
    for model in ("oracle", "no-tool"):
        runs[model] = tmp_path / model
        res = invoke("bench", "run", "--model", model, "--tasks-file", FIXTURE, "--out", runs[model], "--seeds", 2, "--no-progress")
        assert res.exit_code == 0, res.output
        assert "6 episodes run" in res.output
    res = invoke("bench", "score", runs["oracle"], "--json", "--n-boot", 100)
    assert res.exit_code == 0, res.output
    summary = json.loads(res.output)
    assert summary["success_rate"] == 1.0 and summary["pass_at_k"] == {"1": 1.0, "2": 1.0} and summary["pass_hat_k"]["2"] == 1.0
    assert all(summary[a] is not None for a in AXES) and {"shape", "domain"} <= set(summary["breakdowns"])
    nt = json.loads(invoke("bench", "score", runs["no-tool"], "--json", "--n-boot", 100).output)
    assert nt["success_rate"] == 0.0 and nt["pass_at_k"]["2"] == 0.0
    rec = invoke("bench", "recovery", runs["oracle"], "--json")
    assert rec.exit_code == 0, rec.output
    rec = json.loads(rec.output)
    assert rec["episodes"] == 6 and rec["faults"] == rec["seen"] == 0 and len(rec["per_episode"]) == 6
    assert "recovery_rate" in invoke("bench", "recovery", runs["oracle"]).output
    table = invoke("bench", "score", runs["oracle"])
    assert table.exit_code == 0 and "success" in table.output and "100.0%" in table.output
    rep = invoke("bench", "report", runs["oracle"], runs["no-tool"], "--out", tmp_path / "report", "--n-boot", 100)
    assert rep.exit_code == 0, rep.output
    for name in ("report.md", "success_by_shape.png", "success_by_domain.png", "calls_per_task.png", "error_types.png"):
        assert (tmp_path / "report" / name).stat().st_size > 0
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert md.index("| 1 | oracle") < md.index("| 2 | no-tool")


def test_stats_json_and_plot(tmp_path) -> None:
    res = invoke("bench", "stats", "--tasks-file", FIXTURE, "--json", "--plot", tmp_path / "s.png")
    assert res.exit_code == 0, res.output
    st = json.loads(res.output)
    assert st["tasks"] == 3 and st["max_calls"] == 3 and st["mean_calls"] == pytest.approx(7 / 3)
    assert st["parallel_share"] == pytest.approx(1 / 3) and st["platforms"] == {"airkorea": 3}
    assert st["by_shape"] == {"sequential": 1, "reduction": 1, "parallel": 1} and st["by_domain"] == {"district": 3}
    assert (tmp_path / "s.png").stat().st_size > 0


def test_check_data(tmp_path) -> None:
    ok = invoke("bench", "check-data", "--tasks-file", FIXTURE)
    assert ok.exit_code == 0, ok.output
    tasks = json.loads(FIXTURE.read_text(encoding="utf-8"))
    dup = dict(tasks[1], id="kopa-fixture-101", query=tasks[1]["query"].replace("어디고", "어디이고"))
    bad_tool = dict(tasks[0], id="kopa-fixture-102", query="완전히 다른 질문: 종로구 측정소 목록 보여줘",
                    tools=tasks[0]["tools"] + ["airkorea_noSuchTool"])
    empty = json.loads(json.dumps(tasks[0]))
    empty.update(id="kopa-fixture-103", query="없는 동네 미세먼지 알려줘 제발")
    empty["program"][0]["args"]["umdName"] = "없는동네"
    schema = dict(tasks[2], id="kopa-fixture-104", query="스키마가 틀린 과제", shape="zigzag")
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(tasks + [dup, bad_tool, empty, schema], ensure_ascii=False), encoding="utf-8")
    res = invoke("bench", "check-data", "--tasks-file", path)
    assert res.exit_code == 1
    out = res.output
    assert "kopa-fixture-101: near-duplicate query of kopa-fixture-002" in out
    assert "kopa-fixture-102: offered tools not in the catalog: ['airkorea_noSuchTool']" in out
    assert "kopa-fixture-103: gold does not execute" in out
    assert "kopa-fixture-104: schema" in out and "shape" in out
    assert "kopa-fixture-001" not in out.split("problems", 1)[1]


def test_audit_scorer_json() -> None:
    res = invoke("bench", "audit-scorer", "--tasks-file", FIXTURE, "--json")
    assert res.exit_code == 0, res.output
    rep = json.loads(res.output)
    assert rep["real_error_kill_rate"] == 1.0 and rep["harmless_change_rate"] == 0.0 and not rep["failures"]
    kinds = {row["kind"]: row for row in rep["kinds"]}
    assert kinds["wrong_value"]["n"] > 0 and kinds["wrong_value"]["rate"] == 1.0 and kinds["paging"]["real"] is False
    table = invoke("bench", "audit-scorer", "--tasks-file", FIXTURE)
    assert table.exit_code == 0 and "real_error_kill_rate 1.0000" in table.output

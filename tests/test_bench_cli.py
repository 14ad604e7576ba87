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


def test_steps_mode_score_report_compare(tmp_path) -> None:
    """`--mode steps` through the CLI: score --json gives step_accuracy with CIs and breakdowns;
    report and compare put it beside the full run's pass@1 (what the quickstart prints)."""
    full, steps, floor = tmp_path / "full", tmp_path / "steps", tmp_path / "floor"
    assert invoke("bench", "run", "--model", "oracle", "--tasks-file", FIXTURE, "--out", full, "--no-progress").exit_code == 0
    res = invoke("bench", "run", "--model", "oracle", "--mode", "steps", "--tasks-file", FIXTURE, "--out", steps, "--no-progress")
    assert res.exit_code == 0, res.output
    assert "9 steps run, 0 already finished" in res.output and "step accuracy 100.0%" in res.output
    res = invoke("bench", "run", "--model", "no-tool", "--mode", "steps", "--tasks-file", FIXTURE, "--out", floor, "--no-progress")
    assert res.exit_code == 0, res.output
    s = json.loads(invoke("bench", "score", steps, "--json", "--n-boot", 100).output)
    assert s["mode"] == "steps" and s["step_accuracy"] == 1.0 and s["step_accuracy_ci"] == [1.0, 1.0]
    assert s["n_steps"] == 9 and s["model"] == "oracle"
    assert set(s["breakdowns"]) == {"position", "shape", "domain", "platform", "error_kind"}
    assert all(g["ci"] == [1.0, 1.0] for key in s["breakdowns"].values() for g in key.values())
    n = json.loads(invoke("bench", "score", floor, "--json", "--n-boot", 100).output)
    assert n["step_accuracy"] == 0.0 and n["failures"] == {"no_call": 6, "answer_facts": 3}
    table = invoke("bench", "score", steps)
    assert table.exit_code == 0 and "position answer" in table.output
    # a steps directory refuses an episodes rerun
    assert invoke("bench", "run", "--model", "oracle", "--tasks-file", FIXTURE, "--out", steps, "--no-progress").exit_code == 2

    cmp = invoke("bench", "compare", full, steps, floor, "--n-boot", 100)
    assert cmp.exit_code == 0, cmp.output
    oracle_row = next(l for l in cmp.output.splitlines() if "oracle" in l)
    assert "100.0% [100.0%, 100.0%] (3/3)" in oracle_row and "(9 steps)" in oracle_row
    assert "0.0%" in next(l for l in cmp.output.splitlines() if "no-tool" in l)

    rep = invoke("bench", "report", full, steps, floor, "--out", tmp_path / "report", "--n-boot", 100)
    assert rep.exit_code == 0, rep.output
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "## Full episodes and steps, side by side" in md and "## Step accuracy by position" in md
    assert "](step_accuracy_by_position.png)" in md and (tmp_path / "report" / "step_accuracy_by_position.png").stat().st_size
    row = next(l for l in md.splitlines() if l.startswith("| oracle | 100.0% ["))
    assert "(9 steps)" in row
    # only steps runs: the report still has its side-by-side table
    rep = invoke("bench", "report", steps, "--out", tmp_path / "report2", "--n-boot", 100)
    assert rep.exit_code == 0, rep.output


def test_check_data_format_2_constructs(tmp_path) -> None:
    """Paged steps, for_each steps and named picks: every misuse is named with its task, step, field and fix."""
    base = json.loads(FIXTURE.read_text(encoding="utf-8"))[1]  # Seoul's worst PM10 station, then its hourly values

    def variant(n: int, query: str, s1: dict | None = None, s2: dict | None = None, answer: list | None = None) -> dict:
        t = json.loads(json.dumps(base))
        t.update(id=f"kopa-fixture-2{n:02d}", query=query)
        t["program"][0].update(s1 or {})
        t["program"][1].update(s2 or {})
        if answer is not None:
            t["answer"] = answer
        return t

    pages = {"page": "pageNo", "size": "numOfRows"}
    tasks = [
        variant(1, "서울 측정소 전부를 열 개씩 넘겨 보면서 미세먼지 최악인 곳 찾아줘", {"args": {"sidoName": "서울", "numOfRows": 10}, "pages": pages}),
        variant(2, "페이지 인자 이름을 잘못 적은 과제입니다", {"args": {"sidoName": "서울", "numOfRows": 10}, "pages": {"page": "page", "size": "numOfRows"}}),
        variant(3, "한 쪽이면 다 나오는데 굳이 페이지를 넘기는 과제", {"pages": pages}),
        variant(4, "이름 붙인 선택이 아무것도 못 찾는 경우를 봅니다", {"picks": {"nowhere": {"where": {"stationName": "없는측정소"}}}}),
        variant(5, "측정소마다 돌리려 했지만 거른 뒤 남는 게 없음",
                s2={"args": {"stationName": "$each.stationName", "dataTerm": "DAILY"}, "for_each": {"of": "$s1.items", "where": {"stationName": "없는측정소"}}}),
        variant(6, "모든 측정소마다 시간별 값을 다 부르면 한도를 넘어요",
                s2={"args": {"stationName": "$each.stationName", "dataTerm": "DAILY"}, "for_each": {"of": "$s1.items", "max": 2}}),
        variant(7, "없는 이름의 선택을 답에서 읽는 잘못된 과제",
                answer=[{"id": "f1", "description": "d", "value": "$s1.picks.worst.stationName"}]),
        variant(8, "같은 측정소를 두 번 부르는 반복 과제",
                s2={"args": {"stationName": "$each", "dataTerm": "DAILY"},
                    "for_each": {"of": ["$s1.items[0].stationName", "$s1.items[0].stationName"]}}),
    ]
    path = tmp_path / "format2.json"
    path.write_text(json.dumps(tasks, ensure_ascii=False), encoding="utf-8")
    res = invoke("bench", "check-data", "--tasks-file", path)
    assert res.exit_code == 1
    out = res.output
    assert "kopa-fixture-201" not in out.split("problems", 1)[1]  # a paged step over several pages is fine
    assert ("kopa-fixture-202: step s1 pages: ['page'] are not parameters of airkorea_getCtprvnRltmMesureDnsty" in out
            and "name its page / size" in out)
    assert "kopa-fixture-203: step s1 pages: the sandbox answers in one page" in out and "lower the page size (args.numOfRows)" in out
    assert "kopa-fixture-204: step s1 picks.nowhere matches no record" in out
    assert "kopa-fixture-205: step s2 for_each: '$s1.items' gives no element on the sandbox" in out
    assert "kopa-fixture-206: gold does not execute" in out and "step s2 for_each" in out and "more than for_each.max=2; raise max" in out
    assert "kopa-fixture-208: step s2 for_each: s2[0] and s2[1] make the same call" in out
    assert "kopa-fixture-207: schema" in out and "no pick named 'worst'" in out and "add it to s1.picks" in out


def test_audit_scorer_json() -> None:
    res = invoke("bench", "audit-scorer", "--tasks-file", FIXTURE, "--json")
    assert res.exit_code == 0, res.output
    rep = json.loads(res.output)
    assert rep["real_error_kill_rate"] == 1.0 and rep["harmless_change_rate"] == 0.0 and not rep["failures"]
    kinds = {row["kind"]: row for row in rep["kinds"]}
    assert kinds["wrong_value"]["n"] > 0 and kinds["wrong_value"]["rate"] == 1.0 and kinds["paging"]["real"] is False
    table = invoke("bench", "audit-scorer", "--tasks-file", FIXTURE)
    assert table.exit_code == 0 and "real_error_kill_rate 1.0000" in table.output

"""Runs that refuse to lie: an episode the model server or the harness ended is an infra error
(never scored, run again by a rerun), and a run missing episodes, holding torn lines or infra
errors scores as INCOMPLETE, naming what is missing, with exit 1 unless --allow-partial."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kopa_bench.cli import app, bench_cmd
from kopa_bench.episodes import EPISODES, Episode, check_completeness, latest_attempts, read_episodes, scan_records
from kopa_bench.runner.backends.openai_compat import OpenAICompatBackend
from tests.fake_openai import completion, serving
from tests.test_space_helpers import free_port

FIXTURE = Path(__file__).parent / "data" / "tasks_fixture.json"
TASKS = json.loads(FIXTURE.read_text(encoding="utf-8"))
IDS = [t["id"] for t in TASKS]


@pytest.fixture(autouse=True)
def _small_world(monkeypatch, world, catalog):
    monkeypatch.setattr(bench_cmd, "CLIENT_DEFAULTS", {"world": world, "catalog": catalog})


@pytest.fixture(autouse=True)
def _no_backoff(monkeypatch):
    # the retries still happen (and are exhausted); only their waits go
    monkeypatch.setattr(OpenAICompatBackend, "_delay", lambda self, state: 0.0)


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def run(model: str, out: Path, *extra):
    return invoke("bench", "run", "--model", model, "--tasks-file", FIXTURE, "--out", out, "--no-progress", *extra)


def score_json(out: Path, *extra) -> tuple[int, dict]:
    res = invoke("bench", "score", out, "--json", "--n-boot", 20, *extra)
    return res.exit_code, json.loads(res.stdout.strip().splitlines()[0])


def answer_first_step(body: dict) -> dict:
    """A model that makes the task's first gold call (literal arguments), then answers."""
    query = next(m["content"] for m in body["messages"] if m["role"] == "user")
    task = next(t for t in TASKS if t["query"] == query)
    if not any(m["role"] == "tool" for m in body["messages"]):
        step = task["program"][0]
        call = {"id": "call_0", "type": "function",
                "function": {"name": step["tool"], "arguments": json.dumps(step["args"], ensure_ascii=False)}}
        return completion({"role": "assistant", "content": None, "tool_calls": [call]})
    return completion({"role": "assistant", "content": "측정소 정보를 찾지 못했습니다."})


def test_dead_endpoint_is_an_infra_error_and_a_rerun_with_it_up_completes(tmp_path) -> None:
    port = free_port()
    model = f"openai:http://127.0.0.1:{port}/v1#fake"
    out = tmp_path / "run"
    res = run(model, out)
    assert res.exit_code == 1, res.output
    assert "INCOMPLETE: 0 of 3 episodes" in res.output and "infra errors 3" in res.output
    eps = read_episodes(out / EPISODES)
    assert [e.stop_reason for e in eps] == ["infra_error"] * 3 and all("ConnectError" in e.errors[0] for e in eps)

    # scoring says why and exits non-zero; nothing was scored as a model failure
    table = invoke("bench", "score", out, "--n-boot", 20)
    assert table.exit_code == 1
    assert "INCOMPLETE: 0 of 3 episodes" in table.output and "infra errors 3" in table.output
    assert all(f"{i} seed 0" in table.output for i in IDS) and "--allow-partial" in table.output
    code, summary = score_json(out)
    assert code == 1 and summary["complete"] is False and summary["n_episodes"] == 0 and summary["success_rate"] is None
    assert summary["completeness"]["infra_errors"] == [f"{i} seed 0" for i in IDS]
    assert summary["completeness"]["expected"] == 3 and summary["completeness"]["finished"] == 0
    assert "ConnectError" in summary["completeness"]["reasons"][f"{IDS[0]} seed 0"]
    assert score_json(out, "--allow-partial")[0] == 0

    # the same command with the endpoint up runs all three again (none counts as finished)
    with serving(answer_first_step, port=port):
        res = run(model, out)
    assert res.exit_code == 0, res.output
    assert "3 episodes run, 0 already finished, 3 of 3" in res.output
    attempts = latest_attempts(read_episodes(out / EPISODES))
    assert len(read_episodes(out / EPISODES)) == 6 and {e.stop_reason for e in attempts} == {"answer"}
    code, summary = score_json(out)
    assert code == 0 and summary["complete"] is True and summary["n_episodes"] == 3
    assert summary["completeness"]["infra_errors"] == [] and summary["success_rate"] == 0.0
    assert json.loads((out / "run.json").read_text(encoding="utf-8"))["status"] == "finished"


def test_the_dead_endpoint_of_the_issue_fails_scoring_saying_why(tmp_path) -> None:
    out = tmp_path / "dead"
    assert run("openai:http://127.0.0.1:9/v1#x", out, "--tasks", IDS[0]).exit_code == 1
    res = invoke("bench", "score", out)
    assert res.exit_code == 1
    assert "INCOMPLETE: 0 of 1 episodes" in res.output and "model server failed" in res.output
    assert "All connection attempts failed" in res.output and "http://127.0.0.1:9/v1" in res.output


def test_server_errors_are_infra_errors_but_malformed_output_is_the_model(tmp_path) -> None:
    calls = {"n": 0}

    def broken(body: dict):
        calls["n"] += 1
        return 503, {"error": {"message": "overloaded"}}

    with serving(broken) as url:
        res = run(f"openai:{url}#fake", tmp_path / "5xx", "--tasks", IDS[0])
    assert res.exit_code == 1 and "infra errors 1" in res.output
    (ep,) = read_episodes(tmp_path / "5xx" / EPISODES)
    assert ep.stop_reason == "infra_error" and "HTTP 503" in ep.errors[0] and calls["n"] == 5  # 1 + 4 retries

    def garbled(body: dict):
        if any(m["role"] == "tool" for m in body["messages"]):
            return completion({"role": "assistant", "content": "모르겠습니다."})
        bad = {"id": "call_0", "type": "function", "function": {"name": "airkorea_getTMStdrCrdnt", "arguments": "{umdName: 혜화"}}
        return completion({"role": "assistant", "content": None, "tool_calls": [bad]})

    with serving(garbled) as url:
        res = run(f"openai:{url}#fake", tmp_path / "bad", "--tasks", IDS[0])
    assert res.exit_code == 0, res.output
    (ep,) = read_episodes(tmp_path / "bad" / EPISODES)
    assert ep.stop_reason == "answer" and ep.error_counts == {"parse": 1}
    code, summary = score_json(tmp_path / "bad")
    assert code == 0 and summary["complete"] and summary["n_episodes"] == 1 and summary["errors"] == {"parse": 1}


def test_torn_and_missing_episodes_make_the_score_incomplete(tmp_path) -> None:
    out = tmp_path / "run"
    assert run("oracle", out, "--seeds", 2).exit_code == 0
    path = out / EPISODES
    lines = path.read_bytes().split(b"\n")[:-1]
    assert len(lines) == 6
    kept = [ln for ln in lines if json.loads(ln)["task_id"] != IDS[1]]  # both seeds of the second task gone
    corrupt = b'{"task_id": "kopa-fixture-003", "seed": 1, "calls": [{"id"'
    path.write_bytes(b"\n".join(kept[:3]) + b"\n" + corrupt + b"\n" + kept[3] + b"\n" + lines[0][:40])
    assert scan_records(path).torn_lines == [4, 6]

    res = invoke("bench", "score", out, "--n-boot", 20)
    assert res.exit_code == 1
    assert "INCOMPLETE: 4 of 6 episodes" in res.output
    assert f"missing 2: {IDS[1]} seed 0, {IDS[1]} seed 1" in res.output
    assert "torn lines of" in res.output and ": 4, 6" in res.output
    code, summary = score_json(out)
    whole = summary["completeness"]
    assert code == 1 and whole["missing"] == [f"{IDS[1]} seed 0", f"{IDS[1]} seed 1"] and whole["torn_lines"] == [4, 6]
    assert summary["n_episodes"] == 4 and summary["success_rate"] == 1.0  # what finished is still scored
    code, summary = score_json(out, "--allow-partial")
    assert code == 0 and summary["complete"] is False

    # `kopa bench report` marks the partial run in its leaderboard
    rep = invoke("bench", "report", out, "--out", tmp_path / "report", "--n-boot", 20)
    assert rep.exit_code == 0, rep.output
    assert "[INCOMPLETE: 4 of 6 episodes]" in (tmp_path / "report" / "report.md").read_text(encoding="utf-8")


def test_check_completeness_is_about_ids() -> None:
    c = check_completeness(["a", "b", "c", "d"], ["a", "x"], infra_errors={"b": "HTTP 503", "a": "old"}, torn_lines=[7],
                           unit="steps")
    assert (c.expected, c.finished, c.missing, c.infra_errors, c.torn_lines) == (4, 1, ["c", "d"], ["b"], [7])
    assert c.reasons == {"b": "HTTP 503"} and c.problems()[1].endswith("b; b: HTTP 503")
    assert not c.complete and c.headline() == "INCOMPLETE: 1 of 4 steps"
    assert [p.split(" ")[0] for p in c.problems()] == ["missing", "infra", "torn"]
    whole = check_completeness(["a"], ["a"])
    assert whole.complete and whole.headline() == "complete: 1 of 1 episodes" and whole.report()["complete"] is True
    many = check_completeness([str(i) for i in range(25)], [])
    assert many.problems() == ["missing 25: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 ... and 15 more"]


def test_latest_attempt_counts_and_legacy_error_reads_as_infra() -> None:
    legacy = Episode.model_validate({"task_id": "t", "stop_reason": "error", "errors": ["backend failed"]})
    assert legacy.stop_reason == "infra_error" and legacy.infra_error
    done = Episode(task_id="t", stop_reason="answer", final_answer="x")
    other = Episode(task_id="u", seed=1, stop_reason="step_limit")
    assert latest_attempts([legacy, done, other]) == [done, other]
    assert latest_attempts([legacy]) == [legacy]

"""Step-level runs (`kopa bench run --mode steps`): what the model is shown, how each step is
scored, the floors and ceilings, resuming, and the CLI / metric / report paths."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from kopa_bench.episodes import RunDirError, StepEpisode
from kopa_bench.runner.benchmark import run_benchmark
from kopa_bench.runner.run_config import RunConfig
from kopa_bench.runner.scripted import OracleBackend
from kopa_bench.runner.steps import read_step_records, run_steps, score_steps_run
from kopa_bench.scoring.steps import summarize_step_scores
from kopa_bench.tasks import parse_tasks
from kopa_bench.tasks.task_schema import load_tasks

FIXTURE = Path(__file__).parent / "data" / "tasks_fixture.json"


@pytest.fixture(scope="module")
def tasks():
    return parse_tasks(json.loads(FIXTURE.read_text(encoding="utf-8")))


def steps_config(model: str, **kw) -> RunConfig:
    return RunConfig(model=model, mode="steps", **kw)


def by_position(summary: dict) -> dict[str, float]:
    return {k: v["step_accuracy"] for k, v in summary["breakdowns"]["position"].items()}


class Recorder(OracleBackend):
    """The oracle, keeping every (messages, tools) it is given."""

    seen: list[tuple[list[dict], list[dict]]]

    async def generate(self, messages, tools, **kw):
        self.seen.append((json.loads(json.dumps(messages)), tools))
        return await super().generate(messages, tools, **kw)


def test_the_model_sees_what_the_full_runner_would_have_shown(tasks, tmp_path, world, catalog) -> None:
    """At position k the conversation is the full oracle episode's, cut before its turn k: same
    system prompt, query, offered tools, call rendering and record-capped results."""
    full, steps = Recorder("oracle"), Recorder("oracle")
    full.seen, steps.seen = [], []
    cfg = dict(max_tool_records=3)
    run_benchmark(tasks, RunConfig(model="oracle", concurrency=1, **cfg), tmp_path / "full", backend=full,
                  world=world, catalog=catalog)
    res = run_steps(tasks, steps_config("oracle", concurrency=1, **cfg), tmp_path / "steps", backend=steps,
                    world=world, catalog=catalog)
    assert res.ran == 9
    full_turns = {(m[1]["content"], sum(x["role"] == "assistant" for x in m)): (m, t) for m, t in full.seen}
    # the steps backend is asked once per position (the gold prefix is not the model's)
    records = read_step_records(tmp_path / "steps")
    assert len(steps.seen) == len(records) == sum(r.positions for r in records if r.position == 0)
    for messages, tools in steps.seen:
        key = (messages[1]["content"], sum(x["role"] == "assistant" for x in messages))
        assert key in full_turns
        assert (messages, tools) == full_turns[key]
    capped = [m for m, _ in steps.seen for x in m if x["role"] == "tool" and len(json.loads(x["content"]).get("items", [])) == 3]
    assert capped  # the record cap shows in what the model is given


def test_records_are_keyed_by_task_seed_position(tasks, tmp_path, world, catalog) -> None:
    run_steps(tasks, steps_config("oracle", seeds=2), tmp_path, world=world, catalog=catalog)
    records = read_step_records(tmp_path)
    keys = Counter(r.key for r in records)
    assert set(keys.values()) == {1}
    positions = {t: r.positions for r in records for t in [r.task_id]}
    assert len(keys) == 2 * sum(positions.values())
    for r in records:
        assert isinstance(r, StepEpisode) and r.given_calls == len(r.calls) - len(r.own_calls)
        assert [c.tool for c in r.own_calls] and not r.is_answer or r.is_answer and not r.own_calls
        assert r.gold_steps == ([] if r.is_answer else [c.id.split("_t")[0][5:] for c in r.own_calls])


def test_oracle_is_right_at_every_position_and_no_tool_at_none(tasks, tmp_path, world, catalog) -> None:
    oracle = run_steps(tasks, steps_config("oracle", concurrency=3), tmp_path / "o", world=world, catalog=catalog)
    s = summarize_step_scores(oracle.scores, n_boot=100)
    assert s["step_accuracy"] == 1.0 and s["answer_accuracy"] == 1.0 and s["failures"] == {}
    assert set(by_position(s).values()) == {1.0} and list(by_position(s)) == ["1", "2", "3", "answer"]
    assert oracle.run["summary"]["step_accuracy"] == 1.0 and oracle.run["config"]["mode"] == "steps"

    none = run_steps(tasks, steps_config("no-tool"), tmp_path / "n", world=world, catalog=catalog)
    s = summarize_step_scores(none.scores, n_boot=100)
    assert set(by_position(s).values()) == {0.0}
    assert s["failures"] == {"no_call": 6, "answer_facts": 3}

    first = run_steps(tasks, steps_config("first-call"), tmp_path / "f", world=world, catalog=catalog)
    s = summarize_step_scores(first.scores, n_boot=100)
    # it never makes a second call, nor the second call of a parallel group
    assert by_position(s)["1"] == pytest.approx(2 / 3) and by_position(s)["2"] == 0.0
    assert [f.failure for f in first.scores if f.position == 0 and not f.correct] == ["missing_call"]


@pytest.mark.parametrize("split", ["test", "dev"])
def test_oracle_scores_one_at_every_position_on_the_split(split, tmp_path, world, catalog) -> None:
    tasks = load_tasks(split)
    res = run_steps(tasks, steps_config("oracle", concurrency=8), tmp_path, world=world, catalog=catalog)
    s = summarize_step_scores(res.scores, n_boot=50)
    assert res.gold_failures == {} and s["n_tasks"] == len(tasks)
    assert s["step_accuracy"] == 1.0 and set(by_position(s).values()) == {1.0}, s["failures"]


class Tamper(OracleBackend):
    """The oracle, with its calls spoiled one way."""

    how = ""

    async def generate(self, messages, tools, **kw):
        turn = await super().generate(messages, tools, **kw)
        if not turn.tool_calls:
            return turn
        c = turn.tool_calls[0]
        if self.how == "arguments":
            c.arguments = {k: (f"{v}x" if isinstance(v, str) else v) for k, v in c.arguments.items()}
        elif self.how == "tool":
            c.name = next(t["function"]["name"] for t in tools if t["function"]["name"] != c.name)
        elif self.how == "extra":
            turn.tool_calls.append(c.model_copy(update={"id": c.id + "e", "arguments": {**c.arguments, "x": 1}},
                                                deep=True))
            turn.tool_calls[-1].name = next(t["function"]["name"] for t in tools if t["function"]["name"] != c.name)
        elif self.how == "unknown":
            c.name = "no_such_tool"
        return turn


# a spoiled argument the tool's schema rejects is the model's own `argument` error
@pytest.mark.parametrize("how, failure", [("arguments", {"wrong_arguments", "argument"}), ("tool", {"wrong_tool"}),
                                          ("extra", {"extra_call"}), ("unknown", {"unknown_tool"})])
def test_a_spoiled_call_is_wrong_for_its_reason(how, failure, tasks, tmp_path, world, catalog) -> None:
    backend = Tamper("oracle")
    backend.how = how
    res = run_steps(tasks[:1], steps_config("oracle"), tmp_path, backend=backend, world=world, catalog=catalog)
    calls = [s for s in res.scores if not s.is_answer]
    assert calls and all(not s.correct and s.failure in failure for s in calls), [(s.failure, s.detail) for s in calls]
    assert [s.correct for s in res.scores if s.is_answer] == [True]
    if how == "unknown":
        s = summarize_step_scores(res.scores, n_boot=50)
        assert s["breakdowns"]["error_kind"]["unknown_tool"]["step_accuracy"] == 0.0


def test_data_flow_from_the_wrong_record_is_wrong(tmp_path, world, catalog) -> None:
    """An argument equal to a value of the right tool's result, but not the picked record's."""
    task = parse_tasks(json.loads(FIXTURE.read_text(encoding="utf-8")))[1]  # s2 reads $s1.picked.stationName

    class OtherStation(OracleBackend):
        async def generate(self, messages, tools, **kw):
            turn = await super().generate(messages, tools, **kw)
            for c in turn.tool_calls:
                if "stationName" in c.arguments:
                    items = json.loads(next(m["content"] for m in messages if m["role"] == "tool"))["items"]
                    c.arguments["stationName"] = next(r["stationName"] for r in items
                                                      if r["stationName"] != c.arguments["stationName"])
            return turn

    res = run_steps([task], steps_config("oracle"), tmp_path, backend=OtherStation("oracle"), world=world, catalog=catalog)
    second = next(s for s in res.scores if s.position == 1)
    # the matcher sees other arguments than the gold's: a wrong-arguments step whose detail names the argument
    assert not second.correct and second.failure in ("wrong_arguments", "data_flow") and "stationName" in " ".join(second.detail)


def test_modes_do_not_mix_in_one_directory(tasks, tmp_path, world, catalog) -> None:
    run_steps(tasks[:1], steps_config("oracle"), tmp_path, world=world, catalog=catalog)
    with pytest.raises(RunDirError, match="mode"):
        run_benchmark(tasks[:1], RunConfig(model="oracle"), tmp_path, world=world, catalog=catalog)
    with pytest.raises(ValueError, match="mode"):
        RunConfig(model="oracle", mode="turns")
    from kopa_bench.runner.gold_scoring import score_run

    with pytest.raises(RunDirError, match="steps run"):
        score_run(tmp_path, world=world, catalog=catalog)
    assert score_steps_run(tmp_path, world=world, catalog=catalog)[0]


def test_rerun_resumes_missing_positions_only(tasks, tmp_path, world, catalog) -> None:
    first = run_steps(tasks, steps_config("oracle"), tmp_path, world=world, catalog=catalog)
    path = tmp_path / "episodes.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:4]) + lines[4][:20])  # four records kept, a torn fifth
    again = run_steps(tasks, steps_config("oracle"), tmp_path, world=world, catalog=catalog)
    assert (again.ran, again.skipped) == (first.ran - 4, 4)
    keys = Counter(r.key for r in read_step_records(tmp_path))
    assert len(keys) == first.ran and set(keys.values()) == {1}  # nothing lost, nothing twice
    assert len(again.scores) == first.ran and again.run["summary"]["step_accuracy"] == 1.0


def test_quickstart_prints_step_accuracy_beside_pass_at_1(tmp_path) -> None:
    """scripts/quickstart.sh with a scripted agent in place of the real model (and no setup):
    its last table puts the step-level figure beside pass@1."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root), "KOPA_QUICKSTART_SETUP": "0", "KOPA_QUICKSTART_MODEL": "first-call",
           "KOPA_QUICKSTART_OUT": str(tmp_path), "KOPA_QUICKSTART_KOPA": f"{sys.executable} -m kopa_bench.cli",
           "COLUMNS": "200"}
    done = subprocess.run(["bash", str(root / "scripts" / "quickstart.sh")], env=env, cwd=root, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "full episodes and steps, side by side" in out and "step accuracy" in out and "pass@1" in out
    row = next(l for l in out.splitlines() if "first-call" in l and "steps)" in l)
    assert "(0/3)" in row  # pass@1 of the first call alone, beside a step accuracy above 0
    assert summarize_step_scores(score_steps_run(tmp_path / "quickstart-steps")[0], n_boot=10)["step_accuracy"] > 0


def test_a_failed_generation_says_why_and_a_broken_server_is_an_infra_error(tasks, tmp_path, world, catalog) -> None:
    from kopa_bench.runner.backends.contract import BackendError, ContextOverflowError

    class Failing(OracleBackend):
        async def generate(self, messages, tools, **kw):
            if sum(m["role"] == "tool" for m in messages) >= 2:
                raise ContextOverflowError("prompt too long")
            if sum(m["role"] == "tool" for m in messages) == 1:
                raise BackendError("HTTP 500")
            return await super().generate(messages, tools, **kw)

    res = run_steps(tasks[:1], steps_config("oracle"), tmp_path, backend=Failing("oracle"), world=world, catalog=catalog)
    got = {s.position: (s.correct, s.failure) for s in res.scores}
    # the server's 500 is the harness's failure, not the model's: recorded, not scored, rerun later
    assert got == {0: (True, None), 2: (False, "context_limit"), 3: (False, "context_limit")}
    assert len(read_step_records(tmp_path)) == 4
    from kopa_bench.runner.steps import steps_run_completeness

    completeness = steps_run_completeness(tmp_path)
    assert not completeness.complete and completeness.infra_errors == [f"{tasks[0].id} seed 0 position 1"]
    rerun = run_steps(tasks[:1], steps_config("oracle"), tmp_path, backend=OracleBackend("oracle"), world=world,
                      catalog=catalog)
    assert rerun.ran == 1 and steps_run_completeness(tmp_path).complete

"""BFCL v4 on KOPA: scripted agents through bfcl_eval's real checkers, prompting, parsing,
resuming, the CLI and the reports. Needs the `bfcl` extra (bfcl-eval installed --no-deps)."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from tests.limits import HANG_S

from kopa_bench.bfcl import compat

if not compat.available():  # CI installs the extra (scripts/test.sh): there a missing package is a failure
    if os.environ.get("CI"):
        pytest.fail(f"bfcl-eval is not installed; {compat.INSTALL_HINT}", pytrace=False)
    pytest.skip(f"bfcl-eval is not installed; {compat.INSTALL_HINT}", allow_module_level=True)

from typer.testing import CliRunner

from kopa_bench.bfcl import checking
from kopa_bench.bfcl.categories import CATEGORIES, resolve
from kopa_bench.bfcl.data import load_entries
from kopa_bench.bfcl.records import BfclCall, BfclStep
from kopa_bench.bfcl.runner import RESULTS, read_run, run_bfcl, run_bfcl_async
from kopa_bench.bfcl.scoring import leaderboard, markdown, score_run
from kopa_bench.cli import app
from kopa_bench.runner.backends.contract import AssistantTurn, Backend, BackendError
from kopa_bench.episodes.run_dir import RunDirError
from kopa_bench.runner.parsing import parse_assistant_output

cli = CliRunner()
# the whole category for the non-live ones (they check fast); the first entries elsewhere (live_simple 106 and 112, live_multiple 507, 862 and 964 have possible answers
# that BFCL's own checker rejects, so no replay can pass them)
SAMPLES = {"simple_python": None, "multiple": None, "parallel": None, "parallel_multiple": None, "irrelevance": None,
           "multi_turn_base": 40, "live_simple": 40, "live_multiple": 40, "live_parallel": None,
           "live_parallel_multiple": None, "live_irrelevance": 40, "multi_turn_miss_func": 8,
           "multi_turn_miss_param": 8, "multi_turn_long_context": 4}
REQUIRED = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance", "multi_turn_base")


def _run(agent, category, out, **kw):
    return run_bfcl(category, agent, out, limit=SAMPLES.get(category), **kw)


def test_every_supported_category_has_a_sample():
    assert set(SAMPLES) == set(CATEGORIES)


@pytest.mark.parametrize("category", list(SAMPLES))
def test_replay_scores_100_through_bfcls_checker(category, tmp_path):
    res = _run("replay", category, tmp_path / "r")
    assert res.ran == len(load_entries(resolve(category), SAMPLES[category]))
    assert [v for v in res.verdicts if not v.valid] == [] and res.accuracy == 1.0
    record = score_run(tmp_path / "r")  # `kopa bfcl score` re-checks from the JSONL alone
    assert record["accuracy"] == 1.0 and record["total_count"] == res.ran
    assert record["benchmark"] == "BFCL v4" and record["category"] == category


@pytest.mark.parametrize("category", REQUIRED)
@pytest.mark.parametrize("agent", ["wrong-function", "wrong-value"])
def test_mutated_agents_score_lower_with_bfcls_error_types(agent, category, tmp_path):
    res = run_bfcl(category, agent, tmp_path / "r", limit=30)
    assert res.accuracy < 1.0
    types = {v.error_type for v in res.verdicts if not v.valid}
    bfcl_prefixes = ("simple_function_checker:", "parallel_function_checker_no_order:", "multiple_function_checker:",
                     "value_error:", "type_error:", "irrelevance_error:", "multi_turn:")
    assert types and all(t.startswith(bfcl_prefixes) for t in types), types


def test_verdicts_are_bfcl_eval_s_own(monkeypatch, tmp_path):
    """Replace bfcl_eval's checkers: the same replay run then scores what they say."""
    bfcl = compat.load()
    monkeypatch.setattr(bfcl.ast_checker, "ast_checker", lambda *a, **k: {"valid": False, "error": ["x"], "error_type": "patched"})
    monkeypatch.setattr(bfcl.multi_turn_checker, "multi_turn_checker", lambda *a, **k: {"valid": False, "error_type": "patched"})
    assert run_bfcl("simple", "replay", tmp_path / "a", limit=5).accuracy == 0.0
    assert run_bfcl("multi_turn_base", "replay", tmp_path / "b", limit=2).accuracy == 0.0
    calls = []
    monkeypatch.setattr(bfcl.utils, "is_empty_output", lambda decoded: calls.append(decoded) or True)
    assert run_bfcl("irrelevance", "wrong-function", tmp_path / "c", limit=3).accuracy == 1.0 and len(calls) == 3


def test_the_handler_table_is_the_only_stub():
    import sys

    bfcl = compat.load()
    stub = sys.modules[compat.STUBBED_MODULE]
    assert getattr(stub, "KOPA_STUB", False) and bfcl.model_config is stub.MODEL_CONFIG_MAPPING
    assert not [m for m in sys.modules if m.startswith(("bfcl_eval.model_handler.api_inference", "bfcl_eval.model_handler.local_inference"))]
    for name in ("utils", "ast_checker", "multi_turn_checker", "runner_helper", "handler_utils"):
        assert getattr(bfcl, name).__file__.endswith(".py") and "site-packages" in getattr(bfcl, name).__file__


# ---- prompting and parsing ------------------------------------------------------------------------
class TextBackend(Backend):
    """A fake model: writes text that KOPA's parser reads, and records what it was given."""

    kind = "fake"

    def __init__(self, reply):
        self.reply, self.seen = reply, []
        self.model_name = "fake"

    async def generate(self, messages, tools, *, temperature=0.0, seed=None, max_tokens=1024):
        self.seen.append((json.loads(json.dumps(messages)), tools))
        text = self.reply(messages, tools)
        if isinstance(text, BaseException):
            raise text
        parsed = parse_assistant_output(text, id_prefix=f"call_{len(self.seen)}")
        return AssistantTurn(content=parsed.content, tool_calls=parsed.tool_calls, raw_text=text)


def test_fc_mode_passes_bfcl_tools_natively_and_parses_tool_call_tags(tmp_path):
    def reply(messages, tools):
        names = [t["function"]["name"] for t in tools]
        return f'<tool_call>\n{{"name": "{names[0]}", "arguments": {{"number": 5}}}}\n</tool_call>'

    fake = TextBackend(reply)
    res = asyncio.run(run_bfcl_async("simple", "fake", tmp_path / "fc", limit=2, backend=fake, mode="fc"))
    messages, tools = fake.seen[1]  # simple_python_1: math.factorial(number=5)
    assert messages == [{"role": "user", "content": "Calculate the factorial of 5 using math functions."}]
    assert tools[0]["type"] == "function" and tools[0]["function"]["name"] == "math_factorial"  # BFCL's FC naming
    assert tools[0]["function"]["parameters"]["type"] == "object"
    assert [v.valid for v in sorted(res.verdicts, key=lambda v: v.id)] == [False, True]


def test_prompt_mode_uses_bfcls_system_prompt_and_pythonic_calls(tmp_path):
    fake = TextBackend(lambda m, t: "[math.factorial(number=5)]")
    res = asyncio.run(run_bfcl_async("simple", "fake", tmp_path / "p", limit=2, backend=fake, mode="prompt"))
    messages, tools = fake.seen[1]
    assert tools == [] and messages[0]["role"] == "system" and "[func_name1(params_name1=params_value1" in messages[0]["content"]
    assert '"name": "math.factorial"' in messages[0]["content"] and messages[1]["role"] == "user"
    assert res.run["config"]["mode"] == "prompt"
    assert {v.id: v.valid for v in res.verdicts} == {"simple_python_0": False, "simple_python_1": True}


def test_malformed_output_and_backend_failures_are_recorded_not_raised(tmp_path):
    down = {"on": True}

    def reply(messages, tools):
        q = messages[-1]["content"]
        if "factorial" in q:
            return '```json\n{"name": "math_factorial", "arguments": {"number": 5\n```'  # repaired by the parser
        if "hypotenuse" in q and down["on"]:
            return BackendError("server said 500")
        if "hypotenuse" in q:
            return '<tool_call>{"name": "math_hypot", "arguments": {"x": 4, "y": 5}}</tool_call>'
        return '<tool_call>{"name": "calculate_triangle_area", "arguments": "{not json"}</tool_call>'

    res = asyncio.run(run_bfcl_async("simple", "fake", tmp_path / "m", limit=3, backend=TextBackend(reply)))
    by_id = {v.id: v for v in res.verdicts}
    assert by_id["simple_python_1"].valid
    assert by_id["simple_python_0"].error_type == "ast_decoder:decoder_failed"  # malformed output: the model's
    assert "simple_python_2" not in by_id  # the server failed: an infra error, not scored
    assert not res.completeness.complete and res.completeness.infra_errors == ["simple_python_2"]
    assert res.run["status"] == "incomplete" and res.run["summary"]["infra_errors"] == 1
    lines = [json.loads(ln) for ln in (tmp_path / "m" / RESULTS).read_text().splitlines()]
    assert next(r for r in lines if r["id"] == "simple_python_2")["errors"] == ["BackendError: server said 500"]
    _, results = read_run(tmp_path / "m")
    bad = next(r for r in results if r.id == "simple_python_0").turns[0][0].calls[0]
    assert bad.error and bad.arguments is None
    assert sorted(r.id for r in results) == ["simple_python_0", "simple_python_1"]

    scored = cli.invoke(app, ["bfcl", "score", str(tmp_path / "m"), "--json"])
    assert scored.exit_code == 1 and "INCOMPLETE: 2 of 3 entries" in scored.output and "infra errors 1" in scored.output
    record = json.loads(scored.stdout.splitlines()[0])
    assert record["complete"] is False and record["total_count"] == 2
    assert cli.invoke(app, ["bfcl", "score", str(tmp_path / "m"), "--allow-partial"]).exit_code == 0

    down["on"] = False  # the server is back: a rerun runs that entry again, and only it
    again = asyncio.run(run_bfcl_async("simple", "fake", tmp_path / "m", limit=3, backend=TextBackend(reply)))
    assert again.ran == 1 and again.completeness.complete and len(again.verdicts) == 3
    assert cli.invoke(app, ["bfcl", "score", str(tmp_path / "m"), "--json"]).exit_code == 0


def test_torn_and_missing_entries_make_a_bfcl_score_incomplete(tmp_path):
    out = tmp_path / "t"
    run_bfcl("simple", "replay", out, limit=4)
    lines = (out / RESULTS).read_bytes().splitlines(keepends=True)
    (out / RESULTS).write_bytes(lines[0] + lines[1] + lines[2][:30])  # one line torn, one missing
    res = cli.invoke(app, ["bfcl", "score", str(out)])
    assert res.exit_code == 1
    assert "INCOMPLETE: 2 of 4 entries" in res.output and "missing 2" in res.output and ": 3" in res.output


def test_irrelevance_counts_undecodable_calls_as_no_call_like_bfcl():
    entry = load_entries(resolve("irrelevance"), 1)[0]
    from kopa_bench.bfcl.records import BfclResult

    def verdict(calls):
        res = BfclResult(id=entry.id, category="irrelevance", turns=[[BfclStep(calls=calls)]])
        return checking.check(entry, res, resolve("irrelevance"), "fc").valid

    assert verdict([]) and verdict([BfclCall(name="f", error="bad json")])
    assert not verdict([BfclCall(name=entry.prompt["function"][0]["name"], arguments={})])


def test_multi_turn_runs_end_to_end_through_the_model_loop(tmp_path):
    """A text model answering multi_turn_base with the ground truth, in both modes: calls are parsed
    by KOPA's parser, executed on BFCL's API classes, results fed back, and BFCL's checker passes."""
    entries = load_entries(resolve("multi_turn_base"), 3)
    truth = {e.id: e for e in entries}

    def reply_for(mode):
        def reply(messages, tools):
            from kopa_bench.bfcl.agents import CURRENT, multi_turn_calls

            ctx = CURRENT.get()
            if ctx.step > 0:
                return "All done."
            calls = multi_turn_calls(ctx)
            if mode == "fc":
                return "\n".join(f'<tool_call>\n{json.dumps({"name": n, "arguments": a})}\n</tool_call>' for n, a in calls)
            return "[" + ", ".join(f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in calls) + "]"
        return reply

    for mode in ("fc", "prompt"):
        fake = TextBackend(reply_for(mode))
        res = asyncio.run(run_bfcl_async("multi_turn_base", "fake", tmp_path / mode, limit=3, backend=fake, mode=mode))
        assert res.accuracy == 1.0, [v for v in res.verdicts if not v.valid]
        _, results = read_run(tmp_path / mode)
        for r in results:
            assert len(r.turns) == len(truth[r.id].answer)
            assert all(len(t) == 2 for t in r.turns if t and t[0].calls)  # calls, then the closing step
            assert r.turns[0][0].execution_results and all(isinstance(x, str) for x in r.turns[0][0].execution_results)
        second = fake.seen[1][0]  # after the first step: the execution results are in the history
        if mode == "fc":
            last = max(i for i, m in enumerate(second) if m["role"] == "assistant")
            assert len(second[last]["tool_calls"]) == len(second) - last - 1
            assert all(m["role"] == "tool" and m["tool_call_id"] for m in second[last + 1:])
        else:
            assert second[-1]["role"] == "user" and "'role': 'tool'" in second[-1]["content"]


def test_multi_turn_force_termination_after_bfcls_step_limit(tmp_path):
    fake = TextBackend(lambda m, t: '<tool_call>\n{"name": "pwd", "arguments": {}}\n</tool_call>')
    res = asyncio.run(run_bfcl_async("multi_turn_base", "fake", tmp_path / "f", limit=1, backend=fake))
    _, (result,) = read_run(tmp_path / "f")
    limit = compat.load().default_prompts.MAXIMUM_STEP_LIMIT
    assert result.stop_reason == "force_terminated" and len(result.turns) == 1 and len(result.turns[0]) == limit + 1
    assert res.verdicts[0].error_type == "multi_turn:force_terminated"


def test_calls_outside_the_entry_s_api_are_never_evaluated():
    allowed = {"cd", "ls"}
    step = BfclStep(calls=[BfclCall(name="open", arguments={"file": "/tmp/x", "mode": "w"}),
                           BfclCall(name="os.system", arguments={"command": "true"}),
                           BfclCall(name="cd", arguments={"folder='x'),open(file": "y"}),
                           BfclCall(name="cd", arguments={"folder": "document"})])
    assert checking.call_strings(step, allowed) == [checking.BLOCKED_CALL] * 3 + ["cd(folder='document')"]
    assert checking.call_strings(BfclStep(calls=[BfclCall(name="cd", error="bad")]), allowed) is None


# ---- resuming ------------------------------------------------------------------------------------
class Crash(BaseException):
    pass


def test_a_killed_run_resumes_without_losing_or_repeating_entries(tmp_path):
    from kopa_bench.bfcl.agents import ReplayAgent

    class Crashing(ReplayAgent):
        n = 0

        async def generate(self, *a, **k):
            Crashing.n += 1
            if Crashing.n == 6:
                raise Crash()  # like a kill: nothing after this is written
            return await super().generate(*a, **k)

    out = tmp_path / "k"
    with pytest.raises(Crash):
        asyncio.run(run_bfcl_async("simple", "replay", out, limit=10, concurrency=1, backend=Crashing()))
    lines = (out / RESULTS).read_bytes().splitlines(keepends=True)
    kept = len(lines)  # the five before the crash (one more may finish while the loop shuts down)
    assert 5 <= kept < 10
    (out / RESULTS).write_bytes(b"".join(lines) + lines[0][:37])  # a write torn by the kill
    res = run_bfcl("simple", "replay", out, limit=10)
    assert (res.ran, res.skipped, res.accuracy) == (10 - kept, kept, 1.0)
    _, results = read_run(out)
    assert sorted(r.id for r in results) == sorted(e.id for e in load_entries(resolve("simple"), 10))
    again = run_bfcl("simple", "replay", out, limit=10)
    assert again.ran == 0 and len(again.verdicts) == 10


def test_kill_9_mid_run_then_resume(tmp_path):
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    out = tmp_path / "k9"
    cmd = [sys.executable, "-m", "kopa_bench.cli", "bfcl", "run", "--model", "replay", "--category", "multi_turn_base",
           "--limit", "40", "--concurrency", "1", "--out", str(out), "--no-progress"]
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + HANG_S
    while time.monotonic() < deadline and proc.poll() is None:
        if (out / RESULTS).exists() and (out / RESULTS).read_bytes().count(b"\n") >= 3:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = (out / RESULTS).read_bytes().count(b"\n")
    assert 3 <= before < 40
    res = run_bfcl("multi_turn_base", "replay", out, limit=40)
    assert res.ran == 40 - before and res.accuracy == 1.0
    _, results = read_run(out)
    assert sorted(r.id for r in results) == sorted(e.id for e in load_entries(resolve("multi_turn_base"), 40))


def test_a_resumed_run_keeps_its_settings(tmp_path):
    run_bfcl("simple", "replay", tmp_path / "s", limit=2)
    with pytest.raises(RunDirError, match="different settings"):
        run_bfcl("multiple", "replay", tmp_path / "s", limit=2)
    with pytest.raises(RunDirError, match="different settings"):
        run_bfcl("simple", "replay", tmp_path / "s", limit=2, mode="prompt")


# ---- CLI and reports ---------------------------------------------------------------------------------
def test_cli_run_score_json_and_report(tmp_path):
    out = tmp_path / "run"
    res = cli.invoke(app, ["bfcl", "run", "--model", "replay", "--category", "simple", "--limit", "7", "--out", str(out),
                           "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "accuracy 100.0% (7/7)" in res.output
    res = cli.invoke(app, ["bfcl", "score", str(out), "--json"])
    record = json.loads(res.output)
    assert record["accuracy"] == 1.0 and record["total_count"] == 7 and record["category_size"] == 400 and record["sample"]
    assert (out / "bfcl_score.json").is_file()
    bfcl_file = next((out / "bfcl_score").rglob("BFCL_v4_simple_python_score.json"))
    assert json.loads(bfcl_file.read_text().splitlines()[0]) == {"accuracy": 1.0, "correct_count": 7, "total_count": 7}
    wrong = tmp_path / "wrong"
    assert cli.invoke(app, ["bfcl", "run", "--model", "wrong-value", "--category", "simple", "--limit", "7",
                            "--out", str(wrong), "--no-progress"]).exit_code == 0
    res = cli.invoke(app, ["bfcl", "report", str(out), str(wrong), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    board = json.loads((tmp_path / "rep" / "bfcl_leaderboard.json").read_text())
    rows = {m["model"]: m for m in board["models"]}
    assert rows["replay"]["non_live"]["Python Simple AST"] == "100.00%"
    assert rows["wrong-value"]["non_live"]["Python Simple AST"] == "0.00%"
    assert (tmp_path / "rep" / "bfcl_csv" / "data_non_live.csv").is_file()
    md = (tmp_path / "rep" / "bfcl_report.md").read_text()
    assert "BFCL v4" in md and "not KOPA-Bench" in md and "100.0% (7/400)" in md


@pytest.mark.parametrize("args, needle", [
    (["run", "--model", "replay", "--category", "simpel", "--out", "{tmp}/x"], "unknown BFCL category 'simpel'; valid: simple_python"),
    (["run", "--model", "nope:x", "--category", "simple", "--out", "{tmp}/x"], "unknown backend spec; valid for BFCL: openai:"),
    (["run", "--model", "oracle", "--category", "simple", "--out", "{tmp}/x"], "a KOPA-Bench scripted agent"),
    (["run", "--model", "replay", "--category", "simple", "--mode", "both", "--out", "{tmp}/x"], "unknown --mode 'both'; valid: auto, fc, prompt"),
    (["run", "--model", "replay", "--category", "simple", "--limit", "0", "--out", "{tmp}/x"], "--limit must be at least 1"),
    (["score", "{tmp}/missing"], "is not a directory"),
    (["score", "{tmp}"], "has no run.json"),
])
def test_cli_bad_input_is_one_line_naming_the_value(args, needle, tmp_path):
    res = cli.invoke(app, ["bfcl", *[a.format(tmp=tmp_path) for a in args]])
    assert res.exit_code == 2, res.output
    text = res.output.strip()
    assert needle in text and text.startswith("error: ") and len(text.splitlines()) == 1 and "Traceback" not in text
    assert not (tmp_path / "x").exists()


def test_categories_command_lists_sizes():
    res = cli.invoke(app, ["bfcl", "categories", "--json"])
    rows = {r["category"]: r for r in json.loads(res.output)}
    assert rows["simple_python"]["entries"] == 400 and rows["simple_python"]["aliases"] == ["simple"]
    assert rows["multi_turn_base"]["kind"] == "multi_turn"


def test_bfcl_section_in_kopa_benchs_report(tmp_path):
    from kopa_bench.scoring.report import write_report

    run_bfcl("irrelevance", "replay", tmp_path / "i", limit=4)
    section = markdown(leaderboard([score_run(tmp_path / "i")]))
    files = write_report([], tmp_path / "rep", extra_sections=(section,))
    text = files["report.md"].read_text()
    assert text.index("# KOPA-Bench report") < text.index("## BFCL v4") and "100.0% (4/240)" in text


@pytest.mark.model
def test_the_small_real_model_runs_a_category_sample(tmp_path):
    pytest.importorskip("llama_cpp")
    res = run_bfcl("simple", "llamacpp:qwen2.5-coder-0.5b", tmp_path / "m", limit=2, concurrency=1,
                   backend_kwargs={"n_threads": 1})
    assert res.ran == 2 and res.run["config"]["mode"] == "fc"  # Qwen's chat template takes tools
    _, results = read_run(tmp_path / "m")
    assert all(r.stop_reason == "done" and r.turns[0][0].raw_text for r in results)
    assert score_run(tmp_path / "m")["total_count"] == 2

"""GRPO rewards on hand-made completions, executed through the real KOPA environment (sandbox).

Each case drives the environment exactly as TRL's tool loop does (await the tool method, append
the result as a `tool` message) and scores the result with the reward registry.
"""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path

import pytest

from train.environment import EnvSettings, build_environment_factories, toolset_key
from train.rewards import REWARDS, calls_from_completion, get_reward_funcs

SMOKE = Path(__file__).parents[1] / "train" / "data" / "smoke_tasks.jsonl"
SETTINGS = EnvSettings(platforms=("data_go_kr",), max_tool_calls=6)


@pytest.fixture(scope="module")
def rows():
    from train.prepare_data import load_rows, to_grpo

    return list(to_grpo(load_rows(str(SMOKE))))


@pytest.fixture(scope="module")
def factories(rows):
    return build_environment_factories(rows, SETTINGS)


def rollout(factories, row, turns, answer):
    """Play `turns` (lists of (tool, args)) through a fresh environment; return (completion, env)."""
    env = factories[row["environment"]]()
    env.reset(**{k: v for k, v in row.items() if k != "environment"})
    completion = []
    for calls in turns:
        completion.append({"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": t, "arguments": a}} for t, a in calls]})
        for tool, args in calls:
            method = getattr(env, tool, None)
            content = asyncio.run(method(**args)) if method else json.dumps({"error": f"Tool {tool} not found."})
            completion.append({"role": "tool", "name": tool, "content": content})
    completion.append({"role": "assistant", "content": answer})
    return completion, env


def score(name, rows_used, completions, envs):
    cols = {k: [r[k] for r in rows_used] for k in rows_used[0]}
    return REWARDS[name](completions, environments=envs, **cols)


@pytest.fixture(scope="module")
def hyehwa(rows, factories):
    row = next(r for r in rows if r["id"] == "kopa-smoke-001")
    env = factories[row["environment"]]()
    env.reset(**row)
    tm = json.loads(asyncio.run(env.airkorea_getTMStdrCrdnt(umdName="혜화동")))["items"]
    tm = next(i for i in tm if i["sggName"] == "종로구")
    near = json.loads(asyncio.run(env.airkorea_getNearbyMsrstnList(tmX=float(tm["tmX"]), tmY=float(tm["tmY"]))))["items"]
    meas = json.loads(asyncio.run(env.airkorea_getMsrstnAcctoRltmMesureDnsty(stationName=near[0]["stationName"], dataTerm="DAILY")))["items"]
    return row, tm, near, meas


def _right(factories, hyehwa, station=None, data_term="DAILY", answer=None):
    row, tm, near, meas = hyehwa
    station = station or near[0]["stationName"]
    turns = [[("airkorea_getTMStdrCrdnt", {"umdName": "혜화동"})],
             [("airkorea_getNearbyMsrstnList", {"tmX": float(tm["tmX"]), "tmY": float(tm["tmY"])})],
             [("airkorea_getMsrstnAcctoRltmMesureDnsty", {"stationName": station, "dataTerm": data_term})]]
    answer = answer or f"가장 가까운 측정소는 {near[0]['stationName']}이고, 현재 PM10은 {meas[0]['pm10Value']}㎍/㎥입니다."
    return rollout(factories, row, turns, answer)


def test_registry_names_and_errors():
    assert {"format", "action", "data_flow", "grounded", "tool_errors", "needless_calls"} <= set(REWARDS)
    with pytest.raises(ValueError, match="valid names"):
        get_reward_funcs(["format", "nope"])


def test_environment_exposes_offered_tools_with_catalog_schemas(rows, factories):
    from transformers.utils import get_json_schema

    row = rows[0]
    assert row["environment"] == toolset_key(json.loads(row["tools"]))
    env = factories[row["environment"]]()
    schema = get_json_schema(env.airkorea_getMsrstnAcctoRltmMesureDnsty)
    params = schema["function"]["parameters"]
    assert set(params["required"]) == {"stationName", "dataTerm"}
    assert params["properties"]["dataTerm"]["enum"] == ["DAILY", "MONTH", "3MONTH"]


def test_right_chain_scores_full(rows, factories, hyehwa):
    row = hyehwa[0]
    completion, env = _right(factories, hyehwa)
    assert [c.tool for c in env._calls] == ["airkorea_getTMStdrCrdnt", "airkorea_getNearbyMsrstnList",
                                            "airkorea_getMsrstnAcctoRltmMesureDnsty"]
    assert all(c.ok for c in env._calls)
    for name in ("format", "action", "data_flow", "grounded", "success"):
        assert score(name, [row], [completion], [env]) == [pytest.approx(1.0)], name
    assert score("tool_errors", [row], [completion], [env]) == [0.0]
    assert score("needless_calls", [row], [completion], [env]) == [0.0]


def test_wrong_argument_lowers_action(factories, hyehwa):
    row = hyehwa[0]
    right, env_r = _right(factories, hyehwa)
    wrong, env_w = _right(factories, hyehwa, data_term="MONTH")
    a_right, a_wrong = (score("action", [row], [c], [e])[0] for c, e in ((right, env_r), (wrong, env_w)))
    assert a_wrong < a_right == pytest.approx(1.0)


def test_wrong_data_flow(factories, hyehwa):
    row, _, near, _ = hyehwa
    other = "중구" if near[0]["stationName"] != "중구" else "용산구"  # typed, not taken from the nearby list
    completion, env = _right(factories, hyehwa, station=other)
    assert score("data_flow", [row], [completion], [env])[0] < 1.0


def test_malformed_and_errors(rows, factories, hyehwa):
    row = hyehwa[0]
    # The trainer's parser missed a call: it is left as text in the content; no answer either.
    malformed = [{"role": "assistant", "content": '<tool_call>\n{"name": "airkorea_getTMStdrCrdnt", "arguments": {"umdName": }\n</tool_call>'}]
    env = None
    assert score("format", [row], [malformed], [env])[0] < 0.5
    # A call with a missing required argument and an unoffered tool: tool_errors counts both.
    completion, env = rollout(factories, row, [[("airkorea_getNearbyMsrstnList", {"tmX": 1.0}),
                                                 ("airkorea_getMsrstnList", {"addr": "서울"})],
                                                [("not_a_tool", {})]], "모르겠습니다.")
    pen = score("tool_errors", [row], [completion], [env])[0]
    assert -1.0 <= pen < 0.0
    assert score("grounded", [row], [completion], [env]) == [0.0]
    assert score("needless_calls", [row], [completion], [env])[0] < 0.0


def test_without_environment_rebuilds_calls_from_messages(factories, hyehwa):
    row = hyehwa[0]
    completion, env = _right(factories, hyehwa)
    calls = calls_from_completion(completion)
    assert [c.tool for c in calls] == [c.tool for c in env._calls]
    cols = {k: [row[k]] for k in row}
    from train import rewards

    rewards.set_default_settings(SETTINGS)
    got = REWARDS["action"]([completion], **cols)  # no `environments`: default sandbox client
    assert got == [pytest.approx(1.0)]


def test_rewards_are_finite_or_none(rows, factories, hyehwa):
    completion, env = _right(factories, hyehwa)
    row = hyehwa[0]
    for name, fn in REWARDS.items():
        out = fn([completion, "plain text answer"], environments=[env, None], **{k: [row[k]] * 2 for k in row})
        assert len(out) == 2
        assert all(v is None or math.isfinite(v) for v in out), name


def test_model_card_states_data_version_and_results(tmp_path):
    from train.model_card import write_model_card

    res = tmp_path / "results.json"
    res.write_text(json.dumps({"benchmark_version": "1.0.0", "metrics": {"success": 0.25, "pass^3": 0.1,
                                                                         "by_domain": {"district": 0.3}}}))
    path = write_model_card(tmp_path / "out", base_model="tiny:qwen2", method="GRPO", dataset="edge/rl",
                            data_version="0.1.0", results_json=res, rewards={"action": 1.0})
    text = path.read_text()
    assert "data version: `0.1.0`" in text and "| success | 0.250 |" in text and "district" in text


def test_needless_calls_counts_a_call_covering_several_pages_once(monkeypatch) -> None:
    """One call covering three pages of a paged gold step is one matched call: a third, needless
    call still costs (it would hide behind the three page matches if matches were counted)."""
    import train.rewards as rewards
    from kopa_bench.scoring.episode_score import EpisodeScore

    s = EpisodeScore(task_id="t", success=True, response=1.0, grounded=1.0, action_precision=2 / 3, action_recall=1.0,
                     efficiency=0.75, n_calls=3, n_gold_calls=4, matched={"s1[0]": 0, "s1[1]": 0, "s1[2]": 0, "s2": 1})
    monkeypatch.setattr(rewards, "score_completions", lambda completions, **kw: [s])
    assert REWARDS["needless_calls"]([[]]) == [pytest.approx(-0.25)]


def _with_answer(row, suffix, answer):
    """The smoke row with another answer spec (and its own id, so its gold facts are its own)."""
    return {**row, "id": f"{row['id']}-{suffix}", "answer": json.dumps(answer, ensure_ascii=False)}


def test_rewards_read_answers_with_the_scorers_answer_rules(factories, hyehwa):
    """Code labels from the catalog, natural yes/no and its negation, units: the rewards see what the
    scorer sees (issue 21), and a wrong label or a negated yes scores lower."""
    from kopa_bench.catalog import get_catalog

    row, _, near, meas = hyehwa
    grade = str(meas[0]["pm10Grade"]).strip()
    field = next(f for f in get_catalog().get("airkorea_getMsrstnAcctoRltmMesureDnsty").op.fields if f.name == "pm10Grade")
    label = field.code_table()[grade][0]
    wrong = next(lbs[0] for code, lbs in field.code_table().items() if code != grade)
    over = float(meas[0]["pm10Value"]) > 30
    spec = json.loads(row["answer"]) + [
        {"id": "f3", "description": "PM10 등급", "value": "$s3.items[0].pm10Grade", "kind": "code"},
        {"id": "f4", "description": "30 초과 여부", "kind": "bool", "context": "30",
         "value": {"compute": "test", "of": "$s3.items[0].pm10Value", "op": ">", "value": 30}}]
    graded = _with_answer(row, "grade", spec)
    yes, no = ("30㎍/㎥를 넘었습니다", "30㎍/㎥를 넘지 않았습니다") if over else ("30㎍/㎥를 넘지 않았습니다", "30㎍/㎥를 넘었습니다")
    head = f"가장 가까운 측정소는 {near[0]['stationName']}이고, 현재 PM10은 {meas[0]['pm10Value']}㎍/㎥로 "
    scores = {}
    for name, text in (("right", f"{head}등급은 {label}이에요. {yes}."), ("wrong_label", f"{head}등급은 {wrong}이에요. {yes}."),
                       ("negated", f"{head}등급은 {label}이에요. {no}.")):
        completion, env = _right(factories, hyehwa, answer=text)
        scores[name] = (score("success", [graded], [completion], [env])[0], score("response", [graded], [completion], [env])[0])
    assert scores["right"] == (1.0, pytest.approx(1.0))
    assert scores["wrong_label"] == (0.0, pytest.approx(0.75))
    assert scores["negated"] == (0.0, pytest.approx(0.75))


def test_task_from_a_kopa_bench_row_drops_the_expected_values():
    """Rows of the kopa-bench dataset (>= 1.1.0) carry `expected` per fact; the rewards' Task is the task file's."""
    import json

    from kopa_bench.tasks import load_tasks
    from train.rewards import task_from_row

    task = load_tasks("dev")[0]
    row = task.model_dump(mode="json")
    row["answer"] = json.dumps([{**f, "expected": "값"} for f in row["answer"]], ensure_ascii=False)
    row["program"] = json.dumps(row["program"], ensure_ascii=False)
    assert task_from_row(row).model_dump(mode="json") == task.model_dump(mode="json")


# -- the scorer's issue-21 rules, seen through the rewards (they reuse the scorer, no copy) ------

def _edited(completion, step, **changes):
    """The completion with the arguments of its `step`-th tool call changed (None removes one)."""
    out = json.loads(json.dumps(completion, ensure_ascii=False))
    calls = [tc for m in out if m.get("role") == "assistant" for tc in m.get("tool_calls") or []]
    args = calls[step]["function"]["arguments"]
    for k, v in changes.items():
        if v is None:
            args.pop(k, None)
        else:
            args[k] = v
    return out


def _no_env(name, row, completion):
    from train import rewards

    rewards.set_default_settings(SETTINGS)
    return REWARDS[name]([completion], **{k: [row[k]] for k in row})[0]


def test_extra_argument_lowers_action_paging_does_not(factories, hyehwa):
    row = hyehwa[0]
    completion, _ = _right(factories, hyehwa)
    assert _no_env("action", row, _edited(completion, 2, zz_unknown_arg="foo")) < 1.0
    assert _no_env("action", row, _edited(completion, 1, ver="1.1")) == pytest.approx(1.0)  # declared ignorable
    assert _no_env("action", row, _edited(completion, 0, numOfRows=100, pageNo=1)) == pytest.approx(1.0)


def test_same_wire_value_keeps_action_type_change_does_not(factories, hyehwa):
    row, tm, _, _ = hyehwa
    completion, _ = _right(factories, hyehwa)
    assert _no_env("action", row, _edited(completion, 1, tmX=str(tm["tmX"]))) == pytest.approx(1.0)  # "1.5" is 1.5 on the wire
    assert _no_env("action", row, _edited(completion, 1, tmX=[float(tm["tmX"])])) < 1.0


def test_rejected_call_matches_no_gold_step(factories, hyehwa):
    row = hyehwa[0]
    completion, _ = _right(factories, hyehwa)
    rejected = json.loads(json.dumps(completion, ensure_ascii=False))
    last_tool = max(i for i, m in enumerate(rejected) if m.get("role") == "tool")
    rejected[last_tool]["content"] = json.dumps({"error": {"type": "argument", "message": "dataTerm is not valid"}})
    assert _no_env("action", row, completion) == pytest.approx(1.0)
    assert _no_env("action", row, rejected) < 1.0


def test_data_flow_reads_the_matched_upstream_call(factories, hyehwa):
    row, tm, near, _ = hyehwa
    env = factories[row["environment"]]()
    env.reset(**row)
    other = json.loads(asyncio.run(env.airkorea_getTMStdrCrdnt(umdName="삼청동")))["items"]
    other = next(i for i in other if i["sggName"] == "종로구")  # the gold's pick (종로구) fits this call too
    turns = [[("airkorea_getTMStdrCrdnt", {"umdName": "혜화동"}), ("airkorea_getTMStdrCrdnt", {"umdName": "삼청동"})],
             [("airkorea_getNearbyMsrstnList", {"tmX": float(other["tmX"]), "tmY": float(other["tmY"])})]]
    completion, env = rollout(factories, row, turns, "모르겠습니다.")
    # the coordinates came from a call of the right tool, but not from the call that is the gold's step
    assert score("data_flow", [row], [completion], [env])[0] == 0.0

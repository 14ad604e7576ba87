"""The Space end to end through its API: the scripted oracle solves a fixture task in the sandbox."""

from __future__ import annotations

import json
import time

import pytest

gradio_client = pytest.importorskip("gradio_client")

from tests.test_space_helpers import TASKS, running_space  # noqa: E402


@pytest.fixture(scope="module")
def space_url():
    with running_space() as url:
        yield url


def _run(client, task_id: str, model_kind: str = "oracle", tool_backend: str = "sandbox", api_key: str = ""):
    return client.predict("benchmark task", task_id, "", [], model_kind, "", "", tool_backend, api_key, 8, api_name="/run_agent")


@pytest.mark.parametrize("task", json.loads(TASKS.read_text(encoding="utf-8")), ids=lambda t: t["id"])
def test_oracle_run_shows_every_gold_call_and_the_score(space_url, task):
    client = gradio_client.Client(space_url, verbose=False)
    t0 = time.perf_counter()
    chat, score_md, compare, flow, trace = _run(client, task["id"])
    elapsed = time.perf_counter() - t0

    gold_tools = [s["tool"] for s in task["program"]]
    assert [c["tool"] for c in trace["calls"]] == gold_tools
    # every gold call is rendered as a finished, collapsible tool block, in order
    titles = [(m.get("metadata") or {}).get("title") for m in chat if m["role"] == "assistant"]
    assert [t for t in titles if t and t.startswith("⚙")] == [f"⚙ {t}" for t in gold_tools]
    assert all((m.get("metadata") or {}).get("status") in (None, "done") for m in chat)
    # the final answer is the last message, and the score says the oracle solved it
    assert chat[-1]["role"] == "assistant" and trace["final_answer"] in _text(chat[-1]["content"])
    assert trace["score"]["success"] is True
    assert trace["score"]["action_recall"] == 1.0 and trace["score"]["data_flow"] == 1.0
    assert "success" in score_md
    assert [r[0] for r in compare["data"]] == [s["id"] for s in task["program"]]
    assert all(r[2] == "✓" for r in flow["data"]) and len(flow["data"]) >= 2
    assert elapsed < 60


def test_live_backend_without_a_key_is_explained_not_crashed(space_url):
    client = gradio_client.Client(space_url, verbose=False)
    chat, score_md, _, _, trace = _run(client, "kopa-space-001", tool_backend="live", api_key="")
    assert "서비스 키" in score_md and "Traceback" not in score_md
    assert trace in ({}, None)


def test_bad_endpoint_is_explained(space_url):
    client = gradio_client.Client(space_url, verbose=False)
    out = client.predict("benchmark task", "kopa-space-001", "", [], "openai", "not-a-url", "", "sandbox", "", 2, api_name="/run_agent")
    assert "http://host:port/v1" in out[1] and "Traceback" not in out[1]


def _text(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return str(content.get("text", content))
    return " ".join(_text(c) for c in content)


def test_edge_and_leaderboard_explain_missing_inputs(tmp_path):
    import sys

    from tests.test_space_helpers import ROOT

    sys.path.insert(0, str(ROOT / "space"))
    from kopa_space.edge_tab import load_edge
    from kopa_space.leaderboard_tab import build_leaderboard

    fig, _, _, _, note, _, _ = load_edge(str(tmp_path / "nope.json"), str(tmp_path / "nope_stats.json"), "(all)", "(all)", 0)
    assert fig is None and "No verified tool graph" in note and "No synthesis statistics" in note
    _, msg, _, _ = build_leaderboard(str(tmp_path), [])
    assert "No results found" in msg
    (tmp_path / "broken.json").write_text("{not json", encoding="utf-8")
    _, msg, _, _ = build_leaderboard(str(tmp_path), [])
    assert "broken.json" in msg and "not valid JSON" in msg

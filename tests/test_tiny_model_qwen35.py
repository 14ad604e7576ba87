"""The tiny Qwen3.5 stand-ins for the GPU recipes: architecture, chat template, tool parsing, loading.

The GRPO run itself is in tests/test_train_grpo.py (test_qwen35_recipe_runs_grpo_on_cpu); these
check the pieces it relies on, fast.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

SEEDED_CALL = ("\n</think>\n\n<tool_call>\n<function=airkorea_getTMStdrCrdnt>\n<parameter=umdName>\n혜화동\n"
               "</parameter>\n</function>\n</tool_call><|im_end|>")
TOOLS = [{"type": "function", "function": {
    "name": "airkorea_getTMStdrCrdnt", "description": "TM coordinates of a dong",
    "parameters": {"type": "object", "properties": {"umdName": {"type": "string"}}, "required": ["umdName"]}}}]
# vLLM loads the hub ids as Qwen3_5ForConditionalGeneration and renames checkpoint weights with the
# Qwen3-VL mapper (vllm/model_executor/models/qwen3_vl.py, hf_to_vllm_mapper): only these prefixes map.
VLLM_QWEN3_5_PREFIXES = ("model.language_model.", "model.visual.", "lm_head.")


@pytest.fixture(scope="module")
def tiny_dirs(tmp_path_factory):
    from kopa_bench.testing.tiny_model import build_tiny_model

    root = tmp_path_factory.mktemp("tiny35")
    return {arch: build_tiny_model(root / arch, arch=arch) for arch in ("qwen3_5", "qwen3_5_vl")}


def _load(path):
    from train.modeling import load_model_and_tokenizer

    model_args = SimpleNamespace(model_name_or_path=str(path), dtype="float32", model_revision="main",
                                 trust_remote_code=False, attn_implementation="sdpa")
    return load_model_and_tokenizer(model_args, SimpleNamespace(activation_checkpointing=True))


def test_qwen35_architecture_and_template(tiny_dirs):
    from trl.chat_template_utils import qwen3_5_think_chat_template

    cfg = json.loads((tiny_dirs["qwen3_5"] / "config.json").read_text())
    assert cfg["model_type"] == "qwen3_5_text" and cfg["architectures"] == ["Qwen3_5ForCausalLM"]
    assert cfg["layer_types"].count("linear_attention") == 3 and cfg["layer_types"][-1] == "full_attention"
    assert cfg["hidden_size"] == 64
    vl = json.loads((tiny_dirs["qwen3_5_vl"] / "config.json").read_text())
    assert vl["model_type"] == "qwen3_5" and vl["architectures"] == ["Qwen3_5ForConditionalGeneration"]
    assert vl["text_config"]["layer_types"] == cfg["layer_types"]
    # byte-identical to TRL's copy of the real template: TRL matches it by equality
    for path in tiny_dirs.values():
        assert (path / "chat_template.jinja").read_text(encoding="utf-8") == qwen3_5_think_chat_template


def test_qwen35_deterministic(tmp_path):
    import torch
    from safetensors.torch import load_file

    from kopa_bench.testing.tiny_model import build_tiny_model

    a = load_file(build_tiny_model(tmp_path / "a", arch="qwen3_5", seed=3) / "model.safetensors")
    b = load_file(build_tiny_model(tmp_path / "b", arch="qwen3_5", seed=3) / "model.safetensors")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    with pytest.raises(ValueError, match="qwen3_5"):
        build_tiny_model(tmp_path / "c", arch="qwen4")


@pytest.mark.parametrize("arch", ["qwen3_5", "qwen3_5_vl"])
def test_qwen35_tool_calls_parse(arch, tiny_dirs):
    """TRL's parser reads the model's `<tool_call><function=...>` output after the rendered prompt."""
    from trl.chat_template_utils import parse_response, qwen3_5_template

    from train.modeling import ensure_tool_parsing

    _, tok = _load(tiny_dirs[arch])
    ensure_tool_parsing(tok)
    assert tok.response_template is qwen3_5_template  # recognised by TRL's add_response_schema, not our fallback
    messages = [{"role": "system", "content": "sys"}, {"role": "user", "content": "혜화동 좌표?"}]
    prompt = tok.apply_chat_template(messages, tools=TOOLS, add_generation_prompt=True, tokenize=False)
    assert "<function=example_function_name>" in prompt and prompt.endswith("<|im_start|>assistant\n<think>\n")
    prompt_ids = tok(prompt, add_special_tokens=False)["input_ids"]
    parsed = parse_response(tok, tok(SEEDED_CALL, add_special_tokens=False)["input_ids"], prefix=prompt_ids, tools=TOOLS)
    assert parsed["tool_calls"] == [{"type": "function", "function": {"name": "airkorea_getTMStdrCrdnt",
                                                                       "arguments": {"umdName": "혜화동"}}}]


def test_hub_layout_loads_as_the_checkpoint_architecture(tiny_dirs):
    """What load_model_and_tokenizer does with Qwen/Qwen3.5-4B's layout (config-only stand-in)."""
    import torch
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM

    path = tiny_dirs["qwen3_5_vl"]
    saved = load_file(path / "model.safetensors")
    model, _ = _load(path)
    assert type(model).__name__ == "Qwen3_5ForConditionalGeneration"
    assert model.config.get_text_config().use_cache is False  # activation checkpointing
    names = dict(model.named_parameters())
    # the checkpoint's own names (what TRL syncs into vLLM), all of them mapped by vLLM, weights as saved
    assert all(n.startswith(VLLM_QWEN3_5_PREFIXES) for n in names), [n for n in names if not n.startswith(VLLM_QWEN3_5_PREFIXES)]
    assert all(torch.equal(p, saved[n]) for n, p in model.state_dict().items() if n in saved)
    trainable = [n for n, p in names.items() if p.requires_grad]
    frozen = [n for n, p in names.items() if not p.requires_grad]
    assert frozen and all(n.startswith("model.visual.") for n in frozen)
    assert trainable and all(n.startswith("model.language_model.") for n in trainable)
    # a text-only forward/backward reaches every trainable weight
    ids = torch.tensor([[5, 6, 7, 8, 9, 10]])
    model(input_ids=ids, labels=ids).loss.backward()
    assert all(names[n].grad is not None for n in trainable)
    # the plain causal-LM auto class would map the same config to the text model (renamed weights)
    text = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    assert type(text).__name__ == "Qwen3_5ForCausalLM"
    assert torch.equal(text.model.embed_tokens.weight, saved["model.language_model.embed_tokens.weight"])
    assert not any(n.startswith(VLLM_QWEN3_5_PREFIXES[:2]) for n, _ in text.named_parameters())


def test_text_checkpoints_keep_the_causal_lm_class(tiny_dirs):
    model, _ = _load(tiny_dirs["qwen3_5"])
    assert type(model).__name__ == "Qwen3_5ForCausalLM" and all(p.requires_grad for p in model.parameters())

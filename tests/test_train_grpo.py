"""GRPO smoke test: tiny local model, real TRL tool loop, real KOPA sandbox environment.

A random tiny model almost never writes a parseable tool call, so the first turn of one rollout
per group is *seeded*: its completion tokens are replaced by a well-formed `<tool_call>` before
TRL parses them. Everything after that is the real machinery — TRL's `parse_response`, its tool
loop calling our environment's method, the sandbox answering, the model generating the next turn,
the rewards scoring the executed calls, and the optimizer step.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
RECIPES = ROOT / "train" / "recipes"
SEEDED_CALL = '<tool_call>\n{"name": "airkorea_getTMStdrCrdnt", "arguments": {"umdName": "혜화동"}}\n</tool_call><|im_end|>'


@pytest.fixture()
def kopa_cache(tmp_path_factory, monkeypatch):
    # tiny models are built into $KOPA_CACHE/train-models; keep the world cache where it is
    import os

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    return os.environ.get("KOPA_CACHE")


def test_grpo_smoke_real_environment(tmp_path, kopa_cache, monkeypatch):
    import torch

    from train import environment
    from train.grpo import build_trainer, parse_args

    script_args, training_args, model_args = parse_args([
        "--config", str(RECIPES / "tiny-cpu" / "grpo.yaml"), "--output_dir", str(tmp_path / "out"),
        "--max_steps", "2", "--num_generations", "2", "--per_device_train_batch_size", "2",
        "--max_completion_length", "256", "--tool_lang", "en", "--max_records", "2",
    ])
    assert training_args.use_cpu and not training_args.bf16

    executed = []
    real_call = environment.KopaEnvironment._call

    async def counting_call(self, tool, arguments):
        out = await real_call(self, tool, arguments)
        executed.append(self._calls[-1])
        return out

    monkeypatch.setattr(environment.KopaEnvironment, "_call", counting_call)
    trainer = build_trainer(script_args, training_args, model_args)
    tok = trainer.processing_class
    seeded_ids = tok(SEEDED_CALL, add_special_tokens=False)["input_ids"]
    real_generate = trainer._generate_single_turn

    def seeded_generate(prompt_ids, images, multimodal_fields, num_generations, has_tool_images=False):
        ids, logprobs = real_generate(prompt_ids, images, multimodal_fields, num_generations, has_tool_images)
        if num_generations > 1:  # first turn only; tool-loop turns (num_generations=1) stay the model's own
            for i in range(0, len(ids), num_generations):
                ids[i] = list(seeded_ids)
        return ids, logprobs

    trainer._generate_single_turn = seeded_generate
    before = {n: p.detach().clone() for n, p in trainer.model.named_parameters()}
    trainer.train()

    # tool calls went through the environment and the sandbox answered them
    assert executed, "the environment executed no tool call"
    assert all(c.tool == "airkorea_getTMStdrCrdnt" or c.result is not None for c in executed)
    assert any(c.ok and c.result.records for c in executed), [c.result for c in executed]
    logs = [h for h in trainer.state.log_history if "loss" in h]
    assert any(h["tools/call_frequency"] > 0 for h in logs)
    # rewards logged and finite
    for h in logs:
        for key in ("reward", "rewards/action_reward/mean", "rewards/format_reward/mean"):
            assert key in h and math.isfinite(h[key]), (key, h)
    assert any(h["rewards/action_reward/mean"] > 0 for h in logs)  # the seeded call matches gold step s1
    # the model learned something
    changed = [n for n, p in trainer.model.named_parameters() if not torch.equal(p.detach(), before[n])]
    assert changed, "no weight changed"


@pytest.mark.parametrize("recipe", ["qwen3.5-4b/grpo.yaml", "qwen3.5-9b/grpo.yaml", "qwen2.5-coder-0.5b-cpu/grpo.yaml"])
def test_recipes_parse_and_build_config(recipe, tmp_path):
    """GPU recipes parse into GRPOConfig on CPU; a tiny qwen3 config stands in for the model family."""
    from transformers import AutoConfig

    from train.grpo import parse_args
    from train.rewards import REWARDS

    import yaml

    raw = yaml.safe_load((RECIPES / recipe).read_text())
    # On a CPU-only runner, transformers refuses bf16 unless use_cpu is set; the recipe itself stays bf16.
    script_args, training_args, model_args = parse_args(["--config", str(RECIPES / recipe), "--output_dir", str(tmp_path),
                                                         "--use_cpu", "true"])
    assert training_args.bf16 == bool(raw.get("bf16", False))
    assert all(r in REWARDS for r in script_args.reward_funcs)
    assert training_args.reward_weights is None or len(training_args.reward_weights) == len(script_args.reward_funcs)
    assert training_args.max_tool_calling_iterations and training_args.max_tool_calling_iterations <= 16
    if "qwen3.5" in recipe:
        assert training_args.use_vllm and training_args.vllm_mode == "colocate"
        assert training_args.bf16 and training_args.num_generations == 8
        # the same family as a config-only tiny model (no weights, no download)
        cfg = AutoConfig.for_model("qwen3", hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, head_dim=16, vocab_size=1000)
        assert cfg.model_type == "qwen3"
    else:
        assert model_args.use_peft and model_args.lora_r == 16 and training_args.use_cpu


def test_script_arguments_validate():
    from train.grpo import ScriptArguments

    with pytest.raises(ValueError, match="valid names"):
        ScriptArguments(reward_funcs=["nope"])
    with pytest.raises(ValueError, match="kopa_cache"):
        ScriptArguments(kopa_backend="replay")
    with pytest.raises(ValueError, match="kopa_backend"):
        ScriptArguments(kopa_backend="ftp://x")

"""GRPO smoke test: tiny local model, real TRL tool loop, real KOPA sandbox environment.

A random tiny model never writes a parseable tool call, so the tiny recipe steers the first rollout of
each group to its task's first gold call (`steer_first_calls`, train/steering.py: a transformers
LogitsProcessor on the model's own `generate`, nothing of TRL replaced). Everything after that is the
real machinery: TRL's `parse_response`, its tool loop calling our environment's method, the sandbox
answering, the model generating the next turn, the rewards scoring the executed calls, the optimizer step.
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


def record_executed_calls(monkeypatch) -> list:
    """The CallRecords every KopaEnvironment executes from now on, in order (the list fills as calls run)."""
    from train import environment

    executed = []
    real_call = environment.KopaEnvironment._call

    async def counting_call(self, tool, arguments):
        out = await real_call(self, tool, arguments)
        executed.append(self._calls[-1])
        return out

    monkeypatch.setattr(environment.KopaEnvironment, "_call", counting_call)
    return executed


def test_grpo_smoke_real_environment(tmp_path, kopa_cache, monkeypatch):
    import torch

    from train.grpo import build_trainer, parse_args
    from train.prepare_data import load_rows
    from train.rewards import task_from_row
    from train.steering import call_turn_text, gold_first_call

    script_args, training_args, model_args = parse_args([
        "--config", str(RECIPES / "tiny-cpu" / "grpo.yaml"), "--output_dir", str(tmp_path / "out"),
        "--max_steps", "2", "--num_generations", "2", "--per_device_train_batch_size", "2",
        "--max_completion_length", "256", "--tool_lang", "en", "--max_records", "2",
    ])
    assert training_args.use_cpu and not training_args.bf16 and not training_args.use_vllm
    assert script_args.steer_first_calls  # the tiny recipe's own setting

    executed = record_executed_calls(monkeypatch)
    trainer = build_trainer(script_args, training_args, model_args)
    tok = trainer.processing_class
    tasks = [task_from_row(r) for r in load_rows(script_args.dataset_name)]
    # the steered turn is the template's own tool-call syntax for the gold step s1
    assert call_turn_text(tok, gold_first_call(tasks[0])) == SEEDED_CALL
    before = {n: p.detach().clone() for n, p in trainer.model.named_parameters()}
    trainer.train()

    # the calls TRL parsed went through the environment and the sandbox answered them
    assert executed, "the environment executed no tool call"
    golds = {(t.program[0].tool, tuple(sorted(t.program[0].args.items()))) for t in tasks}
    steered = [c for c in executed if (c.tool, tuple(sorted(c.arguments.items()))) in golds]
    assert steered and all(c.ok and c.result is not None and c.result.records for c in steered), \
        [(c.tool, c.arguments, c.result) for c in executed]
    logs = [h for h in trainer.state.log_history if "loss" in h]
    assert len(logs) == 2 and all(h["tools/call_frequency"] > 0 for h in logs), logs
    # rewards logged and finite; the action reward credits the executed gold call
    for h in logs:
        for key in ("reward", "rewards/action_reward/mean", "rewards/format_reward/mean"):
            assert key in h and math.isfinite(h[key]), (key, h)
    assert all(h["rewards/action_reward/mean"] > 0 for h in logs), logs
    # the model learned something (steered and own rollouts score differently, so advantages are non-zero)
    changed = [n for n, p in trainer.model.named_parameters() if not torch.equal(p.detach(), before[n])]
    assert changed, "no weight changed"


def test_steering_forces_only_the_first_rollout_of_each_first_turn_group(tmp_path):
    """train.steering on the tiny model: row 0 of each group of identical first-turn prompts is forced to the
    gold call; its twin, other prompts' later turns (a tool result in the prompt) stay the model's own."""
    import json

    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from kopa_bench.testing.tiny_model import build_tiny_model
    from train.steering import steer_first_calls

    path = build_tiny_model(tmp_path / "tiny")
    tok, model = AutoTokenizer.from_pretrained(str(path)), AutoModelForCausalLM.from_pretrained(str(path))
    rows = [json.loads(l) for l in (ROOT / "train" / "data" / "smoke_tasks.jsonl").read_text(encoding="utf-8").splitlines()[:1]]
    texts = steer_first_calls(model, tok, rows)
    assert texts == {rows[0]["query"]: SEEDED_CALL}
    first = tok.apply_chat_template([{"role": "user", "content": rows[0]["query"]}], tokenize=False, add_generation_prompt=True)
    later = tok.apply_chat_template([{"role": "user", "content": rows[0]["query"]}, {"role": "tool", "content": "{}"}],
                                    tokenize=False, add_generation_prompt=True)
    assert "<tool_response>" in later
    enc = [tok(t, add_special_tokens=False)["input_ids"] for t in (first, first, later)]
    width = max(len(e) for e in enc)
    ids = torch.tensor([[tok.pad_token_id] * (width - len(e)) + e for e in enc])
    mask = torch.tensor([[0] * (width - len(e)) + [1] * len(e) for e in enc])
    torch.manual_seed(0)
    out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=48, do_sample=True,
                         eos_token_id=tok.convert_tokens_to_ids("<|im_end|>"), pad_token_id=tok.pad_token_id)
    completions = [tok.decode(row[width:], skip_special_tokens=False) for row in out]
    assert completions[0].startswith(SEEDED_CALL)
    assert not completions[1].startswith("<tool_call>") and not completions[2].startswith("<tool_call>")


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


# --- Qwen3.5 GPU recipes, run on CPU with a tiny model of the same architecture -------------------
#
# The recipe YAML is used as written except for what a CPU box cannot do (QWEN35_CPU_OVERRIDES): the
# model (a tiny random Qwen3.5 with the real Qwen3.5 chat template), vLLM, bf16 (also the bf16 load
# dtype), wandb, the batch/generation sizes and the step count, and the dataset folder (the recipe's
# data/edge-trajectories is built on demand; a 3-row folder in the same EDGE layout, built by the
# real builder, stands in, read with the recipe's own dataset_config/split).

# Qwen3.5's think template opens the assistant turn with "<think>\n"; the seeded turns close it.
QWEN35_SEEDED_CALL = ("\n</think>\n\n<tool_call>\n<function=airkorea_getTMStdrCrdnt>\n<parameter=umdName>\n혜화동\n"
                      "</parameter>\n</function>\n</tool_call><|im_end|>")
QWEN35_SEEDED_ANSWER = "\n</think>\n\n혜화동 좌표를 조회했습니다.<|im_end|>"
QWEN35_CPU_OVERRIDES = {
    "use_vllm": "false", "bf16": "false", "use_cpu": "true", "dtype": "float32", "report_to": "none",
    "per_device_train_batch_size": "2", "gradient_accumulation_steps": "1", "num_generations": "2",
    "max_completion_length": "256", "max_steps": "2",
}


def _edge_layout_dataset(out: Path) -> Path:
    """Smoke task 001 (the one QWEN35_SEEDED_CALL answers) as an `edge-trajectories` folder.

    Written by the real builder (builders.edge_dataset, configs sft/rl/graph, split by id hash),
    so the recipe's dataset_config `rl` and split `train` are read as on the GPU. Copies under
    different ids fill both splits: `datasets` cannot read an empty split file.
    """
    import json

    from builders.edge_dataset import _split, build_dataset

    task = json.loads((ROOT / "train" / "data" / "smoke_tasks.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert task["program"][0]["args"] == {"umdName": "혜화동"}, task["program"][0]
    ids = [f"{task['id']}-{k}" for k in range(100)]
    chosen = [i for i in ids if _split(i, 0) == "train"][:2] + [i for i in ids if _split(i, 0) == "validation"][:1]
    trajectories = [{"id": i, "shape": task["shape"], "query": task["query"], "register": "plain",
                     "platforms": task["platforms"], "domain": task["domain"], "messages": [],
                     "n_calls": len(task["program"]), "task": {**task, "id": i}} for i in chosen]
    manifest = build_dataset(trajectories, [], out)
    assert manifest["counts"] == {"train": 2, "validation": 1}, manifest["counts"]
    return out


@pytest.mark.slow  # a GRPO step on CPU per recipe: minutes on a busy box, so the second CI pass runs it
@pytest.mark.parametrize("recipe,model", [("qwen3.5-4b/grpo.yaml", "tiny:qwen3_5"),
                                          ("qwen3.5-9b/grpo.yaml", "tiny:qwen3_5_vl")])
def test_qwen35_recipe_runs_grpo_on_cpu(recipe, model, tmp_path, kopa_cache, monkeypatch):
    """The GPU recipe, unchanged but for QWEN35_CPU_OVERRIDES, trains a tiny Qwen3.5 through the real environment.

    4b uses the text-only tiny model, 9b the hub checkpoint layout (Qwen3_5ForConditionalGeneration),
    which is how train/modeling.py loads the real Qwen/Qwen3.5-* ids. As in the smoke test, one
    rollout per group gets a seeded first turn, here in Qwen3.5's `<function=...>` syntax; its
    post-tool turn is seeded too (a short answer that ends the turn), because the recipe's
    `mask_truncated_completions: true` drops every completion that runs to max_completion_length,
    which is what a random model's turns do. All other turns are the model's own.
    """
    import torch
    import yaml

    from train.grpo import build_trainer, parse_args
    from train.rewards import REWARDS

    raw = yaml.safe_load((RECIPES / recipe).read_text())
    data = _edge_layout_dataset(tmp_path / "edge-trajectories")
    overrides = {**QWEN35_CPU_OVERRIDES, "model_name_or_path": model, "dataset_name": str(data),
                 "output_dir": str(tmp_path / "out")}
    script_args, training_args, model_args = parse_args(
        ["--config", str(RECIPES / recipe)] + [a for k, v in overrides.items() for a in (f"--{k}", v)])

    # every setting the recipe states and we did not override is in force as written
    parsed = {**vars(script_args), **training_args.to_dict(), **vars(model_args)}
    for key, value in raw.items():
        if key in overrides:
            continue
        got = parsed[key]
        assert got == value or (isinstance(value, float) and math.isclose(got, value)), (key, value, got)
    assert script_args.reward_funcs == raw["reward_funcs"] and training_args.reward_weights == raw["reward_weights"]
    assert training_args.max_tool_calling_iterations == raw["max_tool_calling_iterations"] == 12
    assert training_args.loss_type == "dapo" and training_args.beta == 0.0 and training_args.mask_truncated_completions
    assert training_args.activation_checkpointing and not model_args.use_peft

    executed = record_executed_calls(monkeypatch)
    trainer = build_trainer(script_args, training_args, model_args)
    assert trainer.reward_weights.tolist() == pytest.approx(raw["reward_weights"])
    assert [f.__name__ for f in trainer.reward_funcs] == [REWARDS[n].__name__ for n in raw["reward_funcs"]]
    tok = trainer.processing_class
    assert type(trainer.model).__name__ == ("Qwen3_5ForConditionalGeneration" if model.endswith("_vl") else "Qwen3_5ForCausalLM")
    assert "<function=" in tok.chat_template and tok.response_template is not None
    call_ids = tok(QWEN35_SEEDED_CALL, add_special_tokens=False)["input_ids"]
    answer_ids = tok(QWEN35_SEEDED_ANSWER, add_special_tokens=False)["input_ids"]
    real_generate = trainer._generate_single_turn

    def contains(seq, sub):
        return any(seq[i:i + len(sub)] == sub for i in range(len(seq) - len(sub) + 1))

    def seeded_generate(prompt_ids, images, multimodal_fields, num_generations, has_tool_images=False):
        if num_generations > 1:  # first turn: seed one rollout per group
            ids, logprobs = real_generate(prompt_ids, images, multimodal_fields, num_generations, has_tool_images)
            for i in range(0, len(ids), num_generations):
                ids[i] = list(call_ids)
            return ids, logprobs
        # tool-loop turn: the seeded rollouts get the seeded answer (not generated: a CPU prefill of the
        # whole ~4k-token history through the reference Gated-DeltaNet kernel, to be thrown away); any other
        # rollout that called a tool keeps the model's own turn
        seeded = [contains(list(p), call_ids) for p in prompt_ids]
        own = [p for p, s in zip(prompt_ids, seeded) if not s]
        own_ids, own_logprobs = real_generate(own, images, multimodal_fields, 1, has_tool_images) if own else ([], None)
        own_ids, ids = iter(own_ids), []
        for s in seeded:
            ids.append(list(answer_ids) if s else next(own_ids))
        assert own_logprobs is None, "logprobs come back only from vLLM, which this CPU run does not use"
        return ids, None

    trainer._generate_single_turn = seeded_generate
    before = {n: p.detach().clone() for n, p in trainer.model.named_parameters() if p.requires_grad}
    trainer.train()

    assert trainer.state.global_step == 2
    # the parsed <function=...> call ran in the environment and the sandbox answered it
    assert executed, "the environment executed no tool call"
    assert any(c.tool == "airkorea_getTMStdrCrdnt" and c.arguments.get("umdName") == "혜화동" and c.ok
               and c.result.records for c in executed), [(c.tool, c.arguments, c.result) for c in executed]
    logs = [h for h in trainer.state.log_history if "loss" in h]
    assert len(logs) == 2 and all(h["tools/call_frequency"] > 0 for h in logs)
    for h in logs:
        assert math.isfinite(h["loss"]) and math.isfinite(h["reward"])
        for name in raw["reward_funcs"]:
            key = f"rewards/{REWARDS[name].__name__}/mean"
            assert key in h and math.isfinite(h[key]), (key, h)
    assert all(h["rewards/action_reward/mean"] > 0 for h in logs), logs  # the seeded call matches gold step s1
    # lr warms up from 0 over the first step (warmup_steps: 0.03 of 2 steps), so step 2 moves the weights
    changed = [n for n, p in trainer.model.named_parameters() if n in before and not torch.equal(p.detach(), before[n])]
    assert changed, "no weight changed"
    if model.endswith("_vl"):
        frozen = [n for n, p in trainer.model.named_parameters() if not p.requires_grad]
        assert frozen and all(".visual." in n for n in frozen)

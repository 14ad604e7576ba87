"""GRPO on KOPA tasks with real tool execution (TRL GRPOTrainer + KOPA environments).

    python train/grpo.py --config train/recipes/tiny-cpu/grpo.yaml --max_steps 2 --output_dir /tmp/kopa-grpo
    accelerate launch --config_file train/recipes/accelerate/zero3.yaml train/grpo.py \
        --config train/recipes/qwen3.5-4b/grpo.yaml

Every tool call in a rollout runs against the configured KOPA backend (in-process sandbox, a
sandbox URL, live, or a replay cache) through `train.environment`; rewards score the executed
calls with the benchmark scorer (`train.rewards`).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field

from trl import GRPOConfig, ModelConfig, TrlParser, get_peft_config

log = logging.getLogger(__name__)


@dataclass
class ScriptArguments:
    """What to train on, how to score it and where the tools run."""

    dataset_name: str = field(default="train/data/smoke_tasks.jsonl", metadata={
        "help": "KOPA task-schema rows: a local dataset folder, a .parquet/.jsonl file, or kopa:dev / kopa:test."})
    dataset_config: str | None = field(default=None, metadata={"help": "dataset config name (e.g. 'rl' for EDGE)."})
    dataset_train_split: str = field(default="train", metadata={"help": "split to train on."})
    dataset_test_split: str | None = field(default=None, metadata={"help": "optional split to evaluate on."})
    max_train_samples: int | None = field(default=None, metadata={"help": "keep only the first N rows (smoke runs)."})
    reward_funcs: list[str] = field(default_factory=lambda: ["format", "action", "data_flow", "grounded", "tool_errors"],
                                    metadata={"help": "reward names from train.rewards.REWARDS; weights go in GRPOConfig.reward_weights (same order)."})
    kopa_backend: str = field(default="sandbox", metadata={
        "help": "where tool calls run: sandbox (in-process), http(s)://host:port (a kopa sandbox), live, or replay "
                "(answers only from --kopa_cache)."})
    kopa_cache: str | None = field(default=None, metadata={"help": "ReplayCache file (required for replay)."})
    kopa_cache_mode: str = field(default="replay", metadata={"help": "replay | record | auto for --kopa_cache."})
    kopa_platforms: list[str] | None = field(default=None, metadata={
        "help": "catalog platform ids to load, e.g. [data_go_kr] (default: all platforms)."})
    world_seed: int | None = field(default=None, metadata={"help": "sandbox world seed (default: the benchmark's)."})
    max_tool_calls: int = field(default=8, metadata={"help": "tool calls per episode; later ones return an error."})
    max_records: int = field(default=20, metadata={"help": "records per tool result shown to the model."})
    tool_lang: str = field(default="both", metadata={"help": "tool description language: ko | en | both."})
    system_prompt: str | None = field(default=None, metadata={
        "help": "override train.prepare_data.SYSTEM_PROMPT; 'runner' = the benchmark runner's own system prompt "
                "(kopa_bench.runner.agent.system_prompt at the world clock), so training sees what evaluation shows."})
    data_version: str | None = field(default=None, metadata={"help": "dataset version stated in the model card."})
    results_json: str | None = field(default=None, metadata={"help": "KOPA-Bench results JSON for the model card."})
    steer_first_calls: bool = field(default=False, metadata={
        "help": "smoke runs with a random tiny model only: the first rollout of each group is steered (a logits "
                "processor on the model's own generate) to its task's first gold call in the chat template's syntax, "
                "so the tool loop, the sandbox and the rewards run (train.steering); not with vLLM."})
    runner_tool_parsing: bool = field(default=True, metadata={
        "help": "also execute the call formats the benchmark runner accepts (JSON fences, bare JSON) when the chat "
                "template's own syntax finds no call (train.tool_parsing); false = TRL's parser only."})

    def __post_init__(self):
        from train.rewards import REWARDS

        bad = [r for r in self.reward_funcs if r not in REWARDS]
        if bad:
            raise ValueError(f"unknown reward_funcs {bad}; valid names: {sorted(REWARDS)}")
        if self.kopa_backend not in ("sandbox", "live", "replay") and not self.kopa_backend.startswith(("http://", "https://")):
            raise ValueError(f"kopa_backend {self.kopa_backend!r}: use sandbox, live, replay or a sandbox URL")
        if self.kopa_backend == "replay" and not self.kopa_cache:
            raise ValueError("kopa_backend=replay needs --kopa_cache PATH (a ReplayCache recorded earlier)")
        if self.kopa_cache_mode not in ("replay", "record", "auto"):
            raise ValueError(f"kopa_cache_mode {self.kopa_cache_mode!r}: use replay, record or auto")
        if self.max_tool_calls < 1:
            raise ValueError(f"max_tool_calls must be >= 1, got {self.max_tool_calls}")
        if self.tool_lang not in ("ko", "en", "both"):
            raise ValueError(f"tool_lang {self.tool_lang!r}: use ko, en or both")

    def env_settings(self):
        from train.environment import EnvSettings

        replay = self.kopa_backend == "replay"
        return EnvSettings(backend="sandbox" if replay else self.kopa_backend, cache_path=self.kopa_cache,
                           cache_mode="replay" if replay else self.kopa_cache_mode, world_seed=self.world_seed,
                           max_tool_calls=self.max_tool_calls, max_records=self.max_records,
                           platforms=tuple(self.kopa_platforms) if self.kopa_platforms else None)


def resolve_system_prompt(value: str | None) -> str:
    """The system prompt rollouts start from: ours by default, the runner's with 'runner', or the text given."""
    from train.prepare_data import SYSTEM_PROMPT

    if value == "runner":
        from kopa_bench.runner.agent import system_prompt, world_now

        return system_prompt(world_now())
    return value or SYSTEM_PROMPT


def build_trainer(script_args: ScriptArguments, training_args: GRPOConfig, model_args: ModelConfig, callbacks=None):
    """The GRPOTrainer, with one KOPA environment per offered tool set."""
    from trl import GRPOTrainer

    from train.environment import build_environment_factories
    from train.modeling import ensure_tool_parsing, load_model_and_tokenizer
    from train.prepare_data import load_rows, to_grpo
    from train.rewards import get_reward_funcs, set_default_settings

    weights = training_args.reward_weights  # GRPOConfig owns the weights; check they line up with our names
    if weights is not None and len(weights) != len(script_args.reward_funcs):
        raise ValueError(f"reward_weights has {len(weights)} values for {len(script_args.reward_funcs)} reward_funcs "
                         f"{script_args.reward_funcs}; give one weight per function")
    system = resolve_system_prompt(script_args.system_prompt)
    rows = load_rows(script_args.dataset_name, script_args.dataset_config, script_args.dataset_train_split)
    if script_args.max_train_samples:
        rows = rows.select(range(min(script_args.max_train_samples, len(rows))))
    train_ds = to_grpo(rows, system)
    eval_ds = None
    if script_args.dataset_test_split and training_args.eval_strategy != "no":
        eval_ds = to_grpo(load_rows(script_args.dataset_name, script_args.dataset_config, script_args.dataset_test_split),
                          system)
    settings = script_args.env_settings()
    set_default_settings(settings)
    factories = build_environment_factories(train_ds, settings, script_args.tool_lang)
    if eval_ds is not None:
        factories.update(build_environment_factories(eval_ds, settings, script_args.tool_lang))

    model, tokenizer = load_model_and_tokenizer(model_args, training_args)
    ensure_tool_parsing(tokenizer)
    if script_args.runner_tool_parsing:
        from train.tool_parsing import align_with_runner

        align_with_runner(tokenizer)
    if script_args.steer_first_calls:
        if training_args.use_vllm:
            raise ValueError("steer_first_calls steers the model's own generate; vLLM generates elsewhere (use_vllm: false)")
        from train.steering import steer_first_calls

        steered = steer_first_calls(model, tokenizer, rows)
        log.info("steering the first rollout of each group to its first gold call: %s", steered)
    return GRPOTrainer(
        model=model,
        reward_funcs=get_reward_funcs(script_args.reward_funcs),
        args=training_args,
        train_dataset=train_ds,
        eval_dataset=eval_ds,
        processing_class=tokenizer,
        peft_config=get_peft_config(model_args),
        environment_factory=factories,
        callbacks=callbacks,
    )


def main(script_args: ScriptArguments, training_args: GRPOConfig, model_args: ModelConfig):
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # environment_factory is experimental in TRL 1.16
    trainer = build_trainer(script_args, training_args, model_args)
    result = trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)
    trainer.log_metrics("train", result.metrics)
    trainer.save_metrics("train", result.metrics)
    trainer.save_state()
    trainer.save_model(training_args.output_dir)

    from train.model_card import write_model_card

    if trainer.accelerator.is_main_process:
        write_model_card(training_args.output_dir, base_model=model_args.model_name_or_path, method="GRPO",
                         dataset=script_args.dataset_name, data_version=script_args.data_version,
                         results_json=script_args.results_json, hub_model_id=training_args.hub_model_id,
                         rewards=dict(zip(script_args.reward_funcs, training_args.reward_weights or [1.0] * len(script_args.reward_funcs))))
    if training_args.push_to_hub:
        trainer.push_to_hub(dataset_name=script_args.dataset_name)
    return trainer


def parse_args(argv: list[str] | None = None):
    """(ScriptArguments, GRPOConfig, ModelConfig) from `--config recipe.yaml` plus CLI overrides."""
    return TrlParser((ScriptArguments, GRPOConfig, ModelConfig)).parse_args_and_config(argv)


if __name__ == "__main__":
    main(*parse_args())

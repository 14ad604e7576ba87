"""Optional warm start: TRL SFTTrainer on chat `messages` with assistant tool_calls.

The dataset is either already in SFT form (`messages` + `tools` schemas, e.g. the EDGE `sft` config,
which is TRL's conversational format as loaded)
or in the KOPA task schema, in which case gold trajectories are built by executing each task's
gold program against the KOPA backend (train.prepare_data.to_sft).

    python train/sft.py --config train/recipes/tiny-cpu/sft.yaml --max_steps 2 --output_dir /tmp/kopa-sft
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from trl import ModelConfig, SFTConfig, TrlParser, get_peft_config

log = logging.getLogger(__name__)


@dataclass
class SFTScriptArguments:
    """Where the trajectories come from."""

    dataset_name: str = field(default="train/data/smoke_tasks.jsonl", metadata={
        "help": "SFT rows (messages + tools) or KOPA task-schema rows: a folder, a .parquet/.jsonl file, or kopa:dev."})
    dataset_config: str | None = field(default=None, metadata={"help": "dataset config name (e.g. 'sft' for EDGE)."})
    dataset_train_split: str = field(default="train", metadata={"help": "split to train on."})
    kopa_backend: str = field(default="sandbox", metadata={"help": "where gold programs run when building trajectories."})
    kopa_platforms: list[str] | None = field(default=None, metadata={"help": "catalog platform ids to load (default: all)."})
    data_version: str | None = field(default=None, metadata={"help": "dataset version stated in the model card."})
    prefix_assistant_mask: bool = field(default=False, metadata={
        "help": "pre-tokenize the conversations with train.assistant_mask: labels on the assistant turns only, for "
                "chat templates without {% generation %} markers (e.g. the exported Qwen2.5); rows over max_length "
                "are dropped, not truncated. Use instead of assistant_only_loss."})

    def __post_init__(self):
        if self.kopa_backend not in ("sandbox", "live") and not self.kopa_backend.startswith(("http://", "https://")):
            raise ValueError(f"kopa_backend {self.kopa_backend!r}: use sandbox, live or a sandbox URL")


def load_sft_dataset(args: SFTScriptArguments):
    from datasets import load_from_disk
    from pathlib import Path

    from train.environment import EnvSettings
    from train.prepare_data import load_rows, to_sft

    path = Path(args.dataset_name)
    if path.is_dir() and ((path / "dataset_info.json").exists() or (path / "state.json").exists()):
        ds = load_from_disk(str(path))
    elif path.is_dir():
        from train.prepare_data import load_local_folder  # not datasets' name-keyed cache (see there)

        ds = load_local_folder(path, args.dataset_config, args.dataset_train_split)
    else:
        ds = None
    if ds is not None and "messages" in ds.column_names:
        return _conversational(ds)
    if ds is not None and "input_ids" in ds.column_names:
        return ds
    rows = ds if ds is not None else load_rows(args.dataset_name, args.dataset_config, args.dataset_train_split)
    settings = EnvSettings(backend=args.kopa_backend, platforms=tuple(args.kopa_platforms) if args.kopa_platforms else None)
    return to_sft(rows, settings)


def _conversational(ds):
    """Rows whose `messages` is a JSON string (EDGE before 0.2.0, hand-made files) decoded into the list TRL
    reads; EDGE `sft` rows from 0.2.0 on are lists already and pass unchanged."""
    import json

    from datasets import Value

    if ds.features["messages"] != Value("string"):
        return ds
    return ds.map(lambda r: {"messages": json.loads(r["messages"])})


def build_trainer(script_args: SFTScriptArguments, training_args: SFTConfig, model_args: ModelConfig):
    from trl import SFTTrainer

    from train.modeling import load_model_and_tokenizer

    if script_args.prefix_assistant_mask and training_args.assistant_only_loss:
        raise ValueError("prefix_assistant_mask and assistant_only_loss both mask non-assistant tokens; set "
                         "assistant_only_loss: false when using prefix_assistant_mask (TRL's option needs "
                         "conversational rows, the prefix mask hands it tokenized ones)")
    model, tokenizer = load_model_and_tokenizer(model_args, training_args)
    ds = load_sft_dataset(script_args)
    if script_args.prefix_assistant_mask and "input_ids" not in ds.column_names:
        from train.assistant_mask import tokenize_conversations

        ds, stats = tokenize_conversations(ds, tokenizer, training_args.max_length)
        log.info("prefix assistant mask: %s", stats)
        if len(ds) == 0:
            raise ValueError(f"no SFT row fits max_length={training_args.max_length} ({stats}); raise max_length")
    return SFTTrainer(model=model, args=training_args, train_dataset=ds,
                      processing_class=tokenizer, peft_config=get_peft_config(model_args))


def main(script_args: SFTScriptArguments, training_args: SFTConfig, model_args: ModelConfig):
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    trainer = build_trainer(script_args, training_args, model_args)
    result = trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)
    trainer.log_metrics("train", result.metrics)
    trainer.save_metrics("train", result.metrics)
    trainer.save_model(training_args.output_dir)
    from train.model_card import write_model_card

    if trainer.accelerator.is_main_process:
        write_model_card(training_args.output_dir, base_model=model_args.model_name_or_path, method="SFT",
                         dataset=script_args.dataset_name, data_version=script_args.data_version,
                         hub_model_id=training_args.hub_model_id)
    if training_args.push_to_hub:
        trainer.push_to_hub(dataset_name=script_args.dataset_name)
    return trainer


def parse_args(argv: list[str] | None = None):
    return TrlParser((SFTScriptArguments, SFTConfig, ModelConfig)).parse_args_and_config(argv)


if __name__ == "__main__":
    main(*parse_args())

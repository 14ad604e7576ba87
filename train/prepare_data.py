"""Turn KOPA task-schema rows into what the trainers read.

GRPO rows keep every task column (tools/program/answer as JSON strings, as in the KOPA-Bench and
EDGE `rl` datasets: the rewards score against them) and add:
  prompt       [system, user] chat messages (the tools are rendered by TRL from the environment)
  environment  the environment name for the task's offered tool set (train.environment.toolset_key)

SFT rows (warm start) are gold trajectories: the gold program executed against the sandbox,
rendered as assistant tool_calls + tool results + a final answer stating the answer facts, with
`tools` holding the offered tools' JSON schemas (TRL's SFTTrainer passes it to the chat template).

Sources: a local dataset folder (`save_to_disk` or a hub-style folder with a config), a
.parquet/.jsonl/.json file, or `kopa:dev` / `kopa:test` (the benchmark's own task files, smoke use).

    python train/prepare_data.py --source train/data/smoke_tasks.jsonl --out data/grpo-smoke
    python train/prepare_data.py --source kopa:dev --format sft --out data/sft-dev
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path
from typing import Any

from train.environment import EnvSettings, decode_list, shared_client, toolset_key

log = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "당신은 한국 공공데이터 API를 도구로 사용하는 어시스턴트입니다. 필요한 도구를 호출해 실제 데이터를 조회하고, "
    "앞선 호출 결과의 값을 다음 호출의 인자로 그대로 사용하세요. 조회한 결과에 근거해서만 한국어로 간결하게 답하세요.\n"
    "You answer with Korean public-API tools: call the tools you need, pass values from earlier results "
    "into later calls, and state the answer only from results you received."
)

_JSON_COLUMNS = ("tags", "platforms", "tools", "program", "answer")


def load_rows(source: str, config: str | None = None, split: str = "train"):
    """A `datasets.Dataset` of KOPA task-schema rows from a folder, a file or `kopa:<split>`."""
    from datasets import Dataset, load_dataset, load_from_disk

    if source.startswith("kopa:"):
        from kopa_bench.tasks import load_tasks

        tasks = load_tasks(source.split(":", 1)[1])
        if not tasks:
            raise ValueError(f"{source} has no tasks yet (kopa_bench/tasks/data/{source.split(':', 1)[1]}/ is empty)")
        return Dataset.from_list([_task_row(t.model_dump(mode="json")) for t in tasks])
    path = Path(source)
    if path.is_file():
        if path.suffix in (".jsonl", ".json"):
            # Read JSON ourselves: Arrow's struct inference would merge the keys of every step's `args`
            # (adding None-valued arguments to the gold program); the schema keeps them as JSON strings.
            text = path.read_text(encoding="utf-8")
            items = json.loads(text) if path.suffix == ".json" else [json.loads(l) for l in text.splitlines() if l.strip()]
            return Dataset.from_list([_task_row(r) for r in (items if isinstance(items, list) else [items])])
        if path.suffix != ".parquet":
            raise ValueError(f"{source}: unsupported file type {path.suffix!r}; use .parquet, .jsonl or .json")
        ds = load_dataset("parquet", data_files=str(path), split="train")
    elif (path / "dataset_info.json").exists() or (path / "state.json").exists():
        ds = load_from_disk(str(path))
        if hasattr(ds, "keys"):  # DatasetDict
            ds = ds[split]
    elif path.is_dir():
        ds = load_local_folder(path, config, split)
    else:
        raise FileNotFoundError(f"dataset source {source!r} is neither a file, a folder nor kopa:<split>")
    return ds.map(_task_row)


def load_local_folder(path: Path, config: str | None, split: str):
    """`load_dataset` on a local hub-style folder, read from its Parquet files every time.

    `datasets` keys the Arrow cache of a local folder by the folder's name and card, not its content,
    so a rebuilt or different folder with the same name (every `edge-trajectories` build) would load
    the previous rows, or fail its split-size check against them (tests/test_train_dataset_cache.py).
    A private, throw-away cache directory and an in-memory copy avoid both.
    """
    import shutil
    import tempfile

    from datasets import load_dataset

    cache = tempfile.mkdtemp(prefix="kopa-dataset-")
    try:
        return load_dataset(str(path), name=config, split=split, cache_dir=cache, keep_in_memory=True)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def _task_row(row: dict[str, Any]) -> dict[str, Any]:
    """Normalise the task columns to JSON strings (the published schema)."""
    return {k: (json.dumps(v, ensure_ascii=False) if k in _JSON_COLUMNS and not isinstance(v, str) else v)
            for k, v in row.items()}


def grpo_row(row: dict[str, Any], system_prompt: str = SYSTEM_PROMPT) -> dict[str, Any]:
    return {
        "prompt": [{"role": "system", "content": system_prompt}, {"role": "user", "content": row["query"]}],
        "environment": toolset_key(decode_list(row["tools"])),
    }


def to_grpo(ds, system_prompt: str = SYSTEM_PROMPT):
    missing = [c for c in ("id", "query", "tools", "program", "answer") if c not in ds.column_names]
    if missing:
        raise ValueError(f"dataset lacks KOPA task columns {missing}; it has {ds.column_names}")
    return ds.map(lambda r: grpo_row(r, system_prompt))


def _answer_text(facts) -> str:
    parts = []
    for f in facts:
        value = f.value if not isinstance(f.value, float) else round(f.value, 3)
        parts.append(f"{f.description}: {value}{' ' + f.unit if f.unit else ''}")
    return "; ".join(parts) + "."


def sft_row(row: dict[str, Any], settings: EnvSettings | None = None, system_prompt: str = SYSTEM_PROMPT,
            max_records: int = 20) -> dict[str, Any]:
    """One gold trajectory in chat format (executed against the configured backend)."""
    from kopa_bench.catalog import get_catalog, tool_schemas

    from train.rewards import gold_for, task_from_row

    task = task_from_row(row)
    client = shared_client(settings or EnvSettings())
    gold, facts = gold_for(task, client)
    messages: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}, {"role": "user", "content": task.query}]
    groups: dict[int, list] = {}
    for run in gold.executed:
        groups.setdefault(run.group, []).append(run)
    n = 0
    for runs in groups.values():  # one assistant turn per gold group: its steps are independent
        calls = []
        for run in runs:
            calls.append({"id": f"call_{n}", "type": "function", "function": {"name": run.tool, "arguments": run.args}})
            n += 1
        messages.append({"role": "assistant", "content": "", "tool_calls": calls})
        for run, call in zip(runs, calls):
            messages.append({"role": "tool", "name": run.tool, "tool_call_id": call["id"],
                             "content": run.result.for_model(max_records)})
    messages.append({"role": "assistant", "content": _answer_text(facts)})
    schemas = tool_schemas(get_catalog(), decode_list(row["tools"]))
    return {"messages": messages, "tools": json.dumps(schemas, ensure_ascii=False)}


def to_sft(ds, settings: EnvSettings | None = None, system_prompt: str = SYSTEM_PROMPT):
    from datasets import Dataset

    return Dataset.from_list([sft_row(r, settings, system_prompt) for r in ds])


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source", required=True, help="dataset folder, .parquet/.jsonl file, or kopa:dev / kopa:test")
    p.add_argument("--config", default=None, help="dataset config name (e.g. rl for EDGE)")
    p.add_argument("--split", default="train")
    p.add_argument("--format", choices=["grpo", "sft"], default="grpo")
    p.add_argument("--backend", default="sandbox", help="for --format sft: where the gold programs run")
    p.add_argument("--out", required=True, help="output folder (datasets.save_to_disk)")
    a = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    ds = load_rows(a.source, a.config, a.split)
    out = to_grpo(ds) if a.format == "grpo" else to_sft(ds, EnvSettings(backend=a.backend))
    out.save_to_disk(a.out)
    log.info("wrote %d %s rows to %s", len(out), a.format, a.out)


if __name__ == "__main__":
    main()

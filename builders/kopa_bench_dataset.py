"""Build the `kopa-bench` dataset folder: configs `tasks` (test, dev) and `tools` (catalog).

Parquet only (datasets 5 has no loading scripts); the card's YAML `configs:` declares the
configs and splits; gold programs, answer specs and tool schemas are JSON strings so every
row has one flat, stable schema.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from kopa_bench.catalog import get_catalog, tool_schema
from kopa_bench.tasks import load_tasks
from kopa_bench.tasks.task_schema import Task

from .card import render_card
from .parquet_io import dumps, folder_hash, folder_manifest, write_parquet

DATASET_VERSION = "1.1.0"

TASK_SCHEMA = pa.schema([
    ("id", pa.string()), ("version", pa.string()), ("dataset_version", pa.string()), ("split", pa.string()),
    ("query", pa.string()), ("gloss", pa.string()), ("domain", pa.string()), ("tags", pa.list_(pa.string())),
    ("platforms", pa.list_(pa.string())), ("shape", pa.string()), ("difficulty", pa.string()),
    ("held_out_platform", pa.string()), ("tools", pa.list_(pa.string())), ("program", pa.string()),
    ("answer", pa.string()), ("n_calls", pa.int32()), ("has_parallel", pa.bool_()),
])
TOOL_SCHEMA = pa.schema([
    ("name", pa.string()), ("platform", pa.string()), ("service", pa.string()), ("operation", pa.string()),
    ("domain", pa.string()), ("title_ko", pa.string()), ("title_en", pa.string()), ("live_url", pa.string()),
    ("method", pa.string()), ("schema", pa.string()), ("fields", pa.list_(pa.string())), ("dataset_version", pa.string()),
])


def task_row(task: Task) -> dict:
    dumped = task.model_dump(mode="json")
    return {
        "id": task.id, "version": task.version, "dataset_version": DATASET_VERSION, "split": task.split,
        "query": task.query, "gloss": task.gloss, "domain": dumped["domain"], "tags": list(task.tags),
        "platforms": list(task.platforms), "shape": dumped["shape"], "difficulty": dumped["difficulty"],
        "held_out_platform": task.held_out_platform, "tools": list(task.tools),
        "program": dumps(dumped["program"]), "answer": dumps(dumped["answer"]),
        "n_calls": task.n_calls, "has_parallel": task.has_parallel,
    }


def row_to_task(row: dict) -> Task:
    """Inverse of task_row: a dataset row back to a validated Task."""
    data = {k: row[k] for k in ("id", "version", "split", "query", "gloss", "domain", "tags", "platforms", "shape",
                                 "difficulty", "held_out_platform", "tools")}
    data["program"] = json.loads(row["program"])
    data["answer"] = json.loads(row["answer"])
    return Task.model_validate(data)


def tool_rows() -> list[dict]:
    rows = []
    for ref in get_catalog():
        rows.append({
            "name": ref.op.tool, "platform": ref.platform.id, "service": ref.service.id, "operation": ref.op.name,
            "domain": ref.op.domain, "title_ko": ref.op.title_ko, "title_en": ref.op.title_en,
            "live_url": f"{ref.platform.live_base_url}{ref.service.path}{ref.op.path}", "method": ref.op.method,
            "schema": dumps(tool_schema(ref)), "fields": [f.name for f in ref.op.fields],
            "dataset_version": DATASET_VERSION,
        })
    return sorted(rows, key=lambda r: r["name"])


def build(out: str | Path) -> dict:
    """Write the folder and return its build info (file hashes and the folder hash)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    splits = {}
    for split in ("test", "dev"):
        tasks = sorted(load_tasks(split), key=lambda t: t.id)
        write_parquet([task_row(t) for t in tasks], out / "tasks" / f"{split}-00000-of-00001.parquet", TASK_SCHEMA)
        splits[split] = tasks
    tools = tool_rows()
    write_parquet(tools, out / "tools" / "catalog-00000-of-00001.parquet", TOOL_SCHEMA)
    (out / "README.md").write_text(render_card(splits, tools, DATASET_VERSION), encoding="utf-8")
    changelog = Path(__file__).with_name("CHANGELOG_kopa_bench.md")
    (out / "CHANGELOG.md").write_text(changelog.read_text(encoding="utf-8"), encoding="utf-8")
    manifest = folder_manifest(out)
    info = {"dataset": "kopa-bench", "version": DATASET_VERSION, "files": manifest, "hash": folder_hash(manifest),
            "tasks": {s: len(t) for s, t in splits.items()}, "tools": len(tools)}
    (out / "build_info.json").write_text(json.dumps(info, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return info

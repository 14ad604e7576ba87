"""Build the `kopa-bench` dataset folder: configs `tasks` (test, dev) and `tools` (catalog).

Parquet only (datasets 5 has no loading scripts); the card's YAML `configs:` declares the
configs and splits; gold programs, answer specs and tool schemas are JSON strings so every
row has one flat, stable schema (kopa_bench.tasks.dataset_row). Each answer fact carries its
gold value (`expected`), computed here by executing the gold program in the sandbox world,
whose content hash, seed and clock the rows, build_info.json and the card record.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pyarrow as pa

from kopa_bench.catalog import get_catalog, tool_schema
from kopa_bench.tasks import load_tasks
from kopa_bench.tasks.dataset_row import ROW_SCHEMA, row_to_task, task_row
from kopa_bench.tasks.task_schema import Task

from .card import render_card
from .parquet_io import dumps, folder_hash, folder_manifest, write_parquet

DATASET_VERSION = "3.0.0"

TASK_SCHEMA = ROW_SCHEMA
TOOL_SCHEMA = pa.schema([
    ("name", pa.string()), ("platform", pa.string()), ("service", pa.string()), ("operation", pa.string()),
    ("domain", pa.string()), ("title_ko", pa.string()), ("title_en", pa.string()), ("live_url", pa.string()),
    ("method", pa.string()), ("schema", pa.string()), ("fields", pa.list_(pa.string())), ("dataset_version", pa.string()),
])
__all__ = ["DATASET_VERSION", "TASK_SCHEMA", "TOOL_SCHEMA", "build", "gold_values", "row_to_task", "tool_rows"]


def gold_values(tasks: list[Task], world) -> dict[str, list]:
    """task id -> its resolved facts, the gold program executed in `world` at the world's own clock."""
    from kopa_bench.client import KopaClient
    from kopa_bench.tasks import compute_answer, execute_program

    async def run() -> dict[str, list]:
        client = KopaClient("sandbox", world=world, catalog=get_catalog())
        try:
            out = {}
            for task in tasks:  # one at a time: the world answers in-process, order does not change a value
                gold = await execute_program(task, client, clock=world.clock)
                out[task.id] = compute_answer(task, gold, clock=world.clock)
            return out
        finally:
            await client.aclose()

    return asyncio.run(run())


def world_info(world) -> dict[str, str]:
    meta = world.meta
    return {"content_hash": world.content_hash, "seed": str(meta.get("seed", "")), "clock": world.clock.now().isoformat(),
            "world_version": str(meta.get("world_version", ""))}


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


def build(out: str | Path, world=None) -> dict:
    """Write the folder and return its build info (file hashes, folder hash, the world the values come from).

    `world`: the sandbox world the gold programs run in (default: the benchmark's, `get_world()`)."""
    if world is None:
        from kopa_bench.world import get_world

        world = get_world()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    splits = {}
    for split in ("test", "dev"):
        tasks = sorted(load_tasks(split), key=lambda t: t.id)
        values = gold_values(tasks, world)
        rows = [task_row(t, values[t.id], dataset_version=DATASET_VERSION, world_hash=world.content_hash) for t in tasks]
        write_parquet(rows, out / "tasks" / f"{split}-00000-of-00001.parquet", TASK_SCHEMA)
        splits[split] = tasks
    tools = tool_rows()
    write_parquet(tools, out / "tools" / "catalog-00000-of-00001.parquet", TOOL_SCHEMA)
    wi = world_info(world)
    (out / "README.md").write_text(render_card(splits, tools, DATASET_VERSION, wi), encoding="utf-8")
    changelog = Path(__file__).with_name("CHANGELOG_kopa_bench.md")
    (out / "CHANGELOG.md").write_text(changelog.read_text(encoding="utf-8"), encoding="utf-8")
    manifest = folder_manifest(out)
    info = {"dataset": "kopa-bench", "version": DATASET_VERSION, "files": manifest, "hash": folder_hash(manifest),
            "tasks": {s: len(t) for s, t in splits.items()}, "tools": len(tools), "world": wi}
    (out / "build_info.json").write_text(json.dumps(info, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return info

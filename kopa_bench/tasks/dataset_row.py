"""A task as one row of the `kopa-bench` dataset (`tasks` config), and a row back as a Task.

The row stands alone: besides the gold program and the answer spec (references such as
`$s2.items[0].y`), every answer fact carries `expected`, its gold value computed when the
dataset was built by running the gold program in the sandbox world whose content hash the row
records (`world_hash`). `program` and `answer` are JSON strings, so every row has one flat
schema (their values mix strings, numbers, objects and references).
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa

from kopa_bench.tasks.facts import ResolvedFact
from kopa_bench.tasks.task_schema import Task

ROW_SCHEMA = pa.schema([
    ("id", pa.string()), ("version", pa.string()), ("dataset_version", pa.string()), ("split", pa.string()),
    ("query", pa.string()), ("gloss", pa.string()), ("domain", pa.string()), ("tags", pa.list_(pa.string())),
    ("platforms", pa.list_(pa.string())), ("shape", pa.string()), ("difficulty", pa.string()),
    ("held_out_platform", pa.string()), ("tools", pa.list_(pa.string())), ("program", pa.string()),
    ("answer", pa.string()), ("n_calls", pa.int32()), ("has_parallel", pa.bool_()), ("world_hash", pa.string()),
])
TASK_COLUMNS = ("id", "version", "split", "query", "gloss", "domain", "tags", "platforms", "shape", "difficulty",
                "held_out_platform", "tools", "program", "answer")
BUILD_ONLY_FACT_KEYS = ("expected",)  # in the row, not in the Task schema: the scorer recomputes them


def dumps(obj: Any) -> str:
    """Canonical JSON for values stored as strings (same value -> same bytes)."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def task_row(task: Task, expected: list[ResolvedFact], *, dataset_version: str, world_hash: str) -> dict[str, Any]:
    """The dataset row of `task`; `expected` is `compute_answer(task, gold)` in the world `world_hash`."""
    by_id = {f.id: f.value for f in expected}
    missing = [f.id for f in task.answer if f.id not in by_id]
    if missing:
        raise ValueError(f"task {task.id}: no gold value for facts {missing}; pass compute_answer(task, gold) of its gold run")
    dumped = task.model_dump(mode="json")
    answer = [{**fact, "expected": by_id[fact["id"]]} for fact in dumped["answer"]]
    return {
        "id": task.id, "version": task.version, "dataset_version": dataset_version, "split": task.split,
        "query": task.query, "gloss": task.gloss, "domain": dumped["domain"], "tags": list(task.tags),
        "platforms": list(task.platforms), "shape": dumped["shape"], "difficulty": dumped["difficulty"],
        "held_out_platform": task.held_out_platform, "tools": list(task.tools),
        "program": dumps(dumped["program"]), "answer": dumps(answer),
        "n_calls": task.n_calls, "has_parallel": task.has_parallel, "world_hash": world_hash,
    }


def _decoded(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def answer_spec(answer: Any) -> list[dict[str, Any]]:
    """A row's `answer` (JSON string or list) as Task answer facts: the build-time `expected` values dropped."""
    return [{k: v for k, v in fact.items() if k not in BUILD_ONLY_FACT_KEYS} for fact in _decoded(answer)]


def row_to_task(row: dict[str, Any]) -> Task:
    """A dataset row (as `datasets.load_dataset(folder, "tasks")` returns it) back to a validated Task."""
    missing = [k for k in TASK_COLUMNS if k not in row]
    if missing:
        raise ValueError(f"row {row.get('id', '?')!r} lacks the task columns {missing}; expected a kopa-bench `tasks` row")
    data = {k: row[k] for k in TASK_COLUMNS}
    data["program"] = _decoded(row["program"])
    data["answer"] = answer_spec(row["answer"])
    return Task.model_validate(data)


def expected_facts(row: dict[str, Any]) -> list[ResolvedFact]:
    """The row's facts with their build-time gold values, for checking an answer text without the world
    (`kopa_bench.scoring.normalize.fact_in_text(fact, answer)`: the RESPONSE axis; grounding needs tool results)."""
    facts = []
    for fact in _decoded(row["answer"]):
        if "expected" not in fact:
            raise ValueError(f"row {row.get('id', '?')!r} fact {fact.get('id')!r} has no `expected` value "
                             "(a kopa-bench row before 1.1.0); re-execute its gold program instead")
        facts.append(ResolvedFact(id=fact["id"], description=fact["description"], kind=fact.get("kind", "text"),
                                  value=fact["expected"], tolerance=fact.get("tolerance"), unit=fact.get("unit"),
                                  aliases=fact.get("aliases") or [], context=fact.get("context")))
    return facts

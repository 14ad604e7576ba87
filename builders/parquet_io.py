"""Deterministic Parquet writing and folder hashing shared by the dataset builders."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq


def write_parquet(rows: list[dict[str, Any]], path: Path, schema: pa.Schema) -> None:
    """Same rows -> same bytes: fixed schema, one row group, no write-time statistics drift."""
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(rows, schema=schema)
    pq.write_table(table, path, compression="zstd", row_group_size=max(1, len(rows)), write_statistics=True,
                   store_schema=True)


def folder_manifest(root: Path, exclude: tuple[str, ...] = ("build_info.json",)) -> dict[str, str]:
    """sha256 of every file under root (relative paths, sorted)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.name not in exclude:
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def folder_hash(manifest: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()


def dumps(obj: Any) -> str:
    """Canonical JSON for values stored as strings (tool arguments, programs)."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))

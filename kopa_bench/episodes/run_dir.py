"""A run directory's files, for the runner that writes them and every reader of a run.

  run.json        config, model, tool backend, world hash, versions, last summary
  tasks.json      the exact tasks run (so `kopa bench score` needs no task files)
  episodes.jsonl  one line per ended episode, appended, flushed and fsync'd

A line torn by a kill mid-write can only be the last one: readers ignore it, and the runner
cuts it off before appending. An episode ended by an infra error (schema.StopReason) is run
again by a rerun, which appends the new attempt; `latest_attempts` picks the one that counts.
What a folder should hold against what it does is completeness.py's business.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import platform
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from kopa_bench.episodes.schema import Episode
from kopa_bench.tasks.task_schema import Task, parse_tasks
from pydantic import BaseModel

log = logging.getLogger(__name__)

EPISODES, RUN_JSON, TASKS_JSON = "episodes.jsonl", "run.json", "tasks.json"


class RunDirError(RuntimeError):
    """The run directory cannot be read or resumed as asked; the message says why and what to do."""


def _split_lines(data: bytes) -> tuple[list[tuple[int, bytes]], int]:
    """(line number, bytes) of every newline-terminated non-blank line, and where they end;
    bytes after the last newline never finished writing."""
    end = data.rfind(b"\n") + 1
    return [(i + 1, line) for i, line in enumerate(data[:end].split(b"\n")[:-1]) if line.strip()], end


def read_episodes(path: Path, *, repair: bool = False, model: type[BaseModel] = Episode) -> list[Any]:
    """Episodes of an episodes.jsonl. An unterminated last line (a write cut by a kill) is
    ignored, and cut off with repair=True; a bad complete line is corruption and raises.
    `model` is the pydantic model of a line (BFCL runs write their own records)."""
    if not path.exists():
        return []
    data = path.read_bytes()
    lines, end = _split_lines(data)
    episodes = []
    for n, line in lines:
        try:
            episodes.append(model.model_validate_json(line))
        except ValueError as exc:
            raise RunDirError(f"{path}: line {n} is corrupt ({str(exc)[:120]}); "
                              "remove it by hand or start a new run directory") from None
    if end < len(data) and repair:
        log.warning("%s: dropping a torn last line (%d bytes) left by an interrupted run", path, len(data) - end)
        with open(path, "r+b") as fh:
            fh.truncate(end)
            fh.flush()
            os.fsync(fh.fileno())
    return episodes


@dataclass(frozen=True)
class JsonlScan:
    """Every record of a run's JSONL file that reads, and the line numbers (1-based) of those that
    do not: an unterminated last line cut by a kill, or a corrupt one."""

    records: list[Any]
    torn_lines: list[int]


def scan_records(path: Path, model: type[BaseModel] = Episode) -> JsonlScan:
    """Read-only and never raising on a bad line, for scorers that must say what a run lacks."""
    if not path.exists():
        return JsonlScan([], [])
    data = path.read_bytes()
    lines, end = _split_lines(data)
    records, torn = [], []
    for n, line in lines:
        try:
            records.append(model.model_validate_json(line))
        except ValueError:
            torn.append(n)
    if data[end:].strip():
        torn.append(data.count(b"\n") + 1)
    return JsonlScan(records, torn)


def latest_attempts(episodes: Iterable[Any], key: Callable[[Any], Hashable] = lambda e: (e.task_id, e.seed)) -> list[Any]:
    """One record per `key` (an Episode's (task, seed)): the one that finished, else the last
    infra-error attempt (a rerun appends a new attempt after an infra error; the file stays
    append-only). Records of any kind with an `infra_error` flag (BFCL results too)."""
    out: dict[Hashable, Any] = {}
    for ep in episodes:
        k = key(ep)
        if k not in out or out[k].infra_error:
            out[k] = ep
    return list(out.values())


class EpisodeWriter:
    """Appends one episode per line; each line is flushed and fsync'd before it counts."""

    def __init__(self, path: Path):
        self.path = path
        self._fh = open(path, "ab")
        self._lock = asyncio.Lock()

    async def write(self, ep: Episode) -> None:
        line = (ep.model_dump_json() + "\n").encode("utf-8")
        async with self._lock:
            # the fsync waits for the disk: off the event loop, so other episodes keep running
            await asyncio.to_thread(self._append, line)

    def _append(self, line: bytes) -> None:
        self._fh.write(line)
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()


def atomic_write(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


@contextmanager
def locked(out: Path) -> Iterator[None]:
    """One process at a time runs into a directory."""
    lock = FileLock(str(out / ".lock"))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise RunDirError(f"another process is running into {out}; wait for it or use another --out") from None
    try:
        yield
    finally:
        lock.release()


def read_run_json(run_dir: Path) -> dict[str, Any] | None:
    path = Path(run_dir) / RUN_JSON
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def write_run_json(out: Path, run: dict[str, Any]) -> None:
    atomic_write(out / RUN_JSON, json.dumps(run, ensure_ascii=False, indent=1))


def load_run_tasks(run_dir: Path) -> list[Task]:
    path = Path(run_dir) / TASKS_JSON
    if not path.exists():
        raise RunDirError(f"{run_dir} has no {TASKS_JSON}; is it a `kopa bench run` directory?")
    return parse_tasks(json.loads(path.read_text(encoding="utf-8")), str(path))


def merge_tasks(run_dir: Path, tasks: list[Task]) -> list[Task]:
    """The directory's tasks plus `tasks`, written back to tasks.json; a changed task refuses to mix."""
    old = {t.id: t for t in load_run_tasks(run_dir)} if (run_dir / TASKS_JSON).exists() else {}
    for t in tasks:
        if t.id in old and old[t.id].model_dump() != t.model_dump():
            raise RunDirError(f"task {t.id} changed since {run_dir} was started; use a new --out directory")
        old[t.id] = t
    merged = sorted(old.values(), key=lambda t: t.id)
    atomic_write(run_dir / TASKS_JSON, json.dumps([t.model_dump(mode="json") for t in merged], ensure_ascii=False, indent=1))
    return merged


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("kopa", "httpx", "pydantic", "duckdb", "evaluate", "transformers", "torch", "llama-cpp-python"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    return out


def tasks_hash(tasks: Iterable[Task]) -> str:
    blob = json.dumps([t.model_dump(mode="json") for t in tasks], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]

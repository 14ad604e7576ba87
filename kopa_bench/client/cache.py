"""Record/replay cache on DuckDB: freeze a live run, replay it offline, byte for byte.

Keyed on (tool, normalised arguments). One process writes at a time (a file lock guards
writers); readers of a replay-only cache open it read-only, so concurrent runs are safe.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Literal

import duckdb
from filelock import FileLock, Timeout

from .redact import redact
from .result import ToolResult

Mode = Literal["record", "replay", "auto"]


def cache_key(tool: str, arguments: dict[str, Any]) -> str:
    norm = {k: (str(v).strip() if not isinstance(v, (dict, list)) else v) for k, v in arguments.items() if v is not None}
    return tool + "|" + json.dumps(norm, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


class CacheMiss(LookupError):
    pass


class ReplayCache:
    """mode=record: call through and store; replay: only answer from the cache (a miss is an
    error naming the call); auto: answer from the cache, call through on a miss and store."""

    def __init__(self, path: str | Path, mode: Mode = "auto"):
        if mode not in ("record", "replay", "auto"):
            raise ValueError(f"cache mode {mode!r}: use record, replay or auto")
        self.path = Path(path)
        self.mode = mode
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if mode == "replay":
            if not self.path.exists():
                raise FileNotFoundError(f"replay cache {self.path} does not exist; record one first with mode=record")
            try:
                self._con = duckdb.connect(str(self.path), read_only=True)
            except duckdb.IOException as exc:  # DuckDB refuses readers while a writer holds the file
                raise RuntimeError(f"replay cache {self.path} is open for writing by another process; "
                                   f"wait for it to finish, then replay ({str(exc).splitlines()[0][:160]})") from None
            self._file_lock = None
        else:
            self._file_lock = FileLock(str(self.path) + ".lock")
            try:
                self._file_lock.acquire(timeout=5)
            except Timeout:
                raise RuntimeError(f"cache {self.path} is being written by another process; "
                                   "use mode=replay to read it concurrently, or another path") from None
            try:
                self._con = duckdb.connect(str(self.path))
            except duckdb.IOException as exc:  # readers (replay mode) in other processes hold it
                self._file_lock.release()
                raise RuntimeError(f"cache {self.path} is open read-only by another process (a replay run); "
                                   f"record into another path or wait ({str(exc).splitlines()[0][:160]})") from None
            self._con.execute("CREATE TABLE IF NOT EXISTS calls (key VARCHAR PRIMARY KEY, tool VARCHAR, result VARCHAR)")

    def get(self, tool: str, arguments: dict[str, Any]) -> ToolResult | None:
        if self.mode == "record":
            return None
        with self._lock:
            row = self._con.execute("SELECT result FROM calls WHERE key = ?", [cache_key(tool, arguments)]).fetchone()
        if row is None:
            if self.mode == "replay":
                raise CacheMiss(f"replay cache has no entry for {tool} {json.dumps(arguments, ensure_ascii=False)}")
            return None
        return ToolResult.model_validate_json(row[0])

    def put(self, result: ToolResult) -> None:
        if self.mode == "replay" or result.error and result.error.retryable:
            return  # never freeze a transient failure
        payload = redact(result.model_dump_json())
        with self._lock:
            self._con.execute("INSERT OR REPLACE INTO calls VALUES (?, ?, ?)",
                              [cache_key(result.tool, result.arguments), result.tool, payload])

    def __len__(self) -> int:
        return int(self._con.execute("SELECT count(*) FROM calls").fetchone()[0])

    def close(self) -> None:
        self._con.close()
        if self._file_lock is not None:
            self._file_lock.release()

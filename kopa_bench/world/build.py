"""Build the deterministic DuckDB world from a seed, the world clock and vendored tables.

Each generator module in `kopa_bench.world.gen` exposes `generate(ctx) -> {table: rows}`.
Generators run in a fixed order and draw randomness only from `ctx.rng(name)`, a
`random.Random` seeded from (seed, name): the same seed gives the same tables whatever
other generators do, which keeps the content hash stable when a platform is added.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import os
import pkgutil
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import duckdb
import pyarrow as pa

from .clock import WorldClock

log = logging.getLogger(__name__)

# Bump when the meaning of the data changes without a code change in gen/ (rare).
WORLD_VERSION = "1"
DEFAULT_SEED = 20261130


def cache_dir() -> Path:
    root = os.environ.get("KOPA_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "kopa")
    return Path(root)


@dataclass
class GenContext:
    """What a generator may use: a seed-derived RNG per stream, the clock, earlier tables."""

    seed: int
    clock: WorldClock
    tables: dict[str, pa.Table] = field(default_factory=dict)

    def rng(self, stream: str) -> random.Random:
        digest = hashlib.sha256(f"{self.seed}:{stream}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    def table(self, name: str) -> pa.Table:
        try:
            return self.tables[name]
        except KeyError:
            raise KeyError(f"table {name!r} is not generated yet; generated so far: {sorted(self.tables)}") from None

    def rows(self, name: str) -> list[dict[str, Any]]:
        return self.table(name).to_pylist()


def generator_modules() -> list[str]:
    """All generator modules, sorted: order is part of the world's definition."""
    from . import gen

    names = [m.name for m in pkgutil.iter_modules(gen.__path__) if not m.name.startswith("_")]
    return [f"{gen.__name__}.{n}" for n in sorted(names)]


def _to_arrow(rows: Any, name: str) -> pa.Table:
    if isinstance(rows, pa.Table):
        return rows
    if not rows:
        raise ValueError(f"generator produced an empty table {name!r}; give at least one row or a schema'd pa.Table")
    return pa.Table.from_pylist(list(rows))


def _ordered_generators() -> list[tuple[str, Callable[[GenContext], dict]]]:
    """Resolve `DEPENDS = [...]` declarations into a stable topological order."""
    mods = {name: importlib.import_module(name) for name in generator_modules()}
    short = {n.rsplit(".", 1)[1]: n for n in mods}
    done: list[str] = []
    visiting: set[str] = set()

    def visit(full: str) -> None:
        if full in done:
            return
        if full in visiting:
            raise ValueError(f"world generators depend on each other in a cycle at {full}")
        visiting.add(full)
        for dep in getattr(mods[full], "DEPENDS", []):
            if dep not in short:
                raise ValueError(f"{full} depends on unknown generator {dep!r}; have {sorted(short)}")
            visit(short[dep])
        visiting.discard(full)
        done.append(full)

    for full in sorted(mods):
        visit(full)
    return [(n, mods[n].generate) for n in done]


def generate_tables(seed: int, clock: WorldClock) -> dict[str, pa.Table]:
    ctx = GenContext(seed=seed, clock=clock)
    for name, fn in _ordered_generators():
        t0 = time.perf_counter()
        produced = fn(ctx)
        for table, rows in produced.items():
            if table in ctx.tables:
                raise ValueError(f"{name} produced table {table!r} that another generator already made")
            ctx.tables[table] = _to_arrow(rows, table)
        log.debug("generator %s: %.2fs", name, time.perf_counter() - t0)
    return ctx.tables


def content_hash(tables: dict[str, pa.Table]) -> str:
    """sha256 over every table's schema and rows in a canonical order."""
    h = hashlib.sha256()
    for name in sorted(tables):
        t = tables[name]
        h.update(name.encode())
        h.update(str(t.schema).encode())
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, t.schema) as writer:
            writer.write_table(t.combine_chunks() if t.num_rows else t)
        h.update(sink.getvalue().to_pybytes())
    return h.hexdigest()


def source_fingerprint() -> str:
    """Changes when any generator or vendored table changes, so caches rebuild themselves."""
    from . import gen, refdata

    h = hashlib.sha256(WORLD_VERSION.encode())
    for pkg in (gen, refdata):
        for p in sorted(Path(pkg.__path__[0]).iterdir()):
            if p.is_file() and p.suffix in {".py", ".csv", ".gz"}:
                h.update(p.name.encode())
                h.update(p.read_bytes())
    return h.hexdigest()[:16]


def write_database(tables: dict[str, pa.Table], path: Path, meta: dict[str, str]) -> None:
    tmp = path.with_suffix(".building")
    for stale in (tmp, Path(str(tmp) + ".wal")):
        stale.unlink(missing_ok=True)
    con = duckdb.connect(str(tmp))
    try:
        for name in sorted(tables):
            con.register("__src", tables[name])
            con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM __src')
            con.unregister("__src")
        con.execute("CREATE TABLE __world_meta (key VARCHAR, value VARCHAR)")
        con.executemany("INSERT INTO __world_meta VALUES (?, ?)", sorted(meta.items()))
        con.execute("CHECKPOINT")
    finally:
        con.close()
    os.replace(tmp, path)  # atomic: readers never see a half-built world


def build_world_file(seed: int = DEFAULT_SEED, clock: WorldClock | None = None, path: Path | None = None) -> tuple[Path, str]:
    """Generate and write a world database; returns (path, content hash)."""
    clock = clock or WorldClock()
    t0 = time.perf_counter()
    tables = generate_tables(seed, clock)
    digest = content_hash(tables)
    if path is None:
        path = cache_dir() / "world" / f"world-s{seed}-{clock.now().strftime('%Y%m%dT%H%M')}-{source_fingerprint()}.duckdb"
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"seed": str(seed), "clock": clock.now().isoformat(), "content_hash": digest,
            "world_version": WORLD_VERSION, "tables": str(len(tables))}
    write_database(tables, path, meta)
    log.info("built world %s in %.1fs (%d tables, hash %s)", path.name, time.perf_counter() - t0, len(tables), digest[:12])
    return path, digest

"""Build the deterministic DuckDB world from a seed, the world clock and vendored tables.

Each generator module in `kopa_bench.world.gen` exposes `generate(ctx) -> {table: rows}`.
Generators run in a fixed order and draw randomness only from `ctx.rng(name)`, a
`random.Random` seeded from (seed, name): the same seed gives the same tables whatever
other generators do, which keeps the content hash stable when a platform is added.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import os
import pkgutil
import random
import struct
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import duckdb
import pyarrow as pa

from ..clock import WorldClock
from ..settings import get_settings

log = logging.getLogger(__name__)

# Bump when the meaning of the data changes without a code change in gen/ (rare).
WORLD_VERSION = "1"
DEFAULT_SEED = 20261130


def cache_dir() -> Path:
    return get_settings().cache.expanduser()


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


def build_sources() -> list[Path]:
    """The files the world file is made from: this module, the generators, the vendored tables
    and the modules generators import (tests/test_layers.py checks that nothing is missing)."""
    root = Path(__file__).resolve().parents[1]  # kopa_bench/
    files = [Path(__file__).resolve(), root / "clock.py", root / "geo.py", root / "settings.py"]
    for folder in ("world/gen", "refdata", "transforms"):
        files += sorted(p for p in (root / folder).iterdir() if p.is_file() and p.suffix in {".py", ".csv", ".gz"})
    return files


def source_fingerprint() -> str:
    """Changes when any file the world is made from changes, so caches rebuild themselves."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256(WORLD_VERSION.encode())
    for p in build_sources():
        h.update(p.relative_to(root).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


# Byte-identical files: equal data is not enough, three things differ between two writes.
#  1. Parallel CREATE TABLE AS lays rows out differently -> threads=1.
#  2. Unused tails and gaps of blocks are never initialised, so stale heap memory (and the block
#     checksums over it) differs. DuckDB cannot zero them, its bundled jemalloc can:
#     DUCKDB_JE_MALLOC_CONF=zero:true, read once when the library loads, so a child process
#     started with it writes the file (this process has imported duckdb already).
#  3. The main header holds a random 16-byte database identifier (offset 124) and a checksum
#     over the header (offset 0); a stale copy can sit in a database header. We replace the
#     identifier with bytes derived from the world's metadata and recompute the checksums (see
#     stamp_database_identifier). The identifier only ties a WAL file to its database (none is
#     left: the world is checkpointed and opened read-only); DuckDB verifies the header checksum
#     on open, which the build then does.
#  The catalog also records the database's name, the file stem unless ATTACHed under a fixed alias.
# DuckDB before 2.0 also varies the number of blocks a checkpoint uses (pyproject asks for
# duckdb>=2.0); without jemalloc (macOS, Windows wheels) only the content hash is reproducible.
_MALLOC_ENV = "DUCKDB_JE_MALLOC_CONF"
_HEADER_SIZE = 4096
_DB_ID = slice(124, 140)


def _duckdb_checksum(data: bytes) -> int:
    """DuckDB's block checksum (src/common/checksum.cpp) over whole little-endian uint64 words."""
    mask, result = (1 << 64) - 1, 5381
    for (word,) in struct.iter_unpack("<Q", data):
        result ^= (word * 0xBF58476D1CE4E5B9) & mask
    return result


def _checksum_ok(block: bytes) -> bool:
    return len(block) == _HEADER_SIZE and struct.unpack_from("<Q", block)[0] == _duckdb_checksum(block[8:])


def stamp_database_identifier(path: Path, identifier: bytes) -> bool:
    """Replace the random database identifier in a DuckDB file's headers; False if the main
    header is not the layout this was checked against (the file is then left untouched).

    The file starts with the main header and two database headers of 4 KiB each, every one
    led by its checksum. The first database header DuckDB writes carries the main header's
    identifier at the same offset (stale bytes of the shared header buffer); it survives
    until two checkpoints have overwritten both database headers, so a copy found there is
    replaced too. A copy is recognised by its 16 random bytes, never by position alone."""
    if len(identifier) != _DB_ID.stop - _DB_ID.start:
        raise ValueError(f"identifier must be 16 bytes, got {len(identifier)}")
    with open(path, "r+b") as f:
        heads = [bytearray(f.read(_HEADER_SIZE)) for _ in range(3)]
        if heads[0][8:12] != b"DUCK" or not _checksum_ok(bytes(heads[0])):
            log.warning("%s: unknown DuckDB header layout (duckdb %s); identifier left as written, the file "
                        "bytes will differ between builds", path, duckdb.__version__)
            return False
        old = bytes(heads[0][_DB_ID])
        if not any(old):  # no identifier written: nothing random to replace
            return True
        for i, head in enumerate(heads):
            if bytes(head[_DB_ID]) != old or not _checksum_ok(bytes(head)):
                continue
            head[_DB_ID] = identifier
            struct.pack_into("<Q", head, 0, _duckdb_checksum(bytes(head[8:])))
            f.seek(i * _HEADER_SIZE)
            f.write(head)
    return True


def write_database(tables: dict[str, pa.Table], path: Path, meta: dict[str, str]) -> None:
    """Write tables and meta into a new DuckDB file, single-threaded, checkpointed, no WAL.

    Byte-identical output also needs the zero-filling allocator (see the note above
    `_MALLOC_ENV`), which is why build_world_file runs this in a child process."""
    for stale in (path, Path(str(path) + ".wal")):
        stale.unlink(missing_ok=True)
    con = duckdb.connect(":memory:", config={"threads": 1})
    try:
        quoted = str(path).replace("'", "''")
        con.execute(f"ATTACH '{quoted}' AS world")  # fixed alias: the catalog stores the name
        con.execute("USE world")
        for name in sorted(tables):
            con.register("__src", tables[name])
            con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM __src')
            con.unregister("__src")
        con.execute("CREATE TABLE __world_meta (key VARCHAR, value VARCHAR)")
        con.executemany("INSERT INTO __world_meta VALUES (?, ?)", sorted(meta.items()))
        con.execute("CHECKPOINT world")
        con.execute("USE memory")
        con.execute("DETACH world")
    finally:
        con.close()
    if Path(str(path) + ".wal").exists():
        raise RuntimeError(f"{path}: DuckDB left a WAL after CHECKPOINT; the world file would not be self-contained")


def _build_child() -> None:
    """Entry point of the build process: `python -c ... SEED NOW_ISO PATH`."""
    seed, now, path = int(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    clock = WorldClock(now)
    tables = generate_tables(seed, clock)
    meta = {"seed": str(seed), "clock": clock.now().isoformat(), "content_hash": content_hash(tables),
            "world_version": WORLD_VERSION, "tables": str(len(tables))}
    write_database(tables, path, meta)


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    conf = env.get(_MALLOC_ENV, "")
    if "zero:true" not in conf:
        env[_MALLOC_ENV] = f"{conf},zero:true" if conf else "zero:true"
    root = str(Path(__file__).resolve().parents[2])  # the directory holding kopa_bench/
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def _read_meta(path: Path) -> dict[str, str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return dict(con.execute("SELECT key, value FROM __world_meta").fetchall())
    finally:
        con.close()


def build_world_file(seed: int = DEFAULT_SEED, clock: WorldClock | None = None, path: Path | None = None) -> tuple[Path, str]:
    """Generate and write a world database; returns (path, content hash).

    The same seed and clock give the same file bytes (on platforms whose DuckDB uses jemalloc,
    see the note above `_MALLOC_ENV`); the content hash is recorded in `__world_meta`."""
    clock = clock or WorldClock()
    t0 = time.perf_counter()
    if path is None:
        path = cache_dir() / "world" / f"world-s{seed}-{clock.now().strftime('%Y%m%dT%H%M')}-{source_fingerprint()}.duckdb"
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".building")
    cmd = [sys.executable, "-c", "from kopa_bench.world.build import _build_child; _build_child()",
           str(seed), clock.now().isoformat(), str(tmp)]
    proc = subprocess.run(cmd, env=_child_env(), capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"building the world (seed {seed}, clock {clock.now().isoformat()}) failed in its build "
                           f"process with exit code {proc.returncode}:\n{proc.stderr[-4000:]}")
    meta = _read_meta(tmp)
    ident = hashlib.sha256(json.dumps(meta, sort_keys=True).encode()).digest()[:16]
    stamp_database_identifier(tmp, ident)
    if _read_meta(tmp) != meta:  # DuckDB verifies the header checksum here
        raise RuntimeError(f"{tmp}: the world reads back differently after stamping its header")
    os.replace(tmp, path)  # atomic: readers never see a half-built world
    digest = meta["content_hash"]
    log.info("built world %s in %.1fs (%s tables, hash %s)", path.name, time.perf_counter() - t0, meta["tables"], digest[:12])
    return path, digest

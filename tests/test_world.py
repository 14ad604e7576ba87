"""The world: deterministic from the seed, referentially sound, small and quick enough."""

import hashlib
import os
import sys
from pathlib import Path

import duckdb
import pytest

from kopa_bench.clock import WorldClock
from kopa_bench.world import build_world_file
from kopa_bench.world.build import content_hash, generate_tables, stamp_database_identifier


def _sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.mark.skipif(sys.platform != "linux", reason="byte identity needs DuckDB's bundled jemalloc (Linux wheels)")
def test_same_seed_gives_a_byte_identical_file_and_a_different_seed_differs(tmp_path, monkeypatch, world):
    files, hashes = [], []
    for cache in ("cache_a", "cache_b"):  # two cache dirs, the file name the cache would use
        monkeypatch.setenv("KOPA_CACHE", str(tmp_path / cache))
        path, digest = build_world_file(seed=7)
        files.append(path)
        hashes.append(digest)
    assert files[0] != files[1] and files[0].name == files[1].name
    assert hashes[0] == hashes[1]
    assert _sha256(files[0]) == _sha256(files[1])
    assert not list(files[0].parent.glob("*.building*")) and not Path(str(files[0]) + ".wal").exists()

    other, h8 = build_world_file(seed=8, path=tmp_path / "c.duckdb")
    assert h8 != hashes[0] and _sha256(other) != _sha256(files[0])

    # the stamped header opens read-only and every table reads back exactly as generated
    tables = generate_tables(7, WorldClock())
    con = duckdb.connect(str(files[0]), read_only=True)
    try:
        meta = dict(con.execute("SELECT key, value FROM __world_meta").fetchall())
        assert meta["content_hash"] == hashes[0] == content_hash(tables)
        differing = [n for n in sorted(tables) if not con.sql(f'SELECT * FROM "{n}"').to_arrow_table().equals(tables[n])]
    finally:
        con.close()
    assert differing == []

    # the default world records its hash and stays well under 1 GB
    assert len(world.content_hash) == 64
    assert os.path.getsize(world.path) < 1024**3


def test_stamping_the_identifier_keeps_the_file_valid_and_leaves_unknown_files_alone(tmp_path):
    path = tmp_path / "small.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE t AS SELECT range AS i FROM range(1000)")
    con.close()
    random_id = path.read_bytes()[124:140]
    assert stamp_database_identifier(path, bytes(range(16)))
    head = path.read_bytes()[: 3 * 4096]  # main header + two database headers
    assert head[124:140] == bytes(range(16))
    assert random_id not in head  # the stale copy in a database header is replaced too
    con = duckdb.connect(str(path), read_only=True)  # DuckDB checks the header checksum here
    assert con.execute("SELECT sum(i) FROM t").fetchone()[0] == 499500
    con.close()

    junk = tmp_path / "not-a-database"
    junk.write_bytes(b"x" * 5000)
    assert not stamp_database_identifier(junk, bytes(16))
    assert junk.read_bytes() == b"x" * 5000
    with pytest.raises(ValueError, match="16 bytes"):
        stamp_database_identifier(path, b"short")


def test_world_clock_is_fixed_and_configurable(world, monkeypatch):
    assert world.clock.now().isoformat().startswith("2026-11-30T09:00")
    monkeypatch.setenv("KOPA_WORLD_NOW", "2026-12-01T15:30")
    assert WorldClock().now().hour == 15


def test_every_operation_answers_its_documented_example(catalog, call):
    """Each tool, called with its parameters' examples, gets a real answer (not an error)."""
    failures = []
    for ref in catalog:
        args = {p.name: p.example for p in ref.op.model_params if p.required and p.example is not None}
        result = call(ref.op.tool, **args)
        if not result.ok:  # some tools need one of several optional params (KOSIS: a period)
            args = {p.name: p.example for p in ref.op.model_params if p.example is not None}
            result = call(ref.op.tool, **args)
        if not result.ok:
            failures.append((ref.op.tool, args, result.error.message if result.error else result.result_code))
    assert not failures, failures

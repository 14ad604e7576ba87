"""The world's DuckDB thread setting: 1 by default, KOPA_WORLD_THREADS overrides, bad values are named."""

from __future__ import annotations

import pytest

from kopa_bench.settings import get_settings


def test_default_is_one_thread(monkeypatch):
    monkeypatch.delenv("KOPA_WORLD_THREADS", raising=False)
    assert get_settings().world_threads == 1


def test_override(monkeypatch):
    monkeypatch.setenv("KOPA_WORLD_THREADS", "2")
    assert get_settings().world_threads == 2


@pytest.mark.parametrize("bad", ["0", "-1", "two"])
def test_bad_values_are_named(monkeypatch, bad):
    monkeypatch.setenv("KOPA_WORLD_THREADS", bad)
    with pytest.raises(ValueError, match="KOPA_WORLD_THREADS"):
        get_settings().world_threads


def test_an_empty_value_means_unset(monkeypatch):
    monkeypatch.setenv("KOPA_WORLD_THREADS", "")
    assert get_settings().world_threads == 1


def test_world_runs_with_one_thread(world):
    assert world.con.execute("SELECT current_setting('threads')").fetchone()[0] == 1


def test_world_opens_next_to_a_plain_connection(world, tmp_path):
    """A user's own read-only connection to the world file first, then the world: DuckDB would
    refuse the second one if the world asked for another configuration at connect time."""
    import shutil

    import duckdb

    from kopa_bench.world.store import World

    copy = tmp_path / "w.duckdb"
    shutil.copy(world.path, copy)
    con = duckdb.connect(str(copy), read_only=True)
    w = World(copy)
    assert w.content_hash == world.content_hash
    assert con.execute("SELECT count(*) FROM neis_schools").fetchone()[0] > 0
    w.close()
    con.close()

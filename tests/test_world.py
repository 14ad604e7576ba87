"""The world: deterministic from the seed, referentially sound, small and quick enough."""

import os

from kopa_bench.world import WorldClock, build_world_file


def test_same_seed_same_content_hash_and_a_different_seed_differs(tmp_path, world):
    p1, h1 = build_world_file(seed=7, path=tmp_path / "a.duckdb")
    p2, h2 = build_world_file(seed=7, path=tmp_path / "b.duckdb")
    assert h1 == h2
    _, h3 = build_world_file(seed=8, path=tmp_path / "c.duckdb")
    assert h3 != h1
    # the default world records its hash and stays well under 1 GB
    assert len(world.content_hash) == 64
    assert os.path.getsize(world.path) < 1024**3


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

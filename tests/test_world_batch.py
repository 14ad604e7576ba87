"""Batched world answers (kopa_bench/world/batch.py, World.prefetch) equal the single queries.

World.prefetch answers many requests of one SQL operation with one DuckDB query (a LATERAL join
of the parameter tuples with the operation's SQL, pages cut by window functions) and memoises
them under rows_for's key. Every answer it memoises must equal World._compute_rows: same rows,
same order, same total, pages past the end and empty answers included. Parameter sets come from
the catalog's examples (each optional filter bound and unbound), the 204 recorded EDGE probe
queries of tests/data/query_plan_calls.json, and the gold programs of the test tasks. Also:
sort-key ties are never taken from a batch, a DuckDB error falls back to the single queries,
and EDGE verification with batching verifies the same graph as without.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

import pytest

from kopa_bench.world.batch import build_plan
from tests.test_query_plans import example_param_variants

CALLS = json.loads((Path(__file__).parent / "data" / "query_plan_calls.json").read_text(encoding="utf-8"))["calls"]
PAGES = [(0, 3), (2, 3), (0, None), (10_000, 10), (0, 0), (5, 0), (1, 100)]
# SQL the rewrite declines on purpose (a LIMIT inside the catalog query); they keep single queries
UNBATCHED = {"airkorea_getNearbyMsrstnList"}


@pytest.fixture(scope="module")
def gold_requests(world, catalog):
    """Every world request the gold programs of the test tasks make, recorded on the way."""
    from kopa_bench.client import KopaClient
    from kopa_bench.tasks.models import load_tasks
    from kopa_bench.tasks.program import execute_program

    seen: list[tuple] = []
    inner = world.rows_for

    def recording(op, params, offset=0, limit=None):
        seen.append((op.tool, dict(params), offset, limit))
        return inner(op, params, offset, limit)

    async def go():
        client = KopaClient(catalog=catalog, world=world, max_retries=0, backoff_s=0.0)
        # apps on one world share rendered answers (sandbox/app.py): an earlier module's gold
        # runs would otherwise answer these without reaching rows_for
        client.app.state.answers.clear()
        for task in load_tasks("test"):
            await execute_program(task, client)
        await client.aclose()

    world.rows_for = recording
    try:
        world.clear_memo()
        asyncio.run(go())
    finally:
        del world.rows_for
    return seen


def _requests_by_op(catalog, gold_requests) -> dict[str, list[tuple]]:
    by_op: dict[str, list[tuple]] = defaultdict(list)
    for tool, params in ((t, p) for t, ps in example_param_variants(catalog).items() for p in ps):
        by_op[tool].extend((params, o, lim) for o, lim in PAGES)
    for c in CALLS:
        by_op[c["tool"]].extend((dict(c["params"]), o, lim) for o, lim in [(c["offset"], c["limit"])] + PAGES)
    for tool, params, offset, limit in gold_requests:
        if catalog.get(tool).op.query:
            by_op[tool].extend((params, o, lim) for o, lim in [(offset, limit)] + PAGES[:3])
    return by_op


def test_batched_answers_equal_single_queries_on_every_sql_operation(small_batches, catalog, gold_requests):
    world = small_batches
    by_op = _requests_by_op(catalog, gold_requests)
    sql_ops = {r.op.tool for r in catalog if r.op.query and not r.op.handler}
    assert set(by_op) == sql_ops  # every SQL operation of the catalog is covered
    assert len({t for t, *_ in gold_requests}) >= 20
    taken = nonempty = paged = 0
    batched_ops = set()
    for tool, reqs in sorted(by_op.items()):
        op = catalog.get(tool).op
        world.clear_memo()
        world.prefetch([(op, p, o, lim) for p, o, lim in reqs])
        for params, offset, limit in reqs:
            hit = world._memo.get(world._memo_key(op, params, offset, limit))
            if hit is None:
                continue  # declined (ties, a lone request): rows_for runs the single query
            assert hit == world._compute_rows(op, params, offset, limit), (tool, params, offset, limit)
            taken += 1
            batched_ops.add(tool)
            nonempty += bool(hit[0])
            paged += bool(hit[0]) and offset > 0
    world.clear_memo()
    assert sql_ops - batched_ops == UNBATCHED
    assert taken > 2000 and nonempty > 800 and paged > 100, (taken, nonempty, paged)


def test_memoised_batch_answers_are_what_rows_for_returns(small_batches, catalog):
    world = small_batches
    """The normal request path: prefetch, then rows_for hands out the batched answer (copies)."""
    op = catalog.get("kasi_getRestDeInfo").op
    reqs = [(op, {"solYear": y, "solMonth": None}, 0, 10) for y in ("2024", "2025", "2026")]
    world.clear_memo()
    assert world.prefetch(reqs) == 3
    for r in reqs:
        rows, total = world.rows_for(*r)
        assert (rows, total) == world._compute_rows(*r) and total > 0
        rows[0]["locdate"] = "changed"  # callers get copies
        assert world.rows_for(*r) == world._compute_rows(*r)
    world.clear_memo()


@pytest.fixture()
def small_batches(world):
    """Batches of 2 (the production minimum is larger, for speed, not for correctness)."""
    world.BATCH_MIN = 2
    yield world
    del world.BATCH_MIN


def _fake(tool: str, query: str):
    return SimpleNamespace(tool=tool, query=query, handler=None)


def test_sort_key_ties_are_left_to_the_single_query(small_batches):
    world = small_batches
    ties = _fake("test_ties", "SELECT x, y FROM (VALUES (1, 'a'), (1, 'b'), (2, 'c'), (3, 'd')) AS t(x, y) "
                              "WHERE x >= $m ORDER BY x")
    reqs = [(ties, {"m": 1}, 0, 1),     # page row x=1 has a peer: declined
            (ties, {"m": 1}, 2, 2),     # rows x=2, x=3 are unique: taken, total 4
            (ties, {"m": 2}, 0, None),  # taken
            (ties, {"m": 9}, 0, 10)]    # empty: taken
    world.clear_memo()
    world.prefetch(reqs)
    got = [world._memo.get(world._memo_key(*r)) for r in reqs]
    assert got[0] is None
    assert got[1] == ([{"x": 2, "y": "c"}, {"x": 3, "y": "d"}], 4) == world._compute_rows(*reqs[1])
    assert got[2] == world._compute_rows(*reqs[2]) and got[3] == ([], 0)
    # without ORDER BY every row is a peer of every other: only answers of one row are taken
    point = _fake("test_point", "SELECT y FROM (VALUES (1, 'a'), (1, 'b'), (2, 'c')) AS t(x, y) WHERE x = $m")
    reqs = [(point, {"m": 1}, 0, 10), (point, {"m": 2}, 0, 10)]
    world.prefetch(reqs)
    assert world._memo.get(world._memo_key(*reqs[0])) is None
    assert world._memo.get(world._memo_key(*reqs[1])) == ([{"y": "c"}], 1)
    world.clear_memo()


def test_a_failing_batch_falls_back_to_single_queries(small_batches):
    world = small_batches
    op = _fake("test_cast", "SELECT CAST($x AS INTEGER) AS v FROM range(1) ORDER BY v")
    reqs = [(op, {"x": "1"}, 0, 10), (op, {"x": "not a number"}, 0, 10)]
    world.clear_memo()
    errors = world.batch_stats["errors"]
    assert world.prefetch(reqs) == 0
    assert world.batch_stats["errors"] == errors + 1
    assert world.rows_for(*reqs[0]) == ([{"v": 1}], 1)  # its own query answers it
    world.clear_memo()


def test_mixed_value_types_are_not_batched_together(small_batches):
    world = small_batches
    """DuckDB coerces a mixed list to VARCHAR; a single query binds each value by its own type."""
    op = _fake("test_types", "SELECT typeof($x) AS t FROM range(1) ORDER BY t")
    reqs = [(op, {"x": 1}, 0, 1), (op, {"x": "1"}, 0, 1), (op, {"x": 2}, 0, 1), (op, {"x": 2 ** 40}, 0, 1)]
    world.clear_memo()
    world.prefetch(reqs)
    for r in reqs:
        hit = world._memo.get(world._memo_key(*r))
        assert hit is None or hit == world._compute_rows(*r)
    assert world._memo.get(world._memo_key(*reqs[0])) == ([{"t": "INTEGER"}], 1)
    world.clear_memo()


def test_rewrite_declines_sql_it_does_not_understand():
    assert build_plan("SELECT a FROM t ORDER BY a LIMIT 3", [], ["a"]) is None
    assert build_plan("SELECT a FROM t UNION SELECT b FROM u", [], ["a"]) is None
    assert build_plan("SELECT DISTINCT a FROM t ORDER BY a", [], ["a"]) is None
    assert build_plan("SELECT a, a FROM t ORDER BY 1", [], ["a", "a"]) is None
    assert build_plan("SELECT a FROM t ORDER BY 1", [], ["a"]) is None
    plan = build_plan("SELECT a AS b FROM t WHERE c = $x ORDER BY b DESC, lower(d) NULLS FIRST", ["x"], ["b"])
    assert plan is not None and 'q."b" DESC' in plan.sql and "lower(d) AS __k1" in plan.sql
    assert '__b."__p0"' in plan.sql and "$x" not in plan.sql


def test_probe_executor_batches_and_counts_each_distinct_call_once(world):
    from edge_synth.env import ProbeExecutor, make_client

    calls = ([("kasi_getHoliDeInfo", {"solYear": str(y)}) for y in range(2020, 2027)]
             + [("assembly_nwvrqwxyaytdsfvhu", {"POLY_NM": p}) for p in ("더불어민주당", "국민의힘", "없는당")]
             + [("airkorea_getMsrstnList", {"addr": a}) for a in ("서울", "부산", "대전", "제주")]
             + [("kma_getUltraSrtNcst", {"base_date": "20261130", "base_time": "0600", "nx": "60", "ny": "127"})])
    calls = calls + calls[:3]  # repeats: the executor's memo, not the backend

    def run(batch: bool):
        world.clear_memo()
        client = make_client(world=world)
        client.app.state.answers.clear()
        ex = ProbeExecutor(client, concurrency=64, batch=batch)

        async def go():
            return await asyncio.gather(*(ex.call(t, a) for t, a in calls))

        return asyncio.run(go()), ex

    on, ex_on = run(True)
    off, ex_off = run(False)
    strip = lambda r: r.model_dump(exclude={"elapsed_ms"})  # noqa: E731
    assert [strip(r) for r in on] == [strip(r) for r in off]
    assert sum(r.ok for r in on) >= 12
    assert ex_on.stats.backend == ex_off.stats.backend == len(calls) - 3
    assert ex_on.stats.cache_hits == ex_off.stats.cache_hits == 3
    assert ex_on.batcher.stats["prefetched"] >= 10 and ex_off.batcher is None
    world.clear_memo()


def _verified_graph(batch: bool) -> str:
    from edge_synth.candidates import save_graph
    from edge_synth.env import ProbeExecutor
    from edge_synth.pipeline import EdgePipeline
    from edge_synth.verify_config import VerifyConfig

    # platforms and tool prefixes left out: what stays is Assembly, AirKorea, KASI, TAGO, MOLIT, MOIS
    excl = ["ecos", "juso", "kosis", "law", "neis", "odcloud", "seoul", "seoul_subway", "vworld",
            "fsc", "hira", "kma", "tourapi"]

    async def go():
        edge = EdgePipeline(seed=0, exclude_platforms=excl)
        edge.executor = ProbeExecutor(edge.client, concurrency=64, batch=batch)
        g = await edge.candidates()
        vg, _, summary = await edge.verify(g, VerifyConfig(iterations=2, paths_per_iter=20, seed=0, min_probes=1))
        await edge.client.aclose()
        return vg, summary, edge.executor

    vg, summary, ex = asyncio.run(go())
    with tempfile.TemporaryDirectory() as d:
        save_graph(vg, Path(d) / "g.json")
        text = (Path(d) / "g.json").read_text(encoding="utf-8")
    if batch:
        assert ex.batcher.stats["prefetched"] > 50, ex.batcher.stats
    return text


def test_edge_verification_verifies_the_same_graph_with_and_without_batching():
    """Batching awaits nothing, so the probes run in the same order and EDGE (whose outcome
    depends on that order) verifies the identical graph, with identical posteriors."""
    on = _verified_graph(True)
    assert len(json.loads(on)["links"]) >= 20  # a real graph, not an empty one
    assert on == _verified_graph(False)

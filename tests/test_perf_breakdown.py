"""The EDGE figure of `kopa perf` says where its time went: the world's answers and their SQL
are clocked on the World instance during the run, and the instance is left as it was."""

from benchmarks.perf_suite import cpu_budget, edge_breakdown, time_world, untime_world


def test_world_time_is_counted_per_computed_answer_and_undone(world, catalog, monkeypatch):
    op = catalog.get("kasi_getRestDeInfo").op  # an SQL operation
    # answered by its SQL, not by a key index an earlier test in this process made the world build
    monkeypatch.setattr(world, "KEY_INDEX", False)
    reqs = [(op, {"solYear": y, "solMonth": None}, 0, 10) for y in ("2024", "2025")]
    world.clear_memo()
    timing = time_world(world)
    try:
        first = [world.rows_for(*r) for r in reqs]
        again = [world.rows_for(*r) for r in reqs]  # memo hits: nothing computed
    finally:
        untime_world(world)
    assert first == again and all(total > 0 for _, total in first)
    assert timing["answers"] == 2 and timing["sql_queries"] >= 2
    assert 0 < timing["sql_s"] <= timing["world_s"]
    assert "sql" not in vars(world) and "_compute_rows" not in vars(world)
    world.clear_memo()
    world.rows_for(*reqs[0])
    assert timing["answers"] == 2  # the instance is no longer clocked
    world.clear_memo()


def test_breakdown_ceiling_is_the_rate_without_the_world():
    b = edge_breakdown({"world_s": 30.0, "answers": 100, "sql_s": 20.0, "sql_queries": 50}, dt=50.0, distinct=10_000)
    assert b["edge_outside_world_s"] == 20.0 and b["edge_free_world_ceiling_per_s"] == 500.0
    assert b["edge_sql_ms_per_query"] == 400.0


def test_breakdown_with_world_workers_counts_the_wait_as_world_time():
    pool = {"answered": 900, "taken_back": 40, "stolen": 60, "waited_s": 5.0}
    b = edge_breakdown({"world_s": 10.0, "answers": 100, "sql_s": 8.0, "sql_queries": 50, "workers": 1,
                        "pool": pool}, dt=40.0, distinct=10_000)
    assert b["edge_world_s"] == 15.0 and b["edge_outside_world_s"] == 25.0
    assert b["edge_world_workers"] == 1 and b["edge_world_worker_answers"] == 900
    assert b["edge_world_taken_back"] == 100 and b["edge_world_waited_s"] == 5.0
    assert b["edge_free_world_ceiling_per_s"] == 400.0


def test_cpu_budget_counts_every_process_and_bounds_the_rate():
    b = edge_breakdown({"world_s": 10.0, "answers": 100, "sql_s": 8.0, "sql_queries": 50, "cpu_s": 30.0,
                        "worker_cpu_s": 20.0}, dt=40.0, distinct=10_000)
    assert b["edge_cpu_ms_per_distinct"] == 5.0
    assert cpu_budget({"cpu_s": 30.0, "worker_cpu_s": 20.0}, 10_000, cpus=2)["edge_cpu_ceiling_per_s"] == 400.0
    assert cpu_budget({"world_s": 1.0}, 10) == {}  # not measured: nothing claimed


def test_workers_report_their_cpu(world):
    from kopa_bench.world.pool import WorldPool

    p = WorldPool(world, 1)
    try:
        assert p.wait_ready(60)
        before = p.worker_cpu_s()
        fut = p.submit_http("GET", "http://sandbox/B090041/openapi/service/SpcdeInfoService/getRestDeInfo",
                            {"serviceKey": "x", "solYear": "2026"})
        fut.result(timeout=60)
        assert p.worker_cpu_s() >= before > 0  # importing and opening the world took CPU
    finally:
        p.close()

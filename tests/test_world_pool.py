"""World answers computed ahead in worker processes (kopa_bench/world/pool.py) are the answers.

A worker opens the same world file with the caller's clock and runs World._compute_rows; its
answers must equal the caller's own, for SQL and handler operations, errors included (the caller
then computes and reports them itself). Requests still queued when the caller needs them are
taken back; a worker that dies loses nothing; EDGE verification with workers verifies the very
graph it verifies without (the pool awaits nothing, so nothing runs in another order).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

import pytest

from kopa_bench.protocols.base import validate_params
from kopa_bench.world.pool import WorkerFailed, WorldPool, default_workers
from tests.test_query_plans import example_param_variants

CALLS = json.loads(open(os.path.join(os.path.dirname(__file__), "data", "query_plan_calls.json"),
                        encoding="utf-8").read())["calls"]


def _handler_requests(catalog) -> list[tuple]:
    """Every handler operation (Python generators: NEIS timetables, KMA forecasts, juso...) on its
    documented example, first and second page."""
    out = []
    for ref in catalog:
        op = ref.op
        if not op.handler:
            continue
        params, problem = validate_params(op, {p.name: p.example for p in op.model_params if p.example is not None})
        if problem is None:
            out += [(op, params, 0, 10), (op, params, 10, 10)]
    return out


def _sql_requests(catalog) -> list[tuple]:
    out = [(catalog.get(c["tool"]).op, dict(c["params"]), c["offset"], c["limit"]) for c in CALLS]
    for tool, variants in sorted(example_param_variants(catalog).items()):
        out += [(catalog.get(tool).op, p, 0, 5) for p in variants[:3]]
    return out


@pytest.fixture(scope="module")
def pool(world):
    p = WorldPool(world, 1)
    assert p.wait_ready(60)  # whichever test runs first finds a worker answering
    yield p
    p.close()


def test_worker_answers_equal_the_callers_on_sql_and_handler_operations(world, catalog, pool):
    handler_reqs = _handler_requests(catalog)
    reqs = _sql_requests(catalog) + handler_reqs
    assert len(handler_reqs) >= 20 and len(reqs) >= 350
    futures = [pool.submit(op, p, o, lim) for op, p, o, lim in reqs]
    nonempty = 0
    for (op, params, offset, limit), fut in zip(reqs, futures):
        try:
            mine = world._compute_rows(op, params, offset, limit)
        except Exception as exc:  # noqa: BLE001 - the worker must fail on the same request
            with pytest.raises(WorkerFailed, match=type(exc).__name__):
                fut.result(timeout=60)
            continue
        theirs = fut.result(timeout=60)
        assert theirs == mine, (op.tool, params, offset, limit)
        # types too: a Decimal or a date must not come back as text
        assert [[type(v) for v in r.values()] for r in theirs[0]] == [[type(v) for v in r.values()] for r in mine[0]]
        nonempty += bool(mine[0])
    assert nonempty >= 200
    assert pool.stats["answered"] + pool.stats["failed"] == pool.stats["submitted"] >= len(reqs)


def test_rows_for_finds_ahead_answers_and_takes_back_what_no_worker_started(world, catalog, pool):
    reqs = _sql_requests(catalog)[:120] + _handler_requests(catalog)[:20]
    world.clear_memo()
    expected = [world._compute_rows(op, p, o, lim) for op, p, o, lim in reqs]
    world.clear_memo()
    before = dict(pool.stats)
    ahead = sum(world.compute_ahead(pool, op, p, o, lim) for op, p, o, lim in reqs)
    assert ahead == len({world._memo_key(*r) for r in reqs})  # repeats are sent once
    got = [world.rows_for(op, p, o, lim) for op, p, o, lim in reqs]
    assert [(list(map(dict, rows)), total) for rows, total in got] == \
        [(list(map(dict, rows)), total) for rows, total in expected]
    d = {k: pool.stats[k] - before[k] for k in ("submitted", "answered", "taken_back", "stolen")}
    assert d["submitted"] == ahead
    # every request was answered once: by the worker, or by the caller (taken back or stolen)
    assert d["answered"] + d["taken_back"] + d["stolen"] == ahead, d
    assert d["answered"] > 0 and d["taken_back"] + d["stolen"] > 0, d
    assert not world._ahead
    world.clear_memo()


def test_a_dead_worker_loses_nothing(world, catalog, caplog):
    reqs = _sql_requests(catalog)[:60]
    world.clear_memo()
    expected = [world._compute_rows(op, p, o, lim) for op, p, o, lim in reqs]
    world.clear_memo()
    p = WorldPool(world, 1)
    try:
        assert p.submit(*reqs[0]).result(timeout=60) == expected[0]  # started and answering
        for r in reqs[1:]:
            world.compute_ahead(p, *r)
        os.kill(p._workers[0].proc.pid, signal.SIGKILL)
        got = [world.rows_for(*r) for r in reqs]
        assert got == [([dict(x) for x in rows], total) for rows, total in expected]
        deadline = time.monotonic() + 30
        while p._workers[0].alive and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not p._workers[0].alive
        assert "world worker stopped" in caplog.text
        # a pool with no worker left fails at once: the caller computes
        with pytest.raises(WorkerFailed, match="gone"):
            p.submit(*reqs[0]).result(timeout=5)
        assert world.rows_for(*reqs[1]) == ([dict(x) for x in expected[1][0]], expected[1][1])
    finally:
        p.close()
        world.clear_memo()


def test_open_pools_lower_the_thread_switch_interval_and_closing_restores_it(world):
    from kopa_bench.world.pool import READER_SWITCH_S

    before = sys.getswitchinterval()
    a = WorldPool(world, 1)
    try:
        assert sys.getswitchinterval() == min(before, READER_SWITCH_S)
        b = WorldPool(world, 1)
        b.close(wait=False)
        assert sys.getswitchinterval() == min(before, READER_SWITCH_S)  # `a` is still open
        b.close()  # a second close changes nothing
    finally:
        a.close()
    assert sys.getswitchinterval() == before
    a.close()
    assert sys.getswitchinterval() == before


def test_worker_count_from_the_environment(monkeypatch):
    monkeypatch.setenv("KOPA_WORLD_WORKERS", "3")
    assert default_workers() == 3
    monkeypatch.setenv("KOPA_WORLD_WORKERS", "0")
    assert default_workers() == 0
    monkeypatch.setenv("KOPA_WORLD_WORKERS", "many")
    with pytest.raises(ValueError, match=r"KOPA_WORLD_WORKERS='many'.*use 0"):
        default_workers()
    monkeypatch.delenv("KOPA_WORLD_WORKERS")
    assert 0 <= default_workers() <= 4
    with pytest.raises(ValueError, match="at least one worker"):
        WorldPool(None, 0)


def test_dry_run_records_requests_of_endpoints_that_catch_world_errors(world):
    """NEIS answers INFO-200 to any exception its world call raises: the dry run's signal must
    not be one of those, or NEIS requests (a third of EDGE's) would never be computed ahead."""
    from edge_synth.env import WorldBatcher, make_client

    b = WorldBatcher(make_client(world=world), batch=False, workers=0)
    assert b._setup()
    req = b.world_request("neis_schoolInfo", {"ATPT_OFCDC_SC_CODE": "B10"})
    assert req is not None and req[0].tool == "neis_schoolInfo" and req[1]["ATPT_OFCDC_SC_CODE"] == "B10"
    handler = b.world_request("kma_getUltraSrtNcst", {"base_date": "20261130", "base_time": "0600", "nx": "60",
                                                      "ny": "127"})
    assert handler is not None and handler[0].handler  # handler operations are computed ahead too


def _verified_graph(workers: int, whole_requests: bool = True) -> tuple[str, dict]:
    import asyncio
    import tempfile
    from pathlib import Path

    from edge_synth.candidates import save_graph
    from edge_synth.env import ProbeExecutor
    from edge_synth.pipeline import EdgePipeline
    from edge_synth.verify_config import VerifyConfig

    # NEIS and KMA (handler operations) stay in, unlike the batching test's selection
    excl = ["ecos", "juso", "kosis", "law", "odcloud", "seoul", "seoul_subway", "vworld", "fsc", "hira", "tourapi"]

    async def go():
        edge = EdgePipeline(seed=0, exclude_platforms=excl)
        edge.executor = ProbeExecutor(edge.client, concurrency=64, batch=False, world_workers=workers)
        if workers:
            edge.executor.batcher.allow_http = whole_requests
        g = await edge.candidates()
        vg, _, _ = await edge.verify(g, VerifyConfig(iterations=2, paths_per_iter=20, seed=0, min_probes=1))
        await edge.client.aclose()
        stats = dict(edge.executor.batcher.pool.stats) if workers else {}
        edge.executor.close()
        return vg, stats

    vg, stats = asyncio.run(go())
    with tempfile.TemporaryDirectory() as d:
        save_graph(vg, Path(d) / "g.json")
        return (Path(d) / "g.json").read_text(encoding="utf-8"), stats


_without: list[str] = []


@pytest.mark.parametrize("whole_requests", [True, False], ids=["whole-requests", "world-answers"])
def test_edge_verification_verifies_the_same_graph_with_and_without_world_workers(world, whole_requests):
    world.clear_memo()
    on, stats = _verified_graph(1, whole_requests)
    assert len(json.loads(on)["links"]) >= 20
    assert stats["submitted"] > 300 and stats["answered"] > 100, stats
    if not _without:
        world.clear_memo()
        _without.append(_verified_graph(0)[0])
    assert on == _without[0]


def test_whole_requests_ahead_answer_as_the_client_does(world, catalog, pool):
    """KopaClient.compute_ahead: a worker runs the whole in-process request; the results equal the
    client's own, whether the worker answered, the caller waited, or the caller ran it (taken
    back, or stolen while it waited: driven to the end without the event loop)."""
    import asyncio

    from edge_synth.env import WorldBatcher, make_client

    calls = [(c["tool"], {k: v for k, v in c["params"].items() if v is not None}) for c in CALLS[:80]]
    calls += [("kma_getUltraSrtNcst", {"base_date": "20261130", "base_time": "0600", "nx": "60", "ny": "127"}),
              ("neis_schoolInfo", {"ATPT_OFCDC_SC_CODE": "B10"}), ("juso_addrLinkApi", {"keyword": "혜화동"}),
              ("airkorea_getMsrstnList", {"addr": "없는도"}), ("kasi_getRestDeInfo", {"solYear": "20x6"})]
    strip = lambda r: r.model_dump(exclude={"elapsed_ms"})  # noqa: E731

    async def run(ahead: bool):
        world.clear_memo()
        client = make_client(world=world)
        client.app.state.answers.clear()
        b = WorldBatcher(client, batch=False, workers=0)
        specs = [b.request_spec(t, a) for t, a in calls]
        if ahead:
            sent = sum(client.compute_ahead(pool, s) for s in specs if s is not None)
            assert sent >= 60
        out = [await client.call(t, a) for t, a in calls]
        assert not client._ahead
        return out

    before = dict(pool.stats)
    on, off = asyncio.run(run(True)), asyncio.run(run(False))
    assert [strip(r) for r in on] == [strip(r) for r in off]
    assert sum(r.ok for r in off) >= 60 and sum(not r.ok for r in off) >= 2
    d = {k: pool.stats[k] - before[k] for k in ("submitted", "answered", "taken_back", "stolen")}
    assert d["answered"] + d["taken_back"] + d["stolen"] == d["submitted"] and d["answered"] > 0, d
    assert d["taken_back"] + d["stolen"] > 0, d  # the caller ran some itself
    world.clear_memo()


def test_workers_stop_when_their_caller_is_killed(tmp_path):
    """kill -9 of the process that started a pool leaves no worker behind (EOF on its pipe)."""
    import subprocess
    import sys

    script = tmp_path / "owner.py"
    script.write_text(
        "import sys, time\n"
        "from kopa_bench.world.store import get_world\n"
        "from kopa_bench.world.pool import WorldPool\n"
        "p = WorldPool(get_world(), 2)\n"
        "print(' '.join(str(w.proc.pid) for w in p._workers), flush=True)\n"
        "time.sleep(120)\n", encoding="utf-8")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    owner = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=root,
                             env={**os.environ, "PYTHONPATH": root})
    try:
        pids = [int(x) for x in owner.stdout.readline().split()]
        assert len(pids) == 2
        for pid in pids:
            os.kill(pid, 0)  # alive
        owner.kill()
        owner.wait(timeout=30)
        deadline = time.monotonic() + 30
        alive = set(pids)
        while alive and time.monotonic() < deadline:
            for pid in list(alive):
                try:
                    os.kill(pid, 0)
                    with open(f"/proc/{pid}/stat") as f:
                        if f.read().split(") ")[1].startswith("Z"):
                            alive.discard(pid)  # exited, waiting to be reaped by init
                except (ProcessLookupError, FileNotFoundError):
                    alive.discard(pid)
            time.sleep(0.1)
        assert not alive, f"workers {alive} outlived their killed caller"
    finally:
        if owner.poll() is None:
            owner.kill()


def test_requests_ahead_that_are_never_sent_are_bounded(world, pool):
    import asyncio

    from edge_synth.env import WorldBatcher, make_client

    client = make_client(world=world)
    client.MAX_AHEAD = 3
    b = WorldBatcher(client, batch=False, workers=0)
    specs = [b.request_spec("kasi_getRestDeInfo", {"solYear": str(y)}) for y in range(2020, 2026)]
    assert all(client.compute_ahead(pool, s) for s in specs)
    assert len(client._ahead) == 3  # the oldest three were dropped (and cancelled if not started)
    res = asyncio.run(client.call("kasi_getRestDeInfo", {"solYear": "2020"}))  # dropped: runs here
    assert res.ok and res.total_count


def _timeless(obj):
    """An episode without its wall-clock fields (they differ between any two runs)."""
    if isinstance(obj, dict):
        return {k: _timeless(v) for k, v in obj.items() if not k.endswith(("_ms", "_s", "elapsed", "_at"))}
    if isinstance(obj, list):
        return [_timeless(v) for v in obj]
    return obj


def test_benchmark_runner_with_world_workers_writes_the_same_episodes(world, tmp_path, monkeypatch):
    """The runner hands each in-process request of concurrent episodes to a worker with room
    (KopaClient.use_world_pool): episodes interleave differently, but every episode, its tool
    results and its score are the ones a run without workers gives."""
    from kopa_bench.runner.batch import run_benchmark
    from kopa_bench.sandbox.app import forget_answers
    from kopa_bench.tasks.models import load_tasks
    from kopa_bench.world.pool import WorldPool

    tasks = load_tasks("test")[:40]
    stats: list[dict] = []
    real_close = WorldPool.close

    def close(self, wait=True):
        stats.append(dict(self.stats))
        real_close(self, wait=wait)

    monkeypatch.setattr(WorldPool, "close", close)
    import kopa_bench.runner.batch as batch

    real_open = batch._open_world_pool

    def open_ready(clients, concurrency, scripted):  # a worker ready from the first episode: the run is short
        pool = real_open(clients, concurrency, scripted)
        assert pool is None or pool.wait_ready(60)
        return pool

    monkeypatch.setattr(batch, "_open_world_pool", open_ready)
    runs = {}
    for workers in (1, 0):
        monkeypatch.setenv("KOPA_WORLD_WORKERS", str(workers))
        world.clear_memo()
        forget_answers(world)  # else answers rendered by earlier tests never reach the pool
        res = run_benchmark(tasks, "oracle", tmp_path / f"w{workers}", concurrency=8, world=world)
        assert res.run["summary"]["world_workers"] == workers
        eps = [json.loads(line) for line in (tmp_path / f"w{workers}" / "episodes.jsonl").read_text("utf-8").splitlines()]
        runs[workers] = (sorted((_timeless(e) for e in eps), key=lambda e: (e["task_id"], e["seed"])),
                         sorted(json.dumps(s.model_dump(), sort_keys=True) for s in res.scores))
    assert len(runs[1][0]) == len(tasks) and runs[1] == runs[0]
    assert sum(json.loads(s)["success"] for s in runs[0][1]) == len(tasks)  # the oracle solves every task
    assert len(stats) == 1 and stats[0]["answered"] >= 20 and stats[0]["failed"] == 0, stats
    world.clear_memo()


def test_a_client_uses_the_pool_only_for_the_default_sandbox_on_the_pools_world(world, pool):
    from kopa_bench.client import KopaClient
    from kopa_bench.sandbox.faults import FaultConfig

    assert KopaClient(world=world).use_world_pool(pool)
    assert not KopaClient(world=world, faults=FaultConfig.parse("0.2", seed=0)).use_world_pool(pool)
    assert not KopaClient("http://127.0.0.1:9", world=world).use_world_pool(pool)
    assert not KopaClient(world=world).use_world_pool(None)


def test_kept_answers_are_bounded_and_server_errors_are_not_kept():
    """Worker answers join the sandbox's answer memo (AnswerStore.put_answer), under its bounds."""
    from kopa_bench.sandbox.memo import AnswerStore

    store = AnswerStore(max_bytes=80, max_entries=3)
    store.put_answer(("GET", "/boom", ""), 500, {}, b"x")
    assert store.get(("GET", "/boom", "")) is None
    store.put_answer(("GET", "/huge", ""), 200, {}, b"x" * 20)  # over an eighth of the bytes
    assert store.get(("GET", "/huge", "")) is None
    for i in range(5):
        store.put_answer(("GET", f"/{i}", ""), 200, {}, b"ab")
    assert [store.get(("GET", f"/{i}", "")) is not None for i in range(5)] == [False, False, True, True, True]
    for i in range(5, 9):
        store.put_answer(("GET", f"/{i}", ""), 200, {}, b"x" * 5)
    assert sum(store.get(("GET", f"/{i}", "")) is not None for i in range(9)) == 3


def test_a_kept_worker_answer_replays_as_the_client_read_it(world):
    """A worker's answer put in the memo is replayed by the app with the same status, header
    dict, body and text the client had read."""
    import asyncio

    from kopa_bench.client import KopaClient
    from kopa_bench.client.inprocess import ASGICall
    from kopa_bench.sandbox.memo import ResponseMemo

    from edge_synth.env import WorldBatcher

    client = KopaClient(world=world)
    asgi = ASGICall(client.app)
    spec = WorldBatcher(client, batch=False).request_spec("airkorea_getMsrstnList", {"addr": "서울"})
    args = (spec.method, spec.url, spec.params)
    first = asyncio.run(asgi.request(*args))
    assert first.status_code == 200 and "charset" in first.headers["content-type"] and len(first.content) > 500
    store = client.app.state.answers
    key = ResponseMemo._key(asgi.scope(*args))
    store.clear()
    store.put_answer(key, first.status_code, first.headers, first.content)
    again = asyncio.run(asgi.request(*args))
    assert store.hits >= 1 and again == first


def test_runner_opens_workers_for_scripted_agents_or_when_asked(world, monkeypatch):
    """A model's run waits on the model: by default only scripted agents (all CPU) get workers;
    KOPA_WORLD_WORKERS asks for them with any agent; one episode at a time never gets them."""
    from kopa_bench.client import KopaClient
    from kopa_bench.runner.batch import _open_world_pool

    client = KopaClient(world=world)
    monkeypatch.delenv("KOPA_WORLD_WORKERS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert _open_world_pool([client], 8, scripted=False) is None
    assert _open_world_pool([client], 1, scripted=True) is None
    pool = _open_world_pool([client], 8, scripted=True)
    assert pool is not None and pool.workers == 1
    pool.close()
    monkeypatch.setenv("KOPA_WORLD_WORKERS", "1")
    pool = _open_world_pool([KopaClient(world=world)], 8, scripted=False)
    assert pool is not None
    pool.close()
    monkeypatch.setenv("KOPA_WORLD_WORKERS", "0")
    assert _open_world_pool([KopaClient(world=world)], 8, scripted=True) is None

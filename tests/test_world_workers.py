"""World worker processes (kopa_bench.speedups) answer exactly what the caller would.

A worker opens the same world file with the caller's clock and serves the default sandbox app;
its answers must equal the in-process ones, errors included; a request no worker has started is
taken back; a dead worker loses nothing; and since nothing awaits the pool, EDGE verification with
workers verifies the very graph it verifies without.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from kopa_bench.client import KopaClient
from kopa_bench.speedups import WorldWorkerTransport, use_world_workers


def _calls(catalog) -> list[tuple[str, dict]]:
    calls = []
    for ref in catalog:
        args = {p.name: p.example for p in ref.op.model_params if p.example is not None}
        calls.append((ref.op.tool, args))
        if any(p.name == "numOfRows" for p in ref.op.model_params):
            calls.append((ref.op.tool, {**args, "numOfRows": 3, "pageNo": 2}))
    calls += [("airkorea_getMsrstnList", {"addr": "없는도"}), ("kasi_getRestDeInfo", {"solYear": "20x6"})]
    return calls


def _comparable(results) -> list[dict]:
    return [r.model_dump(exclude={"elapsed_ms"}) for r in results]


async def _call_all(client: KopaClient, calls, *, told_first: bool) -> list:
    if told_first:  # every request told of before any is sent: most reach a worker
        for tool, args in calls:
            client.transport.expect(client.request_spec(tool, args))
    out = [await client.call(tool, args) for tool, args in calls]
    await client.aclose()
    return out


def test_worker_answers_equal_the_callers(world, catalog):
    calls = _calls(catalog)
    plain = asyncio.run(_call_all(KopaClient(world=world, max_retries=0), calls, told_first=False))
    client = KopaClient(world=world, max_retries=0)
    assert use_world_workers([client], 1, ordered=True)
    transport = client.transport
    pooled = asyncio.run(_call_all(client, calls, told_first=True))
    assert _comparable(pooled) == _comparable(plain)
    assert sum(r.ok for r in plain) > len(catalog) * 0.8 and any(not r.ok for r in plain)
    stats = transport.stats
    assert stats["from_workers"] > 0 and stats["failed"] == 0, stats
    assert stats["from_workers"] + stats["taken_back"] <= stats["ahead"], stats  # argument errors are never sent


def test_only_a_default_sandbox_gets_workers(world, catalog):
    from kopa_bench.sandbox.faults import FaultConfig

    assert not use_world_workers([KopaClient(world=world, faults=FaultConfig(rate=0.5, seed=1))], 1, ordered=True)
    assert not use_world_workers([KopaClient("http://127.0.0.1:9")], 1, ordered=True)
    assert not use_world_workers([KopaClient(world=world)], 0, ordered=True)


def test_a_dead_worker_loses_nothing(world, catalog):
    calls = _calls(catalog)[:40]
    plain = asyncio.run(_call_all(KopaClient(world=world, max_retries=0), calls, told_first=False))
    client = KopaClient(world=world, max_retries=0)
    assert use_world_workers([client], 1, ordered=True)
    transport: WorldWorkerTransport = client.transport

    async def go():
        for tool, args in calls[:5]:
            client.transport.expect(client.request_spec(tool, args))
        for proc in list(transport.workers.pool._processes.values()):  # noqa: SLF001 - the test kills a worker
            proc.kill()
        out = [await client.call(tool, args) for tool, args in calls]
        await client.aclose()
        return out

    assert _comparable(asyncio.run(go())) == _comparable(plain)


@pytest.mark.parametrize("workers", [1])
def test_edge_verification_verifies_the_same_graph_with_and_without_world_workers(world, workers, tmp_path):
    from edge_synth.candidates import save_graph
    from edge_synth.env import ProbeExecutor, make_client
    from edge_synth.pipeline import EdgePipeline
    from edge_synth.verify_config import VerifyConfig

    excl = ["ecos", "juso", "kosis", "law", "odcloud", "seoul", "seoul_subway", "vworld", "fsc", "hira", "tourapi"]

    async def go(n: int):
        client = make_client(world=world, workers=n)
        edge = EdgePipeline(seed=0, exclude_platforms=excl, client=client)
        edge.executor = ProbeExecutor(client, concurrency=64)
        g = await edge.candidates()
        vg, _, _ = await edge.verify(g, VerifyConfig(iterations=2, paths_per_iter=20, seed=0, min_probes=1))
        stats = dict(getattr(client.transport, "stats", {}))
        await client.aclose()
        path = tmp_path / f"g{n}.json"
        save_graph(vg, path)
        return path.read_text(encoding="utf-8"), stats

    on, stats = asyncio.run(go(workers))
    off, _ = asyncio.run(go(0))
    assert len(json.loads(on)["links"]) >= 20
    assert stats["ahead"] > 300 and stats["from_workers"] > 0, stats
    assert on == off


def test_benchmark_runner_with_world_workers_writes_the_same_episodes(world, tmp_path, monkeypatch):
    from kopa_bench.runner.benchmark import run_benchmark
    from kopa_bench.runner.run_config import RunConfig
    from kopa_bench.tasks.task_schema import load_tasks

    tasks = load_tasks("test")[:30]
    runs = {}
    for workers in (1, 0):
        monkeypatch.setenv("KOPA_WORLD_WORKERS", str(workers))
        res = run_benchmark(tasks, RunConfig(model="oracle", concurrency=8), tmp_path / f"w{workers}", world=world)
        assert res.run["summary"]["world_workers"] == workers
        eps = [json.loads(line) for line in (tmp_path / f"w{workers}" / "episodes.jsonl").read_text("utf-8").splitlines()]
        for e in eps:
            e.pop("timings", None)
            for c in e["calls"]:
                c["result"].pop("elapsed_ms", None)
        runs[workers] = (sorted(eps, key=lambda e: (e["task_id"], e["seed"])),
                         sorted(json.dumps(s.model_dump(), sort_keys=True) for s in res.scores))
    assert len(runs[1][0]) == len(tasks) and runs[1] == runs[0]
    assert sum(json.loads(s)["success"] for s in runs[0][1]) == len(tasks)

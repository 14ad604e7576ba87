"""Probe throughput of EDGE's in-process probing (prints executions/s).

Reports, honestly apart:
  * distinct probe executions/s (the goal's figure): probes the run had not executed before,
    each one reaching the in-process sandbox (direct ASGI call, client/inprocess.py) and the
    world (its DuckDB query or generator);
  * requested probe executions/s: everything verification asked for, including repeats the
    EDGE executor answered from its memo;
  * replayed distinct probes/s: the same distinct probes again through a fresh client with all
    memos emptied: the execution path alone, without EDGE's sampling;
  * warm requested executions/s: a second verification pass (memo warm).

    python -m benchmarks.edge_probe_speed [--iterations 10] [--paths 300]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

sys.path.insert(0, ".")


async def warm_pass(iterations: int, paths: int) -> None:
    from edge_synth.pipeline import EdgePipeline
    from edge_synth.verify import Verifier
    from edge_synth.verify_config import VerifyConfig

    e = EdgePipeline(seed=0, concurrency=64)
    g = await e.candidates()
    st = e.executor.stats
    v = Verifier(g, e.executor, e.sampler, VerifyConfig(iterations=iterations, paths_per_iter=paths))
    await v.run()
    v2 = Verifier(g, e.executor, e.sampler, VerifyConfig(iterations=iterations, paths_per_iter=paths, seed=0))
    v2.baseline = v.baseline
    r1 = st.requested
    t1 = time.perf_counter()
    await v2.run()
    dt2 = time.perf_counter() - t1
    print(f"warm requested probe executions/s: {(st.requested - r1) / dt2:.0f}  ({st.requested - r1} in {dt2:.1f}s)")
    await e.client.aclose()


def main(argv: list[str] | None = None) -> None:
    from benchmarks.perf_suite import edge_probes

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--paths", type=int, default=300)
    ap.add_argument("--warm", action="store_true", help="also time a second, memo-warm verification pass")
    a = ap.parse_args(argv)
    r = edge_probes(a.iterations, a.paths)
    if r.get("edge_probe_per_s") is None:
        print(r.get("edge_note"))
        return
    print(f"path: {r['edge_path']}")
    print(f"distinct probe executions/s: {r['edge_probe_per_s']:.0f}  ({r['edge_distinct_probes']} distinct)")
    print(f"requested probe executions/s: {r['edge_probe_requested_per_s']:.0f}  ({r['edge_probes_requested']} requested)")
    print(f"world answers from batched queries: {r.get('edge_world_batched', 0)} (KOPA_WORLD_BATCH=0 turns batching off)")
    if "edge_world_s" in r:
        print(f"wall {r['edge_wall_s']} s: world answers {r['edge_world_s']} s ({r['edge_world_answers']} computed; SQL "
              f"{r['edge_world_sql_s']} s in {r['edge_world_sql_queries']} queries, {r['edge_sql_ms_per_query']} ms each), "
              f"request path + EDGE's own work {r['edge_outside_world_s']} s")
        if r.get("edge_world_workers"):
            print(f"world worker processes: {r['edge_world_workers']} ({r['edge_world_worker_answers']} answers; "
                  f"{r['edge_world_taken_back']} computed here instead; waited {r['edge_world_waited_s']} s; "
                  "KOPA_WORLD_WORKERS=0 turns them off)")
        print(f"ceiling with a free world: {r['edge_free_world_ceiling_per_s']:.0f} distinct probes/s")
    if "edge_cpu_ms_per_distinct" in r:
        print(f"CPU per distinct probe (EDGE process {r['edge_cpu_s']} s + world workers {r['edge_worker_cpu_s']} s): "
              f"{r['edge_cpu_ms_per_distinct']} ms; all {r['edge_cpus']} CPUs busy at that cost: "
              f"{r['edge_cpu_ceiling_per_s']:.0f} distinct probes/s")
    if "edge_replay_distinct_per_s" in r:
        print(f"replayed distinct probes/s (execution path only, memos empty): {r['edge_replay_distinct_per_s']:.0f}"
              f"  ({r['edge_replay_calls']} calls, {r['edge_replay_ok']} ok)")
    if a.warm:
        asyncio.run(warm_pass(a.iterations, a.paths))


if __name__ == "__main__":
    main()

"""Probe throughput of EDGE's in-process probing (prints executions/s).

Reports three numbers honestly:
  * backend calls/s: distinct tool executions through the in-process sandbox (KopaClient +
    ASGI + DuckDB), concurrency via asyncio;
  * probe executions/s: tool executions requested by verification (Thompson-sampled paths),
    including those answered by the deterministic-world memo cache;
  * warm probe executions/s: a second pass over the same probe load (cache warm).
"""

from __future__ import annotations

import asyncio
import sys
import time

sys.path.insert(0, ".")


async def main(iterations: int = 10, paths: int = 300) -> None:
    from edge_synth.pipeline import Edge
    from edge_synth.verify import Verifier, VerifyConfig

    e = Edge(seed=0, concurrency=64)
    g = await e.candidates()
    st = e.executor.stats
    t0 = time.perf_counter()
    r0, b0 = st.requested, st.backend
    v = Verifier(g, e.executor, e.sampler, VerifyConfig(iterations=iterations, paths_per_iter=paths))
    await v.run()
    dt = time.perf_counter() - t0
    req, back = st.requested - r0, st.backend - b0
    print(f"tools={len(e.catalog)} candidate_edges={g.number_of_edges()} link_probes={v.executions}")
    print(f"probe executions/s (requested): {req / dt:.0f}  ({req} in {dt:.1f}s)")
    print(f"backend calls/s (sandbox): {back / dt:.0f}  ({back} distinct executions)")
    v2 = Verifier(g, e.executor, e.sampler, VerifyConfig(iterations=iterations, paths_per_iter=paths, seed=0))
    v2.baseline = v.baseline
    r1 = st.requested
    t1 = time.perf_counter()
    await v2.run()
    dt2 = time.perf_counter() - t1
    print(f"warm probe executions/s: {(st.requested - r1) / dt2:.0f}  ({st.requested - r1} in {dt2:.1f}s)")
    await e.client.aclose()


if __name__ == "__main__":
    asyncio.run(main())

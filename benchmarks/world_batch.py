"""CPU per world answer: each request's own query vs batches of B requests of one operation.

World requests are read from a pickle of (tool, params, offset, limit) tuples (record them with
a wrapper around `World._compute_rows`, as BENCHMARKS.md "Issue 8, session 4" did during an EDGE
verification run) or, without one, taken from tests/data/query_plan_calls.json (204 recorded
probe queries) at 7 page shapes. Memos are emptied before each batch, so every answer is computed.

    python -m benchmarks.world_batch [--calls calls.pkl] [--sizes 2,4,8,64]
"""

from __future__ import annotations

import argparse
import collections
import json
import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, ".")

PAGES = [(0, 10), (0, 100), (10, 10), (0, None), (2, 3), (100, 10), (0, 3)]


def load_calls(path: str | None) -> list[tuple]:
    if path:
        return [tuple(c[:4]) for c in pickle.load(open(path, "rb"))]
    data = json.loads(Path("tests/data/query_plan_calls.json").read_text(encoding="utf-8"))["calls"]
    return [(c["tool"], dict(c["params"]), o, lim) for c in data for o, lim in PAGES]


def main(argv: list[str] | None = None) -> None:
    from kopa_bench.catalog import get_catalog
    from kopa_bench.world import get_world

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", help="pickle of (tool, params, offset, limit) world requests")
    ap.add_argument("--sizes", default="2,4,8,64")
    a = ap.parse_args(argv)
    sizes = [int(x) for x in a.sizes.split(",")]
    cat, w = get_catalog(), get_world()
    w.BATCH_MIN = 2  # measure small batches too (production declines batches under World.BATCH_MIN)
    by_op = collections.defaultdict(list)
    for tool, params, offset, limit in load_calls(a.calls):
        op = cat.get(tool).op
        if op.query and not op.handler:
            by_op[tool].append((op, params, offset, limit))
    total = collections.Counter()
    print(f"{'operation':42s} {'n':>5s} {'single':>7s} " + " ".join(f"{'B' + str(b):>7s}" for b in sizes) + "  (ms CPU per answer)")
    for tool, calls in sorted(by_op.items(), key=lambda kv: -len(kv[1])):
        w.clear_memo()
        w.prefetch(calls[:4])  # plans and batched forms built once, outside the timing
        for c in calls[:2]:
            w._compute_rows(*c)
        c0 = time.process_time()
        for c in calls:
            w._compute_rows(*c)
        single = time.process_time() - c0
        total["single"] += single
        row = [f"{tool:42s} {len(calls):5d} {1000 * single / len(calls):7.2f}"]
        for b in sizes:
            w.clear_memo()
            c0 = time.process_time()
            for i in range(0, len(calls), b):
                chunk = calls[i:i + b]
                w.prefetch(chunk)
                for c in chunk:
                    w.rows_for(*c)
            d = time.process_time() - c0
            total[b] += d
            row.append(f"{1000 * d / len(calls):7.2f}")
        print(" ".join(row), flush=True)
    print(f"{'all SQL operations':42s} {sum(map(len, by_op.values())):5d} {total['single']:6.2f}s "
          + " ".join(f"{total[b]:6.2f}s" for b in sizes) + "  (CPU seconds)")
    print("batch stats:", w.batch_stats)


if __name__ == "__main__":
    main()

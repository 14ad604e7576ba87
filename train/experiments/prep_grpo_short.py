"""EDGE `rl` rows -> a short-episode GRPO training file the 2-core CPU can afford.

A GRPO step on the 0.5B model costs (generations x (prompt + completion)) forward/backward tokens
on CPU, and the prompt is dominated by the offered tools' schemas. So this keeps the task schema
(the rewards score against the gold program exactly as KOPA-Bench does) but:
- drops rows that overlap KOPA-Bench dev or test (edge_synth.export.Decontaminator: identical call
  signature, or query 4-gram containment >= 0.6) and reports the counts;
- keeps rows of the chosen shapes with <= --max-calls gold calls;
- offers the tools the gold program calls + enough of the row's other tools (distractors) to reach
  --min-tools, in the task's order.

    python train/experiments/prep_grpo_short.py --edge /tmp/edge_r6/ds --out /tmp/s3/grpo_short.jsonl
"""
from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path

import pandas as pd

from edge_synth.export import Decontaminator
from kopa_bench.tasks.task_schema import load_tasks


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--edge", required=True, help="an edge-trajectories dataset folder (kopa data build edge-trajectories)")
    ap.add_argument("--out", required=True, help="output .jsonl of task-schema rows (train/grpo.py --dataset_name)")
    ap.add_argument("--shapes", default="sequential,fan-out,conditional")
    ap.add_argument("--max-calls", type=int, default=3)
    ap.add_argument("--min-tools", type=int, default=5,
                    help="offer at least this many tools (KOPA tasks offer >= 5: gold + distractors; the Task schema checks it)")
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    rl = pd.read_parquet(f"{a.edge}/rl/train.parquet")
    bench = load_tasks("dev") + load_tasks("test")
    decon = Decontaminator(bench)
    shapes = set(a.shapes.split(","))
    counts: Counter = Counter(rows=len(rl))
    out = []
    for r in rl.to_dict("records"):
        program = json.loads(r["program"])
        if r["shape"] not in shapes or len(program) > a.max_calls:
            counts["other_shape_or_longer"] += 1
            continue
        if decon.check(program, r["query"]):
            counts["overlaps_bench"] += 1
            continue
        offered = list(dict.fromkeys(json.loads(r["tools"])))
        called = list(dict.fromkeys(s["tool"] for s in program))
        others = [t for t in offered if t not in called]
        need = max(0, a.min_tools - len(called))
        if need > len(others):
            counts["too_few_tools"] += 1
            continue
        extra = set(rng.sample(others, need))
        task = json.loads(r["task"])
        task["tools"] = [t for t in offered if t in called or t in extra]
        out.append(task)
    rng.shuffle(out)
    out = out[: a.n]
    Path(a.out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out), encoding="utf-8")
    counts["kept"] = len(out)
    summary = {**counts, "decontamination": decon.counts, "shapes": Counter(r["shape"] for r in out),
               "calls": Counter(len(r["program"]) for r in out), "tools": Counter(len(r["tools"]) for r in out)}
    Path(a.out).with_suffix(".stats.json").write_text(json.dumps(summary, ensure_ascii=False, indent=1))
    print(json.dumps(summary, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()

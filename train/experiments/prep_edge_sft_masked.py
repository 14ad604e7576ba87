"""EDGE `sft` rows -> pre-tokenized SFT rows with an assistant-only loss mask, rendered as at eval time.

Differences from the first CPU run's whole-sequence-loss rows (train/results/cpu_sft_experiment.md):
- decontaminated against the CURRENT KOPA-Bench dev and test tasks: task id, exact query, identical
  program (edge_synth.export.Decontaminator: same call signature, or query 4-gram containment >= 0.6);
  counts are printed and written to <out>/prep_stats.json
- offered tools = the tools the trajectory calls + --distractors of the EDGE rl row's other `tools`
  (the benchmark offers all 5-9 of a task's tools; all of them cost ~3k prompt tokens per row, which
  the CPU step time cannot afford), Korean descriptions (tool_lang ko), in the task's order
- system prompt = the runner's (kopa_bench.runner.agent.system_prompt(world_now()))
- tool results cut to --keep-items records with the runner's own `truncated` note (ToolResult.model_view)
- assistant-only labels (train.assistant_mask); rows over --max-length tokens are dropped whole

    PYTHONPATH=. .venv/bin/python train/experiments/prep_edge_sft_masked.py --tokenizer /tmp/cpusft/base_hf \
        --max-length 2048 --keep-items 3 --out /tmp/s2/sft_masked
"""
from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
from transformers import AutoTokenizer

from edge_synth.export import Decontaminator
from kopa_bench.catalog import get_catalog, tool_schemas
from kopa_bench.client.result import cap_items
from kopa_bench.runner.agent import system_prompt, world_now
from kopa_bench.runner.backends.transformers_backend import template_messages
from kopa_bench.tasks.task_schema import load_tasks
from train.assistant_mask import tokenize_conversations


def shorten(m: dict, keep: int) -> dict:
    """A tool message as the runner would show it with max_tool_records=keep."""
    if m.get("role") != "tool":
        return m
    try:
        obj = json.loads(m["content"])
    except (ValueError, TypeError):
        return m
    if not isinstance(obj, dict):
        return m
    return {**m, "content": json.dumps(cap_items(obj, keep), ensure_ascii=False)}


def _failed(msgs: list[dict]) -> bool:
    """A kept failure of the unverified ablation: its closing answer says nothing was found (edge_synth.answers)."""
    return bool(msgs) and "결과가 없었" in str(msgs[-1].get("content") or "")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--edge", default="/tmp/edge_ds")
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--n", type=int, default=100000, help="stop after this many kept rows")
    ap.add_argument("--scan", type=int, default=1200, help="rows to scan (shuffled), tokenizing is the cost")
    ap.add_argument("--max-length", type=int, default=2048)
    ap.add_argument("--keep-items", type=int, default=3)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--distractors", type=int, default=1,
                    help="offered tools = the tools the trajectory calls + this many of the rl row's other tools "
                         "(-1: all of them, as the benchmark offers; ~3k prompt tokens, too slow for CPU steps)")
    ap.add_argument("--match-shapes", default=None,
                    help="another prep's prep_stats.json: keep rows per shape up to its counts (the ablation's arms "
                         "then train on the same mix of shapes)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    t0 = time.perf_counter()
    tok = AutoTokenizer.from_pretrained(a.tokenizer)
    cat = get_catalog()
    sp = system_prompt(world_now())
    # through pyarrow: `messages` is a list of structs (EDGE >= 0.2.0), which pandas would hand out as numpy arrays
    sft = pd.DataFrame(pq.read_table(f"{a.edge}/sft/train.parquet").to_pylist())
    rl = pd.read_parquet(f"{a.edge}/rl/train.parquet").set_index("id")

    bench = load_tasks("dev") + load_tasks("test")
    ids, queries = {t.id for t in bench}, {t.query.strip() for t in bench}
    decon = Decontaminator(bench)
    counts = {"edge_rows": len(sft), "bench_tasks": len(bench), "id_overlap": 0, "query_exact": 0,
              "program_or_query_overlap": 0, "no_rl_row": 0, "unknown_tool": 0}
    clean = []
    for r in sft.itertuples(index=False):
        if r.id in ids:
            counts["id_overlap"] += 1
            continue
        if r.query.strip() in queries:
            counts["query_exact"] += 1
            continue
        if r.id not in rl.index:
            counts["no_rl_row"] += 1
            continue
        rlr = rl.loc[r.id]
        if decon.check(json.loads(rlr["program"]), r.query):
            counts["program_or_query_overlap"] += 1
            continue
        offered = list(dict.fromkeys(json.loads(rlr["tools"])))
        called = list(dict.fromkeys(s["tool"] for s in json.loads(rlr["program"])))
        others = [t for t in offered if t not in called]
        extra = others if a.distractors < 0 else rng.sample(others, min(a.distractors, len(others)))
        tools = [t for t in offered if t in called or t in extra]  # the task's order, as the runner offers
        if any(t not in cat for t in tools):
            counts["unknown_tool"] += 1
            continue
        clean.append((r, tools))
    counts["decon_detail"] = decon.counts
    counts["clean"] = len(clean)
    rng.shuffle(clean)

    if a.match_shapes:
        want = dict(json.loads(Path(a.match_shapes).read_text())["shapes"])
        picked = []
        for r, tools in clean:
            if want.get(r.shape, 0) > 0:
                want[r.shape] -= 1
                picked.append((r, tools))
        counts["shape_shortfall"] = {k: v for k, v in want.items() if v > 0}
        clean = picked
    rows = []
    for r, tools in clean[: a.scan]:
        msgs = json.loads(r.messages) if isinstance(r.messages, str) else list(r.messages)
        if msgs and msgs[0]["role"] == "system":
            msgs = msgs[1:]
        msgs = [{"role": "system", "content": sp}] + [shorten(m, a.keep_items) for m in msgs]
        rows.append({"id": r.id, "shape": r.shape, "n_calls": int(r.n_calls), "failure": _failed(msgs),
                     "messages": template_messages(msgs), "tools": tool_schemas(cat, tools, lang="ko")})
    ds, stats = tokenize_conversations(rows, tok, a.max_length)
    if len(ds) == 0:
        raise SystemExit(f"no row fits --max-length {a.max_length}: {json.dumps(counts, ensure_ascii=False)}; "
                         "raise --max-length or lower --keep-items / --distractors")
    ds = ds.select(range(min(a.n, len(ds))))
    ds.save_to_disk(a.out)
    counts.update(scanned=len(rows), **stats, saved=len(ds), seconds=round(time.perf_counter() - t0, 1),
                  shapes=pd.Series(ds["shape"]).value_counts().to_dict(), failures=int(sum(ds["failure"])))
    Path(a.out, "prep_stats.json").write_text(json.dumps(counts, ensure_ascii=False, indent=1))
    print(json.dumps(counts, ensure_ascii=False, indent=1))
    ex = ds[0]
    print("--- example", ex["id"], "tokens", ex["n_tokens"], "labelled", ex["n_labelled"])
    lab = [t if m else None for t, m in zip(ex["input_ids"], ex["assistant_masks"])]
    # print the labelled runs, as text, to eyeball that only assistant turns carry labels
    run, runs = [], []
    for t in lab + [None]:
        if t is None:
            if run:
                runs.append(tok.decode(run))
            run = []
        else:
            run.append(t)
    for i, s in enumerate(runs):
        print(f"[labelled run {i}] {s!r}")


if __name__ == "__main__":
    main()

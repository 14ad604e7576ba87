"""EDGE `sft` rows -> rendered chat text for SFT, aligned with how KOPA-Bench prompts the model.

- system prompt replaced by the benchmark agent's prompt (kopa_bench.runner.agent.system_prompt)
- offered tools = the tools the trajectory calls, Korean descriptions (tool_lang ko), as the eval uses
- tool-call arguments decoded to dicts (template_messages) so the Qwen template doesn't double-encode
- tool results cut to the first --keep-items records (CPU context budget)
- rendered with the model's chat template into one `text` column; rows over --max-tokens are dropped
"""
from __future__ import annotations

import argparse
import json
import random

import pandas as pd
from datasets import Dataset
from transformers import AutoTokenizer

from kopa_bench.catalog import get_catalog, tool_schemas
from kopa_bench.runner.agent import system_prompt, world_now
from kopa_bench.runner.backends.transformers_backend import template_messages


def shorten(m: dict, keep: int) -> dict:
    """Tool results: keep the first `keep` records of `items` (the answers EDGE builds mostly use the
    first few), else cut long text, so trajectories fit a short CPU context."""
    if m.get("role") != "tool":
        return m
    m = dict(m)
    try:
        obj = json.loads(m["content"])
    except (ValueError, TypeError):
        obj = None
    if isinstance(obj, dict) and isinstance(obj.get("items"), list):
        obj["items"] = obj["items"][:keep]
        m["content"] = json.dumps(obj, ensure_ascii=False)
    elif isinstance(m.get("content"), str) and len(m["content"]) > 1200:
        m["content"] = m["content"][:1200]
    return m


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--edge", default="/tmp/edge_ds/sft/train.parquet")
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--max-tokens", type=int, default=1536)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep-items", type=int, default=3)
    a = ap.parse_args()
    tok = AutoTokenizer.from_pretrained(a.tokenizer)
    cat = get_catalog()
    sp = system_prompt(world_now())
    df = pd.read_parquet(a.edge)
    idx = list(range(len(df)))
    random.Random(a.seed).shuffle(idx)
    rows, seen, dropped = [], 0, 0
    for i in idx:
        if len(rows) >= a.n:
            break
        seen += 1
        msgs = json.loads(df.iloc[i]["messages"])
        if msgs and msgs[0]["role"] == "system":
            msgs = msgs[1:]
        msgs = [{"role": "system", "content": sp}] + [shorten(m, a.keep_items) for m in msgs]
        names = []
        for m in msgs:
            for tc in m.get("tool_calls") or []:
                names.append(tc["function"]["name"])
        names = list(dict.fromkeys(names))
        if any(n not in cat for n in names):
            dropped += 1
            continue
        tools = tool_schemas(cat, names, lang="ko")
        text = tok.apply_chat_template(template_messages(msgs), tools=tools, tokenize=False)
        n_tok = len(tok(text)["input_ids"])
        if n_tok > a.max_tokens:
            dropped += 1
            continue
        rows.append({"id": df.iloc[i]["id"], "shape": df.iloc[i]["shape"], "n_calls": int(df.iloc[i]["n_calls"]),
                     "n_tokens": n_tok, "text": text})
    ds = Dataset.from_list(rows)
    ds.save_to_disk(a.out)
    print(f"kept {len(rows)} of {seen} scanned (dropped {dropped} over {a.max_tokens} tokens / unknown tools); "
          f"mean tokens {sum(r['n_tokens'] for r in rows) / max(1, len(rows)):.0f}")
    print(rows[0]["text"][:3000])


if __name__ == "__main__":
    main()

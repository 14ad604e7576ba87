"""Build the `edge-trajectories` dataset folder (Parquet; configs sft, rl, graph).

Deterministic: rows sorted by id, split by a hash of the id and the seed, Parquet written
without timestamps; MANIFEST.json records the sha256 of every data file and an overall hash.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from edge_synth import query_rubric
from edge_synth.export import DATASET_VERSION
from kopa_bench.catalog import get_catalog, tool_schemas
from kopa_bench.settings import get_settings

CARD = """---
license: other
license_name: kogl-type-1
pretty_name: EDGE trajectories (KOPA)
language: [ko]
tags: [tool-calling, agents, korean, public-data, synthetic]
configs:
- config_name: sft
  data_files:
  - split: train
    path: sft/train.parquet
  - split: validation
    path: sft/validation.parquet
- config_name: rl
  data_files:
  - split: train
    path: rl/train.parquet
  - split: validation
    path: rl/validation.parquet
- config_name: graph
  data_files:
  - split: train
    path: graph/train.parquet
---
# EDGE trajectories (version {version})

Synthetic multi-step tool-calling trajectories over Korean public open APIs (the KOPA catalog),
produced by EDGE (Execution-grounded Dynamic Graph): a candidate graph of output->input
bindings between tools, verified by executing probe paths in the KOPA sandbox (Beta posterior
per binding, Thompson sampling), then walked into six shapes (sequential, fan-out, reduction,
parallel, comparison, conditional). Every trajectory was executed; answer facts come from the
real outputs.

## Configs
- `sft`: TRL's conversational format, ready for `trl.SFTTrainer` as loaded (no conversion):
  - `messages`: a list of chat messages `{role, content, tool_calls, tool_call_id, name}`: `system`,
    `user` (the query), then per program group one `assistant` turn whose `tool_calls` is a list of
    `{id, type: "function", function: {name, arguments}}` followed by one `tool` message per call
    (`tool_call_id`, `name`, `content` = the tool result the model saw, up to 5 records), and a
    final `assistant` answer stating the facts. Keys a message does not use are null.
    `function.arguments` is the JSON-encoded argument object (the OpenAI convention: one Arrow type
    for every tool's arguments; Qwen2.5/Qwen3-style templates render it as is, a template that needs
    a mapping decodes it, as `train.assistant_mask` does).
  - `tools`: the JSON schemas of the tools the task offers (gold + distractors), as a JSON string
    (each tool's parameters differ, so they cannot share one Arrow struct); TRL's `SFTTrainer`
    decodes a string `tools` column and passes it to the chat template.
  - `platforms`: list of strings; `id, version, shape, query, register, domain`: strings; `n_calls`: int.
- `rl`: `id, version, shape, query, domain, platforms, tools` (JSON), `program` (JSON: gold steps
  with `$sN...` references), `answer` (JSON facts), `task` (JSON: the full KOPA-Bench `Task`,
  validated with `kopa_bench.tasks.task_schema.Task`, so the benchmark scorer gives the reward).
- `graph`: verified edges `from_tool, to_tool, posterior, prior, cross_domain, link, bindings, selections`
  (`link` is `bind` when B's arguments come from A's output, `select` when A's output picks records of
  B's answer on the client side: nearest point, equal code/day, contained name; lists are JSON).

## Load
```python
from datasets import load_dataset
rl = load_dataset("path/to/edge-trajectories", "rl")
sft = load_dataset("path/to/edge-trajectories", "sft", split="train")
sft[0]["messages"][2]["tool_calls"][0]["function"]["name"]        # a real list, no json.loads
# trl.SFTTrainer(model=..., train_dataset=sft, processing_class=tokenizer) trains on it as is
```

## Counts
{counts}

## Query quality
{query_quality}

## Licence
Tool outputs come from the KOPA sandbox world, which mirrors Korean public data released under
the Korea Open Government License (KOGL, 공공누리) Type 1 (attribution). Attribute the
originating agencies when redistributing. Queries and programs are synthetic.

## Limitations
- Sandbox data (a deterministic world), not live API responses; values are realistic, not real.
- Queries come from a template grammar (optionally LLM-paraphrased); they are less varied than
  human requests, and some links are executable but semantically weak (see the audit file).
- Only platforms present in the catalog at build time; held-out platforms are excluded on request.
- Decontaminated against KOPA-Bench test/dev (identical programs, query n-gram overlap).

Build hash: see `MANIFEST.json`.
"""

CHANGELOG = """# Changelog
## 0.2.0
- `sft` rows in TRL's conversational format: `messages` a list of `{role, content, tool_calls, tool_call_id,
  name}` (was a JSON string), `platforms` a list (was a JSON string), new `tools` column (the offered tools'
  JSON schemas); `trl.SFTTrainer` trains on the config as `load_dataset` returns it.
- Queries a person would ask: comparison, conditional, parallel and fan-out branches share their subject,
  the final answer addresses the question, implausible trajectories are dropped (`rejected.jsonl` says
  why), the conditions on a result count are gone; a rubric judged on 100 sampled queries per round
  (the card's "Query quality"). Far fewer trajectories pass than before.
## 0.1.0
- First EDGE release: candidate graph (names, descriptions, value kinds, transforms, BM25 neighbours),
  Thompson-sampled probe verification, six shapes, SFT + RL (KOPA Task schema) + graph configs.
"""


def _split(tid: str, seed: int, val_share: float = 0.05) -> str:
    h = int(hashlib.sha256(f"{seed}:{tid}".encode()).hexdigest()[:8], 16)
    return "validation" if (h % 10000) < val_share * 10000 else "train"


def _write(rows: list[dict], path: Path, schema: pa.Schema) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(rows, schema=schema)
    pq.write_table(table, path, compression="zstd", use_dictionary=False, write_statistics=False)


def _j(x: Any) -> str:
    return json.dumps(x, ensure_ascii=False, sort_keys=True)


# TRL's conversational rows: every message carries every key (null where unused), so all rows share one schema.
TOOL_CALL = pa.struct([("id", pa.string()), ("type", pa.string()),
                       ("function", pa.struct([("name", pa.string()), ("arguments", pa.string())]))])
MESSAGE = pa.struct([("role", pa.string()), ("content", pa.string()), ("tool_calls", pa.list_(TOOL_CALL)),
                     ("tool_call_id", pa.string()), ("name", pa.string())])
SFT_SCHEMA = pa.schema([("id", pa.string()), ("version", pa.string()), ("shape", pa.string()), ("query", pa.string()),
                        ("register", pa.string()), ("domain", pa.string()), ("platforms", pa.list_(pa.string())),
                        ("n_calls", pa.int32()), ("tools", pa.string()), ("messages", pa.list_(MESSAGE))])


def sft_message(m: dict) -> dict:
    """One chat message with exactly MESSAGE's keys; tool-call arguments as a JSON string."""
    calls = None
    if m.get("tool_calls"):
        calls = []
        for c in m["tool_calls"]:
            args = c["function"].get("arguments", {})
            calls.append({"id": c.get("id"), "type": c.get("type", "function"),
                          "function": {"name": c["function"]["name"],
                                       "arguments": args if isinstance(args, str) else _j(args)}})
    return {"role": m["role"], "content": m.get("content") or "", "tool_calls": calls,
            "tool_call_id": m.get("tool_call_id"), "name": m.get("name")}


def sft_row(r: dict, version: str, catalog) -> dict:
    """A trajectory as a TRL conversational row (the offered tools' schemas from `catalog`)."""
    return {"id": r["id"], "version": version, "shape": r["shape"], "query": r["query"], "register": r["register"],
            "domain": r["domain"], "platforms": list(r["platforms"]), "n_calls": r["n_calls"],
            "tools": _j(tool_schemas(catalog, list(r["task"]["tools"]))),
            "messages": [sft_message(m) for m in r["messages"]]}


def build_dataset(trajectories: list[dict], graph_edges: list[dict], out_dir: str | Path, seed: int = 0,
                  version: str = DATASET_VERSION) -> dict[str, Any]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    catalog = get_catalog()
    trajectories = sorted(trajectories, key=lambda r: r["id"])
    rl_s = pa.schema([(n, pa.string()) for n in ("id", "version", "shape", "query", "domain", "platforms", "tools",
                                                  "program", "answer", "task")])
    g_s = pa.schema([("from_tool", pa.string()), ("to_tool", pa.string()), ("posterior", pa.float64()),
                     ("prior", pa.float64()), ("cross_domain", pa.bool_()), ("link", pa.string()), ("bindings", pa.string()),
                     ("selections", pa.string()), ("version", pa.string())])
    counts: dict[str, int] = {}
    for split in ("train", "validation"):
        rows = [r for r in trajectories if _split(r["id"], seed) == split]
        counts[split] = len(rows)
        _write([sft_row(r, version, catalog) for r in rows], out / "sft" / f"{split}.parquet", SFT_SCHEMA)
        _write([{"id": r["id"], "version": version, "shape": r["shape"], "query": r["query"], "domain": r["domain"],
                 "platforms": _j(r["platforms"]), "tools": _j(r["task"]["tools"]), "program": _j(r["task"]["program"]),
                 "answer": _j(r["task"]["answer"]), "task": _j({**r["task"], "version": version})}
                for r in rows], out / "rl" / f"{split}.parquet", rl_s)
    edges = sorted(graph_edges, key=lambda e: (e["from_tool"], e["to_tool"]))
    _write([{**e, "bindings": _j(e["bindings"]), "selections": _j(e.get("selections", [])), "version": version}
            for e in edges], out / "graph" / "train.parquet", g_s)
    per_shape: dict[str, int] = {}
    for r in trajectories:
        per_shape[r["shape"]] = per_shape.get(r["shape"], 0) + 1
    ctext = "\n".join([f"- train: {counts['train']}, validation: {counts['validation']}", f"- graph edges: {len(edges)}"]
                      + [f"- {k}: {v}" for k, v in sorted(per_shape.items())])
    (out / "README.md").write_text(CARD.replace("{version}", version).replace("{counts}", ctext)
                                  .replace("{query_quality}", query_rubric.card_section()), encoding="utf-8")
    (out / "CHANGELOG.md").write_text(CHANGELOG, encoding="utf-8")
    files = sorted(p for p in out.rglob("*") if p.is_file() and p.name != "MANIFEST.json")
    digests = {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    overall = hashlib.sha256(_j(digests).encode()).hexdigest()
    manifest = {"version": version, "seed": seed, "files": digests, "hash": overall, "counts": counts, "per_shape": per_shape}
    (out / "MANIFEST.json").write_text(json.dumps(manifest, indent=1, sort_keys=True), encoding="utf-8")
    return manifest


def graph_rows(vg) -> list[dict]:
    return [{"from_tool": a, "to_tool": b, "posterior": float(d.get("posterior", 0.0)), "prior": float(d.get("prior", 0.0)),
             "cross_domain": bool(d.get("cross_domain", False)), "link": d.get("link", "bind"), "bindings": d["bindings"],
             "selections": d.get("selections", [])} for a, b, d in vg.edges(data=True)]


def build(out_dir: str | Path, run_dir: str | Path | None = None, seed: int = 0, per_shape: int = 900,
          iterations: int = 30, paths: int = 600) -> dict[str, Any]:
    """`kopa data build edge-trajectories --out DIR`: the default EDGE build.

    Uses the EDGE run in `run_dir` (default: the EDGE output folder, setting `KOPA_EDGE_OUT`, `out/edge`,
    the folder `kopa edge verify` writes and the Space's EDGE tab reads):
    runs candidates + verification when `verified.json` is missing and synthesis when the
    trajectories are missing (both resumable), then writes the dataset folder. Returns the
    manifest plus stage timings and the decontamination audit.
    """
    import asyncio
    import time

    from edge_synth.candidates import load_graph
    from edge_synth.pipeline import EdgePipeline, run_graph_and_verify
    from edge_synth.synth import load_trajectories, synthesize
    from edge_synth.verify_config import VerifyConfig

    run = Path(run_dir or get_settings().edge_out)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    if not (run / "verified.json").exists():
        run_graph_and_verify(run, VerifyConfig(iterations=iterations, paths_per_iter=paths, seed=seed), seed)
    timings["verify_s"] = round(time.perf_counter() - t0, 1)
    vg = load_graph(run / "verified.json")
    audit = None
    t1 = time.perf_counter()
    if len(load_trajectories(run / "trajectories")) < per_shape * 6 * 0.8 if (run / "trajectories").exists() else True:
        async def go():
            e = EdgePipeline(seed=seed)
            await e.prepare(vg)
            a = await synthesize(vg, e, run / "trajectories", per_shape, seed)
            await e.client.aclose()
            return a

        audit = asyncio.run(go())
    timings["synth_s"] = round(time.perf_counter() - t1, 1)
    t2 = time.perf_counter()
    manifest = build_dataset(load_trajectories(run / "trajectories"), graph_rows(vg), out_dir, seed)
    timings["dataset_s"] = round(time.perf_counter() - t2, 1)
    timings["total_s"] = round(time.perf_counter() - t0, 1)
    return {**manifest, "run_dir": str(run), "timings": timings, "audit": audit}

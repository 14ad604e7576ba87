"""Measurement: recall against reference chains (evaluation data only), precision by re-probing
verified edges on held-out inputs, executable share of candidate links before/after verification,
and the hand-audit sample."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path
from typing import Any

import networkx as nx

from .bindings import Binding, edge_bindings
from .probing import ProbeOptions, executes, probe_link
from .selections import SelectConfig, probe_selection
from .walks import best_bindings

EVAL_DIR = Path(__file__).parent / "eval"
# a reference operation written as another operation's variant: "(request=getAddress variant)"
_VARIANT = re.compile(r"\(\s*\w+\s*=\s*(\w+)\s+variant\s*\)")


def map_reference_op(op_id: str, catalog: Any) -> str | None:
    """`airkorea.MsrstnInfoInqireSvc.getTMStdrCrdnt` -> catalog tool, by operation name + platform/service."""
    if op_id.startswith(("local:", "user_input")):
        return None
    head = op_id.split()[0]
    parts = head.split(".")
    opname, prefix = parts[-1], parts[0].lower()
    variant = _VARIANT.search(op_id)
    if variant:  # 'vworld.getcoord (request=getAddress variant)': the variant is its own operation
        opname = variant.group(1)
    hits = [r for r in catalog if r.op.name == opname or r.op.tool.endswith("_" + opname)]
    if not hits:
        return None
    best = [r for r in hits if prefix in (r.platform.id.lower(), r.service.id.lower()) or r.service.id.lower().startswith(prefix)
            or r.op.tool.lower().startswith(prefix)]
    return (best or hits)[0].op.tool


def reference_pairs(catalog: Any, path: Path | None = None) -> list[dict]:
    rows = [json.loads(l) for l in (path or EVAL_DIR / "reference_chains.jsonl").read_text(encoding="utf-8").splitlines() if l.strip()]
    out = []
    for r in rows:
        a, b = map_reference_op(r["from_operation"], catalog), map_reference_op(r["to_operation"], catalog)
        if a and b and a != b:
            out.append({**r, "from_tool": a, "to_tool": b})
    return out


def recall(vg: nx.DiGraph, refs: list[dict]) -> dict[str, Any]:
    hit = [r for r in refs if vg.has_edge(r["from_tool"], r["to_tool"])]
    return {"reference_chains_mapped": len(refs), "found": len(hit),
            "recall": round(len(hit) / len(refs), 4) if refs else None,
            "missing": sorted({f"{r['from_tool']}->{r['to_tool']}" for r in refs if r not in hit})}


async def _reprobe(edges: list[tuple[str, str, Any]], n: int, seed: int, probe) -> dict[tuple[str, str], list[str]]:
    """`n` probes of every (a, b, what) with `probe(a, b, what, rng)`; outcomes per edge."""
    rng = random.Random(seed)
    jobs = [(a, b, what, random.Random(rng.random())) for a, b, what in edges for _ in range(n)]
    res = await asyncio.gather(*(probe(a, b, what, r) for a, b, what, r in jobs))
    out: dict[tuple[str, str], list[str]] = {}
    for (a, b, _, _), pr in zip(jobs, res):
        out.setdefault((a, b), []).append(pr.outcome)
    return out


async def _probe_edges(edges: list[tuple[str, str, list[Binding]]], executor, sampler, n: int, split: str, seed: int,
                       baseline=None, record_tries: int = 1) -> dict[tuple[str, str], list[str]]:
    opts = ProbeOptions(split=split, baseline=baseline, record_tries=record_tries)
    return await _reprobe(edges, n, seed, lambda a, b, bs, r: probe_link(executor, sampler, a, b, bs, r, opts))


async def _probe_selections(edges: list[tuple[str, str, list[dict]]], executor, sampler, n: int, split: str,
                            seed: int, record_tries: int = 1, vg=None) -> dict[tuple[str, str], list[str]]:
    """Re-probes of selection edges (their best selection) on `split` inputs, as for bindings."""
    cfg = SelectConfig(record_tries=record_tries)
    best = [(a, b, max(sels, key=lambda s: s.get("posterior", 0))) for a, b, sels in edges]
    return await _reprobe(best, n, seed, lambda a, b, sel, r: probe_selection(
        executor, sampler, {**sel, "src": a, "dst": b}, r, split, cfg, vg=vg))


async def precision_and_share(g: nx.DiGraph, vg: nx.DiGraph, executor, sampler, n: int = 5, seed: int = 7,
                              baseline=None) -> dict[str, Any]:
    """Precision (a): verified edges that still execute on held-out inputs; executable share
    of all candidate links (top-prior binding set) before vs verified links after."""
    cand = []
    for a, b in g.edges:
        best: dict[str, Binding] = {}
        for bnd in edge_bindings(g, a, b):
            if bnd.to_param not in best:
                best[bnd.to_param] = bnd
        cand.append((a, b, list(best.values())))
    ver = [(a, b, best_bindings(vg, a, b)) for a, b in vg.edges if vg.edges[a, b].get("bindings")]
    sel = [(a, b, d["selections"]) for a, b, d in vg.edges(data=True) if d.get("link") == "select"]
    # re-probes bind the way verification did (an empty answer for one record of A's list is
    # retried with other records, `record_tries`); the single-record figure is reported too
    tries = int((vg.graph.get("verify") or {}).get("record_tries", 1))
    before = await _probe_edges(cand, executor, sampler, n, "holdout", seed, baseline, tries)
    after = await _probe_edges(ver, executor, sampler, n, "holdout", seed + 1, baseline, tries)
    sel_tries = int((vg.graph.get("select") or {}).get("record_tries", 1))
    after.update(await _probe_selections(sel, executor, sampler, n, "holdout", seed + 2, sel_tries, vg))
    eb = [x for x in (executes(v) for v in before.values()) if x is not None]
    ea = [x for x in (executes(v) for v in after.values()) if x is not None]
    single = None
    if tries > 1:
        one = await _probe_edges(ver, executor, sampler, n, "holdout", seed + 1, baseline, 1)
        one.update(await _probe_selections(sel, executor, sampler, n, "holdout", seed + 2, 1, vg))
        es = [x for x in (executes(v) for v in one.values()) if x is not None]
        single = round(sum(es) / len(es), 4) if es else None
    return {"edge_precision": round(sum(ea) / len(ea), 4) if ea else None, "precision_edges_measured": len(ea),
            "record_tries": tries, "edge_precision_single_record": single,
            "executable_share_before": round(sum(eb) / len(eb), 4) if eb else None,
            "executable_share_after": round(sum(ea) / len(ea), 4) if ea else None,
            "candidate_edges_measured": len(eb),
            "failing_after": sorted(f"{a}->{b}" for (a, b), v in after.items() if executes(v) is False)}


def audit_sample(vg: nx.DiGraph, refs: list[dict], k: int = 50, seed: int = 2026) -> list[dict]:
    ref_pairs = {(r["from_tool"], r["to_tool"]) for r in refs}
    pool = sorted((a, b) for a, b in vg.edges if (a, b) not in ref_pairs)
    rng = random.Random(seed)
    pick = rng.sample(pool, min(k, len(pool)))
    return [{"from_tool": a, "to_tool": b,
             "bindings": [f"{'+'.join(x.parts) if x.parts else x.from_field}->{x.to_param} via {x.transform}" for x in best_bindings(vg, a, b)]
             or [f"select {x['match']}: {x['from_field']} ~ {x['to_field']}" for x in vg.edges[a, b].get("selections", [])],
             "posterior": vg.edges[a, b].get("posterior")} for a, b in sorted(pick)]

"""Recall and precision as a function of the link probes verification has spent.

A :class:`BudgetRecorder` is the verifier's observer: every `every` link probes it snapshots the
edges that would be accepted if verification stopped there (the verified-graph rule on the arms as
they stand; joint-set trimming and selection links come after the bandit and are not part of a
checkpoint). :func:`reprobe_verdicts` re-probes every distinct (edge, binding set) any checkpoint
or prior-only ranking accepted, `n` times on held-out inputs, and :func:`curve` scores each
checkpoint: recall = reference links among the accepted edges (as evaluate_graph.recall),
precision = accepted edges whose re-probes execute in most informative probes, over the accepted
edges with a verdict. :func:`prior_ranking` is the no-probe baseline: candidate edges by prior,
top-prior binding per parameter, accepted top-k.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any, Iterable

import networkx as nx

from .bindings import Binding, edge_bindings
from .probing import ProbeOptions, executes, probe_link
from .walks import best_bindings

EdgeKey = tuple[str, str, tuple[tuple[str, str, str], ...]]


def binding_key(a: str, b: str, bindings: Iterable[Binding]) -> EdgeKey:
    """An accepted edge with its binding set (the unit a re-probe verdict belongs to)."""
    return a, b, tuple(sorted((x.from_field, x.to_param, x.transform) for x in bindings))


class BudgetRecorder:
    """Verifier observer: a snapshot of the accepted edges every `every` link probes."""

    def __init__(self, every: int = 1000):
        if every < 1:
            raise ValueError(f"checkpoint interval {every} must be >= 1 link probe")
        self.every = every
        self.next_at = every
        self.snapshots: list[dict[str, Any]] = []
        self.bindings: dict[EdgeKey, list[Binding]] = {}

    def __call__(self, verifier: Any, force: bool = False) -> None:
        spent = verifier.executions
        if not force and spent < self.next_at:
            return
        if self.snapshots and self.snapshots[-1]["probes"] == spent:
            return
        vg = verifier.verified_graph()
        keys = []
        for a, b in vg.edges:
            bs = best_bindings(vg, a, b)
            key = binding_key(a, b, bs)
            self.bindings.setdefault(key, bs)
            keys.append(key)
        self.snapshots.append({"probes": spent, "edges": keys})
        while self.next_at <= spent:
            self.next_at += self.every

    def finish(self, verifier: Any) -> None:
        """The snapshot at the end of the bandit (whatever the interval)."""
        self(verifier, force=True)


def prior_ranking(g: nx.DiGraph) -> tuple[list[EdgeKey], dict[EdgeKey, list[Binding]]]:
    """Candidate edges best prior first (ties by name), each with its top-prior binding per parameter."""
    keys, bindings = [], {}
    for a, b in sorted(g.edges, key=lambda e: (-float(g.edges[e].get("prior", 0.0)), e)):
        best: dict[str, Binding] = {}
        for bnd in edge_bindings(g, a, b):
            if bnd.to_param not in best:
                best[bnd.to_param] = bnd
        if not best:
            continue
        key = binding_key(a, b, best.values())
        keys.append(key)
        bindings[key] = list(best.values())
    return keys, bindings


async def reprobe_verdicts(bindings: dict[EdgeKey, list[Binding]], executor, sampler, n: int = 3, seed: int = 7,
                           record_tries: int = 5, baseline=None) -> dict[EdgeKey, bool | None]:
    """`n` held-out probes of each edge's binding set: does it execute in most informative probes?"""
    opts = ProbeOptions(split="holdout", baseline=baseline, record_tries=record_tries)
    rng = random.Random(seed)
    keys = sorted(bindings)
    jobs = [(k, random.Random(rng.random())) for k in keys for _ in range(n)]
    res = await asyncio.gather(*(probe_link(executor, sampler, k[0], k[1], bindings[k], r, opts) for k, r in jobs))
    outcomes: dict[EdgeKey, list[str]] = {k: [] for k in keys}
    for (k, _), pr in zip(jobs, res):
        outcomes[k].append(pr.outcome)
    return {k: executes(v) for k, v in outcomes.items()}


def score(edges: list[EdgeKey], refs: list[dict], verdicts: dict[EdgeKey, bool | None],
          extra_pairs: set[tuple[str, str]] = frozenset()) -> dict[str, Any]:
    """Recall of the reference links (binding edges, and with `extra_pairs` added) and re-probe precision."""
    pairs = {(a, b) for a, b, _ in edges}
    ref_pairs = [(r["from_tool"], r["to_tool"]) for r in refs]
    found = sum(p in pairs for p in ref_pairs)
    found_all = sum(p in pairs or p in extra_pairs for p in ref_pairs)
    judged = [verdicts[k] for k in edges if verdicts.get(k) is not None]
    return {"edges": len(pairs), "found": found, "recall": round(found / len(refs), 4) if refs else None,
            "recall_with_selections": round(found_all / len(refs), 4) if refs else None,
            "precision": round(sum(judged) / len(judged), 4) if judged else None, "precision_measured": len(judged)}


def curve(snapshots: list[dict[str, Any]], refs: list[dict], verdicts: dict[EdgeKey, bool | None],
          extra_pairs: set[tuple[str, str]] = frozenset()) -> list[dict[str, Any]]:
    return [{"probes": s["probes"], **score(s["edges"], refs, verdicts, extra_pairs)} for s in snapshots]


def probes_to_target(points: list[dict[str, Any]], recall_goal: float = 0.90, precision_goal: float = 0.95,
                     recall_key: str = "recall_with_selections", x: str = "probes") -> dict[str, Any]:
    """The first point reaching `recall_goal` with precision >= `precision_goal`, else the best
    recall reached at that precision."""
    for p in points:
        if (p[recall_key] or 0) >= recall_goal and (p["precision"] or 0) >= precision_goal:
            return {"reached": True, x: p[x], "recall": p[recall_key], "precision": p["precision"]}
    ok = [p for p in points if (p["precision"] or 0) >= precision_goal]
    best = max(ok, key=lambda p: (p[recall_key] or 0, -p[x])) if ok else None
    return {"reached": False, "max_" + x: max((p[x] for p in points), default=0),
            "best_recall_at_precision": best[recall_key] if best else None,
            x + "_at_best": best[x] if best else None,
            "best_recall_any_precision": max((p[recall_key] or 0 for p in points), default=None)}

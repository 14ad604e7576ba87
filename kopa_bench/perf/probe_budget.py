"""EDGE's probe budget: recall and re-probe precision against the link probes verification spends.

    python -m kopa_bench.perf.probe_budget [--out DIR] [--every 1000] [--reprobe 3] [--iterations 30] [--paths 600]

A live run is bounded by the platforms' daily call quotas, so the figure is probes, not seconds.
Three allocations on the same candidate graph (each verification starts from a fresh pipeline):
  thompson  the default verification (coverage phase, Thompson paths, decision phase), full
            pipeline incl. selection links; its verified.json is written (the default graph)
  uniform   the same link-probe budget, direct probes round-robin over live arms, no posterior
  prior     no probes: candidate edges ranked by prior, top-k accepted for every k
Writes DIR/edge_probe_budget.json and DIR/edge_probe_budget.png (see edge_synth/probe_budget.py for
how a checkpoint's recall and precision are computed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

RESULT = Path(__file__).resolve().parents[2] / "docs" / "results" / "edge_probe_budget.json"
RECALL_GOAL, PRECISION_GOAL = 0.90, 0.95


def dump_recorder(rec, extra: dict) -> dict:
    return {**extra, "snapshots": [{"probes": sn["probes"], "edges": [list(k) for k in sn["edges"]]} for sn in rec.snapshots],
            "bindings": [[list(k), [b.as_dict() for b in bs]] for k, bs in rec.bindings.items()]}


def _key(raw) -> tuple:
    a, b, bs = raw
    return a, b, tuple(tuple(x) for x in bs)


def load_recorder(path: Path) -> tuple[list[dict], dict, dict]:
    from edge_synth.bindings import Binding

    d = json.loads(path.read_text(encoding="utf-8"))
    snaps = [{"probes": sn["probes"], "edges": [_key(k) for k in sn["edges"]]} for sn in d.pop("snapshots")]
    bindings = {_key(k): [Binding.from_dict(b) for b in bs] for k, bs in d.pop("bindings")}
    return snaps, bindings, d


def _cfg(iterations: int, paths: int, seed: int):
    from edge_synth.verify_config import VerifyConfig

    return VerifyConfig(iterations=iterations, paths_per_iter=paths, seed=seed)  # `kopa edge verify`'s defaults


async def run_thompson(out: Path, iterations: int = 30, paths: int = 600, seed: int = 0, every: int = 1000) -> dict:
    """The default verification (full pipeline, selection links included) with the recorder; writes
    candidates.json, verified.json (the default graph) and thompson.json."""
    from edge_synth.candidates import save_graph
    from edge_synth.pipeline import EdgePipeline
    from edge_synth.probe_budget import BudgetRecorder

    t0 = time.perf_counter()
    p = EdgePipeline(seed=seed)
    g = await p.candidates()
    save_graph(g, out / "candidates.json")
    rec = BudgetRecorder(every)
    vg, v, summary = await p.verify(g, _cfg(iterations, paths, seed), observer=rec)
    rec.finish(v)
    save_graph(vg, out / "verified.json")
    await p.aclose()
    d = dump_recorder(rec, {"link_probes": v.executions, "candidate_edges": g.number_of_edges(),
                             "verified_edges": vg.number_of_edges(), "summary": _brief(summary),
                             "selection_pairs": sorted([a, b] for a, b, x in vg.edges(data=True) if x.get("link") == "select"),
                             "seconds": round(time.perf_counter() - t0, 1)})
    (out / "thompson.json").write_text(json.dumps(d, ensure_ascii=False), encoding="utf-8")
    return d


async def run_uniform(out: Path, budget: int, iterations: int = 30, paths: int = 600, seed: int = 0,
                      every: int = 1000) -> dict:
    """Uniform allocation of `budget` link probes on a fresh pipeline (bindings only); writes uniform.json.
    Its checkpoints do not depend on the budget (no plan ahead), so a larger budget extends the curve."""
    from edge_synth.pipeline import EdgePipeline
    from edge_synth.probe_budget import BudgetRecorder

    t0 = time.perf_counter()
    p = EdgePipeline(seed=seed)
    g = await p.candidates()
    rec = BudgetRecorder(every)
    _, v, summary = await p.verify(g, replace(_cfg(iterations, paths, seed), allocation="uniform", probe_budget=budget),
                                   select_cfg=None, observer=rec)
    rec.finish(v)
    await p.aclose()
    d = dump_recorder(rec, {"link_probes": v.executions, "budget": budget, "candidate_edges": g.number_of_edges(),
                             "summary": _brief(summary), "seconds": round(time.perf_counter() - t0, 1)})
    (out / "uniform.json").write_text(json.dumps(d, ensure_ascii=False), encoding="utf-8")
    return d


async def assemble(out: Path, reprobe: int = 3, seed: int = 0, every: int = 1000, log=lambda *_: None) -> dict[str, Any]:
    """Re-probe every accepted (edge, binding set) of both runs and of the prior ranking; the curves."""
    from edge_synth.candidates import load_graph
    from edge_synth.evaluate_graph import reference_pairs
    from edge_synth.pipeline import EdgePipeline
    from edge_synth.probe_budget import curve, prior_ranking, probes_to_target, reprobe_verdicts, score

    t0 = time.perf_counter()
    snaps_t, bind_t, meta_t = load_recorder(out / "thompson.json")
    snaps_u, bind_u, meta_u = load_recorder(out / "uniform.json")
    g = load_graph(out / "candidates.json")
    prior_keys, prior_bindings = prior_ranking(g)
    bindings = {**prior_bindings, **bind_t, **bind_u}
    cfg = _cfg(1, 1, seed)
    log(f"[budget] re-probing {len(bindings)} (edge, binding set)s x {reprobe} on held-out inputs ...")
    p = EdgePipeline(seed=seed)
    await p.prepare(g)
    verdicts = await reprobe_verdicts(bindings, p.executor, p.sampler, n=reprobe, record_tries=cfg.record_tries)
    refs = reference_pairs(p.catalog)
    await p.aclose()

    selection_pairs = {tuple(x) for x in meta_t["selection_pairs"]}
    thompson = curve(snaps_t, refs, verdicts, selection_pairs)
    uniform = curve(snaps_u, refs, verdicts, selection_pairs)
    ks = sorted({*range(10, len(prior_keys), 10), len(prior_keys)})
    prior = [{"k": k, "probes": 0, **score(prior_keys[:k], refs, verdicts)} for k in ks]
    for row in prior:  # no probes, so no selection links either
        row["recall_with_selections"] = row["recall"]
    budget = meta_t["link_probes"]
    within = [p for p in uniform if p["probes"] <= budget]
    return {
        "what": "recall vs the reference links and re-probe precision against link probes spent by verification",
        "settings": {"checkpoint_every": every, "reprobes_per_edge": reprobe, "record_tries": cfg.record_tries,
                     "seed": seed},
        "goal": {"recall": RECALL_GOAL, "precision": PRECISION_GOAL},
        "reference_links": len(refs),
        "candidate_edges": g.number_of_edges(), "uniform_candidate_edges": meta_u["candidate_edges"],
        "link_probe_budget": budget, "uniform_link_probes": meta_u["link_probes"],
        "selection_links": len(selection_pairs), "selection_probes": meta_t["summary"].get("selection_probes"),
        "reprobed_binding_sets": len(bindings),
        "probes_to_target": {
            "thompson": probes_to_target(thompson), "uniform": probes_to_target(within),
            "prior_only": probes_to_target(prior, x="k"),
        },
        "probes_to_target_binding_links_only": {
            "thompson": probes_to_target(thompson, recall_key="recall"),
            "uniform": probes_to_target(within, recall_key="recall"),
        },
        "uniform_beyond_budget": probes_to_target([p for p in uniform if p["probes"] > budget]) if len(within) < len(uniform) else None,
        "thompson": thompson, "uniform": uniform, "prior_only": prior,
        "final": {"thompson_verified_edges": meta_t["verified_edges"], "thompson_summary": meta_t["summary"],
                  "uniform_summary": meta_u["summary"]},
        "seconds": {"thompson": meta_t["seconds"], "uniform": meta_u["seconds"],
                    "reprobe": round(time.perf_counter() - t0, 1)},
    }


async def measure(out: Path, iterations: int = 30, paths: int = 600, seed: int = 0, every: int = 1000,
                  reprobe: int = 3, log=lambda *_: None) -> dict[str, Any]:
    """All three in turn; uniform gets the link probes Thompson spent."""
    log("[budget] thompson (default verification) ...")
    t = await run_thompson(out, iterations, paths, seed, every)
    log(f"[budget] uniform, {t['link_probes']} link probes ...")
    await run_uniform(out, t["link_probes"], iterations, paths, seed, every)
    return await assemble(out, reprobe, seed, every, log)


def _brief(summary: dict) -> dict:
    keys = ("candidate_bindings", "verified_edges", "pruned_arms", "link_probes", "coverage_probes", "thompson_paths",
            "decision_probes", "uniform_probes", "duplicate_probes", "selection_probes", "selection_edges")
    return {k: summary[k] for k in keys if k in summary}


def plot(res: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 3, figsize=(15, 4.5))
    colors = {"thompson": "tab:blue", "uniform": "tab:orange", "prior_only": "tab:green"}
    for name in ("thompson", "uniform"):
        pts = res[name]
        x = [p["probes"] for p in pts]
        ax[0].plot(x, [p["recall_with_selections"] for p in pts], color=colors[name], label=f"{name} (+ selection links)")
        ax[0].plot(x, [p["recall"] for p in pts], color=colors[name], ls="--", label=f"{name} (binding links)")
        ax[1].plot(x, [p["precision"] for p in pts], color=colors[name], label=name)
        ax[2].plot([p["recall"] for p in pts], [p["precision"] for p in pts], color=colors[name], marker=".",
                   label=f"{name} checkpoints")
    pr = res["prior_only"]
    best = max((p["recall"] for p in pr), default=0)
    ax[0].axhline(best, color=colors["prior_only"], ls=":", label="prior-only, all candidates (0 probes)")
    ax[2].plot([p["recall"] for p in pr], [p["precision"] for p in pr], color=colors["prior_only"], label="prior-only top-k")
    for a in ax[:2]:
        a.axvline(res["link_probe_budget"], color=colors["thompson"], lw=0.8, ls=":", label="Thompson's budget")
    ax[0].axhline(RECALL_GOAL, color="grey", lw=0.8)
    ax[1].axhline(PRECISION_GOAL, color="grey", lw=0.8)
    ax[2].axvline(RECALL_GOAL, color="grey", lw=0.8)
    ax[2].axhline(PRECISION_GOAL, color="grey", lw=0.8)
    ax[0].set(xlabel="link probes", ylabel="recall (reference links)", title="recall vs probes", ylim=(0, 1))
    ax[1].set(xlabel="link probes", ylabel="re-probe precision", title="precision vs probes", ylim=(0.8, 1.0))
    ax[2].set(xlabel="recall (binding links)", ylabel="re-probe precision", title="precision vs recall",
              xlim=(0, 1), ylim=(0, 1.02))
    for a in ax:
        a.legend(fontsize=7, loc="lower right")
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def summary_line(res: dict) -> dict:
    """The figures `kopa perf` reports: probes each allocation needs for the goal (None: not reached)."""
    out = {}
    for name, r in res["probes_to_target"].items():
        x = "k" if name == "prior_only" else "probes"
        out[f"edge_{name}_probes_to_goal"] = r.get(x) if r["reached"] else None
        out[f"edge_{name}_best_recall_at_precision"] = r.get("recall") if r["reached"] else r.get("best_recall_at_precision")
    out["edge_link_probe_budget"] = res["link_probe_budget"]
    return out


def main(argv: list[str] | None = None) -> dict | None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("out/probe_budget"), help="output folder")
    ap.add_argument("--every", type=int, default=1000, help="checkpoint every this many link probes")
    ap.add_argument("--reprobe", type=int, default=3, help="held-out re-probes per accepted (edge, binding set)")
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--paths", type=int, default=600)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--phase", choices=("all", "thompson", "uniform", "assemble"), default="all",
                    help="one step only (thompson and uniform can run side by side; assemble reads both)")
    ap.add_argument("--uniform-budget", type=int, default=None,
                    help="--phase uniform: link probes to spend (default: thompson.json's link probes)")
    a = ap.parse_args(argv)
    if a.every < 1 or a.reprobe < 1 or a.iterations < 1 or a.paths < 1:
        ap.error(f"--every ({a.every}), --reprobe ({a.reprobe}), --iterations ({a.iterations}) and --paths ({a.paths}) "
                 "must be >= 1")
    a.out.mkdir(parents=True, exist_ok=True)
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    if a.phase == "thompson":
        asyncio.run(run_thompson(a.out, a.iterations, a.paths, a.seed, a.every))
        return None
    if a.phase == "uniform":
        budget = a.uniform_budget
        if budget is None:
            src = a.out / "thompson.json"
            if not src.exists():
                ap.error(f"{src} missing: run --phase thompson first or pass --uniform-budget")
            budget = json.loads(src.read_text(encoding="utf-8"))["link_probes"]
        asyncio.run(run_uniform(a.out, budget, a.iterations, a.paths, a.seed, a.every))
        return None
    if a.phase == "assemble":
        res = asyncio.run(assemble(a.out, a.reprobe, a.seed, a.every, log))
    else:
        res = asyncio.run(measure(a.out, a.iterations, a.paths, a.seed, a.every, a.reprobe, log))
    res["settings"].update({"iterations": a.iterations, "paths_per_iter": a.paths})
    (a.out / "edge_probe_budget.json").write_text(json.dumps(res, ensure_ascii=False, indent=1), encoding="utf-8")
    plot(res, a.out / "edge_probe_budget.png")
    print(json.dumps({"probes_to_target": res["probes_to_target"], **summary_line(res)}, ensure_ascii=False, indent=1))
    return res


if __name__ == "__main__":
    main()

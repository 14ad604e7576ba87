"""End-to-end EDGE stages used by the CLI, the dataset builder and the benchmarks."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any, Callable

import networkx as nx

from kopa_bench.catalog import Catalog, get_catalog

from .bootstrap import bootstrap_samples
from .candidates import build_candidate_graph, save_graph
from .env import ProbeExecutor, make_client
from .seeds import SeedSampler
from .selections import SelectConfig, SelectionVerifier, add_selections, selection_candidates
from .verified_graph import arm_rows
from .verify import Verifier
from .verify_config import VerifyConfig


class EdgePipeline:
    """The stages of one EDGE run over their shared state (client, executor, sampler)."""

    def __init__(self, catalog=None, client=None, seed: int = 0, concurrency: int = 64,
                 exclude_platforms: list[str] | None = None):
        base = catalog or get_catalog()
        self.client = client or make_client(catalog=base)
        self.catalog = held_out(base, exclude_platforms) if exclude_platforms else base
        self.executor = ProbeExecutor(self.client, concurrency=concurrency)
        self.sampler = SeedSampler(self.catalog, seed=seed)
        self.seed = seed
        self.samples: dict[str, list[dict]] = {}
        self.selection_arms: dict = {}

    async def aclose(self) -> None:
        """Close the client (and its world worker processes, if any)."""
        await self.client.aclose()

    async def bootstrap(self) -> dict[str, list[dict]]:
        self.samples = await bootstrap_samples(self.executor, self.sampler, self.catalog, seed=self.seed)
        return self.samples

    async def candidates(self, **kw) -> nx.DiGraph:
        if not self.samples:
            await self.bootstrap()
        g = build_candidate_graph(self.catalog, self.samples, **kw)
        await self.prepare(g)
        return g

    async def prepare(self, g: nx.DiGraph) -> None:
        """Harvest with the inferred kinds, let candidate links seed their target parameters
        (graph-guided sampling), and run one more bootstrap round with the richer pools."""
        if not self.samples:
            await self.bootstrap()
        for t, recs in self.samples.items():
            if t in g:
                self.sampler.harvest(t, recs, g.nodes[t].get("field_kinds"))
        self.sampler.set_groups(g)
        self.sampler.add_link_sources(g)
        fk = {t: g.nodes[t].get("field_kinds", {}) for t in g.nodes}
        more = await bootstrap_samples(self.executor, self.sampler, self.catalog, rounds=1, per_tool=6,
                                       seed=self.seed + 1, field_kinds=fk)
        for t, recs in more.items():
            self.samples.setdefault(t, []).extend(recs)

    async def verify(self, g: nx.DiGraph, cfg: VerifyConfig | None = None,
                     progress: Callable[[int, int], None] | None = None,
                     select_cfg: SelectConfig | None = SelectConfig(),
                     observer: Callable[[Verifier], None] | None = None) -> tuple[nx.DiGraph, Verifier, dict]:
        """Bindings by Thompson-sampled probes, then client-side selections (None: skip them);
        `observer` sees the verifier after each batch of probes (edge_synth.probe_budget)."""
        if not self.sampler.link_sources:
            await self.prepare(g)
        v = Verifier(g, self.executor, self.sampler, cfg)
        v.observer = observer
        t0 = time.perf_counter()
        summary = await v.run(progress)
        vg = v.verified_graph()
        summary["joint_sets"] = await v.joint_sets(vg)
        summary["verified_edges"] = vg.number_of_edges()
        if select_cfg is not None:
            # client-side selections between pairs no binding links (edge_synth/selections.py)
            sv = SelectionVerifier(selection_candidates(g, self.catalog, skip=set(vg.edges)), self.executor,
                                   self.sampler, v.cfg, select_cfg, vg)
            summary.update(await sv.run())
            summary["selection_edges"] = add_selections(vg, sv.verified())
            vg.graph["select"] = {k: getattr(select_cfg, k) for k in select_cfg.__dataclass_fields__}
            summary["verified_edges"] = vg.number_of_edges()
            self.selection_arms = sv.arms
        summary["seconds"] = round(time.perf_counter() - t0, 2)
        summary["executor"] = self.executor.stats.as_dict()
        return vg, v, summary


def held_out(catalog: Catalog, exclude: list[str]) -> Catalog:
    """The catalog without the given platforms, services or tool-id prefixes (held-out platforms)."""
    ex = set(exclude)
    return Catalog([p.model_copy(update={"services": [
        s.model_copy(update={"operations": [o for o in s.operations if o.tool.split("_")[0] not in ex]})
        for s in p.services if s.id not in ex]}) for p in catalog.platforms.values() if p.id not in ex])


def run_graph_and_verify(out_dir: str | Path, cfg: VerifyConfig | None = None, seed: int = 0,
                         exclude_platforms: list[str] | None = None, progress=None) -> dict[str, Any]:
    """Candidates + verification, written to out_dir/{candidates,verified}.json + verify_summary.json."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)

    async def go():
        pipeline = EdgePipeline(seed=seed, exclude_platforms=exclude_platforms)
        g = await pipeline.candidates()
        save_graph(g, out / "candidates.json")
        vg, v, summary = await pipeline.verify(g, cfg, progress)
        save_graph(vg, out / "verified.json")
        arms = arm_rows({**v.arms, **pipeline.selection_arms})
        (out / "arms.json").write_text(json.dumps(arms, ensure_ascii=False, indent=0), encoding="utf-8")
        (out / "verify_summary.json").write_text(json.dumps(summary, ensure_ascii=False, indent=1), encoding="utf-8")
        await pipeline.aclose()
        return summary

    return asyncio.run(go())

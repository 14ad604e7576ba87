"""Execution-grounded verification: Beta posteriors per binding, Thompson-sampled probe paths.

Each candidate edge A->B has one *arm* per candidate binding (from_field, to_param, transform),
with a Beta posterior (:mod:`edge_synth.bandit`). An iteration draws a Thompson sample for every
live arm, builds the binding set of each edge (the best-sampled arm per target parameter), ranks
edges by their sampled viability and probes `paths_per_iter` paths (an edge, extended by a
Thompson-chosen successor up to `path_len` links, each link fed by the previous link's real
output). Outcomes update the arms used.

Before Thompson sampling, a *coverage phase* gives every candidate arm `coverage_probes` direct,
distinct probes (A from graph-guided seed inputs, B bound from A's record), in rounds of one probe
per undecided arm: bandit paths concentrate on high-sampled edges, and arms of other links would
end with few probes and noisy posteriors. Thompson paths spend the rest of the budget
(`iterations` x `paths_per_iter` paths, less the coverage probes, but at least a third of it).
A probe identical to one the arm already had (same A inputs, same B call) is not new evidence and
does not update the posterior (the sandbox is deterministic). In the coverage phase a failure
whose B call bound a companion with no success yet is not credited to the arm under test: the
companion, chosen by prior while every arm is fresh, may be the wrong one.

After the bandit, a *decision phase* gives every arm that has succeeded at least once but sits
below `viable` direct probes until it is verified, pruned or has `decide_probes` probes: the
bandit leaves such arms at their coverage probes once other edges sample higher.

An edge is verified when one binding set has posterior mean >= `viable` with at least one success
(:mod:`edge_synth.verified_graph`); :meth:`Verifier.joint_sets` then executes each verified set
together and trims it until it works.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any, Callable

import networkx as nx
import numpy as np

from kopa_bench.client.result import ToolResult

from .bandit import Arm, arm_id, binding_set, sample_theta, update
from .bindings import Binding, edge_bindings, posterior_of
from .env import call_key
from .evidence import DomainEvidence
from .group_rules import GroupRules
from .probing import ENVIRONMENTAL, ProbeOptions, classify, executes, probe_link
from .seeds import SeedSampler
from .verified_graph import verified_graph
from .verify_config import VerifyConfig


class Verifier:
    def __init__(self, graph: nx.DiGraph, executor, sampler: SeedSampler, cfg: VerifyConfig | None = None):
        self.g = graph
        self.ex = executor
        self.sampler = sampler
        self.cfg = cfg or VerifyConfig()
        self.rng = random.Random(self.cfg.seed)
        self.np_rng = np.random.default_rng(self.cfg.seed)
        self.groups = GroupRules(graph, sampler)
        self.evidence = DomainEvidence(graph, sampler)
        self.arms: dict[str, Arm] = {}
        self.edge_arms: dict[tuple[str, str], list[str]] = {}
        k = self.cfg.prior_strength
        for a, b in graph.edges:
            ids = []
            for bnd in edge_bindings(graph, a, b):
                aid = arm_id(a, b, bnd)
                p = float(bnd.prior)
                self.arms[aid] = Arm(a, b, bnd, alpha=1.0 + k * p, beta=1.0 + k * (1 - p))
                ids.append(aid)
            self.edge_arms[(a, b)] = ids
        self.baseline: dict[str, bool] = {}
        self.log: list[dict] = []
        self.executions = 0
        self.attempts: dict[tuple[str, str], int] = {}
        self.seen_probes: set[tuple] = set()  # (arm, A call, B call): dedupes repeated evidence
        self.duplicates = 0
        self.coverage_probes = 0
        self.thompson_paths = 0
        self.companion_skipped = 0  # coverage failures not credited: an unconfirmed companion was bound
        self.decision_probes = 0
        self.uniform_probes = 0
        # called with the verifier after each batch of probes (the probe-budget recorder); reads only
        self.observer: Callable[["Verifier"], None] | None = None

    async def compute_baseline(self) -> None:
        """Does each tool return data on its own example inputs? (tells 'empty' apart)."""
        for ref in self.sampler.catalog:
            t = ref.op.tool
            args = self.sampler.sample_args(t, "train", random.Random(1))
            if args is None:
                self.baseline[t] = True
                continue
            res = await self.ex.call(t, args)
            self.baseline[t] = classify(res) == "success"

    # -- Thompson sampling ------------------------------------------------------------------
    def _undecided_arms(self, edge: tuple[str, str]) -> list[str]:
        return [i for i in self.edge_arms[edge] if not self.arms[i].pruned and not self.arms[i].settled(self.cfg)]

    def live_edges(self) -> list[tuple[str, str]]:
        out = []
        for e in self.edge_arms:
            arms = self._undecided_arms(e)
            if arms and min(self.arms[i].n for i in arms) < self.cfg.max_probes_per_arm:
                out.append(e)
        return out

    def _primary(self, edge: tuple[str, str], theta: dict[str, float]) -> str | None:
        """The arm of `edge` with the highest Thompson sample (the binding under test)."""
        best, key = None, None
        for aid in self._undecided_arms(edge):
            k = (self.arms[aid].n < self.cfg.min_probes, theta[aid])  # coverage first: every arm gets probed
            if best is None or k > key:
                best, key = aid, k
        return best

    def _companions(self, edge: tuple[str, str], primary: str) -> list[str]:
        """For B's other required params and the rest of the primary's composite groups, the
        edge's best arm so far (bound from the same record)."""
        main = self.arms[primary].binding.to_param
        mandatory, keep = self.groups.needs(edge, {main})
        req = set(self.sampler.required(edge[1])) | mandatory | keep
        best: dict[str, str] = {}
        for aid in self.edge_arms[edge]:
            arm = self.arms[aid]
            p = arm.binding.to_param
            if arm.pruned or p == main or p not in req:
                continue
            key = (arm.mean, arm.binding.prior)
            if p not in best or key > (self.arms[best[p]].mean, self.arms[best[p]].binding.prior):
                best[p] = aid
        return list(best.values())

    async def _probe_path(self, start: tuple[str, str], theta: dict[str, float], split: str = "train",
                          force: str | None = None, max_len: int | None = None) -> list[dict]:
        """Probe a path starting with edge `start`; each further link uses the previous B output.

        On every link one arm is under test (Thompson's pick); companions only complete B's
        required parameters, and only the tested arm is credited with the outcome."""
        rng = random.Random(self.rng.random())
        events = []
        edge = start
        upstream = None
        for depth in range(max_len or self.cfg.path_len):
            primary = force if (depth == 0 and force) else self._primary(edge, theta)
            if primary is None:
                break
            arm = self.arms[primary]
            tested = arm.binding.to_param
            companion_ids = self._companions(edge, primary)
            bindings = [arm.binding] + [self.arms[i].binding for i in companion_ids]
            mandatory, keep = self.groups.needs(edge, {tested})
            opts = ProbeOptions(split=split, baseline=self.baseline,
                                sensitivity=(arm.sens_pos + arm.sens_neg) < self.cfg.sensitivity_checks,
                                soft_companions=True, mandatory=frozenset(mandatory), keep=frozenset(keep),
                                record_tries=self.cfg.record_tries)
            pr = await probe_link(self.ex, self.sampler, edge[0], edge[1], bindings, rng, opts, upstream)
            used = [i for i in companion_ids if self.arms[i].binding.to_param in (pr.b_args or {})]
            # the other coordinate of a pair was bound from the same record (the same point) in
            # this very call: the outcome is evidence for the pair. Not for composite keys: a
            # wrong companion member (a mountain flag as 지하여부) would blame the right one.
            coord = self.groups.partners(edge[1], tested, "coord")
            joint = [i for i in used if self.arms[i].binding.to_param in coord]
            # members of a composite key bound from the same record share a success only: B found
            # the entity, so every member named it; a failure may be any one member's fault
            key = self.groups.partners(edge[1], tested, "key")
            key_joint = [i for i in used if self.arms[i].binding.to_param in key]
            events.append({"edge": edge, "arms": [primary], "companions": used, "joint": joint, "key_joint": key_joint,
                           "outcome": pr.outcome, "depth": depth,
                           "sensitive": pr.sensitive, "echoed": pr.echoed, "passthrough": pr.passthrough,
                           "key": (call_key(edge[0], pr.a_args), call_key(edge[1], pr.b_args) if pr.b_args else pr.outcome)})
            if pr.outcome != "success":
                break
            self.sampler.harvest_answer(edge[1], pr.b_records, self.g.nodes[edge[1]].get("field_kinds"))
            succ = [s for s in self.g.successors(edge[1])
                    if any(not self.arms[i].pruned and not self.arms[i].settled(self.cfg) for i in self.edge_arms[(edge[1], s)])]
            if not succ:
                break
            nxt = max(succ, key=lambda s: binding_set(self.arms, self.edge_arms[(edge[1], s)], theta)[1]
                      + rng.random() * 1e-6)
            upstream = (pr.b_args, ToolResult(tool=edge[1], arguments=pr.b_args, ok=True, result_code="00",
                                              records=pr.b_records))
            edge = (edge[1], nxt)
        return events

    def companion_caused(self, ev: dict) -> bool:
        """A failed probe whose B call used a companion with no success of its own yet: the
        companion (picked by prior while arms are fresh) may be what failed, so the outcome says
        nothing about the arm under test (a right binding can lose its coverage probes to a wrong
        companion and be pruned, yet succeed with the right one)."""
        if ev["outcome"] == "success" or ev["outcome"] in ENVIRONMENTAL or ev["outcome"].startswith("upstream"):
            return False
        return any(self.arms[i].successes == 0 for i in ev.get("companions", ()))

    def _fresh(self, aid: str, ev: dict) -> bool:
        """Is this probe new evidence for the arm? The same A and B calls again are not (the
        sandbox is deterministic), unless the outcome was environmental."""
        key = (aid, *ev["key"])
        if key in self.seen_probes and ev["outcome"] not in ENVIRONMENTAL:
            return False
        self.seen_probes.add(key)
        return True

    def _record(self, events: list[dict], it: int, coverage: bool = False) -> None:
        """Apply one path's outcomes to the arms (repeated identical probes are skipped; in the
        coverage phase a failure caused by an unconfirmed companion is not credited)."""
        cfg = self.cfg
        for ev in events:
            self.executions += 1
            if coverage and self.companion_caused(ev):
                self.companion_skipped += 1
                self.log.append({"iter": it, "edge": list(ev["edge"]), "outcome": "companion_uninformative",
                                 "sensitive": None})
                continue
            for aid in ev["arms"]:
                if self._fresh(aid, ev):
                    update(self.arms[aid], ev["outcome"], cfg, ev.get("sensitive"), ev.get("echoed", False),
                           ev.get("passthrough", False))
                else:
                    self.duplicates += 1
            if not (ev["outcome"] == "success" and ev.get("sensitive") is False):
                # joint members share the outcome (not an insensitive success: that was the tested
                # member's value being ignored); their own sensitivity stays untested here
                for aid in ev.get("joint", ()):
                    if self._fresh(aid, ev):
                        update(self.arms[aid], ev["outcome"], cfg)
            if ev["outcome"] == "success" and ev.get("sensitive") is not False:
                for aid in ev.get("key_joint", ()):
                    if self._fresh(aid, ev):
                        update(self.arms[aid], "success", cfg)
            if ev["depth"] == 0 and not ev["outcome"].startswith("upstream") and ev["outcome"] != "empty_uninformative":
                e0 = tuple(ev["edge"])
                self.attempts[e0] = max(0, self.attempts.get(e0, 0) - 1)
            self.log.append({"iter": it, "edge": list(ev["edge"]), "outcome": ev["outcome"],
                             "sensitive": ev.get("sensitive")})

    async def _probe_arms(self, aids: list[str], theta: dict[str, float], it: int) -> int:
        """One direct probe of each arm (coverage and decision phases); returns link probes spent."""
        paths = await asyncio.gather(*(
            self._probe_path((self.arms[aid].src, self.arms[aid].dst), theta, force=aid, max_len=1) for aid in aids))
        for events in paths:
            self._record(events, it, coverage=True)
        self._observe()
        return sum(len(events) for events in paths)

    def _observe(self) -> None:
        if self.observer is not None:
            self.observer(self)

    async def coverage(self, batch: int = 1000) -> int:
        """Every undecided arm gets `coverage_probes` distinct probes of its own (one per round,
        at most `coverage_rounds` attempts); returns the number of link probes spent."""
        cfg = self.cfg
        tries: dict[str, int] = {}
        spent = 0
        for rnd in range(cfg.coverage_rounds):
            todo = [aid for aid, arm in self.arms.items()
                    if not arm.pruned and not arm.settled(cfg) and arm.n < cfg.coverage_probes
                    and tries.get(aid, 0) < cfg.coverage_rounds]
            if not todo:
                break
            self.rng.shuffle(todo)
            theta = sample_theta(self.np_rng, self.arms)
            for i in range(0, len(todo), batch):
                chunk = todo[i:i + batch]
                for aid in chunk:
                    tries[aid] = tries.get(aid, 0) + 1
                spent += await self._probe_arms(chunk, theta, -1 - rnd)
        self.coverage_probes = spent
        return spent

    async def run(self, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        if not self.baseline:
            await self.compute_baseline()
        cfg = self.cfg
        budget = cfg.iterations * cfg.paths_per_iter
        if cfg.allocation == "uniform":
            await self.uniform(cfg.probe_budget if cfg.probe_budget is not None else budget)
            if progress:
                progress(cfg.iterations, cfg.iterations)
            return self.summary()
        if cfg.coverage_probes > 0:
            budget = max(budget - await self.coverage(), budget // 3)
        iterations = -(-budget // cfg.paths_per_iter) if cfg.paths_per_iter else 0
        for it in range(iterations):
            live = self.live_edges()
            if not live:
                break
            theta = sample_theta(self.np_rng, self.arms)

            def score(e):
                arms = self._undecided_arms(e)
                under = any(self.arms[i].n < cfg.min_probes for i in arms)
                # Thompson sample, a coverage bonus for under-probed edges, and a penalty for
                # edges whose upstream keeps failing (attempts that never reach B)
                return max(theta[i] for i in arms) + 0.5 * under - 0.05 * self.attempts.get(e, 0)
            scored = sorted(live, key=lambda e: -score(e))
            # batched Thompson: the top-sampled edges, cycling when paths exceed live edges
            # (settled arms left the pool: their share of the batch goes to undecided edges)
            starts = [scored[i % len(scored)] for i in range(cfg.paths_per_iter)]
            for e in starts:
                self.attempts[e] = self.attempts.get(e, 0) + 1
            self.thompson_paths += len(starts)
            batches = await asyncio.gather(*(self._probe_path(e, theta) for e in starts))
            for events in batches:
                self._record(events, it)
            self._observe()
            if progress:
                progress(it + 1, iterations)
        if cfg.decide_probes:
            await self.decide()
        if progress:
            progress(cfg.iterations, cfg.iterations)
        return self.summary()

    async def uniform(self, budget: int, batch: int = 1000) -> int:
        """The baseline allocation: rounds of one direct probe per live arm (not pruned, below
        `max_probes_per_arm`), in shuffled order and without looking at posteriors, until `budget`
        link probes are spent or no arm is live. Outcomes update the arms exactly as in the
        coverage phase, so the acceptance rule is the same."""
        spent = 0
        while spent < budget:
            todo = [aid for aid, arm in self.arms.items() if not arm.pruned and arm.n < self.cfg.max_probes_per_arm]
            if not todo:
                break
            self.rng.shuffle(todo)
            todo = todo[:budget - spent]
            theta = sample_theta(self.np_rng, self.arms)  # orders path successors only: direct probes take none
            before = spent
            for i in range(0, len(todo), batch):
                spent += await self._probe_arms(todo[i:i + batch], theta, -1000)
            if spent == before:
                break
        self.uniform_probes = spent
        return spent

    def undecided(self) -> list[str]:
        """Arms with execution evidence (a success) whose posterior sits below `viable` and that
        have had fewer than `decide_probes` probes: the bandit moved on to higher-sampled edges
        after their coverage probes."""
        cfg = self.cfg
        return [aid for aid, a in self.arms.items() if not a.pruned and a.successes >= 1 and a.mean < cfg.viable
                and a.n < cfg.decide_probes]

    async def decide(self) -> int:
        """Decision phase: every undecided arm gets direct probes, one per round (at most
        `decide_probes` rounds), until it is verified, pruned or has `decide_probes` probes.
        Failures caused by an unconfirmed companion are not credited (as in coverage)."""
        spent, tries = 0, {}
        for rnd in range(self.cfg.decide_probes):
            todo = [aid for aid in self.undecided() if tries.get(aid, 0) < self.cfg.decide_probes]
            if not todo:
                break
            theta = sample_theta(self.np_rng, self.arms)
            for aid in todo:
                tries[aid] = tries.get(aid, 0) + 1
            spent += await self._probe_arms(todo, theta, -100 - rnd)
        self.decision_probes = spent
        return spent

    # -- results ----------------------------------------------------------------------------
    def verified_graph(self) -> nx.DiGraph:
        arms_by_edge = {e: [self.arms[i] for i in ids] for e, ids in self.edge_arms.items()}
        return verified_graph(self.g, arms_by_edge, self.cfg, self.groups, self.evidence)

    async def joint_sets(self, vg: nx.DiGraph, probes: int = 3) -> dict[str, int]:
        """Execute each verified edge's binding set *together* and trim it until it works.

        Arms are verified one at a time (companions soft: optional ones dropped half the time), but
        walks and re-probes bind every verified parameter at once: bindings of a stock's item row
        into the price query (its basDt into basDt, beginBasDt and endBasDt, its name into itmsNm
        and likeItmsNm ...) can each hold alone and answer nothing together. So each edge's set is
        run `probes` times on training inputs, all bound from one record; while it fails, the
        weakest binding (a coordinate pair or composite key as one unit) is dropped; an edge none
        of whose sets executes is removed. Edits `vg` in place; returns counts."""
        stats = {"checked": 0, "trimmed": 0, "removed": 0, "probes": 0}
        rng = random.Random(self.cfg.seed + 17)

        async def works(edge, bindings: list[Binding]) -> bool | None:
            params = {b.to_param for b in bindings}
            mandatory, keep = self.groups.needs(edge, params)
            opts = ProbeOptions(baseline=self.baseline, mandatory=frozenset(mandatory & params),
                                keep=frozenset(keep), record_tries=self.cfg.record_tries)
            outs = await asyncio.gather(*(
                probe_link(self.ex, self.sampler, edge[0], edge[1], bindings, random.Random(rng.random()), opts)
                for _ in range(probes)))
            stats["probes"] += len(outs)
            return executes([o.outcome for o in outs])

        async def settle(edge) -> None:
            d = vg.edges[edge]
            bindings = sorted(edge_bindings(vg, *edge), key=lambda b: -posterior_of(b))
            if len(bindings) <= 1:
                return
            stats["checked"] += 1
            units = self.groups.units(edge, bindings)
            res = await works(edge, [b for u in units for b in u])
            trimmed = False
            while res is False and len(units) > 1:
                units = units[:-1]  # the weakest unit goes (units are ordered strongest first)
                trimmed = True
                res = await works(edge, [b for u in units for b in u])
            if res is False:
                vg.remove_edge(*edge)
                stats["removed"] += 1
                return
            kept = [b for u in units for b in u]
            arms = [self.arms[arm_id(edge[0], edge[1], b)] for b in kept if arm_id(edge[0], edge[1], b) in self.arms]
            if trimmed and arms and not self.evidence.entity_evidence(edge, arms):
                vg.remove_edge(*edge)  # what is left binds only a date
                stats["removed"] += 1
                return
            if trimmed:
                stats["trimmed"] += 1
                d["bindings"] = [b.as_dict() for b in kept]
                d["posterior"] = max(posterior_of(b) for b in kept)

        await asyncio.gather(*(settle(e) for e in list(vg.edges) if vg.edges[e].get("bindings")))
        return stats

    def probes_per_arm(self) -> dict[str, Any]:
        """How many informative probes the arms got: live (not pruned) arms by bucket."""
        buckets = {"0": 0, "1": 0, "2": 0, "3-4": 0, "5-9": 0, "10+": 0}
        live = [a.n for a in self.arms.values() if not a.pruned]
        for n in live:
            k = str(n) if n < 3 else "3-4" if n < 5 else "5-9" if n < 10 else "10+"
            buckets[k] += 1
        return {"live_arms": len(live), "live_by_probes": buckets,
                "live_below_min": sum(n < self.cfg.min_probes for n in live),
                "median_live": float(np.median(live)) if live else 0.0,
                "all_arms_mean": round(float(np.mean([a.n for a in self.arms.values()])), 2) if self.arms else 0.0}

    def summary(self) -> dict[str, Any]:
        outcomes: dict[str, int] = {}
        for ev in self.log:
            o = ev["outcome"]
            if o == "success" and ev.get("sensitive") is False:
                o = "success_insensitive"
            outcomes[o] = outcomes.get(o, 0) + 1
        vg = self.verified_graph()
        return {"candidate_edges": self.g.number_of_edges(), "candidate_bindings": len(self.arms),
                "verified_edges": vg.number_of_edges(), "pruned_arms": sum(a.pruned for a in self.arms.values()),
                "link_probes": self.executions, "coverage_probes": self.coverage_probes,
                "thompson_paths": self.thompson_paths, "decision_probes": self.decision_probes,
                **({"uniform_probes": self.uniform_probes} if self.cfg.allocation == "uniform" else {}),
                "duplicate_probes": self.duplicates,
                "companion_uninformative": self.companion_skipped,
                "probes_per_arm": self.probes_per_arm(), "outcomes": outcomes}

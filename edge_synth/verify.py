"""Execution-grounded verification: Beta posteriors per binding, Thompson-sampled probe paths.

Each candidate edge A->B has one *arm* per candidate binding (from_field, to_param, transform).
An iteration draws a Thompson sample for every live arm, builds the binding set of each edge
(the best-sampled arm per target parameter), ranks edges by their sampled viability and probes
`paths_per_iter` paths (an edge, extended by a Thompson-chosen successor up to `path_len` links,
each link fed by the previous link's real output). Outcomes update the arms used:

  success                         alpha += 1
  structural (argument/platform/  beta  += w_struct  (3.0: the binding is wrong)
    transform error, unbound)
  empty where B has data          beta  += w_empty   (1.5: a wrong code / value)
  environmental (transient/quota) beta  += w_env     (0.25: the link may be fine)
  upstream / uninformative        no update

Before Thompson sampling, a *coverage phase* gives every candidate arm `coverage_probes` direct,
distinct probes (A from graph-guided seed inputs, B bound from A's record), in rounds of one probe
per undecided arm: bandit paths concentrate on high-sampled edges, and arms of reference links
otherwise ended with 1-8 probes and noisy posteriors. Thompson paths spend the rest of the budget
(`iterations` x `paths_per_iter` paths, less the coverage probes, but at least a third of it).
A probe identical to one the arm already had (same A inputs, same B call) is not new evidence and
does not update the posterior (the sandbox is deterministic). In the coverage phase a failure
whose B call bound a companion with no success yet is not credited to the arm under test: the
companion, chosen by prior while every arm is fresh, may be the wrong one.

After the bandit, a *decision phase* gives every arm that has succeeded at least once but sits
below `viable` direct probes until it is verified, pruned or has `decide_probes` probes: the
bandit leaves such arms at their 3 coverage probes once other edges sample higher.

Arms whose posterior mean falls below `prune_below` after `min_probes` are pruned; an edge is
verified when one binding set has posterior mean >= `viable` with at least one success.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Any, Callable

import networkx as nx
import numpy as np

from .env import call_key
from .groups import carried_keys
from .probes import ENVIRONMENTAL, STRUCTURAL, SeedSampler, classify, probe_link, run_seed

# Value kinds that only say *when*: bindings of these alone are not evidence of a relation.
TEMPORAL_KINDS = frozenset({"date", "yyyymm", "year", "month", "datetime", "hhmm"})
# Value kinds that locate a record somewhere (an address, a region code, a station): a tool
# returning them describes places or located entities, not days.
PLACE_KINDS = frozenset({"address", "legal_code", "lawd5", "sido_name", "sido_short", "sgg_name", "dong_name",
                         "station_name", "tour_area", "tour_sigungu", "tago_city", "tm_x", "tm_y",
                         "utmk_x", "utmk_y", "kma_nx", "kma_ny"})


@dataclass
class VerifyConfig:
    iterations: int = 100
    paths_per_iter: int = 500
    path_len: int = 2
    w_struct: float = 3.0
    w_empty: float = 1.5
    w_env: float = 0.25
    prior_strength: float = 2.0
    prune_below: float = 0.35
    viable: float = 0.6
    min_probes: int = 3
    max_probes_per_arm: int = 40
    seed: int = 0
    concurrency: int = 64
    w_insensitive: float = 2.0
    sensitivity_checks: int = 3
    settle_after: int = 8
    coverage_probes: int = 3  # distinct informative probes every arm gets before Thompson sampling
    coverage_rounds: int = 6  # at most this many coverage attempts per arm (upstream failures, repeats)
    # records of A's answer a probe binds before an empty B answer stands: a mixed list (schools of
    # every kind for a high-school timetable) needs a few; 3 -> 5 raised recall 0.853 -> 0.895 (r6/r7)
    record_tries: int = 5
    decide_probes: int = 10  # decision phase: arms with a success but below `viable` get up to this many probes


def arm_id(src: str, dst: str, b: dict) -> str:
    return f"{src}|{dst}|{b['from_field']}|{b['to_param']}|{b['transform']}"


@dataclass
class Arm:
    src: str
    dst: str
    binding: dict
    alpha: float
    beta: float
    n: int = 0
    successes: int = 0
    structural: int = 0
    environmental: int = 0
    pruned: bool = False
    sens_pos: int = 0
    sens_neg: int = 0
    echoes: int = 0
    passthrough: int = 0  # successes whose bound value was one of A's own arguments

    def settled(self, cfg: "VerifyConfig") -> bool:
        """Clearly viable already (two posterior s.d. above `viable`, sensitivity checked):
        further probes of it are better spent on undecided arms."""
        if self.n < cfg.settle_after or (self.sens_pos + self.sens_neg) < min(cfg.sensitivity_checks, self.successes):
            return False
        a, b = self.alpha, self.beta
        sd = (a * b / ((a + b) ** 2 * (a + b + 1))) ** 0.5
        return self.mean - 2 * sd >= cfg.viable

    @property
    def meaningful(self) -> bool:
        """Not shown to be ignored by B: counterfactual values changed B's output at least as
        often as they left it unchanged (untested arms pass)."""
        return self.sens_neg <= self.sens_pos

    @property
    def mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)


def update(arm: Arm, outcome: str, cfg: VerifyConfig, sensitive: bool | None = None, echoed: bool = False,
           passthrough: bool = False) -> None:
    if outcome == "success" and sensitive is False and not echoed:
        # executable but meaningless: another upstream value gives B's very same answer
        arm.beta += cfg.w_insensitive
        arm.sens_neg += 1
        arm.structural += 1
    elif outcome == "success":
        arm.alpha += 1.0
        arm.successes += 1
        arm.sens_pos += bool(sensitive or echoed)
        arm.echoes += bool(echoed)
        arm.passthrough += bool(passthrough)
    elif outcome == "empty":
        arm.beta += cfg.w_empty
        arm.structural += 1
    elif outcome in STRUCTURAL:
        arm.beta += cfg.w_struct
        arm.structural += 1
    elif outcome in ENVIRONMENTAL:
        arm.beta += cfg.w_env
        arm.environmental += 1
    else:
        return  # upstream failures say nothing about this link
    arm.n += 1
    if arm.n >= cfg.min_probes and arm.mean < cfg.prune_below:
        arm.pruned = True


async def bootstrap_samples(executor, sampler: SeedSampler, catalog, rounds: int = 3, per_tool: int = 6,
                            seed: int = 0, field_kinds: dict[str, dict[str, str]] | None = None) -> dict[str, list[dict]]:
    """Run every tool on sampled inputs a few rounds, harvesting values; returns tool -> records."""
    rng = random.Random(seed)
    samples: dict[str, list[dict]] = {}
    for _ in range(rounds):
        jobs = []
        for ref in catalog:
            for _ in range(per_tool):
                jobs.append((ref.op.tool, sampler.sample_args(ref.op.tool, "train", rng)))
        jobs = [(t, a) for t, a in jobs if a is not None]
        results = await asyncio.gather(*(executor.call(t, a) for t, a in jobs))
        for (t, a), res in zip(jobs, results):
            if res.ok and res.records:
                sampler.add_context(t, a)
                samples.setdefault(t, []).extend(res.records[:50])
                sampler.harvest(t, res.records, (field_kinds or {}).get(t))
    for t, recs in (await discover_co_required(executor, sampler, catalog)).items():
        samples.setdefault(t, []).extend(recs)
        sampler.harvest(t, recs, (field_kinds or {}).get(t))
    for t, recs in (await example_slices(executor, sampler, catalog)).items():
        samples.setdefault(t, []).extend(recs)
        sampler.harvest(t, recs, (field_kinds or {}).get(t))
    return samples


async def example_slices(executor, sampler: SeedSampler, catalog,
                         per_tool: int = 8) -> dict[str, list[dict]]:
    """Once per tool with required parameters: a working input narrowed by one optional filter at
    its documented example (a bill list filtered to PROC_RESULT=원안가결). Inputs that answer are
    remembered as contexts, so seeds of A cover other slices of its data than the default first
    page (the newest bills, all without a plenary vote). Returns tool -> records."""
    from .candidates import is_control

    out: dict[str, list[dict]] = {}
    jobs = []
    for ref in catalog:
        t = ref.op.tool
        if t in sampler.sliced or not sampler.required(t) or not sampler.contexts.get(t):
            continue
        sampler.sliced.add(t)
        base = sampler.contexts[t][0]
        opts = [p for p in ref.op.model_params if not is_control(p) and p.example is not None and p.name not in base
                and p.name not in sampler.fill_params(t)]
        for p in opts[:per_tool]:
            jobs.append((t, {**base, p.name: p.example}))
    results = await asyncio.gather(*(executor.call(t, a) for t, a in jobs))
    for (t, a), res in zip(jobs, results):
        if res.ok and res.records:
            sampler.add_context(t, a)
            out.setdefault(t, []).extend(res.records[:50])
    return out


async def discover_co_required(executor, sampler: SeedSampler, catalog) -> dict[str, list[dict]]:
    """Tools that never answered a sampled call (required parameters only) are run once with
    their documented example request (optional parameters included); when that answers, the
    optional parameters it cannot do without (dropped one at a time) become `co_required`, so
    every later call fills them too. KOSIS marks its period optional yet rejects a call without
    one (code 20): without this no probe into it could ever succeed. Returns tool -> records."""
    out: dict[str, list[dict]] = {}
    for ref in catalog:
        t = ref.op.tool
        if sampler.contexts.get(t) or t in sampler.co_required:
            continue
        args = sampler.example_call(t)
        req = set(sampler.required(t))
        if not args or set(args) <= req:
            continue
        res = await executor.call(t, args)
        if not (res.ok and res.records):
            continue
        for p in sorted(set(args) - req):  # keep only the optional parameters the call needs
            trial = {k: v for k, v in args.items() if k != p}
            r2 = await executor.call(t, trial)
            if r2.ok and r2.records:
                args, res = trial, r2
        sampler.co_required[t] = sorted(set(args) - req)
        sampler.add_context(t, args)
        out[t] = res.records[:50]
    return out


class Verifier:
    def __init__(self, graph: nx.DiGraph, executor, sampler: SeedSampler, cfg: VerifyConfig | None = None):
        self.g = graph
        self.ex = executor
        self.sampler = sampler
        self.cfg = cfg or VerifyConfig()
        self.rng = random.Random(self.cfg.seed)
        self.np_rng = np.random.default_rng(self.cfg.seed)
        self.arms: dict[str, Arm] = {}
        self.edge_arms: dict[tuple[str, str], list[str]] = {}
        k = self.cfg.prior_strength
        for a, b, d in graph.edges(data=True):
            ids = []
            for bnd in d["bindings"]:
                aid = arm_id(a, b, bnd)
                p = float(bnd["prior"])
                self.arms[aid] = Arm(a, b, bnd, alpha=1.0 + k * p, beta=1.0 + k * (1 - p))
                ids.append(aid)
            self.edge_arms[(a, b)] = ids
        self.baseline: dict[str, bool] = {}
        self._needs: dict[tuple, tuple[set[str], set[str]]] = {}  # group_needs, per (edge, params)
        self.log: list[dict] = []
        self.executions = 0
        self.attempts: dict[tuple[str, str], int] = {}
        self.seen_probes: set[tuple] = set()  # (arm, A call, B call): dedupes repeated evidence
        self.duplicates = 0
        self.coverage_probes = 0
        self.thompson_paths = 0
        self.companion_skipped = 0  # coverage failures not credited: an unconfirmed companion was bound
        self.decision_probes = 0

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
    def _binding_set(self, edge: tuple[str, str], theta: dict[str, float]) -> tuple[list[str], float]:
        """Per target parameter, the arm with the highest sample; the set's value is the mean."""
        best: dict[str, tuple[float, str]] = {}
        for aid in self.edge_arms[edge]:
            arm = self.arms[aid]
            if arm.pruned:
                continue
            t = theta[aid]
            p = arm.binding["to_param"]
            if p not in best or t > best[p][0]:
                best[p] = (t, aid)
        if not best:
            return [], 0.0
        chosen = [aid for _, aid in best.values()]
        draws = [t for t, _ in best.values()]
        # numpy sums fewer than 8 values one after another, as Python does: the same mean,
        # without numpy's per-call overhead (this runs for every successor of every path step)
        return chosen, (sum(draws) / len(draws) if len(draws) < 8 else float(np.mean(draws)))

    def _sample_theta(self) -> dict[str, float]:
        ids = list(self.arms)
        a = np.array([self.arms[i].alpha for i in ids])
        b = np.array([self.arms[i].beta for i in ids])
        draws = self.np_rng.beta(a, b)
        return dict(zip(ids, draws.tolist()))

    def live_edges(self) -> list[tuple[str, str]]:
        out = []
        for e, ids in self.edge_arms.items():
            arms = [self.arms[i] for i in ids if not self.arms[i].pruned and not self.arms[i].settled(self.cfg)]
            if arms and min(a.n for a in arms) < self.cfg.max_probes_per_arm:
                out.append(e)
        return out

    def _primary(self, edge: tuple[str, str], theta: dict[str, float]) -> str | None:
        """The arm of `edge` with the highest Thompson sample (the binding under test)."""
        best, key = None, None
        for aid in self.edge_arms[edge]:
            arm = self.arms[aid]
            if arm.pruned or arm.settled(self.cfg):
                continue
            k = (arm.n < self.cfg.min_probes, theta[aid])  # coverage first: every arm gets probed
            if best is None or k > key:
                best, key = aid, k
        return best

    def inheritable(self, edge: tuple[str, str]) -> set[str]:
        """B's required parameters A is called with under the same name (passed through)."""
        a_req = {p.lower() for p in self.sampler.required(edge[0])}
        return {p for p in self.sampler.required(edge[1]) if p.lower() in a_req}

    def group_needs(self, edge: tuple[str, str], params: set[str]) -> tuple[set[str], set[str]]:
        """(mandatory, keep) for a binding set into `params`: members of B's joint groups (a key,
        a coordinate pair) touched by the set or carried whole by A's records must be bound from
        the same record unless inherited; the rest of a touched format group is kept."""
        key = (edge, frozenset(params))
        hit = self._needs.get(key)
        if hit is None:  # a function of the catalog and the graph only: computed once per edge and set
            hit = self._needs[key] = self._group_needs(edge, params)
        return set(hit[0]), set(hit[1])

    def _group_needs(self, edge: tuple[str, str], params: set[str]) -> tuple[set[str], set[str]]:
        a, b = edge
        groups = self.sampler.groups.get(b, [])
        mandatory, keep = set(), set()
        carried = carried_keys(self.sampler.groups, b, self.g.nodes[a].get("field_kinds", {}))
        for grp in groups:
            if grp.joint and (grp.members & params or grp in carried):
                mandatory |= grp.members
            elif grp.kind == "format" and grp.members & params:
                keep |= grp.members
        return mandatory - self.inheritable(edge), keep

    def coord_partners(self, tool: str, arm: Arm) -> set[str]:
        """The other members of `tool`'s coordinate groups that hold the arm's target parameter."""
        p = arm.binding["to_param"]
        return {m for grp in self.sampler.groups.get(tool, []) if grp.kind == "coord" and p in grp.members
                for m in grp.members if m != p}

    def key_partners(self, tool: str, arm: Arm) -> set[str]:
        """The other members of `tool`'s composite keys (``key`` groups) that hold the arm's target."""
        p = arm.binding["to_param"]
        return {m for grp in self.sampler.groups.get(tool, []) if grp.kind == "key" and p in grp.members
                for m in grp.members if m != p}

    def _companions(self, edge: tuple[str, str], primary: str) -> list[str]:
        """For B's other required params and the rest of the primary's composite groups, the
        edge's best arm so far (bound from the same record)."""
        main = self.arms[primary]
        mandatory, keep = self.group_needs(edge, {main.binding["to_param"]})
        req = set(self.sampler.required(edge[1])) | mandatory | keep
        best: dict[str, str] = {}
        for aid in self.edge_arms[edge]:
            arm = self.arms[aid]
            p = arm.binding["to_param"]
            if arm.pruned or p == main.binding["to_param"] or p not in req:
                continue
            key = (arm.mean, arm.binding["prior"])
            if p not in best or key > (self.arms[best[p]].mean, self.arms[best[p]].binding["prior"]):
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
        a_result = a_args = None
        from kopa_bench.client.result import ToolResult

        for depth in range(max_len or self.cfg.path_len):
            primary = force if (depth == 0 and force) else self._primary(edge, theta)
            if primary is None:
                break
            arm = self.arms[primary]
            bindings_ids = self._companions(edge, primary)
            bindings = [arm.binding] + [self.arms[i].binding for i in bindings_ids]
            check = (arm.sens_pos + arm.sens_neg) < self.cfg.sensitivity_checks
            mandatory, keep = self.group_needs(edge, {arm.binding["to_param"]})
            pr = await probe_link(self.ex, self.sampler, edge[0], edge[1], bindings, rng, split,
                                  a_result=a_result, a_args=a_args, baseline=self.baseline, sensitivity=check,
                                  soft_companions=True, mandatory=mandatory, keep=keep,
                                  record_tries=self.cfg.record_tries)
            used = [i for i in bindings_ids if self.arms[i].binding["to_param"] in (pr.b_args or {})]
            # the other coordinate of a pair was bound from the same record (the same point) in
            # this very call: the outcome is evidence for the pair. Not for composite keys: a
            # wrong companion member (a mountain flag as 지하여부) would blame the right one.
            joint = [i for i in used if self.arms[i].binding["to_param"] in self.coord_partners(edge[1], arm)]
            # members of a composite key bound from the same record share a success only: B found
            # the entity, so every member named it; a failure may be any one member's fault
            key_joint = [i for i in used if self.arms[i].binding["to_param"] in self.key_partners(edge[1], arm)]
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
            nxt = max(succ, key=lambda s: self._binding_set((edge[1], s), theta)[1] + rng.random() * 1e-6)
            a_result = ToolResult(tool=edge[1], arguments=pr.b_args, ok=True, result_code="00", records=pr.b_records)
            a_args = pr.b_args
            edge = (edge[1], nxt)
        return events

    def companion_caused(self, ev: dict) -> bool:
        """A failed probe whose B call used a companion with no success of its own yet: the
        companion (picked by prior while arms are fresh) may be what failed, so the outcome says
        nothing about the arm under test (FSC basDt -> ECOS START_TIME lost 3 coverage probes to
        a wrong companion and was pruned, yet succeeded 10/10 with the right one)."""
        if ev["outcome"] == "success" or ev["outcome"] in ENVIRONMENTAL or ev["outcome"].startswith("upstream"):
            return False
        return any(self.arms[i].successes == 0 for i in ev.get("companions", ()))

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
                key = (aid, *ev["key"])
                if key in self.seen_probes and ev["outcome"] not in ENVIRONMENTAL:
                    self.duplicates += 1
                    continue
                self.seen_probes.add(key)
                update(self.arms[aid], ev["outcome"], cfg, ev.get("sensitive"), ev.get("echoed", False),
                       ev.get("passthrough", False))
            if not (ev["outcome"] == "success" and ev.get("sensitive") is False):
                # joint members share the outcome (not an insensitive success: that was the tested
                # member's value being ignored); their own sensitivity stays untested here
                for aid in ev.get("joint", ()):
                    key = (aid, *ev["key"])
                    if key in self.seen_probes and ev["outcome"] not in ENVIRONMENTAL:
                        continue
                    self.seen_probes.add(key)
                    update(self.arms[aid], ev["outcome"], cfg)
            if ev["outcome"] == "success" and ev.get("sensitive") is not False:
                for aid in ev.get("key_joint", ()):
                    key = (aid, *ev["key"])
                    if key in self.seen_probes:
                        continue
                    self.seen_probes.add(key)
                    update(self.arms[aid], "success", cfg)
            if ev["depth"] == 0 and not ev["outcome"].startswith("upstream") and ev["outcome"] != "empty_uninformative":
                e0 = tuple(ev["edge"])
                self.attempts[e0] = max(0, self.attempts.get(e0, 0) - 1)
            self.log.append({"iter": it, "edge": list(ev["edge"]), "outcome": ev["outcome"],
                             "sensitive": ev.get("sensitive")})

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
            theta = self._sample_theta()
            for i in range(0, len(todo), batch):
                chunk = todo[i:i + batch]
                for aid in chunk:
                    tries[aid] = tries.get(aid, 0) + 1
                paths = await asyncio.gather(*(
                    self._probe_path((self.arms[aid].src, self.arms[aid].dst), theta, force=aid, max_len=1)
                    for aid in chunk))
                for events in paths:
                    spent += len(events)
                    self._record(events, -1 - rnd, coverage=True)
        self.coverage_probes = spent
        return spent

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

    async def run(self, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        if not self.baseline:
            await self.compute_baseline()
        cfg = self.cfg
        budget = cfg.iterations * cfg.paths_per_iter
        if cfg.coverage_probes > 0:
            budget = max(budget - await self.coverage(), budget // 3)
        iterations = -(-budget // cfg.paths_per_iter) if cfg.paths_per_iter else 0
        for it in range(iterations):
            live = self.live_edges()
            if not live:
                break
            theta = self._sample_theta()
            def score(e):
                arms = [i for i in self.edge_arms[e] if not self.arms[i].pruned and not self.arms[i].settled(cfg)]
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
            if progress:
                progress(it + 1, iterations)
        if cfg.decide_probes:
            await self.decide()
        if progress:
            progress(cfg.iterations, cfg.iterations)
        return self.summary()

    def undecided(self) -> list[str]:
        """Arms with execution evidence (a success) whose posterior sits below `viable` and that
        have had fewer than `decide_probes` probes: the bandit moved on to higher-sampled edges
        after their coverage probes (r3: 541 arms, 328 of them at exactly 3 probes)."""
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
            theta = self._sample_theta()
            for aid in todo:
                tries[aid] = tries.get(aid, 0) + 1
            paths = await asyncio.gather(*(
                self._probe_path((self.arms[aid].src, self.arms[aid].dst), theta, force=aid, max_len=1) for aid in todo))
            for events in paths:
                spent += len(events)
                self._record(events, -100 - rnd, coverage=True)
        self.decision_probes = spent
        return spent

    # -- results ----------------------------------------------------------------------------
    def edge_posterior(self, edge: tuple[str, str]) -> tuple[float, list[Arm]]:
        """Best binding set by posterior mean (per target parameter), and its mean."""
        best: dict[str, Arm] = {}
        for aid in self.edge_arms[edge]:
            arm = self.arms[aid]
            if arm.pruned or arm.successes == 0 or not arm.meaningful:
                continue
            if arm.sens_pos == 0 and arm.binding["to_param"] not in self.sampler.required(edge[1]):
                continue  # an optional filter never shown to change B's answer
            p = arm.binding["to_param"]
            if p not in best or arm.mean > best[p].mean:
                best[p] = arm
        if not best:
            return 0.0, []
        arms = list(best.values())
        return max(a.mean for a in arms), sorted(arms, key=lambda a: -a.mean)

    def is_calendar(self, tool: str) -> bool:
        """A tool whose required inputs are all dates/years/months (KASI holidays): its records
        are keyed by date, so a date it returns names the entity itself."""
        req = self.sampler.required(tool)
        return bool(req) and all(self.sampler.param_kind.get((tool, p)) in TEMPORAL_KINDS for p in req)

    def names_days(self, tool: str) -> bool:
        """A calendar whose records are days, not dated entities: no output field locates
        anything (KASI holidays). A festival search also takes only dates, but its records are
        festivals with addresses and region codes."""
        kinds = set(((self.g.nodes[tool] if tool in self.g else {}).get("field_kinds") or {}).values())
        if not kinds:  # a graph without inferred kinds: the catalog's declared fields
            from .values import infer_kind

            kinds = {infer_kind(f.name, f"{f.desc_ko} {f.desc_en}") for f in self.sampler.catalog.get(tool).op.fields}
        return self.is_calendar(tool) and not (kinds & PLACE_KINDS)

    def entity_evidence(self, edge: tuple[str, str], arms: list[Arm]) -> bool:
        """Temporal bindings need shared-entity evidence: the edge also binds a non-temporal
        value (a code, a name, coordinates), or the producer is a calendar tool. A date alone
        passes the sensitivity check between any two dated tools (a measurement time -> the
        year of solar terms), so on its own it proves executability, not a relation."""
        if any(a.binding.get("to_kind") not in TEMPORAL_KINDS and a.binding.get("from_kind") not in TEMPORAL_KINDS
               for a in arms):
            return True
        # a calendar record names a day, but a value equal to one of A's own arguments (holiday ->
        # anniversaries of the year the user gave) carries nothing A's output added (audit 2)
        # a calendar's day handed to another tool of the same calendar service names only a period
        # (KASI holiday -> KASI rest days of its month: the month the user asked A about comes back,
        # audit 3); a dated record of another service (a TourAPI festival -> KASI rest days of the
        # festival's month) does name its own entity's day, so only same-service pairs are refused
        if not self.is_calendar(edge[0]):
            return False
        if self.is_calendar(edge[1]) and self.same_service(edge):
            return False
        # a dated entity (a festival) meets another tool by its date only on a calendar (the
        # rest days of the festival's month); handed to another dated tool (a school timetable
        # on the festival's first day) the date names no shared entity, and retrying records
        # finds some date any dated tool answers (h2: 3 such edges, all failing re-probes)
        if not (self.names_days(edge[0]) or self.names_days(edge[1])):
            return False
        return any(2 * a.passthrough < max(1, a.successes) for a in arms)

    def same_service(self, edge: tuple[str, str]) -> bool:
        """A and B belong to one API service (the node's `service`, else the tool id's prefix:
        kasi_getHoliDeInfo and kasi_getRestDeInfo are both KASI SpcdeInfoService)."""
        sa, sb = (self.g.nodes[t].get("service") or t.split("_", 1)[0] for t in edge)
        return sa == sb

    def complete_groups(self, edge: tuple[str, str], arms: list[Arm]) -> list[Arm]:
        """The verified binding set without half keys: arms into a joint group whose other
        members have no verified arm (and are not inherited) are dropped; when A's records
        carry B's key and it is not bound whole, nothing is left."""
        params = {a.binding["to_param"] for a in arms}
        mandatory, _ = self.group_needs(edge, params)
        if not (mandatory - params):
            return arms
        carried = carried_keys(self.sampler.groups, edge[1], self.g.nodes[edge[0]].get("field_kinds", {}))
        inh = self.inheritable(edge)
        if any(grp.members - params - inh for grp in carried):
            return []
        drop = set()
        for grp in self.sampler.groups.get(edge[1], []):
            if grp.joint and grp.members & params and grp.members - params - inh:
                drop |= grp.members
        return [a for a in arms if a.binding["to_param"] not in drop]

    def verified_graph(self) -> nx.DiGraph:
        vg = nx.DiGraph()
        vg.add_nodes_from(self.g.nodes(data=True))
        for edge in self.edge_arms:
            mean, arms = self.edge_posterior(edge)
            arms = self.complete_groups(edge, [a for a in arms if a.mean >= self.cfg.viable])
            if not arms or not self.entity_evidence(edge, arms):
                continue
            bindings = []
            for a in arms:
                b = dict(a.binding)
                b.update(alpha=round(a.alpha, 3), beta=round(a.beta, 3), posterior=round(a.mean, 4),
                         probes=a.n, successes=a.successes, sensitive=a.sens_pos, insensitive=a.sens_neg)
                bindings.append(b)
            mean = max(a.mean for a in arms)
            vg.add_edge(*edge, bindings=bindings, posterior=round(mean, 4), prior=self.g.edges[edge]["prior"],
                        cross_domain=self.g.edges[edge].get("cross_domain", False))
        vg.graph.update(self.g.graph)
        vg.graph["verify"] = {k: getattr(self.cfg, k) for k in self.cfg.__dataclass_fields__}
        return vg

    async def joint_sets(self, vg: nx.DiGraph, probes: int = 3) -> dict[str, int]:
        """Execute each verified edge's binding set *together* and trim it until it works.

        Arms are verified one at a time (companions soft: optional ones dropped half the time), but
        walks and re-probes bind every verified parameter at once. Nine bindings of a stock's item
        row into the price query (its basDt into basDt, beginBasDt and endBasDt, its name into
        itmsNm and likeItmsNm ...) each held alone and answered nothing together. So each edge's set
        is run `probes` times on training inputs, all bound from one record; while it fails, the
        weakest binding (a coordinate pair or composite key as one unit) is dropped; an edge none
        of whose sets executes is removed. Edits `vg` in place; returns counts."""
        stats = {"checked": 0, "trimmed": 0, "removed": 0, "probes": 0}
        rng = random.Random(self.cfg.seed + 17)

        async def works(edge, bindings) -> bool | None:
            params = {b["to_param"] for b in bindings}
            mandatory, keep = self.group_needs(edge, params)
            outs = await asyncio.gather(*(
                probe_link(self.ex, self.sampler, edge[0], edge[1], bindings, random.Random(rng.random()), "train",
                           baseline=self.baseline, mandatory=mandatory & params, keep=keep,
                           record_tries=self.cfg.record_tries) for _ in range(probes)))
            stats["probes"] += len(outs)
            inf = [o.outcome for o in outs if o.outcome not in ENVIRONMENTAL and not o.outcome.startswith("upstream")
                   and o.outcome != "empty_uninformative"]
            if not inf:
                return None
            return 2 * sum(o == "success" for o in inf) >= len(inf)

        async def settle(edge) -> None:
            d = vg.edges[edge]
            bindings = sorted(d["bindings"], key=lambda b: -b.get("posterior", 0))
            if len(bindings) <= 1:
                return
            stats["checked"] += 1
            units = self.binding_units(edge, bindings)
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
            if trimmed and arms and not self.entity_evidence(edge, arms):
                vg.remove_edge(*edge)  # what is left binds only a date
                stats["removed"] += 1
                return
            if trimmed:
                stats["trimmed"] += 1
                d["bindings"] = kept
                d["posterior"] = max(b.get("posterior", 0) for b in kept)

        await asyncio.gather(*(settle(e) for e in list(vg.edges) if vg.edges[e].get("bindings")))
        self.joint = stats
        return stats

    def binding_units(self, edge: tuple[str, str], bindings: list[dict]) -> list[list[dict]]:
        """The bindings of one edge as units that stand or fall together (the members of one of
        B's joint groups: a coordinate pair, a composite key), strongest unit first."""
        groups = [g for g in self.sampler.groups.get(edge[1], []) if g.joint]
        units: list[list[dict]] = []
        placed: set[int] = set()
        for i, b in enumerate(bindings):
            if i in placed:
                continue
            grp = next((g for g in groups if b["to_param"] in g.members), None)
            unit = [b] if grp is None else [x for x in bindings if x["to_param"] in grp.members]
            placed |= {j for j, x in enumerate(bindings) if any(x is u for u in unit)}
            units.append(unit)
        return sorted(units, key=lambda u: -max(x.get("posterior", 0) for x in u))

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
                "duplicate_probes": self.duplicates,
                "companion_uninformative": self.companion_skipped,
                "probes_per_arm": self.probes_per_arm(), "outcomes": outcomes}

"""The six trajectory shapes, built as KOPA-Bench gold programs over the verified graph.

Every shape returns a program (list of Step dicts) plus answer facts; :class:`Synthesizer`
executes the program with the benchmark's own executor (`kopa_bench.tasks.execute_program`),
resolves the facts on the real outputs (`compute_answer`) and drops anything that fails.
"""

from __future__ import annotations

import random
from typing import Any

import networkx as nx

from kopa_bench.tasks import Task, compute_answer, execute_program
from kopa_bench.tasks.program import ProgramError
from kopa_bench.tasks.facts import FactError

from .probing import inherited_args
from .seeds import SeedSampler
from .selections import maybe_partial, wide_args
from .walks import answer_fields, best_bindings, random_path, ref_expr, step_args, successors

SHAPES = ["sequential", "fan-out", "reduction", "parallel", "comparison", "conditional"]
SELECT_SHARE = 0.25  # sequential trajectories whose second step filters a list by the first's answer
PRIMARY = {"traffic": "traffic", "finance": "finance", "real_estate": "finance", "business": "finance",
           "education": "education", "law": "law", "politics": "politics"}


def primary_domain(domain: str) -> str:
    return PRIMARY.get(domain, "district")


def _num(v: Any) -> float | None:
    try:
        return float(str(v).replace(",", "").strip())
    except (TypeError, ValueError):
        return None


class Synthesizer:
    def __init__(self, vg: nx.DiGraph, catalog: Any, sampler: SeedSampler, executor: Any, seed: int = 0):
        self.vg, self.catalog, self.sampler, self.ex, self.seed = vg, catalog, sampler, executor, seed
        self.roots = sorted(n for n in vg.nodes if n in catalog and sampler.is_root(n))
        self.roots_out = [n for n in self.roots if successors(vg, n)]

    # -- helpers -----------------------------------------------------------------------------
    def _numeric_fields(self, tool: str) -> list[str]:
        kinds = self.vg.nodes[tool].get("field_kinds", {})
        return sorted(f for f, k in kinds.items() if k == "measure")

    def _fields_facts(self, sid: str, tool: str, rec: dict, rng, k=2, selector="items[0]") -> list[dict]:
        facts = []
        for f in answer_fields(self.vg, tool, rec, k, rng):
            facts.append({"description": f"{tool}.{f}", "value": f"${sid}.{selector}.{f}", "field": f, "tool": tool})
        return facts

    async def _peek(self, tool: str, args: dict) -> list[dict]:
        """Records of a literal-argument call (used to pick facts and thresholds)."""
        res = await self.ex.call(tool, {k: v for k, v in args.items()})
        return res.records if res.ok else []

    def _chain_step(self, sid: str, tool: str, prev: str, prev_tool: str, rng, selector="items[0]", group=0,
                    prev_args: dict | None = None):
        bound = {b.to_param: ref_expr(prev, b, selector) for b in best_bindings(self.vg, prev_tool, tool)}
        # required params the previous step was called with under the same name (as in probing)
        bound.update(inherited_args(self.sampler, tool, prev_args or {}, bound))
        args = step_args(self.sampler, tool, bound, rng)
        if args is None:
            return None
        return {"id": sid, "tool": tool, "args": args, "group": group}

    # -- selections (client-side filters, edge_synth.selections) ------------------------------
    def _select_edges(self) -> list[tuple[str, str]]:
        return sorted((a, b) for a, b, d in self.vg.edges(data=True)
                      if d.get("link") == "select" and a in self.roots and a in self.catalog and b in self.catalog)

    @staticmethod
    def _point_ref(spec: dict, axis: str) -> Any:
        """A reference to A's point on `axis` (lat|lon), through the transform library for TM/UTM-K."""
        if spec["system"] == "wgs84":
            return f"$s1.items[0].{spec[axis]}"
        return {"$ref": "$s1.items[0]", "transform": f"{spec['system']}_to_{axis}"}

    def selection(self, rng) -> dict | None:
        """s1 = A on its own inputs; s2 = B's list (only the inputs every call needs, a wide page)
        with a `pick` that selects the record A's answer names: the nearest one, the same code or
        the name containing A's. Used by the sequential shape."""
        edges = self._select_edges()
        if not edges:
            return None
        a, b = rng.choice(edges)
        sel = max(self.vg.edges[a, b]["selections"], key=lambda x: x.get("posterior", 0))
        a_args = self.sampler.sample_args(a, "any", rng)
        b_args = self.sampler.sample_args(b, "any", rng)
        if a_args is None or b_args is None:
            return None
        keep = set(self.sampler.fill_params(b))
        b_args = wide_args(self.catalog.get(b).op, {k: v for k, v in b_args.items() if k in keep})
        if sel["match"] == "nearest":
            pick = {"near": {"lat": self._point_ref(sel["from_point"], "lat"), "lon": self._point_ref(sel["from_point"], "lon"),
                             "lat_field": sel["to_point"]["lat"], "lon_field": sel["to_point"]["lon"], "max_km": 2.0}}
        elif sel["match"] == "equal":
            pick = {"where": {sel["to_field"]: f"$s1.items[0].{sel['from_field']}"}}
        else:
            pick = {"contains": {sel["to_field"]: f"$s1.items[0].{sel['from_field']}"}}
        steps = [{"id": "s1", "tool": a, "args": a_args, "group": 0},
                 {"id": "s2", "tool": b, "args": b_args, "group": 1, "pick": pick}]
        return {"steps": steps, "fact_steps": ["s2"], "entity_steps": ["s1"], "fact_k": 2, "picked_facts": True,
                "select": {"match": sel["match"], "from_field": sel["from_field"], "to_field": sel["to_field"]}}

    # -- shapes ------------------------------------------------------------------------------
    def sequential(self, rng) -> dict | None:
        if self._select_edges() and rng.random() < SELECT_SHARE:
            return self.selection(rng)
        if not self.roots_out:
            return None
        start = rng.choice(self.roots_out)
        path = random_path(self.vg, rng, start, rng.choice([2, 2, 3, 3, 4]))
        if len(path) < 2:
            return None
        args = self.sampler.sample_args(start, "any", rng)
        steps = [{"id": "s1", "tool": start, "args": args, "group": 0}]
        for i, tool in enumerate(path[1:], start=2):
            st = self._chain_step(f"s{i}", tool, f"s{i-1}", path[i - 2], rng, group=i - 1,
                                  prev_args=steps[-1]["args"])
            if st is None:
                return None
            steps.append(st)
        return {"steps": steps, "fact_steps": [steps[-1]["id"]], "entity_steps": ["s1"]}

    def fan_out(self, rng) -> dict | None:
        cands = [n for n in self.roots_out if len(successors(self.vg, n)) >= 2]
        if not cands:
            return None
        a = rng.choice(cands)
        succ = successors(self.vg, a)
        outs = rng.sample(succ, min(len(succ), rng.choice([2, 3])))
        steps = [{"id": "s1", "tool": a, "args": self.sampler.sample_args(a, "any", rng), "group": 0}]
        for i, b in enumerate(outs, start=2):
            st = self._chain_step(f"s{i}", b, "s1", a, rng, group=1, prev_args=steps[0]["args"])
            if st is None:
                return None
            steps.append(st)
        return {"steps": steps, "fact_steps": [s["id"] for s in steps[1:]], "entity_steps": ["s1"], "fact_k": 1}

    def reduction(self, rng) -> dict | None:
        cands = [n for n in self.roots_out if self._numeric_fields(n)]
        if not cands:
            return None
        a = rng.choice(cands)
        field = rng.choice(self._numeric_fields(a))
        b = rng.choice(successors(self.vg, a))
        pick = {"argmax" if rng.random() < 0.7 else "argmin": field}
        steps = [{"id": "s1", "tool": a, "args": self.sampler.sample_args(a, "any", rng), "group": 0, "pick": pick}]
        st = self._chain_step("s2", b, "s1", a, rng, selector="picked", group=1, prev_args=steps[0]["args"])
        if st is None:
            return None
        steps.append(st)
        key = best_bindings(self.vg, a, b)[0].from_field
        extra = [{"description": f"{a}.{key} (picked)", "value": f"$s1.picked.{key}", "field": key, "tool": a},
                 {"description": f"{a}.{field} (picked)", "value": f"$s1.picked.{field}", "field": field, "tool": a}]
        return {"steps": steps, "fact_steps": ["s2"], "entity_steps": ["s1"], "extra_facts": extra, "fact_k": 1,
                "reduce": (field, "argmax" in pick)}

    def parallel(self, rng) -> dict | None:
        if len(self.roots) < 2:
            return None
        k = min(len(self.roots), rng.choice([2, 3, 3]))
        tools = rng.sample(self.roots, k)
        steps = [{"id": f"s{i}", "tool": t, "args": self.sampler.sample_args(t, "any", rng), "group": 0}
                 for i, t in enumerate(tools, start=1)]
        if any(s["args"] is None for s in steps):
            return None
        return {"steps": steps, "fact_steps": [s["id"] for s in steps], "entity_steps": [s["id"] for s in steps], "fact_k": 1}

    def comparison(self, rng) -> dict | None:
        if not self.roots_out:
            return None
        a = rng.choice(self.roots_out)
        b = rng.choice(successors(self.vg, a))
        a1 = self.sampler.sample_args(a, "any", rng)
        a2 = self.sampler.sample_args(a, "any", rng)
        if a1 is None or a2 is None or a1 == a2:
            return None
        steps = [{"id": "s1", "tool": a, "args": a1, "group": 0}, {"id": "s2", "tool": a, "args": a2, "group": 0}]
        for sid, src in (("s3", "s1"), ("s4", "s2")):
            st = self._chain_step(sid, b, src, a, rng, group=1, prev_args=steps[int(src[1:]) - 1]["args"])
            if st is None:
                return None
            steps.append(st)
        return {"steps": steps, "fact_steps": ["s3", "s4"], "entity_steps": ["s1", "s2"], "compare": True, "fact_k": 1}

    def conditional(self, rng) -> dict | None:
        cands = [n for n in self.roots_out if len(successors(self.vg, n)) >= 2]
        if not cands:
            return None
        a = rng.choice(cands)
        b1, b2 = rng.sample(successors(self.vg, a), 2)
        steps = [{"id": "s1", "tool": a, "args": self.sampler.sample_args(a, "any", rng), "group": 0}]
        nums = self._numeric_fields(a)
        cond_ref = f"$s1.items[0].{rng.choice(nums)}" if nums and rng.random() < 0.7 else "$s1.total_count"
        for sid, b in (("s2", b1), ("s3", b2)):
            st = self._chain_step(sid, b, "s1", a, rng, group=1, prev_args=steps[0]["args"])
            if st is None:
                return None
            steps.append(st)
        return {"steps": steps, "fact_steps": ["s2", "s3"], "entity_steps": ["s1"], "cond_ref": cond_ref, "fact_k": 1}

    # -- execution -----------------------------------------------------------------------------
    def offered_tools(self, gold: list[str], rng) -> list[str]:
        doms = {self.catalog.get(t).op.domain for t in gold}
        same = sorted(r.op.tool for r in self.catalog if r.op.domain in doms and r.op.tool not in gold)
        rng.shuffle(same)
        tools = list(dict.fromkeys(gold)) + same[: max(5, 8 - len(gold))]
        if len(set(tools)) < 5:
            others = sorted(r.op.tool for r in self.catalog if r.op.tool not in tools)
            rng.shuffle(others)
            tools += others[: 5 - len(set(tools))]
        return tools

    async def build(self, shape: str, tid: str) -> dict | None:
        """One executed trajectory of `shape` with id `tid` (deterministic in seed+tid), or None."""
        rng = random.Random(f"{self.seed}:{tid}")
        plan = getattr(self, shape.replace("-", "_"))(rng)
        if plan is None or any(s["args"] is None for s in plan["steps"]):
            return None
        steps = plan["steps"]
        if not (2 <= len(steps) <= 8):
            return None
        if "cond_ref" in plan:
            # peek at the condition value so the threshold is meaningful (either branch may run)
            s1 = steps[0]
            recs = await self._peek(s1["tool"], s1["args"])
            if not recs:
                return None
            field = plan["cond_ref"].rsplit(".", 1)[1]
            val = len(recs) if field == "total_count" else _num(recs[0].get(field))
            if val is None:
                return None
            th = round(val + (rng.choice([-1, 1]) * max(1, abs(val) * 0.2)))
            steps[1]["condition"] = {"ref": plan["cond_ref"], "op": ">=", "value": th}
            steps[2]["condition"] = {"ref": plan["cond_ref"], "op": "<", "value": th}
        domain = self.catalog.get(steps[-1]["tool"]).op.domain
        gold = [s["tool"] for s in steps]
        draft = {"id": tid, "split": "dev", "query": "(draft)", "domain": primary_domain(domain),
                 "platforms": sorted({self.catalog.get(t).platform.id for t in gold}), "shape": shape,
                 "difficulty": "easy", "tools": self.offered_tools(gold, rng), "program": steps,
                 "answer": [{"id": "f0", "description": "draft", "value": "$s1.total_count", "kind": "number"}]}
        try:
            task = Task.model_validate(draft)
            run = await execute_program(task, self.ex)
        except (ProgramError, ValueError):
            return None
        by_id = run.by_id
        facts: list[dict] = []
        for sid in plan["fact_steps"]:
            sr = by_id[sid]
            if sr.skipped:
                continue
            if not sr.records:
                return None  # every executed step must return data
            if plan.get("picked_facts"):
                if sr.picked is None:
                    return None  # A's answer selected nothing in B's list
                if maybe_partial(sr.args, sr.records, sr.result.total_count if sr.result is not None else None):
                    return None  # a filter over one page of a longer list may miss the answer
                facts += self._fields_facts(sid, sr.tool, sr.picked, rng, k=plan.get("fact_k", 2), selector="picked")
                continue
            facts += self._fields_facts(sid, sr.tool, sr.records[0], rng, k=plan.get("fact_k", 2))
        facts += plan.get("extra_facts", [])
        if plan.get("compare") and len(facts) >= 2:
            f3, f4 = facts[0], facts[1]
            if f3["field"] == f4["field"] and _num(by_id["s3"].records[0].get(f3["field"])) is not None \
                    and _num(by_id["s4"].records[0].get(f4["field"])) is not None:
                facts.append({"description": f"difference of {f3['field']}", "field": f3["field"], "tool": f3["tool"],
                              "value": {"compute": "diff", "a": f3["value"], "b": f4["value"]}})
            else:
                # compare the same field on both sides
                f = f3["field"]
                if by_id["s4"].records[0].get(f) in (None, "", "-"):
                    return None
                facts[1] = {"description": f"{f3['tool']}.{f}", "value": f"$s4.items[0].{f}", "field": f, "tool": f3["tool"]}
        if "cond_ref" in plan:
            facts.append({"description": "branch condition value", "value": plan["cond_ref"], "field": plan["cond_ref"].rsplit(".", 1)[1], "tool": steps[0]["tool"]})
            facts.append({"description": "branch taken (s2 ran)", "value": {"compute": "ran", "step": "s2"}, "kind": "bool", "field": "branch", "tool": ""})
        if any(s["tool"] for s in steps if by_id[s["id"]].skipped) and "cond_ref" not in plan:
            return None
        if not facts:
            return None
        for i, f in enumerate(facts, start=1):
            f["id"] = f"f{i}"
        answer = [{"id": f["id"], "description": f["description"], "value": f["value"], "kind": f.get("kind", "text")} for f in facts]
        draft["answer"] = answer
        try:
            task = Task.model_validate(draft)
            resolved = compute_answer(task, run)
        except (FactError, ValueError):
            return None
        for f, r in zip(answer, resolved):
            if _num(r.value) is not None and f["kind"] == "text" and not isinstance(r.value, bool):
                f["kind"] = "number"
        draft["answer"] = answer
        try:
            task = Task.model_validate(draft)
            resolved = compute_answer(task, run)
        except (FactError, ValueError):
            return None
        n_calls = len(run.executed)
        return {"task": draft, "run": run, "facts": [{**fx, "resolved": r.value} for fx, r in zip(facts, resolved)],
                "plan": {k: v for k, v in plan.items() if k in ("reduce", "cond_ref", "compare", "select")}, "n_calls": n_calls}

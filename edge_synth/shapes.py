"""The six trajectory shapes, built as KOPA-Bench gold programs over the verified graph.

Every shape returns a program (list of Step dicts) plus answer facts; :class:`Synthesizer`
executes the program with the benchmark's own executor (`kopa_bench.tasks.execute_program`),
resolves the facts on the real outputs (`compute_answer`) and drops anything that fails.
"""

from __future__ import annotations

import math
import random
from typing import Any

import networkx as nx

from kopa_bench.tasks import Task, compute_answer, execute_program
from kopa_bench.transforms import apply_transform
from kopa_bench.tasks.program import ProgramError
from kopa_bench.tasks.facts import FactError

from .control_params import is_control
from .probing import inherited_args
from .queries import field_label
from .seeds import SeedSampler, value_fits
from .selections import maybe_partial, wide_args
from .walks import ASKABLE_KINDS, answer_fields, best_bindings, random_path, ref_expr, step_args, successors

SHAPES = ["sequential", "fan-out", "reduction", "parallel", "comparison", "conditional"]
SELECT_SHARE = 0.25
DIRECT_COMPARE_SHARE = 0.5  # comparisons of one tool's measure for two subjects, without a second tool
# input kinds that say what a request is about: a place, a period, a named station
SUBJECT_KINDS = frozenset({"sido_short", "sido_name", "dong_name", "station_name", "address", "lawd5", "legal_code",
                           "tago_city", "date", "yyyymm", "year"})
# kinds that name the same subject in different forms (서울 / 서울특별시)
SUBJECT_FAMILY = {"sido_short": "sido", "sido_name": "sido"}  # sequential trajectories whose second step filters a list by the first's answer
PRIMARY = {"traffic": "traffic", "finance": "finance", "real_estate": "finance", "business": "finance",
           "education": "education", "law": "law", "politics": "politics"}


def primary_domain(domain: str) -> str:
    return PRIMARY.get(domain, "district")


def same_subject(value: Any, from_kind: str | None, to_kind: str | None) -> Any:
    """`value` (a `from_kind` input) in the form a `to_kind` input takes (서울 -> 서울특별시)."""
    if from_kind == to_kind:
        return value
    if {from_kind, to_kind} == {"sido_short", "sido_name"}:
        try:
            return apply_transform("sido_full" if to_kind == "sido_name" else "sido_short", value)
        except ValueError:
            return None  # '전국' names no one 시도
    return None


def nice_threshold(x: float) -> float | int:
    """A round number near `x` (two significant digits), as a person states a limit."""
    if x == 0:
        return 0
    digits = 1 - math.floor(math.log10(abs(x)))
    th = round(x, digits)
    return int(th) if float(th).is_integer() else th


def _swap_step(ref: Any, old: str, new: str) -> Any:
    """A reference to step `old` rewritten to read step `new` (the other side of a comparison)."""
    if isinstance(ref, str):
        return ref.replace(f"${old}.", f"${new}.")
    if isinstance(ref, dict):
        return {k: _swap_step(v, old, new) for k, v in ref.items()}
    return ref


def _num(v: Any) -> float | None:
    try:
        return float(str(v).replace(",", "").strip())
    except (TypeError, ValueError):
        return None


def _plan_summary(plan: dict) -> dict:
    """The plan keys a trajectory keeps (queries and answers are worded from them)."""
    return {k: v for k, v in plan.items() if k in ("reduce", "cond_ref", "compare", "select", "branch_fields", "axis", "subject")}


class Synthesizer:
    def __init__(self, vg: nx.DiGraph, catalog: Any, sampler: SeedSampler, executor: Any, seed: int = 0,
                 keep_failures: bool = False):
        self.vg, self.catalog, self.sampler, self.ex, self.seed = vg, catalog, sampler, executor, seed
        # the unverified-graph ablation keeps walks whose calls fail or come back empty, as they come
        self.keep_failures = keep_failures
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
                    prev_args: dict | None = None, shared: dict | None = None):
        bound = {b.to_param: ref_expr(prev, b, selector) for b in best_bindings(self.vg, prev_tool, tool)}
        # required params the previous step was called with under the same name (as in probing)
        bound.update(inherited_args(self.sampler, tool, prev_args or {}, bound))
        # sibling branches ask about the same subject: a parameter an earlier branch filled
        # literally keeps that value (the same date, school or region in every branch)
        bound.update({k: v for k, v in (shared or {}).items() if k not in bound and k in self.sampler.fill_params(tool)})
        args = step_args(self.sampler, tool, bound, rng)
        if args is None:
            return None
        return {"id": sid, "tool": tool, "args": args, "group": group}

    @staticmethod
    def _literals(step: dict) -> dict:
        """A step's literal (non-reference) arguments."""
        return {k: v for k, v in step["args"].items() if not isinstance(v, dict) and not str(v).startswith("$")}

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
        # two steps: a request names the first call's subject and the last call's answer, so a
        # longer chain's middle steps would be ones the person never asked for
        path = random_path(self.vg, rng, start, 2)
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
        shared: dict = {}
        for i, b in enumerate(outs, start=2):
            st = self._chain_step(f"s{i}", b, "s1", a, rng, group=1, prev_args=steps[0]["args"], shared=shared)
            if st is None:
                return None
            shared.update({k: v for k, v in self._literals(st).items() if k not in shared})
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

    def _subject_params(self, tool: str, optional: bool = False) -> list[tuple[str, str]]:
        """(param, kind) of the inputs of `tool` that name what a request is about (a place, a
        date, a station): the ones every call fills, and with `optional` the optional filters too."""
        names = list(self.sampler.fill_params(tool))
        if optional:
            names += [p.name for p in self.catalog.get(tool).op.model_params
                      if p.name not in names and not is_control(p) and p.example is not None]
        out = []
        for name in names:
            kind = self.sampler.param_kind.get((tool, name))
            if kind in SUBJECT_KINDS:
                out.append((name, kind))
        return out

    def parallel(self, rng) -> dict | None:
        """Independent calls about one subject: tools that each take the same place or date,
        called with that one value (\"서울의 대기오염, 축제, 약국\")."""
        by_kind: dict[str, list[tuple[str, str]]] = {}
        for t in self.roots:
            for name, kind in self._subject_params(t, optional=True):
                by_kind.setdefault(SUBJECT_FAMILY.get(kind, kind), []).append((t, name))
        fams = sorted(k for k, v in by_kind.items() if len({t for t, _ in v}) >= 2)
        if not fams:
            return None
        fam = rng.choice(fams)
        tools: dict[str, str] = {}
        for t, name in by_kind[fam]:
            tools.setdefault(t, name)
        k = min(len(tools), rng.choice([2, 3, 3]))
        picked = rng.sample(sorted(tools), k)
        first = picked[0]
        value = self.sampler.value(first, tools[first], "any", rng)
        if value is None:
            return None
        steps = []
        for i, t in enumerate(picked, start=1):
            v = same_subject(value, self.sampler.param_kind.get((first, tools[first])),
                             self.sampler.param_kind.get((t, tools[t])))
            p = self.catalog.get(t).op.param(tools[t])
            # the value must be one this input is known to take (an address is no 시도 name)
            known = {str(x) for x in self.sampler.pool(t, tools[t], "any")}
            if v is None or p is None or not value_fits(p, v) or str(v) not in known:
                return None
            args = self.sampler.sample_args(t, "any", rng, fixed={tools[t]: v})
            if args is None:
                return None
            steps.append({"id": f"s{i}", "tool": t, "args": args, "group": 0})
        return {"steps": steps, "fact_steps": [s["id"] for s in steps], "entity_steps": [s["id"] for s in steps],
                "fact_k": 1, "subject": tools[first]}

    def comparison(self, rng) -> dict | None:
        """The same measure for two places or dates: A is called twice with one subject input
        changed (the rest of the call the same), B follows each side with the same other inputs."""
        direct = [t for t in self.roots if self._numeric_fields(t) and self._subject_params(t)]
        if direct and rng.random() < DIRECT_COMPARE_SHARE:
            return self._direct_comparison(rng, rng.choice(direct))
        if not self.roots_out:
            return None
        a = rng.choice(self.roots_out)
        b = rng.choice(successors(self.vg, a))
        a1, axis, a2 = self._two_sides(a, rng)
        if a1 is None:
            return None
        steps = [{"id": "s1", "tool": a, "args": a1, "group": 0}, {"id": "s2", "tool": a, "args": a2, "group": 0}]
        s3 = self._chain_step("s3", b, "s1", a, rng, group=1, prev_args=a1)
        if s3 is None:
            return None
        refs = {k: v for k, v in s3["args"].items() if k not in self._literals(s3)}
        s4 = {"id": "s4", "tool": b, "group": 1,
              "args": {**self._literals(s3), **{k: _swap_step(v, "s1", "s2") for k, v in refs.items()}}}
        if a1.get(axis) is not None and axis in s4["args"] and s4["args"][axis] == a1[axis]:
            s4["args"][axis] = a2[axis]  # B inherited the subject from A: each side keeps its own
        steps += [s3, s4]
        return {"steps": steps, "fact_steps": ["s3", "s4"], "entity_steps": ["s1", "s2"], "compare": ("s3", "s4"),
                "fact_k": 1, "axis": axis}

    def _direct_comparison(self, rng, a: str) -> dict | None:
        """A measure of one tool for two subjects (\"종로구와 중구 중 미세먼지가 더 높은 곳\"): two calls."""
        a1, axis, a2 = self._two_sides(a, rng)
        if a1 is None:
            return None
        steps = [{"id": "s1", "tool": a, "args": a1, "group": 0}, {"id": "s2", "tool": a, "args": a2, "group": 0}]
        return {"steps": steps, "fact_steps": ["s1", "s2"], "entity_steps": ["s1", "s2"], "compare": ("s1", "s2"),
                "fact_k": 1, "axis": axis}

    def _two_sides(self, a: str, rng) -> tuple[dict | None, str | None, dict | None]:
        """A's arguments for two sides that differ in one subject input only."""
        a1 = self.sampler.sample_args(a, "any", rng)
        if a1 is None:
            return None, None, None
        axes = [n for n, _k in self._subject_params(a) if n in a1]
        if not axes:
            return None, None, None
        axis = rng.choice(axes)
        # another value of the subject input, preferably one that answered with the rest of the
        # call unchanged (a remembered working input), so both sides have data
        rest = {k: str(v) for k, v in a1.items() if k != axis}
        worked = sorted({str(c[axis]) for c in self.sampler.contexts.get(a, ())
                         if axis in c and str(c[axis]) != str(a1[axis])
                         and all(str(c.get(k)) == v for k, v in rest.items())})
        others = worked or [v for v in self.sampler.pool(a, axis, "any") if str(v) != str(a1[axis])]
        if not others:
            return None, None, None
        return a1, axis, {**a1, axis: rng.choice(others)}

    def conditional(self, rng) -> dict | None:
        """A decision on a measured value of A (\"미세먼지 농도가 80 이상이면 ... 아니면 ...\"); both
        branches are fed by the same field of A's answer, so they are about the same subject, and
        they share every other input."""
        cands = []
        for a in self.roots_out:
            if not self._condition_fields(a):
                continue
            succ = successors(self.vg, a)
            for b1 in succ:
                for b2 in succ:
                    if b1 < b2 and self._same_subject_branches(a, b1, b2):
                        cands.append((a, b1, b2))
        if not cands:
            return None
        a, b1, b2 = rng.choice(cands)
        if rng.random() < 0.5:
            b1, b2 = b2, b1
        steps = [{"id": "s1", "tool": a, "args": self.sampler.sample_args(a, "any", rng), "group": 0}]
        if steps[0]["args"] is None:
            return None
        cond_ref = f"$s1.items[0].{rng.choice(self._condition_fields(a))}"
        shared: dict = {}
        for sid, b in (("s2", b1), ("s3", b2)):
            st = self._chain_step(sid, b, "s1", a, rng, group=1, prev_args=steps[0]["args"], shared=shared)
            if st is None:
                return None
            shared.update({k: v for k, v in self._literals(st).items() if k not in shared})
            steps.append(st)
        branch_fields = {}
        for st in steps[1:]:
            f = self._branch_field(st["tool"], rng)
            if f is None:
                return None
            branch_fields[st["id"]] = f
        return {"steps": steps, "fact_steps": ["s2", "s3"], "entity_steps": ["s1"], "cond_ref": cond_ref, "fact_k": 1,
                "branch_fields": branch_fields}

    def _compare_field(self, tool: str, r3: dict, r4: dict, rng) -> str | None:
        """A field both sides answer, with a Korean name: a measurement when there is one."""
        both = [f for f in answer_fields(self.vg, tool, r3, k=99) if r4.get(f) not in (None, "", "-")
                and not isinstance(r4.get(f), (dict, list)) and field_label(self.catalog, tool, f)]
        kinds = self.vg.nodes[tool].get("field_kinds", {})
        nums = [f for f in both if kinds.get(f) == "measure" and _num(r3[f]) is not None and _num(r4[f]) is not None]
        pool = sorted(nums or both)
        return rng.choice(pool) if pool else None

    def _condition_fields(self, tool: str) -> list[str]:
        """Measured fields of A a person decides on: a number with a Korean name."""
        return [f for f in self._numeric_fields(tool) if field_label(self.catalog, tool, f)]

    def _same_subject_branches(self, a: str, b1: str, b2: str) -> bool:
        """Both branches read the same field of A's answer (the same place, date or entity) and
        answer the same kind of need (one domain), so the decision picks between alternatives."""
        f1 = {bd.from_field for bd in best_bindings(self.vg, a, b1)}
        f2 = {bd.from_field for bd in best_bindings(self.vg, a, b2)}
        if not f1 & f2:
            return False
        return self.catalog.get(b1).op.domain == self.catalog.get(b2).op.domain

    def _branch_field(self, tool: str, rng) -> str | None:
        """The field a branch is asked for, chosen before execution (either branch may run):
        a field its answers carry that has a Korean name, measurements and names first."""
        kinds = self.vg.nodes[tool].get("field_kinds", {})
        named = sorted(f for f in kinds if field_label(self.catalog, tool, f) and f != "total_count")
        pref = [f for f in named if kinds[f] in ("measure", "grade", "name", "station_name", "date", "address")]
        pool = pref or named
        return rng.choice(pool) if pool else None

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
            th = nice_threshold(val + rng.choice([-1, 1]) * abs(val) * 0.2)
            if th == val:
                return None
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
            run = await execute_program(task, self.ex, partial=self.keep_failures)
        except (ProgramError, ValueError):
            return None
        traj = None if run.stopped else self._answered(plan, steps, draft, run, rng)
        if traj is None and self.keep_failures:
            return self._failure(plan, steps, draft, run, rng)
        return traj

    def _failure(self, plan: dict, steps: list[dict], draft: dict, run: Any, rng) -> dict | None:
        """A walk whose call failed or whose data did not answer, kept with what it asked for and a
        closing answer that says nothing was found (the ablation's unfiltered trajectories)."""
        if not run.executed:
            return None
        tool = steps[-1]["tool"]
        kinds = self.vg.nodes[tool].get("field_kinds", {}) if tool in self.vg else {}
        pref = sorted(f for f, k in kinds.items() if k in ASKABLE_KINDS)
        pool = pref or sorted(kinds)
        rng.shuffle(pool)
        sid = steps[-1]["id"]
        facts = [{"id": f"f{i}", "description": f"{tool}.{f}", "value": f"${sid}.items[0].{f}", "field": f,
                  "tool": tool, "resolved": None} for i, f in enumerate(pool[:2], start=1)]
        why = run.stopped or "a step returned no usable records"
        return {"task": draft, "run": run, "facts": facts, "failure": why,
                "plan": _plan_summary(plan),
                "n_calls": len(run.executed)}

    def _answered(self, plan: dict, steps: list[dict], draft: dict, run: Any, rng) -> dict | None:
        """The trajectory with its answer facts resolved on the executed outputs, or None."""
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
            if plan.get("branch_fields"):
                f = plan["branch_fields"][sid]
                if sr.records[0].get(f) in (None, "", "-"):
                    return None  # the branch that ran must answer what the request asked of it
                facts.append({"description": f"{sr.tool}.{f}", "value": f"${sid}.items[0].{f}", "field": f, "tool": sr.tool})
                continue
            if plan.get("compare"):
                continue  # one field, the same on both sides (below)
            facts += self._fields_facts(sid, sr.tool, sr.records[0], rng, k=plan.get("fact_k", 2))
        facts += plan.get("extra_facts", [])
        if plan.get("compare"):
            left, right = plan["compare"]
            r3, r4 = by_id[left], by_id[right]
            if r3.skipped or r4.skipped or not r3.records or not r4.records or r3.args == r4.args:
                return None  # both sides must be asked with their own subject
            f = self._compare_field(r3.tool, r3.records[0], r4.records[0], rng)
            if f is None:
                return None
            facts = [{"description": f"{r3.tool}.{f}", "value": f"${left}.items[0].{f}", "field": f, "tool": r3.tool},
                     {"description": f"{r3.tool}.{f}", "value": f"${right}.items[0].{f}", "field": f, "tool": r3.tool}]
            if _num(r3.records[0].get(f)) is not None and _num(r4.records[0].get(f)) is not None:
                facts.append({"description": f"difference of {f}", "field": f, "tool": r3.tool,
                              "value": {"compute": "diff", "a": facts[0]["value"], "b": facts[1]["value"]}})
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
                "plan": _plan_summary(plan), "n_calls": n_calls}

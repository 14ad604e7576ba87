"""Seed inputs: valid arguments for any tool, from the catalog and from earlier outputs.

:class:`SeedSampler` draws inputs from (1) parameter examples and enums, (2) values harvested from
earlier successful outputs (same field name, or the same value kind), (3) remembered argument
sets that returned data (contexts). Values are split deterministically into a *train* and a
*held-out* partition (by hash), so precision can be re-measured on inputs verification never used.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import defaultdict
from typing import Any

from .bindings import edge_bindings, is_missing
from .control_params import is_control
from .groups import ParamGroup
from .record_order import record_categories
from .values import infer_kind


def split_of(tool: str, param: str, value: Any, holdout_share: float = 0.2) -> str:
    h = int(hashlib.sha1(f"{tool}|{param}|{value}".encode()).hexdigest()[:8], 16)
    return "holdout" if (h % 1000) < holdout_share * 1000 else "train"


# parameter kinds whose pools also draw on values harvested from fields of that kind
_KIND_POOLED = frozenset({"station_name", "dong_name", "sido_short", "sido_name", "legal_code", "lawd5", "kma_nx", "kma_ny",
                          "date", "yyyymm", "address"})


class SeedSampler:
    """Valid inputs for every tool: examples, enums and harvested output values."""

    def __init__(self, catalog: Any, seed: int = 0, harvest_cap: int = 400):
        self.catalog = catalog
        self.rng = random.Random(seed)
        self.harvest_cap = harvest_cap
        self.by_field: dict[str, list[str]] = defaultdict(list)  # lower field name -> values
        self.by_kind: dict[str, list[str]] = defaultdict(list)
        self._seen: set[tuple[str, str]] = set()
        self._harvested: dict[int, list] = {}  # id -> the answer's record list (harvest_answer)
        self._categories: dict[int, tuple[list, dict[str, int]]] = {}  # id -> (records, categories_of)
        self.param_kind: dict[tuple[str, str], str] = {}
        self._pool_cache: dict[tuple, list] = {}
        # ("field", lower name) / ("kind", kind) -> pool keys built from that list: a harvested
        # value invalidates only the pools that read its list
        self._pool_deps: dict[tuple[str, str], set[tuple]] = defaultdict(set)
        # (tool, param) -> lower-cased output field names that candidate edges bind into it
        self.link_sources: dict[tuple[str, str], set[str]] = defaultdict(set)
        # tool -> argument dicts that returned data (jointly consistent contexts for filling)
        self.contexts: dict[str, list[dict]] = defaultdict(list)
        self._ctx_seen: set[str] = set()
        # tool -> composite parameter groups (edge_synth.groups), set from the candidate graph
        self.groups: dict[str, list] = {}
        # tool -> optional parameters the platform needs in practice (KOSIS rejects a call without
        # a period: code 20), found by executing the documented example call (bootstrap.py)
        self.co_required: dict[str, list[str]] = {}
        self.sliced: set[str] = set()  # tools whose example slices were tried (bootstrap.example_slices)
        for ref in catalog:
            for p in ref.op.model_params:
                vals = [v for v in [p.example, *(p.enum or [])] if v is not None]
                self.param_kind[(ref.op.tool, p.name)] = infer_kind(p.name, f"{p.desc_ko} {p.desc_en}", vals)

    # -- contexts & graph-guided sources ----------------------------------------------------
    def add_context(self, tool: str, args: dict[str, Any], cap: int = 60, first: bool = False) -> None:
        """Remember an argument set that returned data for `tool` (`first`: a learned format,
        kept even when the list is full, replacing the newest ordinary one)."""
        key = tool + repr(sorted((k, str(v)) for k, v in args.items()))
        if key in self._ctx_seen or (len(self.contexts[tool]) >= cap and not first):
            return
        self._ctx_seen.add(key)
        if first:
            if len(self.contexts[tool]) >= cap:
                self.contexts[tool].pop()
            self.contexts[tool].insert(0, dict(args))
        else:
            self.contexts[tool].append(dict(args))

    def add_link_sources(self, graph) -> None:
        """Let values of fields that candidate edges bind (identity) seed the target parameter."""
        for a, b in graph.edges:
            for bnd in edge_bindings(graph, a, b):
                if bnd.transform == "identity" and not bnd.record_ref and bnd.prior >= 0.5:
                    self.link_sources[(b, bnd.to_param)].add(bnd.from_field.lower())
        self._pool_cache.clear()
        self._pool_deps.clear()

    def set_groups(self, graph) -> None:
        """Take the composite parameter groups the candidate graph derived for each tool."""
        self.groups = {t: [ParamGroup(x["kind"], frozenset(x["members"]), bool(x["required"]))
                           for x in d.get("groups", [])] for t, d in graph.nodes(data=True) if d.get("groups")}
        self._pool_cache.clear()
        self._pool_deps.clear()

    def shape_known(self, tool: str, param: str, value: Any) -> bool:
        """Some working input of `tool` had `param` in the shape of `value` (no contexts: unknown, so yes)."""
        ctxs = self.contexts.get(tool)
        return not ctxs or any(param in c and shape_of(c[param]) == shape_of(value) for c in ctxs)

    def format_params(self, tool: str) -> set[str]:
        return {m for grp in self.groups.get(tool, []) if grp.kind == "format" for m in grp.members}

    def _consistent_formats(self, tool: str, args: dict[str, Any], fixed: dict[str, Any], rng: random.Random) -> None:
        """Members of a format group not given in `fixed` are copied from one input set that
        worked with the same shapes as the fixed members (CYCLE 'D' -> 8-digit periods)."""
        for grp in self.groups.get(tool, []):
            if grp.kind != "format":
                continue
            given = [m for m in grp.members if fixed.get(m) is not None]
            if not given or len(given) == len(grp.members):
                continue
            ok = [c for c in self.contexts.get(tool, [])
                  if all(m in c and shape_of(c[m]) == shape_of(fixed[m]) for m in given)]
            if ok:
                c = rng.choice(ok)
                for m in grp.members:
                    if m not in given and m in c:
                        args[m] = c[m]

    # -- harvesting -------------------------------------------------------------------------
    def harvest_answer(self, tool: str, records: list[dict], field_kinds: dict[str, str] | None = None) -> None:
        """`harvest` of an executed answer's records (ToolResult.records: the executor memoises the
        result, and nothing changes its list). The same answer harvested again is skipped: every
        value it holds is in `_seen` already."""
        if self._harvested.get(id(records)) is records:
            return
        self._harvested[id(records)] = records  # kept, so the id is not reused by another list
        self.harvest(tool, records, field_kinds)

    def categories_of(self, records: list[dict]) -> dict[str, int]:
        """:func:`record_categories` of an executed answer's records, computed once per answer
        (ToolResult.records, memoised by the executor: the probes of every arm out of one answer
        share it; the list is kept so its id is not reused)."""
        hit = self._categories.get(id(records))
        if hit is None or hit[0] is not records:
            hit = self._categories[id(records)] = (records, record_categories(records))
        return hit[1]

    def harvest(self, tool: str, records: list[dict], field_kinds: dict[str, str] | None = None) -> None:
        for r in records[:100]:
            for k, v in r.items():
                if is_missing(v):
                    continue
                text = str(v).strip()
                if not text or len(text) > 60:
                    continue
                key = (k.lower(), text)
                if key in self._seen:
                    continue
                self._seen.add(key)
                lst = self.by_field[k.lower()]
                if len(lst) < self.harvest_cap:
                    lst.append(text)
                    self._invalidate(("field", k.lower()))
                kind = (field_kinds or {}).get(k)
                if kind and kind not in ("measure", "text", "grade", "id", "name"):
                    kl = self.by_kind[kind]
                    if len(kl) < self.harvest_cap:
                        kl.append(text)
                        self._invalidate(("kind", kind))

    def _invalidate(self, dep: tuple[str, str]) -> None:
        for key in self._pool_deps.pop(dep, ()):
            self._pool_cache.pop(key, None)

    # -- sampling ---------------------------------------------------------------------------
    def pool(self, tool: str, pname: str, split: str = "train") -> list[Any]:
        key = (tool, pname, split)
        hit = self._pool_cache.get(key)
        if hit is None:
            hit = self._pool_cache[key] = self._pool(tool, pname, split)
            for dep in self._pool_sources(tool, pname):
                self._pool_deps[dep].add(key)
        return hit

    def _pool_sources(self, tool: str, pname: str) -> list[tuple[str, str]]:
        """The harvested lists `_pool(tool, pname)` reads (keep in step with it)."""
        deps = [("field", pname.lower())] + [("field", src) for src in self.link_sources.get((tool, pname), ())]
        kind = self.param_kind.get((tool, pname))
        if kind in _KIND_POOLED:
            deps.append(("kind", kind))
        return deps

    def _pool(self, tool: str, pname: str, split: str = "train") -> list[Any]:
        ref = self.catalog.get(tool)
        p = ref.op.param(pname)
        out: list[Any] = []
        if p is not None:
            if p.enum:
                out.extend(p.enum)
            elif p.example is not None:
                out.append(p.example)
        out.extend(self.by_field.get(pname.lower(), []))
        for src in sorted(self.link_sources.get((tool, pname), ())):
            out.extend(self.by_field.get(src, [])[:100])
        kind = self.param_kind.get((tool, pname))
        # an address of any tool may be searched (most sandbox addresses are not in juso's or
        # VWorld's tables: those calls fail upstream, the ones that answer become contexts and
        # give address tools other inputs than their one documented example)
        if kind in _KIND_POOLED:
            out.extend(self.by_kind.get(kind, [])[:100])
        if p is not None and p.enum:
            out = [v for v in out if str(v) in p.enum]
        elif p is not None:
            # a period "in the cycle's format" has no fixed shape of its own
            shape_kind = None if pname in self.format_params(tool) else kind
            out = [v for v in out if value_fits(p, v, shape_kind)]
        seen, uniq = set(), []
        for v in out:
            if str(v) not in seen:
                seen.add(str(v))
                uniq.append(v)
        if split == "any" or (p is not None and p.enum):
            return uniq
        part = [v for v in uniq if split_of(tool, pname, v) == split]
        if not part and split == "train" and p is not None and p.example is not None:
            part = [p.example]  # the documented example is always a training input
        return part

    def value(self, tool: str, pname: str, split: str = "train", rng: random.Random | None = None) -> Any:
        pool = self.pool(tool, pname, split)
        if not pool:
            return None
        return (rng or self.rng).choice(pool)

    def required(self, tool: str) -> list[str]:
        op = self.catalog.get(tool).op
        return [p.name for p in op.model_params if p.required and p.default is None]

    def fill_params(self, tool: str) -> list[str]:
        """Parameters every call of `tool` fills: the required ones and the optional ones the
        platform was seen to need (`co_required`)."""
        req = self.required(tool)
        return req + [p for p in self.co_required.get(tool, ()) if p not in req]

    def example_call(self, tool: str) -> dict[str, Any] | None:
        """The documented example request: every model-facing, non-control parameter that has an
        example, taken together (the examples of one tool describe one consistent call)."""
        op = self.catalog.get(tool).op
        args = {p.name: p.example for p in op.model_params if p.example is not None and not is_control(p)}
        return args if all(n in args for n in self.required(tool)) else None

    def sample_args(self, tool: str, split: str = "train", rng: random.Random | None = None,
                    fixed: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """Inputs for `tool`: required params filled (None when one cannot be), `fixed` kept."""
        rng = rng or self.rng
        args = dict(fixed or {})
        op = self.catalog.get(tool).op
        ctx = self.context_for(tool, args, rng) if fixed else None
        if ctx:
            for name in self.fill_params(tool):
                if name not in args and name in ctx:
                    args[name] = ctx[name]
        for name in self.fill_params(tool):
            if name in args:
                continue
            v = self.value(tool, name, split, rng)
            if v is None:
                return None
            args[name] = v
        if fixed:
            self._consistent_formats(tool, args, fixed, rng)
        if not self.required(tool) and not fixed:
            # no required params: sometimes narrow with one optional filter
            opts = [p.name for p in op.model_params if not is_control(p) and p.example is not None]
            if opts and rng.random() < 0.5:
                name = rng.choice(opts)
                v = self.value(tool, name, split, rng)
                if v is not None:
                    args[name] = v
        return args

    def seed_args(self, tool: str, split: str, rng: random.Random) -> dict[str, Any] | None:
        """A seed input: often a remembered input that returned data (training inputs only)."""
        ctxs = self.contexts.get(tool) if split == "train" else None
        if ctxs and rng.random() < 0.7:
            return dict(rng.choice(ctxs))
        return self.sample_args(tool, split, rng)

    def context_for(self, tool: str, fixed: dict[str, Any], rng: random.Random) -> dict | None:
        """A remembered successful argument set of `tool` agreeing most with `fixed` (None: none)."""
        ctxs = self.contexts.get(tool)
        if not ctxs:
            return None
        want = [(k, str(v)) for k, v in fixed.items() if v is not None]
        scores = [sum(str(c.get(k)) == v for k, v in want) for c in ctxs]  # agreement, counted once
        best = max(scores)
        return rng.choice([c for c, n in zip(ctxs, scores) if n == best])

    def is_root(self, tool: str) -> bool:
        """Inputs can be filled from examples/enums alone (no earlier output needed)."""
        op = self.catalog.get(tool).op
        return all(p.example is not None or p.enum for p in op.model_params if p.required and p.default is None)


_SHAPE_KINDS = {"date", "yyyymm", "year", "month", "hhmm", "legal_code", "lawd5", "datetime", "kma_nx", "kma_ny"}


def shape_of(v: Any) -> str:
    """A value's shape: every digit written 9 ('20240101' -> '99999999')."""
    return re.sub(r"[0-9]", "9", str(v))


def value_fits(p, v: Any, kind: str | None = None) -> bool:
    """Does a harvested value fit parameter `p`: its pattern, its type, and (for formatted kinds)
    the shape of its documented example (e.g. 8 digits, not a dashed date)."""
    text = str(v).strip()
    if p.pattern and not re.fullmatch(p.pattern, text):
        return False
    if p.type == "integer" and not re.fullmatch(r"[+-]?\d{1,18}", text):
        return False
    if p.type == "number" and not re.fullmatch(r"[+-]?\d+(\.\d+)?", text):
        return False
    if p.maximum is not None or p.minimum is not None:
        try:
            x = float(text)
        except ValueError:
            return False
        if (p.maximum is not None and x > p.maximum) or (p.minimum is not None and x < p.minimum):
            return False
    if kind in _SHAPE_KINDS and p.example is not None and shape_of(text) != shape_of(p.example):
        return False
    return True


"""Seed-input sampling and single probe executions.

:class:`SeedSampler` produces valid inputs for any tool from (1) parameter examples and enums,
(2) values harvested from earlier successful outputs (same field name, or the same value kind).
Values are split deterministically into a *train* and a *held-out* partition (by hash), so
precision can be re-measured on inputs verification never used.

:func:`probe_link` executes one A -> B link: run A on sampled inputs, bind B's parameters from a
real A record through the binding transforms, fill B's other required params, run B, classify.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from kopa_bench.transforms import apply_transform

from .candidates import is_control
from .values import infer_kind

MISSING = {"", "-", "null", "None", None}
STRUCTURAL = {"argument", "platform", "no_service", "unknown_tool", "parse", "transform", "empty", "unbound"}
ENVIRONMENTAL = {"transient", "quota", "auth", "upstream_env"}


def _missing(v: Any) -> bool:
    return isinstance(v, (dict, list)) or v in MISSING


def _split_of(tool: str, param: str, value: Any, holdout_share: float = 0.2) -> str:
    h = int(hashlib.sha1(f"{tool}|{param}|{value}".encode()).hexdigest()[:8], 16)
    return "holdout" if (h % 1000) < holdout_share * 1000 else "train"


def classify(result) -> str:
    """success | empty | argument | platform | no_service | transient | quota | auth | ..."""
    if result.ok:
        return "success" if result.records else "empty"
    return result.error.type if result.error else "platform"


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
        self._gen = 0
        self._pool_cache: dict[tuple, list] = {}
        # ("field", lower name) / ("kind", kind) -> pool keys built from that list: a harvested
        # value invalidates only the pools that read its list (clearing every pool on each new
        # value rebuilt 9,331 pools in a 2 x 300-path verification)
        self._pool_deps: dict[tuple[str, str], set[tuple]] = defaultdict(set)
        # (tool, param) -> lower-cased output field names that candidate edges bind into it
        self.link_sources: dict[tuple[str, str], set[str]] = defaultdict(set)
        # tool -> argument dicts that returned data (jointly consistent contexts for filling)
        self.contexts: dict[str, list[dict]] = defaultdict(list)
        self._ctx_seen: set[str] = set()
        # tool -> composite parameter groups (edge_synth.groups), set from the candidate graph
        self.groups: dict[str, list] = {}
        # tool -> optional parameters the platform needs in practice (KOSIS rejects a call without
        # a period: code 20), found by executing the documented example call (see verify.py)
        self.co_required: dict[str, list[str]] = {}
        self.sliced: set[str] = set()  # tools whose example slices were tried (verify.example_slices)
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
        for a, b, d in graph.edges(data=True):
            for bnd in d.get("bindings", []):
                if bnd.get("transform") == "identity" and not bnd.get("record_ref") and bnd.get("prior", 0) >= 0.5:
                    self.link_sources[(b, bnd["to_param"])].add(bnd["from_field"].lower())
        self._pool_cache.clear()
        self._pool_deps.clear()

    def set_groups(self, graph) -> None:
        """Take the composite parameter groups the candidate graph derived for each tool."""
        from .groups import ParamGroup

        self.groups = {t: [ParamGroup(x["kind"], frozenset(x["members"]), bool(x["required"]))
                           for x in d.get("groups", [])] for t, d in graph.nodes(data=True) if d.get("groups")}
        self._pool_cache.clear()
        self._pool_deps.clear()

    def shape_known(self, tool: str, param: str, value: Any) -> bool:
        """Some working input of `tool` had `param` in the shape of `value` (no contexts: unknown, so yes)."""
        ctxs = self.contexts.get(tool)
        return not ctxs or any(param in c and _shape(c[param]) == _shape(value) for c in ctxs)

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
                  if all(m in c and _shape(c[m]) == _shape(fixed[m]) for m in given)]
            if ok:
                c = rng.choice(ok)
                for m in grp.members:
                    if m not in given and m in c:
                        args[m] = c[m]

    # -- harvesting -------------------------------------------------------------------------
    def harvest_answer(self, tool: str, records: list[dict], field_kinds: dict[str, str] | None = None) -> None:
        """`harvest` of an executed answer's records (ToolResult.records: the executor memoises the
        result, and nothing changes its list). The same answer harvested again adds nothing, every
        value it holds being in `_seen` already: 59% of verification's harvests are such repeats."""
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
                if isinstance(v, (dict, list)) or v in MISSING:
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
        part = [v for v in uniq if _split_of(tool, pname, v) == split]
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


def _shape(v: Any) -> str:
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
    if kind in _SHAPE_KINDS and p.example is not None and _shape(text) != _shape(p.example):
        return False
    return True


def source_value(binding: dict, record: dict) -> Any:
    """The raw value a binding reads: the record (coordinate transforms), the documented join of
    two fields ('lDongRegnCd+lDongSignguCd'), or one field."""
    if binding.get("record_ref"):
        return record
    parts = binding.get("parts")
    if parts:
        vals = [record.get(x) for x in parts]
        return None if any(_missing(v) for v in vals) else "".join(str(v).strip() for v in vals)
    return record.get(binding["from_field"])


def has_source(binding: dict, record: dict) -> bool:
    return bool(binding.get("record_ref")) or not _missing(source_value(binding, record))


def bind_value(binding: dict, record: dict) -> Any:
    """The value a binding passes to B, from one record of A (raises ValueError if it cannot)."""
    src = source_value(binding, record)
    if not binding.get("record_ref") and _missing(src):
        raise ValueError(f"{binding['from_field']} is missing")
    out = apply_transform(binding["transform"], src, **(binding.get("transform_args") or {}))
    if isinstance(out, float) and out.is_integer():
        out = int(out)
    if out is None or isinstance(out, (dict, list, tuple)):
        raise ValueError(f"transform {binding['transform']} gave {out!r}")
    return out


@dataclass
class LinkProbe:
    src: str
    dst: str
    bindings: list[dict]
    outcome: str = ""
    a_args: dict = field(default_factory=dict)
    b_args: dict = field(default_factory=dict)
    b_records: list[dict] = field(default_factory=list)
    detail: str = ""
    sensitive: bool | None = None  # None: not tested / untestable
    echoed: bool = False
    passthrough: bool = False  # the bound value is one of A's own arguments (nothing A returned)
    records_tried: int = 0  # records of A's answer bound into B (record_tries)


async def run_seed(executor, sampler: SeedSampler, tool: str, split: str, rng: random.Random):
    ctxs = sampler.contexts.get(tool) if split == "train" else None
    if ctxs and rng.random() < 0.7:
        args = dict(rng.choice(ctxs))  # an input set known to return data (training inputs only)
    else:
        args = sampler.sample_args(tool, split, rng)
    if args is None:
        return None, None
    res = await executor.call(tool, args)
    if res.ok and res.records:
        sampler.add_context(tool, args)
    return args, res


def _norm_value(v: Any) -> str:
    """A value as compared across tools: digit strings without leading zeros (a month "05"
    handed back to a calendar that was asked for solMonth=5 is the same month)."""
    t = str(v).strip()
    return (t.lstrip("0") or "0") if t.isdigit() else t


def _records_key(records: list[dict]) -> str:
    import json

    return json.dumps(records[:50], sort_keys=True, ensure_ascii=False, default=str)


def _echoes(value: Any, records: list[dict]) -> bool:
    """Does B's output carry the bound value (the value was used, not ignored)?"""
    text = str(value).strip()
    if len(text) < 2:
        return False
    for r in records[:50]:
        for v in r.values():
            if v is not None and not isinstance(v, (dict, list)) and str(v).strip() == text:
                return True
    return False


def inherited_args(sampler: SeedSampler, dst: str, a_args: dict[str, Any], bound: dict[str, Any]) -> dict[str, Any]:
    """B's required parameters that A was called with under the same name (TAGO cityCode, NEIS
    ATPT_OFCDC_SC_CODE): the shared context of both calls, passed through unchanged."""
    if not a_args:
        return {}
    by_lower = {k.lower(): v for k, v in a_args.items()}
    out = {}
    op = sampler.catalog.get(dst).op
    for name in sampler.required(dst):
        if name in bound or name.lower() not in by_lower:
            continue
        v = by_lower[name.lower()]
        p = op.param(name)
        if v is not None and not isinstance(v, (dict, list)) and (p is None or value_fits(p, v)):
            out[name] = v
    return out


async def probe_link(executor, sampler: SeedSampler, src: str, dst: str, bindings: list[dict],
                     rng: random.Random, split: str = "train", a_result=None, a_args=None,
                     baseline: dict[str, bool] | None = None, sensitivity: bool = False,
                     soft_companions: bool = False, mandatory: set[str] | None = None,
                     keep: set[str] | None = None, record_tries: int = 1) -> LinkProbe:
    """Execute A (unless its result is given), bind, execute B; classify the link outcome.

    `bindings[0]` is the binding under test; the others are companions bound from the same record
    (e.g. the second half of a composite key). B's required parameters that A was called with
    under the same name pass through; B's other required parameters come from a remembered
    successful argument set of B that agrees most with the bound values, else from the sampler.
    With `soft_companions` (verification), a companion that cannot be bound from the record is
    left out, and one whose parameter the sampler can fill is left out half of the time, so a
    wrong companion (an adoption date bound into DEAL_YMD) does not sink the binding under test.
    Companions into `mandatory` parameters (the rest of a composite key or coordinate pair, see
    :mod:`edge_synth.groups`) are always bound from the same record; companions into `keep`
    (the rest of a format group: CYCLE with its periods) are never left out when they bind.
    With `sensitivity`, a success is re-run with the tested binding fed a *different* value (from
    another A record, else from another execution's value of the same field): identical B output
    means B ignores the value (`sensitive=False`).
    With `record_tries` > 1, an empty B answer is retried with up to that many records of A's
    answer whose tested value differs; the first non-empty outcome stands.
    """
    pr = LinkProbe(src, dst, bindings)
    if a_result is None:
        a_args, a_result = await run_seed(executor, sampler, src, split, rng)
        if a_result is None:
            pr.outcome, pr.detail = "upstream_unfillable", "no inputs for A"
            return pr
    pr.a_args = a_args or {}
    a_kind = classify(a_result)
    if a_kind in ENVIRONMENTAL:
        pr.outcome = "upstream_env"
        return pr
    if a_kind != "success":
        pr.outcome, pr.detail = "upstream_" + a_kind, ""
        return pr
    mandatory = set(mandatory or ())
    need = [b for i, b in enumerate(bindings) if i == 0 or not soft_companions or b["to_param"] in mandatory]
    recs = [r for r in a_result.records if all(has_source(b, r) for b in need)]
    if not recs:
        pr.outcome, pr.detail = "transform", "no record carries the source fields"
        return pr
    first = recs[0] if rng.random() < 0.5 else rng.choice(recs)
    tried: set[str] = set()
    used: list[dict] = []
    order: RetryOrder | None = None  # built on the first retry
    rec = first
    while rec is not None and len(tried) < max(1, record_tries):
        used.append(rec)
        try:
            value = bind_value(bindings[0], rec)
        except (ValueError, KeyError, TypeError) as exc:
            if not tried:
                pr.outcome, pr.detail = "transform", str(exc)[:200]
                return pr
            value = None
        if value is not None and str(value) not in tried:  # the same value again: the same B call
            tried.add(str(value))
            await _bind_and_call(pr, executor, sampler, dst, bindings, rec, value, recs, rng, split, baseline,
                                 sensitivity, soft_companions, mandatory, keep)
            if pr.outcome != "empty":
                break
        # an empty answer for one record of a mixed list (a category row of a table list, a
        # withdrawn bill with no vote, a primary school for a high-school timetable) does not
        # show the link is wrong: another record of the same answer is tried (`record_tries`),
        # the one most unlike the records tried so far
        if record_tries > 1 and order is None:
            # every record carries the source fields (the usual case): recs is the answer itself
            same = len(recs) == len(a_result.records)
            order = RetryOrder(recs, cats=sampler.categories_of(a_result.records) if same else None)
        rec = order.next(used, rng) if record_tries > 1 else None
    pr.records_tried = len(tried)
    return pr


PERIOD_KINDS = frozenset({"date", "yyyymm", "year", "month"})
_START_RE = re.compile(r"start|begin|from|시작", re.I)


def period_shapes(start: Any, end: Any) -> list[tuple[str, str]]:
    """The years of a (start, end) period written in the formats statistics APIs use for a cycle:
    year, half, quarter, month, day (ECOS: A 2024, S 2024S1, Q 2024Q1, M 202401, D 20240101)."""
    y0, y1 = str(start)[:4], str(end)[:4]
    if not (y0.isdigit() and y1.isdigit()):
        return []
    return [(y0, y1), (y0 + "S1", y1 + "S2"), (y0 + "Q1", y1 + "Q4"), (y0 + "01", y1 + "12"), (y0 + "0101", y1 + "1231")]


async def learn_format(executor, sampler: SeedSampler, dst: str, args: dict[str, Any], rng: random.Random) -> bool:
    """B's format anchor (ECOS CYCLE 'D') is given a value no working input of B had, so no
    remembered input has periods in its format: try the periods in each format of
    :func:`period_shapes` (at most five calls, memoised) until B answers; the working input
    becomes a context, so later calls with that anchor get consistent periods. True if found."""
    for grp in sampler.groups.get(dst, []):
        if grp.kind != "format":
            continue
        periods = sorted(m for m in grp.members if sampler.param_kind.get((dst, m)) in PERIOD_KINDS)
        anchors = [m for m in grp.members if m not in periods]
        starts = [m for m in periods if _START_RE.search(m)]
        ends = [m for m in periods if m not in starts]
        if len(starts) != 1 or len(ends) != 1 or not any(a in args for a in anchors):
            continue
        base = sampler.sample_args(dst, "any", rng, fixed={k: v for k, v in args.items() if k not in periods})
        if base is None:
            return False
        for s0, e0 in period_shapes(base.get(starts[0]), base.get(ends[0])):
            trial = {**base, starts[0]: s0, ends[0]: e0}
            res = await executor.call(dst, trial)
            if res.ok and res.records:
                sampler.add_context(dst, trial, first=True)
                return True
    return False


COVERAGE_KM = 10.0


def outside_coverage(sampler: SeedSampler, dst: str, args: dict[str, Any], tested: str, km: float = COVERAGE_KM) -> bool:
    """Is the point bound into B's coordinate parameters farther than `km` from every point B
    answered before (its remembered working inputs)? A city bus service lists stops in the cities
    it covers: a tourist spot elsewhere gets an empty answer that says nothing about the binding
    (TourAPI mapx/mapy -> TAGO gpsLong/gpsLati). Needs 3 known points; False when unsure."""
    from kopa_bench.geo import haversine_km

    lat_p = [p for p in args if sampler.param_kind.get((dst, p)) == "lat"]
    lon_p = [p for p in args if sampler.param_kind.get((dst, p)) == "lon"]
    if not lat_p or not lon_p or tested not in (lat_p[0], lon_p[0]):
        return False
    pts = []
    for c in sampler.contexts.get(dst, []):
        try:
            pts.append((float(c[lat_p[0]]), float(c[lon_p[0]])))
        except (KeyError, TypeError, ValueError):
            continue
    if len(pts) < 3:
        return False
    try:
        lat, lon = float(args[lat_p[0]]), float(args[lon_p[0]])
    except (TypeError, ValueError):
        return False
    return min(haversine_km(lat, lon, a, b) for a, b in pts) > km


def record_categories(recs: list[dict], sample: int = 100) -> dict[str, int]:
    """Categorical fields of an answer (2 to a third of the records' count distinct values: a
    school kind, a bill's result, a table's searchable flag) -> their number of values, read from
    at most `sample` records. Computed once per answer (verification profile: recomputing it for
    every retry was 70% of EDGE's CPU)."""
    head = recs[:sample]
    cats: dict[str, int] = {}
    for f in sorted({k for r in head for k in r}):
        vals = {str(v) for v in (r.get(f) for r in head) if not isinstance(v, (dict, list))}
        if 2 <= len(vals) <= max(2, len(head) // 3):
            cats[f] = len(vals)
    return cats


class RetryOrder:
    """The order in which records of one answer of A are retried (:func:`next_record`), with the
    work shared across the retries of that answer: the categorical fields, the values the tried
    records had, the untried records' positions, and each scored record's values as text and
    novelty score. A score is recomputed only when a tried record brings a value that record has
    (most retries bring none: a verification calls this ~190,000 times, mostly for records whose
    tested value was tried already). Recomputing all of it for every retry was the largest share
    of EDGE's own CPU."""

    def __init__(self, recs: list[dict], sample: int = 100, cats: dict[str, int] | None = None):
        self.recs = recs
        self.sample = sample
        self.cats = record_categories(recs, sample) if cats is None else cats
        self.fields = list(self.cats)
        self.weights = [1.0 / self.cats[f] for f in self.fields]
        self.seen: list[set[str]] = [set() for _ in self.fields]
        self.left = list(range(len(recs)))  # positions of the untried records, in answer order
        self.where: dict[int, list[int]] | None = None  # id(record) -> its positions; built on first use
        self.texts: list[tuple[str, ...] | None] = [None] * len(recs)
        self.scores: list[float | None] = [None] * len(recs)  # novelty of the records scored so far
        self.holders: dict[tuple[int, str], list[int]] = {}  # (field, value) -> scored positions with it
        self.absorbed = 0

    def _novelty(self, texts: tuple[str, ...]) -> float:
        return sum(w for w, v, seen in zip(self.weights, texts, self.seen) if v not in seen)

    def _score(self, i: int) -> None:
        r = self.recs[i]
        texts = self.texts[i] = tuple(map(str, map(r.get, self.fields)))
        for k in enumerate(texts):
            self.holders.setdefault(k, []).append(i)
        self.scores[i] = self._novelty(texts)

    def _absorb(self, new: list[dict]) -> None:
        """Take in the records tried since the last call: they leave `left`; a value no tried
        record had before lowers the score of the scored records that have it."""
        if self.where is None:
            where = {id(r): [i] for i, r in enumerate(self.recs)}
            if len(where) < len(self.recs):  # one record object at several positions: keep them all
                where = {}
                for i, r in enumerate(self.recs):
                    where.setdefault(id(r), []).append(i)
            self.where = where
        stale: set[int] = set()
        for u in new:
            for i in self.where.pop(id(u), ()):
                self.left.remove(i)
            for k, (f, seen) in enumerate(zip(self.fields, self.seen)):
                v = str(u.get(f))
                if v not in seen:
                    seen.add(v)
                    stale.update(self.holders.pop((k, v), ()))  # seen for good: later scores see it
        for i in stale:
            self.scores[i] = self._novelty(self.texts[i])

    def next(self, used: list[dict], rng: random.Random) -> dict | None:
        if len(used) > self.absorbed:  # `used` only grows
            self._absorb(used[self.absorbed:])
            self.absorbed = len(used)
        if not self.left:
            return None
        # sampling positions instead of records draws the same random numbers (random.sample
        # reads only the population's length) and lets max() read scores without a Python key
        pick = rng.sample(self.left, min(len(self.left), self.sample))
        scores = self.scores
        for i in pick:
            if scores[i] is None:
                self._score(i)
        return self.recs[max(pick, key=scores.__getitem__)]  # the first of the highest novelty


def next_record(recs: list[dict], used: list[dict], rng: random.Random, sample: int = 100,
                cats: dict[str, int] | None = None) -> dict | None:
    """The untried record of A's answer most unlike the tried ones: each categorical field
    (:func:`record_categories`) whose value no tried record had counts 1 / (its number of values),
    so the next try changes the category most likely to decide whether B has data. Candidates
    are at most `sample` untried records (a probe must stay cheap). Retries of one answer share
    a :class:`RetryOrder` instead."""
    return RetryOrder(recs, sample, cats).next(used, rng)


async def _bind_and_call(pr: LinkProbe, executor, sampler: SeedSampler, dst: str, bindings: list[dict], rec: dict,
                         value: Any, recs: list[dict], rng: random.Random, split: str, baseline, sensitivity: bool,
                         soft_companions: bool, mandatory: set[str], keep: set[str] | None) -> None:
    """Bind B's parameters from one record of A (the tested value already computed), fill the
    rest, execute B and classify into `pr`."""
    pr.b_args, pr.b_records, pr.sensitive, pr.echoed, pr.passthrough, pr.detail = {}, [], None, False, False, ""
    args: dict[str, Any] = {bindings[0]["to_param"]: value}
    inherited = inherited_args(sampler, dst, pr.a_args, args)
    for b in bindings[1:]:
        if b["to_param"] in inherited and b["from_field"].lower() != b["to_param"].lower():
            continue  # A's own argument of that name beats a differently named field
        must = b["to_param"] in mandatory
        if soft_companions and not must and b["to_param"] not in (keep or ()) \
                and sampler.pool(dst, b["to_param"], "any") and rng.random() < 0.5:
            continue
        try:
            v = bind_value(b, rec)
        except (ValueError, KeyError, TypeError) as exc:
            if not soft_companions or must:
                pr.outcome, pr.detail = "transform", str(exc)[:200]
                return
            continue
        if b["to_param"] in sampler.format_params(dst) and not sampler.shape_known(dst, b["to_param"], v) \
                and not await learn_format(executor, sampler, dst, {**args, b["to_param"]: v}, rng) \
                and soft_companions and not must:
            # a format-group member (ECOS CYCLE 'A') in a shape no working input of B had, and no
            # period format found for it: its partners (the periods) could only come in another
            # shape (ERROR-101); the group is left to one consistent working input instead
            continue
        args[b["to_param"]] = v
    args.update({k: v for k, v in inherited.items() if k not in args})
    main_p = bindings[0]["to_param"]
    if main_p in sampler.format_params(dst) and not sampler.shape_known(dst, main_p, args[main_p]):
        await learn_format(executor, sampler, dst, args, rng)  # the tested value itself: a cycle never seen
    half = sorted(m for m in mandatory if m not in args)
    if half:
        # the rest of the key would come from unrelated context: not this record's entity
        pr.outcome, pr.detail = "unbound", f"composite key members {half} not bound from A's record"
        return
    filled = sampler.sample_args(dst, split if split != "holdout" else "any", rng, fixed=args)
    if filled is None:
        pr.outcome, pr.detail = "unbound", "a required parameter of B cannot be filled"
        return
    pr.b_args = filled
    res = await executor.call(dst, filled)
    kind = classify(res)
    if kind == "success":
        pr.b_records = res.records
        sampler.add_context(dst, filled)
        main = bindings[0]
        pr.echoed = _echoes(args[main["to_param"]], res.records)
        pr.passthrough = _norm_value(args[main["to_param"]]) in {_norm_value(v) for v in pr.a_args.values()}
        if sensitivity:
            pr.sensitive = await _sensitivity(executor, dst, main, recs, rec, args, filled, res, rng, sampler)
    elif kind == "empty" and baseline is not None and not baseline.get(dst, True) and not sampler.contexts.get(dst):
        # B returned nothing on its own examples and on every input tried so far: the empty
        # answer says nothing about this binding. Once B has answered some input, it does.
        kind = "empty_uninformative"
    elif kind == "empty" and outside_coverage(sampler, dst, filled, bindings[0]["to_param"]):
        kind = "empty_uninformative"
    pr.outcome = kind
    pr.detail = (res.error.message[:200] if res.error else "")


async def _sensitivity(executor, dst: str, main: dict, recs: list[dict], rec: dict, args: dict, filled: dict,
                       first, rng: random.Random, sampler: SeedSampler | None = None) -> bool | None:
    """Counterfactual: bind the tested parameter from another record with a different value; when
    A returned a single record (a detail lookup), from the same field of another A execution."""
    p = main["to_param"]
    others = []
    for r in recs:
        if r is rec:
            continue
        try:
            v = bind_value(main, r)
        except (ValueError, KeyError, TypeError):
            continue
        if str(v) != str(args[p]):
            others.append(v)
    if not others and sampler is not None and not main.get("record_ref"):
        for raw in sampler.by_field.get(main["from_field"].lower(), [])[:50]:
            try:
                v = bind_value(main, {main["from_field"]: raw})
            except (ValueError, KeyError, TypeError):
                continue
            if str(v) != str(args[p]):
                others.append(v)
    if not others:
        return None
    alt = dict(filled)
    alt[p] = others[0] if rng.random() < 0.5 else rng.choice(others)
    res2 = await executor.call(dst, alt)
    k2 = classify(res2)
    if k2 in ENVIRONMENTAL:
        return None
    if k2 != "success":
        return True  # the value decides whether B answers at all
    # the same first page with another total (a date lower bound: festivals from the 1st vs
    # from the 25th, sorted by title) still shows the value filtered B's answer
    if first.total_count is not None and res2.total_count is not None and first.total_count != res2.total_count:
        return True
    return _records_key(res2.records) != _records_key(first.records)

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


def _split_of(tool: str, param: str, value: Any, holdout_share: float = 0.2) -> str:
    h = int(hashlib.sha1(f"{tool}|{param}|{value}".encode()).hexdigest()[:8], 16)
    return "holdout" if (h % 1000) < holdout_share * 1000 else "train"


def classify(result) -> str:
    """success | empty | argument | platform | no_service | transient | quota | auth | ..."""
    if result.ok:
        return "success" if result.records else "empty"
    return result.error.type if result.error else "platform"


class SeedSampler:
    """Valid inputs for every tool: examples, enums and harvested output values."""

    def __init__(self, catalog: Any, seed: int = 0, harvest_cap: int = 400):
        self.catalog = catalog
        self.rng = random.Random(seed)
        self.harvest_cap = harvest_cap
        self.by_field: dict[str, list[str]] = defaultdict(list)  # lower field name -> values
        self.by_kind: dict[str, list[str]] = defaultdict(list)
        self._seen: set[tuple[str, str]] = set()
        self.param_kind: dict[tuple[str, str], str] = {}
        self._gen = 0
        self._pool_cache: dict[tuple, list] = {}
        for ref in catalog:
            for p in ref.op.model_params:
                vals = [v for v in [p.example, *(p.enum or [])] if v is not None]
                self.param_kind[(ref.op.tool, p.name)] = infer_kind(p.name, f"{p.desc_ko} {p.desc_en}", vals)

    # -- harvesting -------------------------------------------------------------------------
    def harvest(self, tool: str, records: list[dict], field_kinds: dict[str, str] | None = None) -> None:
        for r in records[:100]:
            for k, v in r.items():
                if v in MISSING or isinstance(v, (dict, list)):
                    continue
                text = str(v).strip()
                if not text or len(text) > 60:
                    continue
                key = (k.lower(), text)
                if key in self._seen:
                    continue
                self._seen.add(key)
                self._pool_cache.clear()
                lst = self.by_field[k.lower()]
                if len(lst) < self.harvest_cap:
                    lst.append(text)
                kind = (field_kinds or {}).get(k)
                if kind and kind not in ("measure", "text", "grade", "id", "name"):
                    kl = self.by_kind[kind]
                    if len(kl) < self.harvest_cap:
                        kl.append(text)

    # -- sampling ---------------------------------------------------------------------------
    def pool(self, tool: str, pname: str, split: str = "train") -> list[Any]:
        key = (tool, pname, split)
        hit = self._pool_cache.get(key)
        if hit is None:
            hit = self._pool_cache[key] = self._pool(tool, pname, split)
        return hit

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
        kind = self.param_kind.get((tool, pname))
        if kind in ("station_name", "dong_name", "sido_short", "sido_name", "legal_code", "lawd5", "kma_nx", "kma_ny",
                    "date", "yyyymm"):
            out.extend(self.by_kind.get(kind, [])[:100])
        if p is not None and p.enum:
            out = [v for v in out if str(v) in p.enum]
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

    def sample_args(self, tool: str, split: str = "train", rng: random.Random | None = None,
                    fixed: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """Inputs for `tool`: required params filled (None when one cannot be), `fixed` kept."""
        rng = rng or self.rng
        args = dict(fixed or {})
        op = self.catalog.get(tool).op
        for name in self.required(tool):
            if name in args:
                continue
            v = self.value(tool, name, split, rng)
            if v is None:
                return None
            args[name] = v
        if not self.required(tool) and not fixed:
            # no required params: sometimes narrow with one optional filter
            opts = [p.name for p in op.model_params if not is_control(p) and p.example is not None]
            if opts and rng.random() < 0.5:
                name = rng.choice(opts)
                v = self.value(tool, name, split, rng)
                if v is not None:
                    args[name] = v
        return args

    def is_root(self, tool: str) -> bool:
        """Inputs can be filled from examples/enums alone (no earlier output needed)."""
        op = self.catalog.get(tool).op
        return all(p.example is not None or p.enum for p in op.model_params if p.required and p.default is None)


def bind_value(binding: dict, record: dict) -> Any:
    """The value a binding passes to B, from one record of A (raises ValueError if it cannot)."""
    src = record if binding.get("record_ref") else record.get(binding["from_field"])
    if not binding.get("record_ref") and (src in MISSING):
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


async def run_seed(executor, sampler: SeedSampler, tool: str, split: str, rng: random.Random):
    args = sampler.sample_args(tool, split, rng)
    if args is None:
        return None, None
    res = await executor.call(tool, args)
    return args, res


async def probe_link(executor, sampler: SeedSampler, src: str, dst: str, bindings: list[dict],
                     rng: random.Random, split: str = "train", a_result=None, a_args=None,
                     baseline: dict[str, bool] | None = None) -> LinkProbe:
    """Execute A (unless its result is given), bind, execute B; classify the link outcome."""
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
    recs = [r for r in a_result.records
            if all(b.get("record_ref") or r.get(b["from_field"]) not in MISSING for b in bindings)]
    if not recs:
        pr.outcome, pr.detail = "transform", "no record carries the source fields"
        return pr
    rec = recs[0] if rng.random() < 0.5 else rng.choice(recs)
    args: dict[str, Any] = {}
    try:
        for b in bindings:
            args[b["to_param"]] = bind_value(b, rec)
    except (ValueError, KeyError, TypeError) as exc:
        pr.outcome, pr.detail = "transform", str(exc)[:200]
        return pr
    filled = sampler.sample_args(dst, split if split != "holdout" else "any", rng, fixed=args)
    if filled is None:
        pr.outcome, pr.detail = "unbound", "a required parameter of B cannot be filled"
        return pr
    pr.b_args = filled
    res = await executor.call(dst, filled)
    kind = classify(res)
    if kind == "success":
        pr.b_records = res.records
    elif kind == "empty" and baseline is not None and not baseline.get(dst, True):
        kind = "empty_uninformative"  # B returns nothing even on its own examples
    pr.outcome = kind
    pr.detail = (res.error.message[:200] if res.error else "")
    return pr

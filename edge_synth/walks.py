"""Walk primitives over the verified graph: steps with references built from verified bindings."""

from __future__ import annotations

import random
from typing import Any

import networkx as nx

from .bindings import Binding, edge_bindings, posterior_of
from .seeds import SeedSampler


def ref_expr(step_id: str, binding: Binding, selector: str = "items[0]") -> Any:
    """A gold-program argument reading `binding` from step `step_id` (with its transform)."""
    base = f"${step_id}.{selector}"
    if binding.record_ref:
        return {"$ref": base, "transform": binding.transform, **({"args": binding.transform_args} if binding.transform_args else {})}
    if binding.parts:
        # a documented join of two fields of one record (lDongRegnCd + lDongSignguCd = LAWD_CD)
        # (candidates only propose it unchanged: a template has no transform)
        return "".join("{" + f"{base}.{x}" + "}" for x in binding.parts)
    path = f"{base}.{binding.from_field}"
    if binding.transform == "identity":
        return path
    out: dict[str, Any] = {"$ref": path, "transform": binding.transform}
    if binding.transform_args:
        out["args"] = dict(binding.transform_args)
    return out


def best_bindings(vg: nx.DiGraph, a: str, b: str) -> list[Binding]:
    """One verified binding per target parameter (highest posterior)."""
    best: dict[str, Binding] = {}
    for bnd in edge_bindings(vg, a, b):
        p = bnd.to_param
        if p not in best or posterior_of(bnd) > posterior_of(best[p]):
            best[p] = bnd
    return list(best.values())


def step_args(sampler: SeedSampler, tool: str, bound: dict[str, Any], rng: random.Random, split: str = "any") -> dict | None:
    """Arguments for a step: bound references plus sampled literals for the other required params."""
    literal = sampler.sample_args(tool, split, rng, fixed={k: None for k in bound})
    if literal is None:
        return None
    args = {k: v for k, v in literal.items() if k not in bound}
    args.update(bound)
    return args


def successors(vg: nx.DiGraph, node: str, exclude: set[str] = frozenset()) -> list[str]:
    """Tools `node` feeds through verified bindings (selection-only edges bind no argument)."""
    return sorted(s for s in vg.successors(node) if s not in exclude and s != node and vg.edges[node, s].get("bindings"))


def weighted_choice(rng: random.Random, items: list[str], weights: list[float]) -> str:
    return rng.choices(items, weights=weights, k=1)[0]


def random_path(vg: nx.DiGraph, rng: random.Random, start: str, length: int) -> list[str]:
    path = [start]
    while len(path) < length:
        nxt = successors(vg, path[-1], set(path))
        if not nxt:
            break
        w = [vg.edges[path[-1], n].get("posterior", 0.5) for n in nxt]
        path.append(weighted_choice(rng, nxt, w))
    return path


# field kinds a request asks about by name: measurements, grades, names, dates, addresses
ASKABLE_KINDS = frozenset({"measure", "grade", "name", "station_name", "text", "date", "address"})


def answer_fields(vg: nx.DiGraph, tool: str, record: dict, k: int = 2, rng: random.Random | None = None) -> list[str]:
    """Informative fields of a record to ask about: measurements and names with values."""
    kinds = vg.nodes[tool].get("field_kinds", {})
    good = [f for f, v in record.items() if v not in (None, "", "-") and not isinstance(v, (dict, list))
            and len(str(v)) <= 40]
    pref = [f for f in good if kinds.get(f) in ASKABLE_KINDS]
    pool = pref or good
    if rng is not None:
        pool = sorted(pool)
        rng.shuffle(pool)
    return pool[:k]

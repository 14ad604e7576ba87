"""Composite parameter groups: parameters of one tool that only mean something together.

Derived from the catalog (parameter kinds, required flags, enums, descriptions, and which output
fields other tools return side by side), never from the reference links:

* ``coord``  — a coordinate pair of one point (lat/lon, KMA nx/ny, TM x/y, UTM-K x/y);
* ``key``    — the codes that identify one entity together: B's required, free-valued id
  parameters (NEIS office + school code, TAGO cityCode + routeId), extended by other required
  parameters that some *other* tool returns next to them (juso building number + 지하여부,
  the bill's AGE next to BILL_ID);
* ``format`` — parameters whose description says they are written in another parameter's
  format (ECOS START_TIME/END_TIME "in the cycle's format" -> CYCLE).

``coord`` and ``key`` groups are *joint*: a value bound into one member from A's record must come
with the other members from the same record (or from A's own arguments of the same name — the
same producer call). Half a key (the latitude of a stop with some other place's longitude, the
office code of one school with another school's code) executes but names no real entity.
``format`` groups are *consistent*: members not bound from the record are filled from an input
set that worked with the same shapes (a daily CYCLE with 8-digit periods).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from .control_params import is_control
from .values import TEMPORAL_KINDS, infer_kind

COORD_PAIRS = (("lat", "lon"), ("kma_nx", "kma_ny"), ("tm_x", "tm_y"), ("utmk_x", "utmk_y"))
KEY_KINDS = frozenset({"id", "tago_city", "tour_area", "tour_sigungu"})  # platform code systems are ids
JOINT = ("coord", "key")


@dataclass(frozen=True)
class ParamGroup:
    kind: str  # coord | key | format
    members: frozenset[str]
    required: bool  # every member is a required parameter

    @property
    def joint(self) -> bool:
        return self.kind in JOINT


def norm(name: str) -> str:
    """Field/parameter names compared across tools: case and underscores ignored (ORG_ID ~ orgId)."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _required(p) -> bool:
    return bool(p.required and p.default is None)


def _format_anchor(p) -> str | None:
    """The word naming the parameter whose format `p` is written in ('주기', 'cycle'), if any."""
    m = re.search(r"in the (\w+)'s format", p.desc_en or "", re.I) or re.search(r"\((\S+) 형식\)", p.desc_ko or "")
    return m.group(1).lower() if m else None


def derive_groups(catalog: Any, field_names: dict[str, Iterable[str]] | None = None,
                  param_kinds: dict[str, dict[str, str]] | None = None) -> dict[str, list[ParamGroup]]:
    """tool -> its composite parameter groups.

    `field_names` (tool -> output field names, declared or observed) tells which parameters other
    tools return together; `param_kinds` (tool -> param -> kind) overrides the kinds inferred here."""
    fields = {t: {norm(f) for f in fs} for t, fs in (field_names or {}).items()}
    for ref in catalog:
        fields.setdefault(ref.op.tool, set()).update(norm(f.name) for f in ref.op.fields)
    out: dict[str, list[ParamGroup]] = {}
    for ref in catalog:
        op, tool = ref.op, ref.op.tool
        params = [p for p in op.model_params if not is_control(p)]
        kinds = dict((param_kinds or {}).get(tool) or {})
        for p in params:
            if p.name not in kinds:
                vals = [v for v in [p.example, *(p.enum or [])] if v is not None]
                kinds[p.name] = infer_kind(p.name, f"{p.desc_ko} {p.desc_en}", vals)
        groups: list[ParamGroup] = []
        by_kind: dict[str, list] = {}
        for p in params:
            by_kind.setdefault(kinds[p.name], []).append(p)
        for ka, kb in COORD_PAIRS:
            if len(by_kind.get(ka, [])) == 1 and len(by_kind.get(kb, [])) == 1:
                pa, pb = by_kind[ka][0], by_kind[kb][0]
                groups.append(ParamGroup("coord", frozenset({pa.name, pb.name}), _required(pa) and _required(pb)))
        req = [p for p in params if _required(p) and not p.enum and kinds[p.name] not in TEMPORAL_KINDS]
        key = {p.name for p in req if kinds[p.name] in KEY_KINDS}
        if key:
            others = [t for t in fields if t != tool]
            for p in req:
                if p.name in key:
                    continue
                # another tool returns this parameter next to a key member: part of the same key
                if any(norm(p.name) in fields[t] and any(norm(k) in fields[t] for k in key) for t in others):
                    key.add(p.name)
        if len(key) >= 2:
            groups.append(ParamGroup("key", frozenset(key), True))
        anchors = {}
        for p in params:
            word = _format_anchor(p)
            if word:
                anchors.setdefault(word, []).append(p)
        for word, deps in anchors.items():
            heads = [q for q in params if q not in deps and ((q.desc_ko or "").lower().startswith(word)
                                                              or (q.desc_en or "").lower().startswith(word))]
            if len(heads) == 1:
                members = {heads[0].name, *(d.name for d in deps)}
                groups.append(ParamGroup("format", frozenset(members),
                                         all(_required(p) for p in params if p.name in members)))
        if groups:
            out[tool] = groups
    return out


def half_bound(groups: list[ParamGroup], bound: set[str], inherited: set[str]) -> set[str]:
    """Members of the joint groups `bound` touches without binding (or inheriting) them whole:
    half a key names no entity, so bindings into them are dropped."""
    return {m for g in groups if g.joint and g.members & bound and g.members - bound - inherited for m in g.members}


def carried_keys(groups: dict[str, list[ParamGroup]], dst: str, src_fields: Iterable[str]) -> list[ParamGroup]:
    """B's required joint groups that A's records carry whole (A names the same entity): a link
    A->B must then bind that key from A, or B answers about another entity than A's record."""
    names = {norm(f) for f in src_fields}
    out = []
    for g in groups.get(dst, []):
        if not (g.joint and g.required):
            continue
        if g.kind == "key" and all(norm(m) in names for m in g.members):
            out.append(g)
    return out

"""Candidate graph: every (output field of A, input parameter of B) pair scored as a binding.

Score = kind compatibility (with the best transform) + name similarity + description similarity
(Korean and English tokens) + a retriever bonus when B is among A's BM25 neighbours. Bindings
scoring below `min_score` (0.3, as in the paper's LLM feasibility filter) are dropped.
The result is a :class:`networkx.DiGraph`: nodes are tools, an edge A->B carries the list of
candidate bindings (from_field, to_param, transform, prior). Save/load as JSON node-link.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from .bindings import Binding
from .control_params import is_control
from .groups import carried_keys, derive_groups, half_bound
from .retriever import ToolRetriever, tokenize
from .values import POINT_SYSTEMS, RECORD_TRANSFORMS, SIDO_SHORT, TEMPORAL_KINDS, WEAK_FROM_KINDS, infer_kind, transforms_for

_LATLON_PAIRS = (("lat", "lon"), ("latitude", "longitude"), ("mapy", "mapx"), ("gpslati", "gpslong"),
                 ("gpsLati", "gpsLong"), ("YPos", "XPos"), ("yPos", "xPos"),
                 ("stationLatitude", "stationLongitude"), ("dmX", "dmY"), ("y", "x"))
_XY_PAIRS = (("tmX", "tmY"), ("entX", "entY"), ("x", "y"))


def _pieces(name: str) -> set[str]:
    return {p.lower() for p in re.split(r"(?<=[a-z])(?=[A-Z])|_|\s", name) if p}


def name_similarity(a: str, b: str) -> float:
    if a.lower() == b.lower():
        return 1.0
    pa, pb = _pieces(a), _pieces(b)
    if not pa or not pb:
        return 0.0
    return len(pa & pb) / len(pa | pb)


def desc_similarity(a: str, b: str) -> float:
    ta, tb = set(tokenize(a)), set(tokenize(b))
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)


# A field description that documents a composite value: "lDongRegnCd+lDongSignguCd = MOLIT LAWD_CD".
_COMPOSITE_DESC = re.compile(r"([A-Za-z_]\w*)\s*\+\s*([A-Za-z_]\w*)\s*=\s*(?:[A-Z]+\s+)?([A-Za-z_]\w*)")
COMPOSITE_SEP = "+"


def composite_fields(op) -> dict[str, tuple[list[str], str]]:
    """Virtual output fields that the documentation defines as the concatenation of two fields of
    the same record: name 'A+B' -> ([A, B], the name of what the joined value is)."""
    names = {f.name for f in op.fields}
    out = {}
    for f in op.fields:
        for text in (f.desc_ko or "", f.desc_en or ""):
            for a, b, what in _COMPOSITE_DESC.findall(text):
                if a in names and b in names:
                    out[f"{a}{COMPOSITE_SEP}{b}"] = ([a, b], what)
    return out


def is_substring_filter(name: str, desc: str) -> bool:
    """A 'contains' filter (likeSrtnCd '단축코드 포함 검색'): any digits it is given match some rows,
    so only a value of the very same field (by name) is evidence of a link."""
    return bool(re.match(r"like[A-Z_]", name) or re.search(r"포함|contains", desc or ""))


@dataclass
class IOKinds:
    fields: dict[str, dict[str, dict]]  # tool -> field -> {kind, desc}
    params: dict[str, dict[str, dict]]  # tool -> param -> {kind, desc, required}


def infer_io_kinds(catalog: Any, samples: dict[str, list[dict]] | None = None) -> IOKinds:
    """Kinds of every output field and model-facing input parameter of the catalog."""
    samples = samples or {}
    fields: dict[str, dict[str, dict]] = {}
    params: dict[str, dict[str, dict]] = {}
    for ref in catalog:
        op = ref.op
        recs = samples.get(op.tool, [])
        names = [f.name for f in op.fields]
        for r in recs[:50]:  # fields seen in real records but not declared
            for k in r:
                if k not in names:
                    names.append(k)
        decl = {f.name: f for f in op.fields}
        fields[op.tool] = {}
        for n in names:
            f = decl.get(n)
            desc = f"{f.desc_ko} {f.desc_en}" if f else ""
            vals = [r.get(n) for r in recs[:200] if r.get(n) not in (None, "")]
            fields[op.tool][n] = {"kind": infer_kind(n, desc, vals), "desc": desc.strip()}
        for name, (parts, what) in composite_fields(op).items():
            joined = ["".join(str(r.get(x)) for x in parts) for r in recs[:200]
                      if all(r.get(x) not in (None, "") for x in parts)]
            fields[op.tool][name] = {"kind": infer_kind(what, "", joined), "desc": f"{what} ({' + '.join(parts)})",
                                     "parts": parts}
        params[op.tool] = {}
        for p in op.model_params:
            if is_control(p):
                continue
            vals = [v for v in ([p.example] + list(p.enum or [])) if v is not None]
            kind = infer_kind(p.name, f"{p.desc_ko} {p.desc_en}", vals)
            if p.enum and all(str(v) in SIDO_SHORT for v in p.enum):
                kind = "sido_short"
            params[op.tool][p.name] = {"kind": kind, "desc": f"{p.desc_ko} {p.desc_en}".strip(),
                                       "required": p.required and p.default is None,
                                       "substring": is_substring_filter(p.name, f"{p.desc_ko} {p.desc_en}"),
                                       "example_tokens": len(str(p.example).split()) if isinstance(p.example, str) else 0}
    return IOKinds(fields, params)


def _record_has_pair(field_names: list[str], kind: str) -> bool:
    pairs = _LATLON_PAIRS if kind in ("lat", "lon") else _XY_PAIRS
    s = set(field_names)
    return any(a in s and b in s for a, b in pairs)


PLAIN_NUMBER_KINDS = frozenset({"number", "hhmm"})

# Platform code systems (edge_synth.values): their small integers match any generic id.
CODE_SYSTEMS = frozenset({"tago_city", "tour_area", "tour_sigungu"})


def cross_reference(a_op, fname: str, fdesc: str, b_op, pname: str, pdesc: str) -> bool:
    """The documentation itself links field and parameter: A's field description names B's
    operation with B's parameter right after it ('판례일련번호: precService ID'), or B's parameter
    description names A's operation with A's field right after it ('schoolInfo의 SD_SCHUL_CODE').
    Only the name next to the operation counts: 'unique only together with ATPT_OFCDC_SC_CODE'
    in the same description is no reference. Read from the catalog's own descriptions, so it
    holds for any catalog that documents where a value comes from."""
    def refers(text: str, op, name: str) -> bool:
        ops = "|".join(re.escape(n) for n in (op.name, op.tool) if n)
        # the operation, an optional particle/possessive ('의', "'s"), then the name
        rx = rf"(?<![A-Za-z0-9_])(?:{ops})(?:의|'s)?[\s:]*{re.escape(name)}(?![A-Za-z0-9_])"
        return bool(ops) and re.search(rx, text or "", re.I) is not None
    return refers(fdesc, b_op, pname) or refers(pdesc, a_op, fname)


XREF_BONUS = 0.25


def region_prefix(fk: str, pk: str, pinfo: dict) -> tuple[str, dict, float] | None:
    """The transform for an address into a region-name 'contains' filter whose documented example
    is a 2-3 token region ('서울특별시 강남구'): the address's first tokens, as many as the example.
    A whole address is never contained in a region's name, and cutting an address for any other
    parameter names no entity (a juso keyword '서울 종로구' matches arbitrary addresses)."""
    n = int(pinfo.get("example_tokens") or 0)
    if fk == "address" and pk == "address" and pinfo.get("substring") and 2 <= n <= 3:
        return ("first_tokens", {"n": n}, 0.8)
    return None


def score_binding(fname: str, finfo: dict, pname: str, pinfo: dict, neighbour: float, xref: bool = False) -> list[Binding]:
    """Candidate bindings (one per usable transform) of field -> param with a prior score
    (`xref`: the descriptions name the other side, see :func:`cross_reference`)."""
    fk, pk = finfo["kind"], pinfo["kind"]
    if pk in ("measure", "meta") or fk == "meta":
        return []  # free-choice numbers (radius) and record metadata carry no data flow
    trans = transforms_for(fk, pk)
    nsim = name_similarity(fname, pname)
    dsim = desc_similarity(finfo["desc"], pinfo["desc"]) if finfo["desc"] and pinfo["desc"] else 0.0
    if nsim >= 0.99 and not any(t[0] == "identity" for t in trans):
        # the same name on both sides (STAT_CODE, START_TIME): the value usually passes unchanged
        trans = [("identity", {}, 0.5 if not trans else 1.0)] + list(trans)
    if pinfo.get("format_coupled") and fk in TEMPORAL_KINDS and pk in TEMPORAL_KINDS and not any(t[0] == "identity" for t in trans):
        # a period "in the cycle's format": the coupled CYCLE decides the shape, so a full date
        # can pass unchanged as a daily period (basDt -> START_TIME with CYCLE=D)
        trans = list(trans) + [("identity", {}, 0.7)]
    if fk in PLAIN_NUMBER_KINDS and nsim < 0.5 and not xref:
        # a plain number or a time of day names nothing: a bus stop's order 3, a deal's day 12 or a
        # solar term's 1651 equal a class period, a weekday tag or a forecast hour by coincidence,
        # and shared format words in the descriptions ('HHMM', 'time') are no evidence either;
        # only a parameter of the same name or one the documentation points to takes it
        return []
    region_cut = region_prefix(fk, pk, pinfo)
    if region_cut:
        # an address searched in a region-name 'contains' filter (MOIS locatadd_nm '서울특별시 강남구'):
        # cut to as many tokens as the documented example has; execution decides if it holds
        trans = [region_cut]
    elif pinfo.get("substring") and nsim < 0.5:
        return []  # digits of a region code 'contained' in stock codes are a coincidence
    if pk in CODE_SYSTEMS and fk == "id" and fname.lower() != "code":
        return []  # only TourAPI areaCode2's own `code` listing feeds its codes (a meal code does not)
    if not trans:
        return []
    out = []
    if finfo.get("parts"):
        trans = [t for t in trans if t[0] == "identity"]  # a joined value is a template: passed unchanged
    for tname, targs, conf in trans[:2]:
        score = 0.45 * conf + 0.30 * nsim + 0.15 * dsim + 0.10 * neighbour
        if fk in WEAK_FROM_KINDS:
            score *= 0.5
        if xref:
            score += XREF_BONUS  # the documentation says where the value comes from
        elif fk in ("id", "name", "text") and nsim < 0.5 and dsim < 0.2:
            score *= 0.6  # generic ids/names match anything by kind alone
        out.append(Binding(from_field=fname, to_param=pname, transform=tname, transform_args=targs, from_kind=fk,
                           to_kind=pk, prior=round(min(1.0, score), 4), record_ref=tname in RECORD_TRANSFORMS,
                           parts=tuple(finfo["parts"]) if finfo.get("parts") else None, xref=xref))
    return out


def coordinate_pairs(fields: dict[str, dict]) -> list[tuple[str, str, str, float]]:
    """The points a record carries: (x field, y field, crs, confidence) for each x-kind field
    (longitude, TM x, UTM-K x) with the y-kind field of the same system whose name shares the
    longest prefix with it (stationLongitude with stationLatitude, mapx with mapy). Read from the
    field kinds, so any catalog's coordinate fields pair up."""
    out = []
    for xk, yk, crs, conf in POINT_SYSTEMS:
        ys = [f for f, i in fields.items() if i["kind"] == yk and not i.get("parts")]
        for xf in (f for f, i in fields.items() if i["kind"] == xk and not i.get("parts")):
            if ys:
                yf = max(ys, key=lambda y: (len(os.path.commonprefix([xf.lower(), y.lower()])), -ys.index(y)))
                out.append((xf, yf, crs, conf))
    return out


def point_bindings(fields: dict[str, dict], pname: str, pinfo: dict, neighbour: float) -> list[Binding]:
    """Bindings of one "x,y" point parameter from two coordinate fields of one record of A (the
    `xy_point` transform reads the record; another CRS is converted to WGS84, the system a point
    parameter of the catalog documents)."""
    out = []
    for xf, yf, crs, conf in coordinate_pairs(fields):
        dsim = max(desc_similarity(fields[f]["desc"], pinfo["desc"]) if fields[f]["desc"] and pinfo["desc"] else 0.0
                   for f in (xf, yf))
        score = 0.45 * conf + 0.15 * dsim + 0.10 * neighbour
        # from_field is the x field (a real field, as the other record transforms name their first)
        out.append(Binding(from_field=xf, to_param=pname, transform="xy_point",
                           transform_args={"x": xf, "y": yf, "crs": crs}, from_kind=fields[xf]["kind"],
                           to_kind=pinfo["kind"], prior=round(min(1.0, score), 4), record_ref=True, parts=(xf, yf)))
    return out


def build_candidate_graph(catalog: Any, samples: dict[str, list[dict]] | None = None, *, k_same: int = 15,
                          k_cross: int = 10, min_score: float = 0.3, self_loops: bool = False) -> nx.DiGraph:
    """The candidate graph over every tool pair of the catalog."""
    kinds = infer_io_kinds(catalog, samples)
    groups = derive_groups(catalog, {t: list(f) for t, f in kinds.fields.items()},
                           {t: {p: i["kind"] for p, i in ps.items()} for t, ps in kinds.params.items()})
    for t, gs in groups.items():
        for grp in gs:
            if grp.kind == "format":
                for m in grp.members:
                    if m in kinds.params.get(t, {}):
                        kinds.params[t][m]["format_coupled"] = True
    retriever = ToolRetriever(catalog)
    g = nx.DiGraph()
    for ref in catalog:
        op = ref.op
        g.add_node(op.tool, platform=ref.platform.id, service=ref.service.id, domain=op.domain,
                   operation=op.name, title_ko=op.title_ko,
                   field_kinds={k: v["kind"] for k, v in kinds.fields[op.tool].items()},
                   param_kinds={k: v["kind"] for k, v in kinds.params[op.tool].items()},
                   groups=[{"kind": grp.kind, "members": sorted(grp.members), "required": grp.required}
                           for grp in groups.get(op.tool, [])])
    for ref in catalog:
        a = ref.op.tool
        nb = retriever.neighbours(a, k_same, k_cross)
        nb_score = {}
        for group in ("same", "cross"):
            top = max((s for _, s in nb[group]), default=0.0) or 1.0
            for n, s in nb[group]:
                nb_score[n] = max(0.5, s / top)
        fields = kinds.fields[a]
        a_req = {p.name.lower() for p in ref.op.model_params if p.required and p.default is None}
        for bref in catalog:
            b = bref.op.tool
            if a == b and not self_loops:
                continue
            bindings = []
            for pname, pinfo in kinds.params[b].items():
                if pinfo["kind"] == "point_xy":
                    bindings += [c for c in point_bindings(fields, pname, pinfo, nb_score.get(b, 0.0)) if c.prior >= min_score]
                    continue
                for fname, finfo in fields.items():
                    xref = cross_reference(ref.op, fname, finfo["desc"], bref.op, pname, pinfo["desc"])
                    for cand in score_binding(fname, finfo, pname, pinfo, nb_score.get(b, 0.0), xref):
                        if cand.record_ref and not _record_has_pair(list(fields), finfo["kind"]):
                            continue
                        if cand.prior >= min_score:
                            bindings.append(cand)
            inheritable = {p.name for p in bref.op.model_params if p.name.lower() in a_req}
            half = half_bound(groups.get(b, []), {c.to_param for c in bindings}, inheritable)
            bindings = [c for c in bindings if c.to_param not in half]
            carried = carried_keys(groups, b, fields)
            if carried and any(grp.members - {c.to_param for c in bindings} - inheritable for grp in carried):
                continue  # A's records name an entity B is keyed by, but the key cannot flow whole
            if not bindings:
                continue
            bindings.sort(key=lambda c: (-c.prior, c.to_param, c.from_field, c.transform))
            # keep the best few source fields per target parameter, each with up to two transforms
            # (an address passes whole or as its first tokens: probing decides which)
            kept, per = [], {}
            for c in bindings:
                srcs = per.setdefault(c.to_param, [])
                if c.from_field in srcs or len(srcs) < 3:
                    if c.from_field not in srcs:
                        srcs.append(c.from_field)
                    kept.append(c)
            g.add_edge(a, b, bindings=[c.as_dict() for c in kept], prior=kept[0].prior, retrieved=b in nb_score,
                       cross_domain=ref.op.domain != bref.op.domain)
    g.graph["k_same"], g.graph["k_cross"], g.graph["min_score"] = k_same, k_cross, min_score
    return g


def save_graph(g: nx.DiGraph, path: str | Path) -> None:
    data = nx.node_link_data(g, edges="links")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1), encoding="utf-8")


def load_graph(path: str | Path) -> nx.DiGraph:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return nx.node_link_graph(data, directed=True, edges="links")

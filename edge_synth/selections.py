"""Selection links: A's output picks records out of B's answer on the client side.

Some real chains hand a value to the *client*, not to one of B's parameters: the bike station
nearest to a geocoded address (the bike list takes no coordinates), the ECOS table whose name
holds a key statistic's name, the exchange rate on a stock's trading day. A parameter-binding
graph cannot hold them. A selection is (A field -> B field, match), the match one of

  nearest   A's point (WGS84, or TM / UTM-K through the transform library) against B's records'
            WGS84 points: the nearest record, if within `max_km`;
  equal     the same code or id in B's field (4 characters at least);
  contains  B's name contains A's name (or the reverse; 3 characters at least).

Joins on a day are not proposed: tried, they verified between almost any two dated tools (a
bill's processing day picks that day's school lunch, a stock's trading day a bill's
presentation), so execution cannot tell a meaningful day join from a coincidence.

Candidates come from the field kinds of both sides (never from the reference links). They are
verified by execution like bindings: A runs on a seed input (or on one a verified predecessor's
output produced), B on its own input with only the parameters every call needs, read page after
page as a filtering client reads it; a probe joins A's whole answer with B's and succeeds when a
value of A selects some but not all of B's records; another value of A must select other records
(sensitivity), else A's value did not matter. For 'nearest', A's points farther than `cover_km`
from every record of B lie outside the area B covers and are no evidence either way, as are points
beyond the edge of that area (B's records on one side only). Each
selection has a Beta posterior updated with the binding weights (:func:`edge_synth.bandit.update`),
one update per distinct (A call, B call) pair; it is verified when the posterior mean reaches
`viable` with at least `min_successes` successes and no sign of insensitivity, or, when A and B
keep being called with the same inputs (tools without parameters), when every distinct join
succeeded.
Verified selections become edges with ``link="select"`` and no bindings; walks that need
bindings skip them (:func:`edge_synth.walks.successors`).
"""

from __future__ import annotations

import asyncio
import math
import random
import re
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from kopa_bench import geo

from .bandit import Arm, update
from .bindings import is_missing
from .env import call_key
from .groups import norm
from .probing import run_seed
from .seeds import SeedSampler
from .verify_config import VerifyConfig
from .walks import best_bindings, step_args

POINT_PARAM_KINDS = frozenset({"lat", "lon", "tm_x", "tm_y", "utmk_x", "utmk_y", "kma_nx", "kma_ny"})
# Kinds whose values name one entity: a record is picked by the same value (codes) or by a name
# one side contains (names); measurements, free text and flags pick nothing.
EQUAL_KINDS = frozenset({"id", "station_name", "legal_code", "lawd5", "tago_city", "tour_area", "tour_sigungu"})
CONTAINS_KINDS = frozenset({"name", "law_name", "bill_name", "person_name", "dong_name", "sgg_name"})
PAGE_SIZES = {"numOfRows": 100, "pSize": 100, "display": 100, "perPage": 100, "countPerPage": 100}
WINDOW = 1000  # rows of an ECOS/Seoul START..END window a client reads for filtering
WINDOWS = (("START", "END"), ("START_INDEX", "END_INDEX"))  # ECOS / Seoul row windows


@dataclass
class SelectConfig:
    probes: int = 8  # probes per candidate selection (stops early once pruned or settled)
    # distinct values of A's answer a probe joins with B's answer: a client filtering B by A's
    # answer checks all of A's records, not the first; 50 bounds the work per probe
    record_tries: int = 50
    max_pages: int = 5  # pages of B's answer a probe reads (a client filters the whole list)
    max_km: float = 2.0
    # a point farther than this from every record of B is outside the area B covers (a Busan
    # address for Seoul's bike stations): no evidence either way; between max_km and cover_km the
    # nearest record is too far to be 'near', a failure where B's records surround the point
    # (inside_coverage), no evidence beyond the edge of B's area
    cover_km: float = 5.0  # 'nearest' beyond this picks nothing: A's point is outside B's coverage
    min_successes: int = 2
    seed: int = 0


def _names_related(a: str, b: str) -> bool:
    """Field names that say the same thing: equal up to case/underscores, or one ends with the
    other (KEYSTAT_NAME ~ STAT_NAME)."""
    na, nb = norm(a), norm(b)
    return bool(na and nb) and (na == nb or (min(len(na), len(nb)) >= 4 and (na.endswith(nb) or nb.endswith(na))))


def point_spec(field_kinds: dict[str, str]) -> dict | None:
    """How a record of this tool gives a WGS84 point: a lat/lon pair, else TM or UTM-K x/y."""
    by_kind: dict[str, list[str]] = {}
    for f, k in sorted(field_kinds.items()):
        by_kind.setdefault(k, []).append(f)
    if by_kind.get("lat") and by_kind.get("lon"):
        return {"system": "wgs84", "lat": by_kind["lat"][0], "lon": by_kind["lon"][0]}
    for system, (kx, ky) in (("tm", ("tm_x", "tm_y")), ("utmk", ("utmk_x", "utmk_y"))):
        if by_kind.get(kx) and by_kind.get(ky):
            return {"system": system, "x": by_kind[kx][0], "y": by_kind[ky][0]}
    return None


def record_point(spec: dict, rec: dict) -> tuple[float, float] | None:
    """(lat, lon) of a record by its point spec; None when the record has no usable point."""
    try:
        if spec["system"] == "wgs84":
            lat, lon = float(rec[spec["lat"]]), float(rec[spec["lon"]])
        elif spec["system"] == "tm":
            lat, lon = geo.tm_to_wgs84(rec[spec["x"]], rec[spec["y"]])
        else:
            lat, lon = geo.utmk_to_wgs84(rec[spec["x"]], rec[spec["y"]])
    except (KeyError, TypeError, ValueError):
        return None
    if not (32.0 <= lat <= 39.5 and 123.0 <= lon <= 132.5):
        return None  # outside Korea: a zero or a swapped pair, not a place
    return lat, lon


def _norm_text(v: Any) -> str:
    return re.sub(r"\s+", "", str(v)).lower()


def selection_key(sel: dict, rec: dict) -> Any:
    """The value of A's record a selection matches with (None: the record has none)."""
    if sel["match"] == "nearest":
        return record_point(sel["from_point"], rec)
    v = rec.get(sel["from_field"])
    if is_missing(v):
        return None
    t = _norm_text(v)
    # a 1-3 character code (a sequence number 1, a meal code 2, a category TMP) equals values of
    # unrelated code systems by coincidence; so does a 1-2 character name
    return t if len(t) >= (4 if sel["match"] == "equal" else 3) else None


def record_points(sel: dict, records: list[dict]) -> list[tuple[int, tuple[float, float]]]:
    """(index, (lat, lon)) of B's records that have a point."""
    return [(i, p) for i, p in ((i, record_point(sel["to_point"], r)) for i, r in enumerate(records)) if p is not None]


def nearest(key: tuple[float, float], points: list[tuple[int, tuple[float, float]]]) -> tuple[int | None, float]:
    """(index, km) of the record nearest A's point (None, inf when no record has a point)."""
    best, best_d = None, float("inf")
    for i, (lat, lon) in points:
        d = geo.haversine_km(key[0], key[1], lat, lon)
        if d < best_d:
            best, best_d = i, d
    return best, best_d


def inside_coverage(key: tuple[float, float], points: list[tuple[int, tuple[float, float]]], cfg: "SelectConfig") -> bool:
    """Does A's point lie in the area B's records cover? Within `max_km` of a record it does;
    farther out, only when records lie within `cover_km` of it in all four quadrants around it
    (a gap inside B's area, where the nearest record is too far to be 'near'). A point beyond the
    edge of B's area (an address just outside Seoul for Seoul's bike stations) has records on one
    side only: there the nearest record is undefined, not wrong."""
    d = nearest(key, points)[1]
    if d <= cfg.max_km:
        return True
    if d > cfg.cover_km:
        return False
    lat0, lon0 = key
    dlat = cfg.cover_km / 111.0  # a box around the point first: degrees, not kilometres
    dlon = dlat / max(0.1, math.cos(math.radians(lat0)))
    sides = set()
    for _, (lat, lon) in points:
        if abs(lat - lat0) <= dlat and abs(lon - lon0) <= dlon and geo.haversine_km(lat0, lon0, lat, lon) <= cfg.cover_km:
            sides.add((lat >= lat0, lon >= lon0))
            if len(sides) == 4:
                return True
    return False


def select(sel: dict, key: Any, records: list[dict], max_km: float,
           points: list[tuple[int, tuple[float, float]]] | None = None) -> list[int]:
    """Indices of B's records that A's value `key` picks (`points`: B's points, when computed already)."""
    if key is None:
        return []
    if sel["match"] == "nearest":
        i, d = nearest(key, record_points(sel, records) if points is None else points)
        return [i] if i is not None and d <= max_km else []
    out = []
    for i, r in enumerate(records):
        v = r.get(sel["to_field"])
        if is_missing(v):
            continue
        if sel["match"] == "equal":
            if _norm_text(v) == key:
                out.append(i)
        else:
            t = _norm_text(v)
            if len(t) >= 2 and (key in t or t in key):
                out.append(i)
    return out


def selection_id(sel: dict) -> str:
    what = "point" if sel["match"] == "nearest" else sel["from_field"]
    to = "point" if sel["match"] == "nearest" else sel["to_field"]
    return f"{sel['src']}|{sel['dst']}|{what}|{to}|select:{sel['match']}"


def selection_candidates(g: nx.DiGraph, catalog: Any, skip: set[tuple[str, str]] = frozenset()) -> list[dict]:
    """Candidate selections between every tool pair not in `skip`, from the graph's field kinds
    (node attribute `field_kinds`) and parameter kinds."""
    tools = [t for t in g.nodes]
    kinds = {t: dict(g.nodes[t].get("field_kinds") or {}) for t in tools}
    pkinds = {t: dict(g.nodes[t].get("param_kinds") or {}) for t in tools}
    params = {}
    for t in tools:
        try:
            params[t] = {norm(p.name) for p in catalog.get(t).op.params}
        except Exception:  # noqa: BLE001 - a node without a catalog entry
            params[t] = set()
    points = {t: point_spec(kinds[t]) for t in tools}
    out: list[dict] = []
    for a in tools:
        for b in tools:
            if a == b or (a, b) in skip:
                continue
            # nearest: B lists located records but takes no coordinates (a binding would do it)
            if points[a] and points[b] and points[b]["system"] == "wgs84" and \
                    not (set(pkinds[b].values()) & POINT_PARAM_KINDS):
                out.append({"src": a, "dst": b, "match": "nearest", "from_point": points[a], "to_point": points[b],
                            "from_field": "point", "to_field": "point", "prior": 0.6})
            for fa, ka in sorted(kinds[a].items()):
                for fb, kb in sorted(kinds[b].items()):
                    if "unit" in norm(fa) or "unit" in norm(fb):
                        continue  # a unit (%, 원) names no entity
                    if ka == kb and (ka in EQUAL_KINDS or ka in CONTAINS_KINDS) and _names_related(fa, fb):
                        if norm(fb) in params[b] or norm(fa) in params[b]:
                            continue  # B takes the value as a parameter: a binding, not a filter
                        out.append({"src": a, "dst": b, "match": "equal" if ka in EQUAL_KINDS else "contains",
                                    "from_field": fa, "to_field": fb, "prior": 0.5})
    for s in out:
        s["id"] = selection_id(s)
    return out


def wide_args(op: Any, args: dict[str, Any]) -> dict[str, Any]:
    """B's seed input with a bigger page (100 rows where the default is smaller): a client
    filtering B's answer reads a whole page, not the first ten rows."""
    out = dict(args)
    names = {p.name: p for p in op.params}
    for n, size in PAGE_SIZES.items():
        p = names.get(n)
        if p is not None and n not in out:
            out[n] = min(size, p.cap) if p.cap else size
    for first, last in WINDOWS:
        if first in names and last in names and last not in out:
            # written out even when the default is as wide: the next page is read from these
            out[first], out[last] = 1, max(WINDOW, int(names[last].default or 0))
    return out


async def fed_input(executor, sampler: SeedSampler, vg: nx.DiGraph | None, tool: str, split: str,
                    rng: random.Random) -> tuple[dict | None, Any]:
    """Run `tool` on an input a verified predecessor produced (P's record bound through the
    verified bindings P -> tool): sink tools such as a geocoder have few seed inputs of their
    own, but every address a search returned is a real one. (None, None) when there is none."""
    if vg is None or tool not in vg:
        return None, None
    preds = sorted(p for p in vg.predecessors(tool) if p != tool and vg.edges[p, tool].get("bindings"))
    if not preds:
        return None, None
    p = rng.choice(preds)
    _, p_res = await run_seed(executor, sampler, p, split, rng)
    if p_res is None or not p_res.ok or not p_res.records:
        return None, None
    rec = rng.choice(p_res.records[:20])
    bound = {}
    for b in best_bindings(vg, p, tool):
        try:
            bound[b.to_param] = b.value(rec)
        except (ValueError, KeyError, TypeError):
            continue
    if not bound:
        return None, None
    args = step_args(sampler, tool, bound, rng, split)
    if args is None:
        return None, None
    return args, await executor.call(tool, args)


def broad_args(sampler: SeedSampler, tool: str, split: str, rng: random.Random) -> dict | None:
    """B's input for a client-side filter: only what every call needs (required and co-required
    parameters), no optional narrowing: the client filters the list itself."""
    keep = set(sampler.fill_params(tool))
    args = sampler.seed_args(tool, split, rng)
    if args is None:
        return None
    return {k: v for k, v in args.items() if k in keep}


PAGE_PARAMS = {"numOfRows": "pageNo", "pSize": "pIndex", "display": "page", "perPage": "page", "countPerPage": "currentPage"}


def next_page(args: dict[str, Any]) -> dict[str, Any] | None:
    """The request for the page after `args` (a START..END window or a page number), if any."""
    for first, last in WINDOWS:
        if first in args and last in args:
            lo, hi = int(args[first]), int(args[last])
            return {**args, first: hi + 1, last: hi + (hi - lo + 1)}
    for size, page in PAGE_PARAMS.items():
        if size in args:
            return {**args, page: int(args.get(page) or 1) + 1}
    return None


def page_size(args: dict[str, Any]) -> int | None:
    """Rows one page of this request holds (None: no paging parameter given)."""
    for first, last in WINDOWS:
        if first in args and last in args:
            return int(args[last]) - int(args[first]) + 1
    for size in PAGE_PARAMS:
        if size in args:
            return int(args[size])
    return None


def maybe_partial(args: dict[str, Any], records: list[dict], total_count: int | None) -> bool:
    """Could the list continue past this page? A full page says so even when the platform's total
    is the page's own count (Seoul's bike list reports its page size as list_total_count)."""
    size = page_size(args)
    return (total_count is not None and total_count > len(records)) or (size is not None and len(records) >= size)


async def read_all(executor, tool: str, args: dict[str, Any], max_pages: int = 5):
    """B's answer as a filtering client reads it: page after page while pages come back full
    (at most `max_pages`). Returns the first page's result with all records, or a failed result."""
    first = await executor.call(tool, args)
    if not first.ok or not first.records:
        return first
    records, req, size = list(first.records), args, len(first.records)
    for _ in range(max_pages - 1):
        req = next_page(req)
        if req is None:
            break
        res = await executor.call(tool, req)
        if not res.ok or not res.records:
            break
        records.extend(res.records)
        if len(res.records) < size:
            break
    return first.model_copy(update={"records": records})  # the memoised result stays as it was


@dataclass
class SelectProbe:
    outcome: str
    sensitive: bool | None = None
    a_args: dict = field(default_factory=dict)
    b_args: dict = field(default_factory=dict)
    picked: list[int] = field(default_factory=list)
    keys: list = field(default_factory=list)  # A's distinct values this probe saw
    matched: int = 0  # A values that picked part of B's answer
    tried: int = 0


async def probe_selection(executor, sampler: SeedSampler, sel: dict, rng: random.Random, split: str = "train",
                          cfg: SelectConfig | None = None, other_keys: list | None = None,
                          vg: nx.DiGraph | None = None) -> SelectProbe:
    """One execution-grounded test of a selection (see the module docstring). Sensitivity uses
    another record of the same A answer, else `other_keys` (values earlier probes of A gave: a
    geocoder answers one point per call)."""
    cfg = cfg or SelectConfig()
    a_args = a_res = None
    if rng.random() < 0.7:  # seeds of sink tools rarely fit together (a road code of another street)
        a_args, a_res = await fed_input(executor, sampler, vg, sel["src"], split, rng)
    if a_res is None or not (a_res.ok and a_res.records):
        a_args, a_res = await run_seed(executor, sampler, sel["src"], split, rng)
    if a_res is None:
        return SelectProbe("upstream_unbound")
    if not a_res.ok:
        return SelectProbe("upstream_" + (a_res.error.type if a_res.error else "error"), a_args=a_args)
    if not a_res.records:
        return SelectProbe("upstream_empty", a_args=a_args)
    b_args = broad_args(sampler, sel["dst"], split, rng)
    if b_args is None:
        return SelectProbe("upstream_b_unbound", a_args=a_args)
    b_args = wide_args(sampler.catalog.get(sel["dst"]).op, b_args)
    b_res = await read_all(executor, sel["dst"], b_args, cfg.max_pages)
    if not b_res.ok:
        return SelectProbe("upstream_b_" + (b_res.error.type if b_res.error else "error"), a_args=a_args)
    recs = b_res.records or []
    if len(recs) < 2:
        return SelectProbe("empty_uninformative", a_args=a_args, b_args=b_args)  # picking among one says nothing
    own = {_norm_text(v) for v in a_args.values()}
    keys, seen = [], set()
    for r in a_res.records:
        k = selection_key(sel, r)
        if k is None or k in seen or (not isinstance(k, tuple) and k in own):
            continue  # one of A's own arguments handed back carries nothing A added
        seen.add(k)
        keys.append(k)
    if not keys:
        return SelectProbe("upstream_empty", a_args=a_args, b_args=b_args)
    points = record_points(sel, recs) if sel["match"] == "nearest" else None
    if points is not None:
        keys = [k for k in keys if inside_coverage(k, points, cfg)]
        if not keys:
            # B lists nothing around any of A's points (Seoul bike stations for a Busan address):
            # outside B's coverage the nearest record is undefined, not wrong
            return SelectProbe("empty_uninformative", a_args=a_args, b_args=b_args)
    # a client joins A's whole answer with B's: every distinct value of A (up to record_tries)
    picks = {k: select(sel, k, recs, cfg.max_km, points) for k in keys[:cfg.record_tries]}
    good = [k for k, idx in picks.items() if idx and len(idx) < len(recs)]
    if not good:
        return SelectProbe("empty", a_args=a_args, b_args=b_args, keys=keys)
    used, picked = good[0], picks[good[0]]
    sensitive = None
    for k in list(picks) + [k for k in (other_keys or []) if k not in seen]:
        if k == used:
            continue
        other = picks[k] if k in picks else select(sel, k, recs, cfg.max_km, points)
        sensitive = other != picked
        if sensitive:
            break
    return SelectProbe("success", sensitive=sensitive, a_args=a_args, b_args=b_args, picked=picked, keys=keys,
                       matched=len(good), tried=len(picks))


class SelectionVerifier:
    """Probes candidate selections in rounds (every live one once per round, concurrently)."""

    def __init__(self, candidates: list[dict], executor, sampler: SeedSampler, vcfg: VerifyConfig | None = None,
                 cfg: SelectConfig | None = None, vg: nx.DiGraph | None = None):
        self.vg = vg  # the verified binding graph: its predecessors feed inputs of A
        self.cands = {s["id"]: s for s in candidates}
        self.ex, self.sampler = executor, sampler
        self.vcfg = vcfg or VerifyConfig()
        self.cfg = cfg or SelectConfig()
        k = self.vcfg.prior_strength
        self.arms = {i: Arm(s["src"], s["dst"], None, alpha=1.0 + k * s["prior"], beta=1.0 + k * (1 - s["prior"]))
                     for i, s in self.cands.items()}
        self.rng = random.Random(self.cfg.seed)
        self.probes = 0
        self.outcomes: dict[str, int] = {}
        self.keys: dict[str, list] = {i: [] for i in self.cands}  # A values seen per selection
        self.seen: dict[str, set] = {i: set() for i in self.cands}  # (A call, B call) pairs probed
        self.repeats: dict[str, int] = {i: 0 for i in self.cands}
        self.duplicates = 0

    def live(self) -> list[str]:
        return [i for i, a in self.arms.items() if not a.pruned and not a.settled(self.vcfg) and a.n < self.cfg.probes
                and not self.exhausted(i)]

    def exhausted(self, i: str) -> bool:
        """A and B keep being called with the same inputs (tools without parameters, one seed):
        the join of their answers has been computed whole; more probes only repeat it."""
        return self.repeats[i] >= 2 and self.repeats[i] >= 2 * self.arms[i].n

    async def run(self) -> dict[str, Any]:
        for _ in range(3 * self.cfg.probes):  # rounds spent on upstream failures are cheap (memoised)
            todo = self.live()
            if not todo:
                break
            rngs = [random.Random(self.rng.random()) for _ in todo]
            res = await asyncio.gather(*(probe_selection(self.ex, self.sampler, self.cands[i], r, "train", self.cfg,
                                                         list(self.keys[i]), self.vg)
                                         for i, r in zip(todo, rngs)))
            for i, pr in zip(todo, res):
                self.probes += 1
                for k in pr.keys[:3]:
                    if k not in self.keys[i] and len(self.keys[i]) < 12:
                        self.keys[i].append(k)
                self.outcomes[pr.outcome] = self.outcomes.get(pr.outcome, 0) + 1
                if pr.outcome.startswith("upstream") or pr.outcome == "empty_uninformative":
                    continue
                sel = self.cands[i]
                pair = (call_key(sel["src"], pr.a_args), call_key(sel["dst"], pr.b_args))
                if pair in self.seen[i]:
                    # the same two answers joined again: deterministic, so no new evidence
                    self.repeats[i] += 1
                    self.duplicates += 1
                    continue
                self.seen[i].add(pair)
                update(self.arms[i], pr.outcome, self.vcfg, sensitive=pr.sensitive)
        return self.summary()

    def verified(self) -> list[tuple[dict, Arm]]:
        out = []
        for i, a in sorted(self.arms.items()):
            # an exhausted pair is decided by its few distinct joins: every one of them succeeded
            whole = self.exhausted(i) and a.n >= 1 and a.successes == a.n
            if a.pruned or not (whole or (a.successes >= self.cfg.min_successes and a.mean >= self.vcfg.viable)):
                continue
            if a.sens_pos == 0 or not a.meaningful:
                continue  # never shown that A's value decides which records are picked
            out.append((self.cands[i], a))
        return out

    def summary(self) -> dict[str, Any]:
        return {"selection_candidates": len(self.cands), "selection_probes": self.probes,
                "selection_duplicates": self.duplicates,
                "selection_outcomes": dict(sorted(self.outcomes.items())),
                "selections_verified": len(self.verified())}


def add_selections(vg: nx.DiGraph, verified: list[tuple[dict, Arm]]) -> int:
    """Add verified selections to the verified graph as ``link="select"`` edges (a pair that
    already has a binding edge keeps it: the binding is the stronger link). Returns edges added."""
    added = 0
    for sel, arm in verified:
        a, b = sel["src"], sel["dst"]
        rec = {k: v for k, v in sel.items() if k not in ("src", "dst")}
        rec.update(alpha=round(arm.alpha, 3), beta=round(arm.beta, 3), posterior=round(arm.mean, 4), probes=arm.n,
                   successes=arm.successes, sensitive=arm.sens_pos, insensitive=arm.sens_neg)
        if vg.has_edge(a, b):
            if vg.edges[a, b].get("link") == "select":
                vg.edges[a, b]["selections"].append(rec)
                vg.edges[a, b]["posterior"] = max(vg.edges[a, b]["posterior"], rec["posterior"])
            continue
        vg.add_edge(a, b, bindings=[], selections=[rec], link="select", posterior=rec["posterior"],
                    prior=sel["prior"], cross_domain=vg.nodes[a].get("domain") != vg.nodes[b].get("domain"))
        added += 1
    return added

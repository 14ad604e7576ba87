"""Record selection (Pick) and branch conditions (Condition) over API records.

API values are strings ("85", " 85,000", "-"), so comparisons normalise first: strings are
stripped, numbers compared numerically only when both sides parse.
"""

from __future__ import annotations

from typing import Any

from kopa_bench.tasks.task_schema import Condition, Pick
from kopa_bench.tasks.refs import RefError, to_number
from kopa_bench.tasks.resolve import Resolver


def _norm(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _matches(actual: Any, wanted: Any) -> bool:
    """Numbers compare numerically when both sides parse, else stripped text; a list of wanted
    values matches any of them."""
    return _matcher(wanted)(actual)


def _matcher(wanted: Any):
    """`_matches(actual, wanted)` as a test of `actual`, the wanted side normalised once (a pick
    filters every record of an answer by the same values)."""
    if isinstance(wanted, list):
        tests = [_matcher(w) for w in wanted]
        return lambda actual: any(t(actual) for t in tests)
    w_num, w_text = to_number(wanted), _norm(wanted)

    def test(actual: Any) -> bool:
        if w_num is not None:
            a = to_number(actual)
            if a is not None:
                return a == w_num
        return _norm(actual) == w_text

    return test


def apply_pick(pick: Pick, records: list[dict[str, Any]], resolver: Resolver | None = None) -> tuple[int | None, dict | None]:
    """Return (index into `records`, record) chosen by `pick`, or (None, None) when none passes."""
    where = resolver.value(pick.where) if resolver is not None else pick.where
    cands = list(enumerate(records))
    for fld, wanted in where.items():
        test = _matcher(wanted)
        cands = [(i, r) for i, r in cands if fld in r and test(r[fld])]
    contains = resolver.value(pick.contains) if resolver is not None else pick.contains
    for fld, sub in contains.items():
        sub = _norm(sub)
        cands = [(i, r) for i, r in cands if sub in _norm(r.get(fld))]
    if pick.near is not None:
        return _nearest(pick, cands, resolver)
    key = pick.argmax or pick.argmin or pick.sort
    if key:
        skip = {s.strip() for s in pick.skip_values}
        cands = [(i, r) for i, r in cands if _norm(r.get(key)) not in skip]
        numeric = pick.numeric
        if numeric is None:
            numeric = bool(cands) and all(to_number(r.get(key)) is not None for _, r in cands)
        if numeric:
            bad = [r.get(key) for _, r in cands if to_number(r.get(key)) is None]
            if bad:
                raise RefError(f"pick on {key!r}: values {bad[:5]} are not numbers; add them to skip_values or set numeric=false")

        def sort_key(item: tuple[int, dict]) -> Any:
            v = item[1].get(key)
            return to_number(v) if numeric else _norm(v)

        if pick.argmax or pick.argmin:
            if not cands:
                return None, None
            # max()/min() keep the first of equal values: ties go to the API's own order.
            best = (max if pick.argmax else min)(cands, key=sort_key)
            return best
        cands = sorted(cands, key=sort_key, reverse=pick.descending)
    if not -len(cands) <= pick.index < len(cands) or not cands:
        return None, None
    return cands[pick.index]


def _nearest(pick: Pick, cands: list[tuple[int, dict]], resolver: Resolver | None) -> tuple[int | None, dict | None]:
    """The candidate nearest `pick.near`'s point (haversine km); ties go to the API's order."""
    from kopa_bench.geo import haversine_km

    near = pick.near
    lat = resolver.value(near.lat) if resolver is not None else near.lat
    lon = resolver.value(near.lon) if resolver is not None else near.lon
    plat, plon = to_number(lat), to_number(lon)
    if plat is None or plon is None:
        raise RefError(f"pick.near needs a numeric point, got lat={lat!r} lon={lon!r}")
    best, best_d = (None, None), None
    for i, r in cands:
        rlat, rlon = to_number(r.get(near.lat_field)), to_number(r.get(near.lon_field))
        if rlat is None or rlon is None:
            continue  # a record without a position cannot be near anything
        d = haversine_km(plat, plon, rlat, rlon)
        if best_d is None or d < best_d:
            best, best_d = (i, r), d
    if best_d is None or (near.max_km is not None and best_d > near.max_km):
        return None, None
    return best


def compare(left: Any, op: str, right: Any) -> bool:
    """`left op right` with numeric comparison when both parse as numbers."""
    if op in ("in", "not_in"):
        if not isinstance(right, (list, tuple)):
            raise RefError(f"condition op {op!r} needs a list value, got {right!r}")
        hit = any(_matches(left, r) for r in right)
        return hit if op == "in" else not hit
    ln, rn = to_number(left), to_number(right)
    a, b = (ln, rn) if ln is not None and rn is not None else (_norm(left), _norm(right))
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    if ln is None or rn is None:
        raise RefError(f"condition {left!r} {op} {right!r}: ordering needs two numbers")
    return {">=": ln >= rn, "<=": ln <= rn, ">": ln > rn, "<": ln < rn}[op]


def eval_condition(cond: Condition, resolver: Resolver) -> bool:
    return compare(resolver.value(cond.ref), cond.op, resolver.value(cond.value))

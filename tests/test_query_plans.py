"""The world's query plans give exactly the answers of the catalog SQL as written.

World._compute_rows specialises each catalog query to the parameters a call supplies (each
`($x IS NULL OR p)` guard becomes `(p)` or TRUE), cached per (query, supplied parameters).
World.QUERY_PLANS = False runs the SQL as written, the reference.
Also: NEIS timetables are built lazily, one page at a time; they must equal the eager build.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import duckdb
import pytest

from kopa_bench.world.store import specialise

CALLS = json.loads((Path(__file__).parent / "data" / "query_plan_calls.json").read_text(encoding="utf-8"))["calls"]
PAGES = [(0, 3), (2, 3), (0, None), (10_000, 10), (0, 0), (5, 0)]


def _both(world, op, params, offset, limit):
    """(planned, reference) answers, each computed afresh (no memo)."""
    planned = world._compute_rows(op, params, offset, limit)
    world.QUERY_PLANS = False
    try:
        reference = world._compute_rows(op, params, offset, limit)
    finally:
        del world.QUERY_PLANS  # back to the class default
    return planned, reference


def test_recorded_probe_queries_match_the_sql_as_written(world, catalog):
    """204 recorded EDGE probe queries over every SQL operation (LIKE filters, ranges, optional
    filters bound and unbound), each at its own page and at the edge cases of paging."""
    ops = {c["tool"] for c in CALLS}
    assert len(CALLS) >= 150 and len(ops) >= 35
    nonempty = 0
    for c in CALLS:
        op = catalog.get(c["tool"]).op
        assert op.query, c["tool"]
        for offset, limit in [(c["offset"], c["limit"])] + PAGES:
            planned, reference = _both(world, op, dict(c["params"]), offset, limit)
            assert planned == reference, (c["tool"], c["params"], offset, limit)
            nonempty += bool(planned[0])
    assert nonempty > 300  # the comparison is not over empty answers


def example_param_variants(catalog) -> dict[str, list[dict]]:
    """For every SQL operation (tool -> validated params): its example call, then each optional
    parameter in turn unbound, and each optional parameter bound alone on top of the required ones.
    Also used by tests/test_world_batch.py."""
    from kopa_bench.protocols.base import validate_params

    out: dict[str, list[dict]] = {}
    for ref in catalog:
        op = ref.op
        if not op.query:
            continue
        args = {p.name: p.example for p in op.model_params if p.example is not None}
        params, problem = validate_params(op, args)
        if problem is not None:
            continue
        required = {p.name for p in op.model_params if p.required}
        variants = out.setdefault(op.tool, [params])
        for name, value in params.items():
            if value is None or name in required:
                continue
            variants.append({**params, name: None})
            variants.append({k: (v if k in required or k == name else None) for k, v in params.items()})
    return out


def test_each_optional_filter_bound_alone(world, catalog):
    """Every variant of :func:`example_param_variants`, three pages each, planned == reference."""
    checked = 0
    for tool, variants in example_param_variants(catalog).items():
        op = catalog.get(tool).op
        for v in variants:
            for offset, limit in ((0, 10), (1, 2), (0, None)):
                planned, reference = _both(world, op, v, offset, limit)
                assert planned == reference, (op.tool, v, offset, limit)
                checked += 1
    assert checked > 300


def test_specialise_keeps_three_valued_logic():
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT * FROM (VALUES (1, 'ab'), (NULL, 'b'), (3, NULL), (1, NULL)) v(a, s)")
    sql = ("SELECT a, s FROM t WHERE ($x IS NULL OR a = $x) AND ($y IS NULL OR s LIKE '%' || $y || '%' OR a > 2) "
           "ORDER BY a NULLS FIRST, s NULLS FIRST")
    for x in (None, 1, 3, 7):
        for y in (None, "b", "zz"):
            bound = frozenset(n for n, v in (("x", x), ("y", y)) if v is not None)
            spec = specialise(sql, bound)
            args = {n: v for n, v in (("x", x), ("y", y)) if f"${n}" in spec}
            assert con.execute(spec, args).fetchall() == con.execute(sql, {"x": x, "y": y}).fetchall(), (x, y, spec)


@pytest.mark.parametrize("sql, bound, expected", [
    ("SELECT * FROM t WHERE ($a IS NULL OR x = $a)", {"a"}, "SELECT * FROM t WHERE (x = $a)"),
    ("SELECT * FROM t WHERE ($a IS NULL OR x = $a)", set(), "SELECT * FROM t WHERE TRUE"),
    # the guard's predicate keeps its own parentheses and quotes
    ("SELECT * FROM t WHERE ($a IS NULL OR f(x, ')') = $a) AND y = 1", set(), "SELECT * FROM t WHERE TRUE AND y = 1"),
    # a function's argument list is not a guard: left alone
    ("SELECT coalesce($a IS NULL OR x, TRUE) FROM t", set(), "SELECT coalesce($a IS NULL OR x, TRUE) FROM t"),
    # other shapes are left to DuckDB
    ("SELECT * FROM t WHERE $a IS NULL OR x = $a", set(), "SELECT * FROM t WHERE $a IS NULL OR x = $a"),
    ("SELECT * FROM t WHERE (coalesce($a, '?') = '?' OR x = $a)", set(), "SELECT * FROM t WHERE (coalesce($a, '?') = '?' OR x = $a)"),
])
def test_specialise_shapes(sql, bound, expected):
    assert specialise(sql, frozenset(bound)) == expected


# ---- NEIS timetables: lazy pages vs the eager build --------------------------------------------
def _eager_timetable(world, params, kind):
    """The eager build the lazy rows replaced (same loops, every row materialised)."""
    from kopa_bench.world.answers import neis, neis_calendar, neis_timetable

    s = neis.school_row(world, params)
    _, off, _, sem2, last = neis_calendar.school_calendar(s)
    ok = neis.date_filter(params, "ALL_TI_YMD", "TI_FROM_YMD", "TI_TO_YMD")
    days = [d for d in neis_calendar.school_days_between(sem2, last, off) if ok(d.strftime("%Y%m%d"))]
    g_want, c_want, p_want = params.get("GRADE"), params.get("CLASS_NM"), params.get("PERIO")
    head = neis.school_head(s)
    extra = neis_timetable._timetable_extra(kind, s)
    out = []
    for g, n in enumerate(neis.class_counts(s), start=1):
        if g_want is not None and str(g_want) != str(g):
            continue
        subj = neis_timetable._subjects(kind, g)
        names, weights = [x[0] for x in subj], [x[1] for x in subj]
        for c in range(1, n + 1):
            if c_want is not None and str(c_want).lstrip("0") != str(c):
                continue
            r = random.Random(f"{s['_seed']}:tt:{g}:{c}")
            week = [[r.choices(names, weights)[0] for _ in range(neis_timetable._periods(kind, g, wd))] for wd in range(5)]
            for d in days:
                ymd = d.strftime("%Y%m%d")
                for p, subject in enumerate(week[d.weekday()], start=1):
                    if p_want is not None and str(p_want) != str(p):
                        continue
                    out.append({**head, "AY": str(neis_calendar.AY), "SEM": "2", "ALL_TI_YMD": ymd, **extra, "GRADE": str(g),
                                "CLASS_NM": str(c), "PERIO": str(p), "ITRT_CNTNT": subject, "LOAD_DTM": ymd})
    return out


@pytest.mark.parametrize("kind", ["els", "mis", "his", "sps"])
def test_lazy_timetable_equals_eager_build(world, kind):
    from kopa_bench.world.answers import neis_timetable

    schools = world.sql("SELECT ATPT_OFCDC_SC_CODE AS a, SD_SCHUL_CODE AS c FROM neis_schools WHERE _kind = $k "
                        "ORDER BY SD_SCHUL_CODE LIMIT 2", {"k": kind})
    assert schools
    fn = getattr(neis_timetable, f"{kind}_timetable")
    for sc in schools:
        base = {"ATPT_OFCDC_SC_CODE": sc["a"], "SD_SCHUL_CODE": sc["c"]}
        for extra in ({}, {"GRADE": "1"}, {"GRADE": "2", "CLASS_NM": "01"}, {"PERIO": "3"},
                      {"TI_FROM_YMD": "20260901", "TI_TO_YMD": "20260930"}, {"ALL_TI_YMD": "202610"},
                      {"GRADE": "9"}, {"ALL_TI_YMD": "20260101"}):
            params = {**base, **extra}
            lazy, eager = fn(world, params), _eager_timetable(world, params, kind)
            assert len(lazy) == len(eager), params
            assert list(lazy) == eager, params
            n = len(eager)
            for start, stop in ((0, 10), (7, 107), (n - 5, n + 5), (n, n + 10), (0, None), (-3, None)):
                assert lazy[start:stop] == eager[start:stop], (params, start, stop)
            if n:
                assert lazy[0] == eager[0] and lazy[-1] == eager[-1] and lazy[n // 2] == eager[n // 2]
                assert lazy[::7] == eager[::7]

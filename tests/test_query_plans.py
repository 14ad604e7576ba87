"""The world's query plans give exactly the answers of the catalog SQL as written.

QueryPlanner.rows runs each catalog query with its constant sub-selects folded to literals;
QueryPlanner.reference_rows runs the SQL as written, the reference.
Also: NEIS timetables are built lazily, one page at a time; they must equal the eager build.
"""

from __future__ import annotations

import random

import pytest

from kopa_bench.world.sql_rewrite import parameter_names, parse, render
from tests.world_requests import CALLS, example_param_variants

PAGES = [(0, 3), (2, 3), (0, None), (10_000, 10), (0, 0), (5, 0)]


def _both(world, op, params, offset, limit):
    """(planned, reference) answers, each computed afresh (no memo)."""
    return world.planner.rows(op, params, offset, limit), world.planner.reference_rows(op, params, offset, limit)


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


def test_every_catalog_query_reads_back_with_its_parameters(catalog):
    """sqlglot reads all catalog SQL; rendering the tree keeps every `$name` parameter."""
    import re

    queries = [ref.op.query for ref in catalog if ref.op.query]
    assert len(queries) >= 40
    for q in queries:
        tree = parse(q)
        assert tree is not None, q
        names = set(re.findall(r"\$([A-Za-z_][A-Za-z0-9_]*)", q))
        assert parameter_names(tree) == sorted(names), q
        again = render(tree)
        assert set(re.findall(r"\$([A-Za-z_][A-Za-z0-9_]*)", again)) == names, q
        assert render(parse(again)) == again  # a fixed point: plans render the same text every time


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

"""Absent keys answered without a query (kopa_bench/world/keyindex.py KeyUniverse).

A plan with a top-level `column = $param` on some of its parameters cannot answer a row when no
row of its FROM clause holds those values: the world then answers ([], 0) without running it.
Each such claim must hold against QueryPlanner.window_page (the single query) on every page, for
every SQL operation's requests (example variants, recorded EDGE probes, gold programs) and for
keys made absent on purpose; and a plan that could answer rows without a matching FROM row (an
aggregate), whose FROM clause needs a parameter, or whose columns are not VARCHAR gets none.
"""

from __future__ import annotations

import random
from types import SimpleNamespace

from kopa_bench.world.keyindex import build_universe, eq_conjuncts
from tests.test_world_keyindex import planner, typed  # noqa: F401 (fixture)
from tests.world_requests import PAGES, gold_requests, requests_by_op  # noqa: F401 (fixture)


def test_only_top_level_equality_conjuncts_count():
    names = ["a", "b", "c"]
    found = eq_conjuncts("SELECT x, y FROM t WHERE (x = $a) AND y >= $b AND lower(z) = $c ORDER BY x", names)
    assert found is not None
    assert [(p.name, p.expr) for p in found] == [("a", "x")]
    for bad in [
        "SELECT x FROM t WHERE x = $a OR y = $b",  # a disjunction
        "SELECT x FROM t WHERE x IN (SELECT x FROM u WHERE v = $a)",  # inside a sub-query
        "SELECT DISTINCT x FROM t WHERE x = $a",
        "SELECT x FROM t WHERE x = $a GROUP BY x",
        "SELECT x FROM t WHERE y >= $b",  # no equality at all
        "SELECT x FROM t WHERE x = $a AND y = $a",  # used twice
    ]:
        assert eq_conjuncts(bad, names) is None, bad


def test_absent_keys_answer_what_the_single_query_answers(planner, catalog, gold_requests):  # noqa: F811
    rng = random.Random(0)
    by_op = requests_by_op(catalog, gold_requests)
    claimed = checked = 0
    ops = set()
    for tool, reqs in sorted(by_op.items()):
        op = catalog.get(tool).op
        plans: dict[str, tuple[list[str], dict]] = {}
        for params, offset, limit in reqs:
            sql, names = planner.plan(op.query, params)
            if not names:
                continue
            bound = {n: params.get(n) for n in names}
            plans.setdefault(sql, (names, bound))
            if planner.key_absent(sql, names, bound, build_after=0):
                assert typed(planner.window_page(sql, bound, offset, limit)) == typed(([], 0)), (tool, params)
                claimed += 1
        for sql, (names, bound) in plans.items():  # keys made absent: each component changed
            uni = planner.key_universe(sql)
            if uni is None:
                continue
            ops.add(tool)
            keys = sorted(uni.keys)
            for key in rng.sample(keys, min(3, len(keys))):
                for i in range(len(key)):
                    for other in {key[i] + " ", key[i][:-1], rng.choice(keys)[i], "없는값"}:
                        trial = dict(bound, **dict(zip(uni.names, key[:i] + (other,) + key[i + 1:])))
                        if not uni.excludes(trial):
                            continue
                        for offset, limit in rng.sample(PAGES, 1):
                            assert typed(planner.window_page(sql, trial, offset, limit)) == typed(([], 0)), (tool, trial)
                            checked += 1
    assert len(ops) >= 15 and claimed > 300 and checked > 1000, (sorted(ops), claimed, checked)


def test_plans_that_could_answer_without_a_matching_row_get_no_universe(world):
    rows = "(VALUES ('k', 1), ('k', 2), ('j', 3)) AS t(g, x)"
    con = world.con
    plain = f"SELECT x FROM {rows} WHERE (g = $g) AND x >= $x ORDER BY x"
    uni = build_universe(con, plain, ["g", "x"], 100)
    assert uni is not None and uni.names == ["g"] and uni.keys == {("k",), ("j",)}
    assert uni.excludes({"g": "none", "x": 1}) and not uni.excludes({"g": "k", "x": 99})
    assert not uni.excludes({"g": 7, "x": 1})  # not text: left to DuckDB
    # an aggregate answers one row (count 0) for any key
    assert build_universe(con, f"SELECT count(*) AS n FROM {rows} WHERE g = $g", ["g"], 100) is None
    # numeric columns: DuckDB would cast the text parameter
    assert build_universe(con, f"SELECT g FROM {rows} WHERE x = $x", ["x"], 100) is None
    # more keys than allowed
    assert build_universe(con, plain, ["g", "x"], 1) is None
    # keys of a join: every row the FROM clause holds, before the WHERE
    joined = f"SELECT t.x FROM {rows} LEFT JOIN (VALUES ('k', 'K')) AS u(g, h) ON u.g = t.g WHERE u.h = $h ORDER BY t.x"
    assert build_universe(con, joined, ["h"], 100).keys == {("K",)}


def test_world_answers_absent_keys_without_a_query(planner):
    rows = "(VALUES ('k', 1), ('k', 2), ('j', 3)) AS t(g, x)"
    op = SimpleNamespace(query=f"SELECT x FROM {rows} WHERE (g = $g) AND x >= $x ORDER BY x")
    needs_param = f"SELECT x FROM (SELECT x, g FROM {rows} WHERE x >= $x) AS s WHERE g = $g ORDER BY x"
    before = dict(planner.key_stats)
    for _ in range(planner.KEY_UNIVERSE_AFTER - 1):  # not asked often enough yet: the query answers
        assert planner.rows(op, {"g": "none", "x": 0}, 0, 10) == ([], 0)
    assert planner.key_stats["absent"] == before["absent"]
    assert planner.rows(op, {"g": "none", "x": 0}, 0, 10) == ([], 0)
    assert planner.rows(op, {"g": "k", "x": 0}, 0, 10) == ([{"x": 1}, {"x": 2}], 2)
    assert planner.key_stats["universes"] == before["universes"] + 1
    assert planner.key_stats["absent"] == before["absent"] + 1
    # a FROM clause that needs a parameter: no key universe, the plan keeps its queries
    assert not planner.key_absent(needs_param, ["x", "g"], {"x": 0, "g": "none"}, build_after=0)
    assert planner.key_universe(needs_param) is None and planner.key_stats["universes"] == before["universes"] + 1

"""Key-indexed world answers (kopa_bench/world/keyindex.py) equal the single queries.

A plan whose every supplied parameter is a top-level `column = $param` is answered from an
index of every key's whole answer once it has been asked often. Each indexed answer must equal
QueryPlanner.window_page (the single query): same rows, same order, same total, pages past the
end, empty pages and absent keys included; pages holding sort-key peers are left to the query.
Requests: every SQL operation's example variants, the recorded EDGE probe queries and the gold
programs' requests (tests/world_requests.py), plus sampled keys of every index built.
"""

from __future__ import annotations

import random

import pytest

from kopa_bench.world.keyindex import all_keys_query, eq_predicates
from tests.world_requests import PAGES, gold_requests, requests_by_op  # noqa: F401 (fixture)


def typed(ans):
    """An answer with each value's type and repr: `==` alone would take 1 for 1.0 or Decimal('1.5')
    for 1.5, which the protocols render differently."""
    if ans is None:
        return None
    rows, total = ans
    return [[(k, type(v).__name__, repr(v)) for k, v in r.items()] for r in rows], total


@pytest.fixture()
def planner(world):
    world.planner.forget_keys()
    yield world.planner
    world.planner.forget_keys()


def test_only_top_level_equalities_key_a_plan():
    names = ["a", "b"]
    ok = "SELECT x, y FROM t WHERE TRUE AND (x = $a) AND t.y = $b ORDER BY x"
    preds = eq_predicates(ok, names)
    assert [(p.name, p.expr) for p in preds] == [("a", "x"), ("b", "t.y")]
    for bad in [
        "SELECT x FROM t WHERE x = $a OR y = $b ORDER BY x",  # a disjunction
        "SELECT x FROM t WHERE x = $a AND y >= $b ORDER BY x",  # a range
        "SELECT x FROM t WHERE x = $a AND y = $b AND z = $b ORDER BY x",  # used twice
        "SELECT x FROM t WHERE x IN (SELECT x FROM u WHERE v = $a) AND y = $b",  # inside a sub-query
        "SELECT DISTINCT x FROM t WHERE x = $a AND y = $b",  # DISTINCT at the top
        "SELECT x FROM t WHERE (x = $a AND y = $b) ORDER BY x",  # not one conjunct each
        "SELECT x FROM t WHERE x = $a AND y = $b LIMIT 3",
        "SELECT x FROM t WHERE x = lower($a) AND y = $b",
        "SELECT x FROM t WHERE NOT x = $a AND y = $b",
        "SELECT count(*) AS n FROM t WHERE x = $a AND y = $b",  # an aggregate answers absent keys too
        "SELECT x FROM t WHERE x = $a AND y = $b UNION SELECT x FROM u",
        "WITH u AS (SELECT 1) SELECT x FROM t WHERE x = $a AND y = $b",
    ]:
        assert eq_predicates(bad, names) is None, bad


def test_all_keys_query_orders_as_the_plan_does(world):
    con = world.con
    values = "(VALUES ('k', 1, 'P'), ('k', 2, 'q')) AS t(g, c, d)"
    found = all_keys_query(con, f"SELECT c AS b FROM {values} WHERE g = $x ORDER BY b DESC, lower(d) NULLS FIRST", ["x"])
    assert found is not None
    query, count, out = found
    assert out == ["b"] and '"q"."b" DESC' in query and "LOWER(d) AS __o1" in query and "$x" not in query
    assert con.execute(count).fetchone()[0] == 2
    rows = con.execute(query).fetchall()
    assert [(r[0], r[-2], r[-1]) for r in rows] == [(2, 1, 1), (1, 2, 1)]  # b, __rn, __peers
    # positional ORDER BY is not rewritten
    assert all_keys_query(con, f"SELECT c FROM {values} WHERE g = $x ORDER BY 1", ["x"]) is None
    assert all_keys_query(con, f"SELECT c AS __rn FROM {values} WHERE g = $x ORDER BY c", ["x"]) is None  # our own name


def test_indexed_answers_equal_single_queries(planner, catalog, gold_requests):  # noqa: F811
    rng = random.Random(0)
    by_op = requests_by_op(catalog, gold_requests)
    compared = declined = sampled = 0
    indexed_ops = set()
    for tool, reqs in sorted(by_op.items()):
        op = catalog.get(tool).op
        plans: dict[str, list[str]] = {}
        for params, offset, limit in reqs:
            sql, names = planner.plan(op.query, params)
            if not names:
                continue
            bound = {n: params.get(n) for n in names}
            ans = planner.from_key_index(sql, names, bound, offset, limit, build_after=1)
            if planner.key_index(sql) is None:
                continue
            plans[sql] = names
            if ans is None:
                declined += 1
                continue
            assert typed(ans) == typed(planner.window_page(sql, bound, offset, limit)), (tool, params, offset, limit)
            compared += 1
            indexed_ops.add(tool)
        for sql, names in plans.items():  # other keys of the same index, and absent ones
            idx = planner.key_index(sql)
            keys = rng.sample(sorted(idx.parts), min(12, len(idx.parts))) + [("없는값",) * len(idx.names)]
            for key in keys:
                bound = dict(zip(idx.names, key))
                for offset, limit in PAGES:
                    ans = idx.page(bound, offset, limit)
                    if ans is not None:
                        assert typed(ans) == typed(planner.window_page(sql, bound, offset, limit)), (tool, key, offset, limit)
                        sampled += 1
    assert len(indexed_ops) >= 12 and compared > 300 and sampled > 1500, (indexed_ops, compared, sampled, declined)


def test_peers_numbers_and_untyped_keys_are_left_to_the_single_query(planner):
    values = "(VALUES ('k', 1, 'a'), ('k', 1, 'b'), ('k', 2, 'c'), ('j', 3, 'd'), (NULL, 4, 'e')) AS t(g, x, y)"
    sql = f"SELECT x, y FROM {values} WHERE (g = $g) ORDER BY x"
    assert planner.from_key_index(sql, ["g"], {"g": "k"}, 0, 1, build_after=1) is None  # x=1 has a peer
    assert planner.from_key_index(sql, ["g"], {"g": "k"}, 2, 5, build_after=1) == ([{"x": 2, "y": "c"}], 3)
    assert planner.from_key_index(sql, ["g"], {"g": "j"}, 0, None) == ([{"x": 3, "y": "d"}], 1)
    assert planner.from_key_index(sql, ["g"], {"g": "none"}, 0, 10) == ([], 0)
    assert planner.from_key_index(sql, ["g"], {"g": "k"}, 9, 10) == ([], 3)  # past the end: the total
    assert planner.from_key_index(sql, ["g"], {"g": 7}, 0, 10) is None  # not text: DuckDB would cast
    # without ORDER BY every row is a peer of every other: only answers of one row are taken
    point = f"SELECT y FROM {values} WHERE g = $g"
    assert planner.from_key_index(point, ["g"], {"g": "k"}, 0, 10, build_after=1) is None
    assert planner.from_key_index(point, ["g"], {"g": "j"}, 0, 10) == ([{"y": "d"}], 1)
    # numeric keys: a text parameter '1' equals the number 1 in DuckDB, so no index is built
    num = f"SELECT y FROM {values} WHERE x = $x ORDER BY y"
    assert planner.from_key_index(num, ["x"], {"x": "1"}, 0, 10, build_after=1) is None
    assert planner.key_index(num) is None and planner.window_page(num, {"x": "1"}, 0, 10)[1] == 2

"""The fast in-process paths give the same answers as the slow ones.

* KopaClient's in-process transport (the direct ASGI call, client/inprocess.py) vs httpx.ASGITransport: the app sees the
  same scope and the client returns the same ToolResult, for every tool's example call and
  variants (paging, bad values, missing parameters, reserved characters, fault injection).
* The world's folded constant sub-selects (QueryPlanner.prepared) vs the SQL as written.
"""

from __future__ import annotations

import asyncio

import pytest

from kopa_bench.client import KopaClient
from kopa_bench.client.inprocess import ASGICall, query_string
from kopa_bench.client.transport import HTTPXTransport
from kopa_bench.sandbox import create_app
from kopa_bench.sandbox.faults import FaultConfig


def _example_args(ref) -> dict:
    return {p.name: p.example for p in ref.op.model_params if p.example is not None}


def _sample_calls(catalog) -> list[tuple[str, dict]]:
    """Every tool's example, then variants that exercise error and paging paths."""
    calls = []
    for ref in catalog:
        args = _example_args(ref)
        calls.append((ref.op.tool, args))
        names = {p.name for p in ref.op.model_params}
        if "numOfRows" in names:
            calls.append((ref.op.tool, {**args, "numOfRows": 2, "pageNo": 2}))
        for p in ref.op.model_params:
            if p.required and p.type == "string":
                calls.append((ref.op.tool, {**args, p.name: "없는 값 +/=%&?#"}))
                break
    return calls


def _comparable(res) -> dict:
    d = res.model_dump()
    d.pop("elapsed_ms")
    return d


def _run(client: KopaClient, calls) -> list[dict]:
    async def go():
        out = [_comparable(await client.call(tool, args)) for tool, args in calls]
        await client.aclose()
        return out

    return asyncio.run(go())


def test_direct_asgi_matches_httpx(world, catalog, sandbox_app):
    calls = _sample_calls(catalog)
    assert len(calls) > 100
    fast = _run(KopaClient(catalog=catalog, world=world, app=sandbox_app), calls)
    slow = _run(KopaClient(catalog=catalog, world=world, app=sandbox_app, transport=HTTPXTransport(app=sandbox_app)), calls)
    assert len(fast) == len(slow)
    for (tool, args), a, b in zip(calls, fast, slow):
        assert a == b, (tool, args)
    assert sum(r["ok"] for r in fast) > len(catalog) * 0.8  # the sample really reaches the world


def test_direct_asgi_matches_httpx_with_faults(world, catalog):
    """Same fault sequence (same seed, same call order): same results, retries included."""
    calls = _sample_calls(catalog)[:80]
    kinds = ("quota", "per_second", "key", "server_error", "truncated", "malformed")
    res = []
    for direct in (True, False):
        app = create_app(world=world, catalog=catalog, faults=FaultConfig(rate=0.4, kinds=kinds, seed=7))
        client = KopaClient(catalog=catalog, world=world, app=app, max_retries=2, backoff_s=0.0,
                            transport=None if direct else HTTPXTransport(app=app))
        res.append(_run(client, calls))
    assert res[0] == res[1]
    assert any(r["attempts"] > 1 for r in res[0]) and any(not r["ok"] for r in res[0])


class _Recorder:
    def __init__(self, app):
        self.app, self.scopes = app, []

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            self.scopes.append(dict(scope))
        await self.app(scope, receive, send)


def test_scope_is_the_one_httpx_sends(sandbox_app):
    import httpx

    rec = _Recorder(sandbox_app)
    cases = [
        ("GET", "http://sandbox/B552584/ArpltnInforInqireSvc/getCtprvnRltmMesureDnsty",
         {"serviceKey": "ab/c+d=e%f", "sidoName": "서울", "ver": 1.3, "flag": True, "none": None, "multi": [1, 2]}),
        ("GET", "http://sandbox/ecos/StatisticSearch/ab%2Fc%2Bd%3De%25f/json/kr/1/10/722Y001/A/2020/2024", None),
        ("GET", "http://sandbox/seoul/KOPA-SANDBOX/json/x/1/5/%20/", {}),
        ("POST", "http://sandbox/x?a=1&b=2", {"b": 3, "c": "한 글"}),
        ("GET", "http://sandbox/x?a=1", None),
    ]

    async def go():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=rec)) as c:
            for method, url, params in cases:
                await c.request(method, url, params=params or None)
        direct = ASGICall(rec)
        for method, url, params in cases:
            await direct.request(method, url, params or None)

    asyncio.run(go())
    n = len(cases)
    assert len(rec.scopes) == 2 * n
    for want, got in zip(rec.scopes[:n], rec.scopes[n:]):
        assert got == want


def test_query_string_matches_httpx():
    import httpx

    params = {"a": "x y/+=%&?#", "b": 1, "c": None, "d": True, "e": False, "f": [1, "z"], "g": 1.5, "키": "값"}
    assert query_string(params) == str(httpx.QueryParams(params))


def test_folded_subqueries_answer_as_written(world, catalog):
    """QueryPlanner.prepared folds parameter-free scalar sub-selects; the answers must not change."""
    from kopa_bench.protocols.base import validate_params

    folded = [ref for ref in catalog if ref.op.query and world.planner.prepared(ref.op.query)[0] != ref.op.query]
    assert folded, "expected at least the AirKorea queries to fold max(dataTime)"
    for ref in folded:
        sql, _ = world.planner.prepared(ref.op.query)
        assert "SELECT MAX(" not in sql.upper()
        params, problem = validate_params(ref.op, _example_args(ref))
        assert problem is None
        for offset, limit in ((0, 10), (3, 5), (0, None)):
            fast = world.answer(ref.op, params, offset, limit)
            slow = world.planner.reference_rows(ref.op, params, offset, limit)
            assert fast == slow and fast[1] > 0, (ref.op.tool, offset, limit)


@pytest.mark.parametrize("sql, folds", [
    ("SELECT * FROM t WHERE a = (SELECT max(a) FROM t)", True),
    ("SELECT * FROM (SELECT DISTINCT a FROM t) AS p", False),
    ("SELECT * FROM t WHERE a IN (SELECT a FROM t)", False),
    ("SELECT * FROM t WHERE a = (SELECT max(a) FROM t WHERE b = $b)", False),
    ("SELECT * FROM t WHERE a = (SELECT a FROM t)", False),  # more than one row: not a constant
    ("SELECT * FROM t WHERE s = (SELECT max(s) FROM t) AND ')' <> '('", True),
    ("SELECT * FROM t WHERE a = ANY (SELECT max(a) FROM t)", False),
    ("SELECT * FROM t WHERE EXISTS (SELECT max(a) FROM t)", False),
    ("SELECT * FROM t, LATERAL (SELECT max(a) AS m FROM t) AS l", False),
    ("SELECT * FROM t WHERE a IN ((SELECT max(a) FROM t), 0)", True),  # a value inside an IN list
    ("SELECT * FROM t WHERE a = (SELECT max(a), min(a) FROM t)", False),  # two columns
    ("SELECT (SELECT min(s) FROM t WHERE b = 9) AS n, a FROM t", True),  # no row: a typed NULL
])
def test_fold_only_constant_scalars(tmp_path, sql, folds):
    import duckdb

    from kopa_bench.world.store import World

    path = tmp_path / "w.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE __world_meta (key VARCHAR, value VARCHAR)")
    con.execute("CREATE TABLE t AS SELECT range AS a, range % 3 AS b, 'x''' || range AS s FROM range(5)")
    con.close()
    w = World(path)
    out, _ = w.planner.prepared(sql)
    assert (out != sql) == folds, out
    if folds:
        assert w.sql(out, {"b": 1} if "$b" in out else None) == w.sql(sql, {"b": 1} if "$b" in sql else None)
    w.close()

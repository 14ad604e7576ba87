"""Catalog SQL run against a world: constant sub-selects folded once, one page and the total per query."""

from __future__ import annotations

from typing import Any

import duckdb
from sqlglot import exp

from . import lazy_sql
from .sql_rewrite import fold_constants, parameter_names, parse, typed_literal


class QueryPlanner:
    """Runs catalog SQL for one world connection."""

    def __init__(self, world):
        self._world = world
        self._prepared: dict[str, tuple[str, list[str]]] = {}  # catalog SQL -> (folded SQL, its parameters)

    def prepared(self, sql: str) -> tuple[str, list[str]]:
        """(the catalog SQL with its constant sub-selects folded, its parameters), once per SQL:
        the world is read-only, so `(SELECT max(dataTime) FROM air_measurements)` is a constant that
        DuckDB would otherwise recompute by a scan of its table on every call."""
        hit = self._prepared.get(sql)
        if hit is None:
            hit = self._prepared[sql] = fold_constants(sql, self._constant)
        return hit

    def _constant(self, subselect: str) -> exp.Expression | None:
        """The typed literal of a one-row, one-column sub-select."""
        cur = self._world.new_cursor()
        try:
            rows = cur.execute(f"SELECT typeof(v), CAST(v AS VARCHAR) FROM (SELECT ({subselect}) AS v)").fetchall()
            ncols = len(cur.execute(f"SELECT * FROM ({subselect}) LIMIT 0").description)
        except duckdb.Error:
            return None  # left to DuckDB, which will report the problem itself
        if len(rows) != 1 or ncols != 1:
            return None
        type_name, text = rows[0]
        # an untyped NULL: any comparison with it is NULL anyway
        return typed_literal(text, "VARCHAR" if type_name == "NULL" else type_name)

    def rows(self, op, params: dict[str, Any], offset: int, limit: int | None) -> tuple[list[dict[str, Any]], int]:
        """One page of the operation's answer and its total."""
        sql, names = self.prepared(op.query)
        return self._page_over_lazy(op, sql, {n: params.get(n) for n in names}, params, offset, limit)

    def reference_rows(self, op, params: dict[str, Any], offset: int, limit: int | None) -> tuple[list[dict[str, Any]], int]:
        """The catalog SQL as written, with a window count: the answer `rows` must give."""
        tree = parse(op.query)
        names = parameter_names(tree) if tree is not None else []
        return self._page_over_lazy(op, op.query, {n: params.get(n) for n in names}, params, offset, limit)

    def _page_over_lazy(self, op, sql: str, bound: dict[str, Any], params: dict[str, Any], offset: int,
                        limit: int | None) -> tuple[list[dict[str, Any]], int]:
        """`window_page`, with the operation's lazy tables generated for this request's key where needed."""
        if not op.lazy_tables:
            return self.window_page(sql, bound, offset, limit)
        stand_ins = lazy_sql.generated(self._world, op, params)
        if not stand_ins:
            return self.window_page(sql, bound, offset, limit)
        cur = self._world.new_cursor()  # its own connection: registrations never meet another query's result
        try:
            with lazy_sql.registered(cur, stand_ins):
                return self.window_page(lazy_sql.reading(sql, frozenset(stand_ins)), bound, offset, limit, cur)
        finally:
            cur.close()

    def window_page(self, sql: str, bound: dict[str, Any], offset: int, limit: int | None,
                    cur=None) -> tuple[list[dict[str, Any]], int]:
        """One page and the total in one query (a separate count would pay the per-query cost again);
        on the world's thread cursor unless given another."""
        page = f" LIMIT {int(limit)} OFFSET {int(offset)}" if limit is not None else ""
        rows = self._world.sql(f"SELECT *, count(*) OVER () AS __total FROM ({sql}) AS q{page}", bound, cur=cur)
        if rows:
            total = int(rows[0]["__total"])
            for r in rows:
                del r["__total"]
        elif offset > 0:
            total = int((cur or self._world.con).execute(f"SELECT count(*) FROM ({sql}) AS q", bound).fetchall()[0][0])
        else:
            total = 0
        return rows, total

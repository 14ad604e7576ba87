"""Catalog SQL run against a world: constant sub-selects folded, queries specialised to the
parameters a call supplies, keyed plans answered from an index, one page and the total per query."""

from __future__ import annotations

import logging
import threading
from typing import Any

import duckdb
from sqlglot import exp

from .keyindex import KeyIndex, KeyUniverse, build_index, build_universe
from .sql_rewrite import fold_constants, parameter_names, parse, specialise, typed_literal

log = logging.getLogger(__name__)


class QueryPlanner:
    """Runs catalog SQL for one world connection: folds constant sub-selects, specialises each
    query to the parameters a call supplies, answers keyed plans from an index, and pages."""

    # Plans keyed by equality on every supplied parameter are answered from a per-plan index
    # (world/keyindex.py) once they have run KEY_INDEX_AFTER single queries; index rows per world
    # are bounded, since they are kept in memory.
    KEY_INDEX = True
    KEY_INDEX_AFTER = 16
    KEY_INDEX_MAX_ROWS = 60_000  # one plan's answers over all its keys
    KEY_INDEX_BUDGET = 200_000  # all plans' indexed rows together
    # Plans with an equality on some parameters answer a key that no row holds without a query
    # (world/keyindex.py KeyUniverse), once they have run KEY_UNIVERSE_AFTER queries.
    KEY_UNIVERSE_AFTER = 4
    KEY_UNIVERSE_MAX = 100_000  # keys of one FROM clause and columns

    def __init__(self, world):
        self._world = world
        self._prepared: dict[str, tuple[str, list[str]]] = {}  # catalog SQL -> (folded SQL, its parameters)
        # (folded SQL, supplied parameters) -> (specialised SQL, its parameters)
        self._plans: dict[tuple[str, frozenset[str]], tuple[str, list[str]]] = {}
        self._key_lock = threading.Lock()
        self.forget_keys()
        self.key_stats = {"indexes": 0, "rows": 0, "answers": 0, "declined": 0, "universes": 0, "absent": 0}

    def forget_keys(self) -> None:
        """Drop every key index and key universe and the counts that trigger them."""
        with self._key_lock:
            self._key_uses: dict[str, int] = {}  # specialised SQL -> single queries it ran
            self._key_index: dict[str, KeyIndex | None] = {}
            self._universe: dict[str, KeyUniverse | None] = {}  # specialised SQL -> its keys
            self._universe_keys: dict[str, frozenset | None] = {}  # key query -> keys

    def key_index(self, sql: str) -> KeyIndex | None:
        """The plan's key index, once built (None: not built, or the plan is not indexable)."""
        return self._key_index.get(sql)

    def key_universe(self, sql: str) -> KeyUniverse | None:
        """The plan's key universe, once built (None: not built, or the plan has none)."""
        return self._universe.get(sql)

    def prepared(self, sql: str) -> tuple[str, list[str]]:
        """(the catalog SQL with its constant sub-selects folded, its parameters), once per SQL."""
        hit = self._prepared.get(sql)
        if hit is None:
            folded = fold_constants(sql, self._constant)
            tree = parse(folded)
            hit = (folded, parameter_names(tree) if tree is not None else [])
            self._prepared[sql] = hit
        return hit

    def _constant(self, subselect: str) -> exp.Expression | None:
        """The typed literal of a one-row, one-column sub-select, computed once: the world is
        read-only, so the value cannot change."""
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

    def plan(self, query: str, params: dict[str, Any]) -> tuple[str, list[str]]:
        """(the SQL to run for these parameters, its parameters), once per (query, supplied parameters)."""
        folded, names = self.prepared(query)
        bound = frozenset(n for n in names if params.get(n) is not None)
        key = (folded, bound)
        hit = self._plans.get(key)
        if hit is None:
            sql = specialise(folded, bound)
            tree = parse(sql) if sql != folded else None
            hit = (sql, parameter_names(tree) if tree is not None else names)
            self._plans[key] = hit
        return hit

    def rows(self, op, params: dict[str, Any], offset: int, limit: int | None) -> tuple[list[dict[str, Any]], int]:
        """One page of the operation's answer and its total."""
        sql, names = self.plan(op.query, params)
        bound = {n: params.get(n) for n in names}
        if self.KEY_INDEX and names:
            ans = self.from_key_index(sql, names, bound, offset, limit)
            if ans is not None:
                return ans
            if self.key_absent(sql, names, bound):
                return [], 0  # what window_page gives on any page when no row matches
        return self.window_page(sql, bound, offset, limit)

    def reference_rows(self, op, params: dict[str, Any], offset: int, limit: int | None) -> tuple[list[dict[str, Any]], int]:
        """The catalog SQL as written, with a window count: the answer the plans must give."""
        tree = parse(op.query)
        names = parameter_names(tree) if tree is not None else []
        return self.window_page(op.query, {n: params.get(n) for n in names}, offset, limit)

    def window_page(self, sql: str, bound: dict[str, Any], offset: int, limit: int | None) -> tuple[list[dict[str, Any]], int]:
        """One page and the total in one query (a separate count would pay the per-query cost again)."""
        page = f" LIMIT {int(limit)} OFFSET {int(offset)}" if limit is not None else ""
        rows = self._world.sql(f"SELECT *, count(*) OVER () AS __total FROM ({sql}) AS q{page}", bound)
        if rows:
            total = int(rows[0]["__total"])
            for r in rows:
                del r["__total"]
        elif offset > 0:
            total = int(self._world.con.execute(f"SELECT count(*) FROM ({sql}) AS q", bound).fetchone()[0])
        else:
            total = 0
        return rows, total

    def from_key_index(self, sql: str, names: list[str], bound: dict[str, Any], offset: int,
                       limit: int | None, build_after: int | None = None) -> tuple[list[dict[str, Any]], int] | None:
        """The answer from the plan's key index (built once the plan has been asked `build_after`
        times, KEY_INDEX_AFTER by default), or None: then the single query answers."""
        if sql in self._key_index:
            idx = self._key_index[sql]
        else:
            uses = self._key_uses.get(sql, 0) + 1
            self._key_uses[sql] = uses
            if uses < (self.KEY_INDEX_AFTER if build_after is None else build_after):
                return None
            idx = self._build_key_index(sql, names)
        if idx is None:
            return None
        ans = idx.page(bound, offset, limit)
        self.key_stats["answers" if ans is not None else "declined"] += 1
        return ans

    def _build_key_index(self, sql: str, names: list[str]) -> KeyIndex | None:
        with self._key_lock:
            if sql in self._key_index:
                return self._key_index[sql]
            idx = None
            budget = self.KEY_INDEX_BUDGET - self.key_stats["rows"]
            if budget > 0:
                try:
                    idx = build_index(self._world.con, sql, names, min(self.KEY_INDEX_MAX_ROWS, budget))
                except duckdb.Error as exc:  # the rewrite is not valid SQL here: keep single queries
                    log.debug("no key index for %.80s: %s", sql, exc)
            if idx is not None:
                self.key_stats["indexes"] += 1
                self.key_stats["rows"] += idx.rows
            self._key_index[sql] = idx
            return idx

    def key_absent(self, sql: str, names: list[str], bound: dict[str, Any], build_after: int | None = None) -> bool:
        """Whether the plan's key universe (built once the plan has been asked `build_after`
        times, KEY_UNIVERSE_AFTER by default) shows no row can match these parameters."""
        uni = self._universe.get(sql, ...)
        if uni is ...:
            uses = self._key_uses.get(sql, 0)  # counted by from_key_index, which runs first
            if uses < (self.KEY_UNIVERSE_AFTER if build_after is None else build_after):
                return False
            with self._key_lock:
                uni = self._universe.get(sql, ...)
                if uni is ...:
                    try:
                        uni = build_universe(self._world.con, sql, names, self.KEY_UNIVERSE_MAX, self._universe_keys)
                    except duckdb.Error as exc:
                        log.debug("no key universe for %.80s: %s", sql, exc)
                        uni = None
                    self._universe[sql] = uni
                    self.key_stats["universes"] += uni is not None
        if uni is None or not uni.excludes(bound):
            return False
        self.key_stats["absent"] += 1
        return True

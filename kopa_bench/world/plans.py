"""Catalog SQL run against a world: constant sub-selects folded, queries specialised to the
parameters a call supplies, keyed plans answered from an index, one page and the total per query."""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

import duckdb

from .batch import BatchPlan, build_plan, closing_quote
from .keyindex import KeyIndex, KeyUniverse, build_index, build_universe

log = logging.getLogger(__name__)
_PARAM_RE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
# A parenthesised sub-select; what precedes it says whether it is a scalar (folded) or a table/IN list.
_SUBSELECT_RE = re.compile(r"\(\s*SELECT\b", re.IGNORECASE)
_NOT_SCALAR_BEFORE = re.compile(r"(?:\bFROM|\bJOIN|\bIN|\bEXISTS|\bANY|\bALL|\bSOME|\bLATERAL|,)\s*$", re.IGNORECASE)
# An optional-parameter guard as the catalog writes it: `($x IS NULL OR <predicate>)`.
_NULL_GUARD_RE = re.compile(r"\(\s*\$([A-Za-z_][A-Za-z0-9_]*)\s+IS\s+NULL\s+OR\s+", re.IGNORECASE)
_WORD_BEFORE_RE = re.compile(r"([A-Za-z0-9_]+)\s*$")
_KEYWORDS_BEFORE_PREDICATE = {"WHERE", "AND", "OR", "NOT", "ON", "WHEN", "THEN", "ELSE", "HAVING", "QUALIFY"}


def _closing_paren(sql: str, start: int) -> int | None:
    """Index of the ')' matching the '(' at `start`, skipping quoted text; None if unbalanced."""
    depth, i, n = 0, start, len(sql)
    while i < n:
        c = sql[i]
        if c in "'\"":
            j = closing_quote(sql, i)  # a doubled quote inside a literal is part of it
            if j == -1:
                return None
            i = j
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def specialise(sql: str, bound: frozenset[str]) -> str:
    """The query for one set of supplied parameters: each `($x IS NULL OR p)` becomes `(p)` when
    $x is supplied and `TRUE` when it is not.

    Exact in SQL's three-valued logic: with $x non-NULL, `$x IS NULL` is FALSE and `FALSE OR p`
    is p (also when p is NULL); with $x NULL the guard is TRUE. DuckDB 2.0 already folds bound
    parameter values into the plan (EXPLAIN shows them as literal filters), so the gain is a
    shorter query to parse and bind with fewer parameters, not a different scan: about 4% of the
    SQL CPU on recorded EDGE probes (BENCHMARKS.md)."""
    out, pos = [], 0
    for m in _NULL_GUARD_RE.finditer(sql):
        if m.start() < pos:
            continue  # inside a guard already dropped
        before = _WORD_BEFORE_RE.search(sql, 0, m.start())
        if before and before.group(1).upper() not in _KEYWORDS_BEFORE_PREDICATE:
            continue  # `f($x IS NULL OR p)`: a function's argument list, not a parenthesised predicate
        end = _closing_paren(sql, m.start())
        if end is None:
            break
        out.append(sql[pos:m.start()])
        if m.group(1) in bound:
            out.append("(")  # keep the predicate; its own guards are rewritten on the next matches
            pos = m.end()
        else:
            out.append("TRUE")
            pos = end + 1
    if not out:
        return sql
    out.append(sql[pos:])
    return "".join(out)


def _sql_literal(value: Any, type_name: str) -> str:
    text = "NULL" if value is None else "'" + str(value).replace("'", "''") + "'"
    return f"CAST({text} AS {type_name})"




class QueryPlanner:
    """Runs catalog SQL for one world connection: folds constant sub-selects, specialises each
    query to the parameters a call supplies, answers keyed plans from an index, and pages."""

    # False: run the catalog SQL as written (the reference, for tests)
    QUERY_PLANS = True
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
        self._sql_cache: dict[str, tuple[str, list[str]]] = {}
        # (folded SQL, supplied parameters) -> (specialised SQL, its parameters)
        self._plans: dict[tuple[str, frozenset[str]], tuple[str, list[str]]] = {}
        self._batch_plans: dict[str, BatchPlan | None] = {}  # specialised SQL -> its batched form
        self._key_uses: dict[str, int] = {}  # specialised SQL -> single queries it ran
        self._universe: dict[str, KeyUniverse | None] = {}  # specialised SQL -> its keys
        self._universe_keys: dict[tuple, frozenset | None] = {}  # (FROM clause, columns) -> keys
        self._key_index: dict[str, KeyIndex | None] = {}
        self._key_lock = threading.Lock()
        self.key_stats = {"indexes": 0, "rows": 0, "answers": 0, "declined": 0, "universes": 0, "absent": 0}

    @property
    def con(self):
        return self._world.con

    def sql(self, sql: str, params=None):
        return self._world.sql(sql, params)

    def _cursor(self):
        return self._world.new_cursor()

    def _prepared(self, sql: str) -> tuple[str, list[str]]:
        hit = self._sql_cache.get(sql)
        if hit is None:
            folded = self._fold_constant_subqueries(sql)
            names = sorted(set(_PARAM_RE.findall(folded)))
            hit = (folded, names)
            self._sql_cache[sql] = hit
        return hit


    def _fold_constant_subqueries(self, sql: str) -> str:
        """Replace each parameter-free scalar sub-select by its value, computed once.

        The world is read-only, so `(SELECT max(dataTime) FROM air_measurements)` is a constant;
        DuckDB would otherwise scan the 1.4 M-row table again on every call (~30 ms of a ~35 ms
        query). Only sub-selects in scalar position are folded (not after FROM/JOIN/IN/EXISTS),
        and only if they answer one row with one column; the value keeps its DuckDB type
        (`CAST('<text>' AS <type>)`), so the query means exactly what it meant before."""
        out, pos = [], 0
        for m in _SUBSELECT_RE.finditer(sql):
            start = m.start()
            if start < pos:
                continue  # nested inside a sub-select already handled
            end = _closing_paren(sql, start)
            if end is None:
                break
            inner = sql[start + 1:end]
            if "$" in inner or _NOT_SCALAR_BEFORE.search(sql[:start]):
                continue
            try:
                rows = self._cursor().execute(
                    f"SELECT typeof(v), CAST(v AS VARCHAR) FROM (SELECT ({inner}) AS v)").fetchall()
                ncols = len(self._cursor().execute(f"SELECT * FROM ({inner}) LIMIT 0").description)
            except duckdb.Error:
                continue  # leave it to DuckDB, which will report the problem itself
            if len(rows) != 1 or ncols != 1:
                continue
            type_name, text = rows[0]
            if type_name == "NULL":
                type_name = "VARCHAR"  # untyped NULL; any comparison with it is NULL anyway
            out.append(sql[pos:start])
            out.append("(" + _sql_literal(text, type_name) + ")")
            pos = end + 1
        if not out:
            return sql
        out.append(sql[pos:])
        return "".join(out)


    def _plan(self, query: str, params: dict[str, Any]) -> tuple[str, list[str]]:
        """The SQL to run for these parameters, built once per (query, supplied parameters)."""
        folded, names = self._prepared(query)
        bound = frozenset(n for n in names if params.get(n) is not None)
        key = (folded, bound)
        hit = self._plans.get(key)
        if hit is None:
            sql = specialise(folded, bound)
            hit = (sql, sorted(set(_PARAM_RE.findall(sql))))
            self._plans[key] = hit
        return hit


    def rows(self, op, params: dict[str, Any], offset: int, limit: int | None) -> tuple[list[dict[str, Any]], int]:
        if not self.QUERY_PLANS:
            return self._compute_rows_generic(op, params, offset, limit)
        sql, names = self._plan(op.query, params)
        bound = {n: params.get(n) for n in names}
        if self.KEY_INDEX and names:
            ans = self._from_key_index(sql, names, bound, offset, limit)
            if ans is not None:
                return ans
            if self._key_absent(sql, names, bound):
                return [], 0  # what _window_page gives on any page when no row matches
        return self._window_page(sql, bound, offset, limit)


    def _key_absent(self, sql: str, names: list[str], bound: dict[str, Any], build_after: int | None = None) -> bool:
        """Whether the plan's key universe (built once the plan has run enough queries) shows no
        row can match these parameters."""
        uni = self._universe.get(sql, ...)
        if uni is ...:
            uses = self._key_uses.get(sql, 0)  # counted by _from_key_index, which runs first
            if uses < (self.KEY_UNIVERSE_AFTER if build_after is None else build_after):
                return False
            with self._key_lock:
                uni = self._universe.get(sql, ...)
                if uni is ...:
                    try:
                        uni = build_universe(self.con, sql, names, self.KEY_UNIVERSE_MAX, self._universe_keys)
                    except duckdb.Error as exc:  # e.g. the FROM clause needs a parameter
                        log.debug("no key universe for %.80s: %s", sql, exc)
                        uni = None
                    self._universe[sql] = uni
                    self.key_stats["universes"] += uni is not None
        if uni is None or not uni.excludes(bound):
            return False
        self.key_stats["absent"] += 1
        return True


    def _from_key_index(self, sql: str, names: list[str], bound: dict[str, Any], offset: int,
                        limit: int | None, build_after: int | None = None) -> tuple[list[dict[str, Any]], int] | None:
        """The answer from the plan's key index (built once the plan has been asked often
        enough), or None: then the single query answers."""
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
                    idx = build_index(self.con, sql, names, self._batch_plan(sql, names),
                                      min(self.KEY_INDEX_MAX_ROWS, budget))
                except duckdb.Error as exc:  # the rewrite is not valid SQL here: keep single queries
                    log.debug("no key index for %.80s: %s", sql, exc)
            if idx is not None:
                self.key_stats["indexes"] += 1
                self.key_stats["rows"] += idx.rows
            self._key_index[sql] = idx
            return idx


    def _compute_rows_generic(self, op, params: dict[str, Any], offset: int, limit: int | None) -> tuple[list[dict[str, Any]], int]:
        """The catalog SQL as written, with a window count: the reference the plans must match
        (tests/test_query_plans.py compares them)."""
        sql, names = self._prepared(op.query)
        return self._window_page(sql, {n: params.get(n) for n in names}, offset, limit)


    def _window_page(self, sql: str, bound: dict[str, Any], offset: int, limit: int | None) -> tuple[list[dict[str, Any]], int]:
        """One page and the total in one query. A plain LIMIT (DuckDB's top-N) plus a separate
        count was measured slower (BENCHMARKS.md): the count pays the per-query cost again."""
        page = f" LIMIT {int(limit)} OFFSET {int(offset)}" if limit is not None else ""
        rows = self.sql(f"SELECT *, count(*) OVER () AS __total FROM ({sql}) AS q{page}", bound)
        if rows:
            total = int(rows[0]["__total"])
            for r in rows:
                del r["__total"]
        elif offset > 0:
            total = int(self.con.execute(f"SELECT count(*) FROM ({sql}) AS q", bound).fetchone()[0])
        else:
            total = 0
        return rows, total



    def _batch_plan(self, sql: str, names: list[str]) -> BatchPlan | None:
        if sql in self._batch_plans:
            return self._batch_plans[sql]
        plan = None
        try:
            cur = self.con.execute(f"SELECT * FROM ({sql}) AS q LIMIT 0", {n: None for n in names})
            plan = build_plan(sql, names, [d[0] for d in cur.description])
        except duckdb.Error as exc:
            log.debug("no batched form for %.80s: %s", sql, exc)
        self._batch_plans[sql] = plan
        return plan


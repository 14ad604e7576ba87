"""The world at run time: a read-only DuckDB database answering operation queries."""

from __future__ import annotations

import logging
import os
import re
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable

import duckdb
from filelock import FileLock

from ..clock import WorldClock
from .answers import handler as answer_handler
from .batch import BatchPlan, build_plan, closing_quote, run_batch, type_signature
from .build import DEFAULT_SEED, build_world_file, cache_dir, source_fingerprint
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


class World:
    """A built world opened read-only; many processes may read one file at once.

    DuckDB connections are not safe to share between threads, so each thread gets its own
    cursor on the shared database.
    """

    MEMO_SIZE = 4096  # memoised answers kept (LRU)
    QUERY_PLANS = True  # False: run the catalog SQL as written (the reference, for tests)
    # `prefetch` answers many pending SQL requests with one query per operation (world/batch.py);
    # KOPA_WORLD_BATCH=0 turns it off (every request then runs its own query, as before).
    BATCH = os.environ.get("KOPA_WORLD_BATCH", "1") not in ("0", "false", "no", "off")
    # Fewer requests of one plan run their own queries: a batched statement costs more than a
    # single one (lateral join, three windows), and on 3,269 recorded EDGE world calls batches
    # of 2 cost 11% more CPU than single queries, 3 the same, 4 5% less, 64 47% less.
    BATCH_MIN = 4
    # Plans keyed by equality on every supplied parameter are answered from a per-plan index
    # (world/keyindex.py) once they have run KEY_INDEX_AFTER single queries; KOPA_WORLD_INDEX=0
    # turns it off. Index rows per world are bounded (kept as tuples of shared values: an EDGE
    # verification's peak RSS grew 1.74 -> 1.82 GB with 34 indexes, 182,348 rows).
    KEY_INDEX = os.environ.get("KOPA_WORLD_INDEX", "1") not in ("0", "false", "no", "off")
    KEY_INDEX_AFTER = 16
    KEY_INDEX_MAX_ROWS = 60_000  # one plan's answers over all its keys
    KEY_INDEX_BUDGET = 200_000  # all plans' indexed rows together
    # Plans with an equality on some parameters answer a key that no row holds without a query
    # (world/keyindex.py KeyUniverse), once they have run KEY_UNIVERSE_AFTER queries; also under
    # KOPA_WORLD_INDEX. A 2 x 300-path EDGE verification asks ~1,800 such questions (of 7,952
    # queries; 3.0 of its 16.8 s of SQL).
    KEY_UNIVERSE_AFTER = 4
    KEY_UNIVERSE_MAX = 100_000  # keys of one FROM clause and columns

    def __init__(self, path: Path, clock: WorldClock | None = None):
        self.path = Path(path)
        # One DuckDB thread per query: the world's queries are small, and handing them to a second
        # worker thread cost more than it gained (2,826 recorded EDGE queries replayed: 5.47 s wall /
        # 5.82 s CPU with DuckDB's default 2 threads, 4.85 / 4.85 s with 1). Queries from several
        # Python threads (the sandbox server) still run side by side, each on its own cursor.
        # Set after connecting, not as connect(config=...): DuckDB refuses a second connection of
        # one process to a file opened with another configuration (a user's plain connect first).
        self._con = duckdb.connect(str(self.path), read_only=True)
        self._con.execute(f"SET threads = {world_threads()}")
        self._local = threading.local()
        meta = dict(self._con.execute("SELECT key, value FROM __world_meta").fetchall())
        self.meta = meta
        self.content_hash = meta.get("content_hash", "")
        self.clock = clock or WorldClock()
        self._memo: OrderedDict = OrderedDict()
        self._memo_lock = threading.Lock()
        self._ahead: dict[tuple, tuple] = {}  # memo key -> (pool, future): compute_ahead's requests
        self._sql_cache: dict[str, tuple[str, list[str]]] = {}
        # (folded SQL, supplied parameters) -> (specialised SQL, its parameters)
        self._plans: dict[tuple[str, frozenset[str]], tuple[str, list[str]]] = {}
        self._batch_plans: dict[str, BatchPlan | None] = {}  # specialised SQL -> its batched form
        self.batch_stats = {"queries": 0, "answers": 0, "declined": 0, "errors": 0}
        self._key_uses: dict[str, int] = {}  # specialised SQL -> single queries it ran
        self._universe: dict[str, KeyUniverse | None] = {}  # specialised SQL -> its keys
        self._universe_keys: dict[tuple, frozenset | None] = {}  # (FROM clause, columns) -> keys
        self._key_index: dict[str, KeyIndex | None] = {}
        self._key_lock = threading.Lock()
        self.key_stats = {"indexes": 0, "rows": 0, "answers": 0, "declined": 0, "universes": 0, "absent": 0}

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        cur = getattr(self._local, "cur", None)
        if cur is None:
            cur = self._con.cursor()
            self._local.cur = cur
        return cur

    def close(self) -> None:
        self._con.close()

    def sql(self, sql: str, params: dict[str, Any] | list | None = None) -> list[dict[str, Any]]:
        """Run SQL and return rows as dicts (column names are the API's field names)."""
        cur = self.con.execute(sql, params or {})
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, row)) for row in cur.fetchall()]

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
                rows = self._con.cursor().execute(
                    f"SELECT typeof(v), CAST(v AS VARCHAR) FROM (SELECT ({inner}) AS v)").fetchall()
                ncols = len(self._con.cursor().execute(f"SELECT * FROM ({inner}) LIMIT 0").description)
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

    def handler(self, name: str) -> Callable:
        """The answer function a spec's `handler:` names (world/answers/__init__.py)."""
        return answer_handler(name)

    @staticmethod
    def _memo_key(op, params: dict[str, Any], offset: int, limit: int | None) -> tuple:
        return (op.tool, tuple(sorted((k, v) for k, v in params.items())), offset, limit)

    def rows_for(self, op, params: dict[str, Any], offset: int = 0, limit: int | None = None) -> tuple[list[dict[str, Any]], int]:
        """The records an operation returns for validated params, paged; plus the total count.

        The world is read-only and every answer is a pure function of (operation, params,
        page), so answers are memoised: benchmark gold re-runs, EDGE probes and retries ask
        the same questions many times. Callers get fresh dicts, never the cached ones."""
        key = self._memo_key(op, params, offset, limit)
        with self._memo_lock:
            hit = self._memo.get(key)
            if hit is not None:
                self._memo.move_to_end(key)
            ahead = self._ahead.pop(key, None) if hit is None else None
        if ahead is not None:
            pool, fut = ahead
            hit = pool.collect(fut, "rows", lambda job: self._compute_rows(*job))
        if hit is None:
            hit = self._compute_rows(op, params, offset, limit)
            with self._memo_lock:
                self._memo[key] = hit
                if len(self._memo) > self.MEMO_SIZE:
                    self._memo.popitem(last=False)
        rows, total = hit
        return [dict(r) for r in rows], total

    def compute_ahead(self, pool, op, params: dict[str, Any], offset: int = 0, limit: int | None = None) -> bool:
        """Have a worker of `pool` (world/pool.py) compute this request's answer while the caller
        goes on; `rows_for` then finds it (or takes the request back if no worker has started on
        it). False when the answer is memoised or on its way already."""
        key = self._memo_key(op, params, offset, limit)
        with self._memo_lock:
            if key in self._memo or key in self._ahead:
                return False
        # submitted outside the memo lock: the pool fails a future under its own lock, and the
        # future's callback (_landed) takes the memo lock. A future done before it is registered
        # is still found by rows_for (WorldPool.collect reads a done future).
        fut = pool.submit(op, params, offset, limit)
        with self._memo_lock:
            self._ahead[key] = (pool, fut)
        fut.add_done_callback(lambda f: self._landed(key, f))
        return True

    def _landed(self, key: tuple, fut) -> None:
        """An answer arrived (in the pool's reader thread, or computed by a caller while it waited,
        WorldPool.collect): memoise it for `rows_for`."""
        if fut.cancelled() or fut.exception() is not None:
            return  # rows_for computes it (and meets the error itself, with its own traceback)
        with self._memo_lock:
            if self._ahead.get(key, (None, None))[1] is fut:
                del self._ahead[key]
                self._memo[key] = fut.result()
                while len(self._memo) > self.MEMO_SIZE:
                    self._memo.popitem(last=False)

    def clear_memo(self) -> None:
        """Forget memoised answers (benchmarks use it to time the uncached path)."""
        with self._memo_lock:
            self._memo.clear()

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

    def prefetch(self, requests) -> int:
        """Answer pending requests `(op, params, offset, limit)` of SQL operations together and
        memoise the answers under the key `rows_for` uses, so that each request, when it runs,
        finds its answer there. Requests of one operation and one set of supplied parameters
        share one DuckDB query (world/batch.py). Anything the batch cannot vouch for (handler
        operations, SQL the rewrite does not take, a page with sort-key ties, a DuckDB error) is
        left to the request's own query. Returns the number of answers memoised."""
        if not (self.BATCH and self.QUERY_PLANS):
            return 0
        groups: dict[tuple, list] = {}
        seen: set = set()
        with self._memo_lock:
            memo = self._memo
            for op, params, offset, limit in requests:
                if op.handler or not op.query:
                    continue
                key = self._memo_key(op, params, offset, limit)
                if key in memo or key in seen or key in self._ahead:
                    continue
                seen.add(key)
                groups.setdefault(op.query, []).append((key, params, offset, limit))
        done = 0
        for query, reqs in groups.items():
            by_plan: dict[tuple, list] = {}
            for req in reqs:
                sql, names = self._plan(query, req[1])
                sig = type_signature(req[1], names)
                if sig is not None:
                    by_plan.setdefault((sql, tuple(names), sig), []).append(req)
            for (sql, names, _), batch in by_plan.items():
                if len(batch) < self.BATCH_MIN:
                    continue  # too few to pay for the batched statement
                plan = self._batch_plan(sql, list(names))
                if plan is None:
                    continue
                try:
                    answers = run_batch(self.con, plan, [(p, o, lim) for _, p, o, lim in batch])
                except duckdb.Error as exc:
                    self.batch_stats["errors"] += 1
                    log.warning("batched query failed (%s); %d requests run their own queries", exc, len(batch))
                    continue
                self.batch_stats["queries"] += 1
                with self._memo_lock:
                    for (key, *_), ans in zip(batch, answers):
                        if ans is None:
                            self.batch_stats["declined"] += 1
                            continue
                        self._memo[key] = ans
                        self.batch_stats["answers"] += 1
                        done += 1
                    while len(self._memo) > self.MEMO_SIZE:
                        self._memo.popitem(last=False)
        return done

    def _compute_rows(self, op, params: dict[str, Any], offset: int, limit: int | None) -> tuple[list[dict[str, Any]], int]:
        if op.handler:
            rows = self.handler(op.handler)(self, params)
            total = len(rows)
            end = None if limit is None else offset + limit
            return rows[offset:end], total
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


def world_threads() -> int:
    """DuckDB threads per world query: 1, or KOPA_WORLD_THREADS (a positive integer)."""
    raw = os.environ.get("KOPA_WORLD_THREADS", "1")
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if n < 1:
        raise ValueError(f"KOPA_WORLD_THREADS={raw!r} is not a positive integer; unset it (1 thread) or set e.g. 2")
    return n


_worlds: dict[tuple, World] = {}
_lock = threading.Lock()


def get_world(seed: int = DEFAULT_SEED, clock: WorldClock | None = None, path: Path | str | None = None) -> World:
    """The world for (seed, clock), built once into the cache and shared by the process."""
    clock = clock or WorldClock()
    if path is not None:
        key = ("path", str(path))
    else:
        key = (seed, clock.now().isoformat(), source_fingerprint())
    with _lock:
        world = _worlds.get(key)
        if world is not None:
            return world
        if path is None:
            path = cache_dir() / "world" / f"world-s{seed}-{clock.now().strftime('%Y%m%dT%H%M')}-{key[2]}.duckdb"
            path.parent.mkdir(parents=True, exist_ok=True)
            # One builder at a time across processes; the others wait, then open read-only.
            with FileLock(str(path) + ".lock", timeout=600):
                if not path.exists():
                    build_world_file(seed, clock, path)
        world = World(Path(path), clock)
        _worlds[key] = world
        return world

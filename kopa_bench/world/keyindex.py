"""Answers of equality-keyed SQL operations from a per-world index, without a query each.

A world query costs DuckDB about as much to plan as to run (EXPLAIN alone took 1.85 ms against
1.81 ms for a whole query, over 2,000 recorded EDGE queries), and DuckDB 2.0 re-plans a prepared
statement on every EXECUTE. Yet 40% of an EDGE verification's queries (4,653 of 11,483) are
plans whose every supplied parameter is a top-level equality (`basDt = $basDt`,
`sggCd = $LAWD_CD AND deal_ymd = $DEAL_YMD`), asked again and again with other keys. For such a
plan (specialised by World._plan) one batched query (kopa_bench/world/batch.py: the plan joined
LATERAL with the list of every key the table holds) gives each key's whole answer, in the
plan's order, with each row's sort-key peers counted; a page is then a slice.

Exactness, as in batch.py: a page holding a row with a sort-key peer is not answered here (the
single query decides that order), keys and parameters must both be text (DuckDB would cast a
text parameter to a numeric column; Python equality would not), and anything the rewrite does
not recognise keeps its single queries. tests/test_world_keyindex.py compares the indexed
answers with the single queries on every SQL operation of the catalog.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .batch import _REJECT_TOP, BatchPlan, _top_level_words, closing_quote

_EXPR = r'[A-Za-z_\uac00-\ud7a3][\w.]*|"[^"]+"'
_WORD_BEFORE = re.compile(r"(?:^|[^\w$])(WHERE|AND)\s*$", re.IGNORECASE)
_WORD_AFTER = re.compile(r"^\s*(?:$|(AND|ORDER)(?![\w$]))", re.IGNORECASE)


@dataclass
class EqPredicate:
    name: str  # the parameter
    expr: str  # the column it is compared with
    start: int  # the predicate's span in the SQL (with a wrapping pair of parentheses)
    end: int


def _depth_at(sql: str, pos: int) -> int:
    depth, i = 0, 0
    while i < pos:
        c = sql[i]
        if c in "'\"":
            j = closing_quote(sql, i)
            if j == -1 or j >= pos:
                return -1
            i = j + 1
            continue
        depth += c == "("
        depth -= c == ")"
        i += 1
    return depth


def _where_and_order(sql: str) -> tuple[list[tuple[int, str]], int, int] | None:
    """(top-level words, the single WHERE's position, ORDER BY's position or the end) of a plain
    SELECT whose WHERE is a conjunction at the top; None for any other shape."""
    if "--" in sql or "/*" in sql:
        return None
    try:
        words = _top_level_words(sql)
    except ValueError:
        return None
    if not words or words[0] != (0, "SELECT") or any(w in _REJECT_TOP for _, w in words):
        return None
    where = [p for p, w in words if w == "WHERE"]
    if len(where) != 1 or any(w == "OR" for p, w in words if p > where[0]):
        return None
    order = next((p for k, (p, w) in enumerate(words) if w == "ORDER" and k + 1 < len(words)
                  and words[k + 1][1] == "BY"), len(sql))
    return words, where[0], order


def _eq_conjunct(sql: str, name: str, where: int, order: int) -> EqPredicate | None:
    """`$name` as the one top-level `column = $name` conjunct of the WHERE, if it is used only so."""
    uses = list(re.finditer(r"\$" + re.escape(name) + r"(?![A-Za-z0-9_])", sql))
    found = [m for m in re.finditer(r"(\(\s*)?(" + _EXPR + r")\s*=\s*\$" + re.escape(name)
                                    + r"(?![A-Za-z0-9_])(\s*\))?", sql)]
    if len(uses) != 1 or len(found) != 1:
        return None
    m = found[0]
    if bool(m.group(1)) != bool(m.group(3)) or not where < m.start() < order:
        return None
    if _depth_at(sql, m.start()) != 0 or not _WORD_BEFORE.search(sql[:m.start()]) \
            or not _WORD_AFTER.match(sql[m.end():]):
        return None
    return EqPredicate(name, m.group(2), m.start(), m.end())


def eq_predicates(sql: str, names: list[str]) -> list[EqPredicate] | None:
    """The top-level `column = $name` conjuncts of the WHERE, one per parameter, or None unless
    every parameter is used exactly once and only that way (then the plan is keyed)."""
    shape = _where_and_order(sql) if names else None
    if shape is None:
        return None
    _, where, order = shape
    preds = [_eq_conjunct(sql, name, where, order) for name in names]
    return None if any(p is None for p in preds) else preds


def eq_conjuncts(sql: str, names: list[str]) -> tuple[list[EqPredicate], str] | None:
    """(the parameters used exactly once, as a top-level `column = $name` conjunct of the WHERE,
    whatever the others do; the statement's FROM clause), or None when there is none or the
    statement has another shape. A row of the FROM clause whose columns differ from those
    parameters' values cannot be in the answer (see KeyUniverse)."""
    shape = _where_and_order(sql) if names else None
    if shape is None:
        return None
    words, where, order = shape
    preds = [p for p in (_eq_conjunct(sql, name, where, order) for name in names) if p is not None]
    from_pos = next((p for p, w in words if w == "FROM"), None)
    if not preds or from_pos is None or from_pos > where:
        return None
    return preds, sql[from_pos:where]


def key_domain_sql(sql: str, preds: list[EqPredicate]) -> tuple[str, str]:
    """(the distinct keys the plan's tables hold, the number of rows over all keys) as SQL: the
    plan's FROM ... WHERE with its key predicates made TRUE."""
    words = _top_level_words(sql)
    from_pos = next(p for p, w in words if w == "FROM")
    order = next((p for k, (p, w) in enumerate(words) if w == "ORDER" and k + 1 < len(words)
                  and words[k + 1][1] == "BY"), len(sql))
    body = sql
    for p in sorted(preds, key=lambda p: -p.start):
        body = body[:p.start] + " TRUE " + body[p.end:]
    shift = len(body) - len(sql)
    body = body[from_pos:order + shift]
    keys = ", ".join(f"{p.expr} AS __d{i}" for i, p in enumerate(preds))
    return f"SELECT DISTINCT {keys} {body}", f"SELECT count(*) FROM (SELECT 1 {body}) AS q"


class KeyIndex:
    """Each key's whole answer (rows in the plan's order, and whether each row has a sort-key
    peer); `page` answers a request as World._window_page would, or None to leave it to SQL."""

    def __init__(self, names: list[str], columns: list[str], parts: dict[tuple, tuple[list[tuple], list[bool]]]):
        self.names = names
        self.columns = columns
        self.parts = parts
        self.rows = sum(len(r) for r, _ in parts.values())

    def page(self, bound: dict[str, Any], offset: int, limit: int | None) -> tuple[list[dict[str, Any]], int] | None:
        key = tuple(bound.get(n) for n in self.names)
        if not all(isinstance(v, str) for v in key):
            return None
        rows, peers = self.parts.get(key, ((), ()))
        end = None if limit is None else offset + limit
        if any(peers[offset:end]):
            return None
        cols = self.columns
        page = [dict(zip(cols, r)) for r in rows[offset:end]]
        # _window_page reads the total off the page, counting apart only past offset 0
        return page, (len(rows) if page or offset > 0 else 0)


def build_index(con, sql: str, names: list[str], plan: BatchPlan | None, max_rows: int) -> KeyIndex | None:
    """The index of a specialised plan, or None where it is not keyed, not batchable, its keys
    are not all text, or its answers over all keys exceed `max_rows` rows."""
    from .batch import run_partitions

    if plan is None:
        return None
    preds = eq_predicates(sql, names)
    if preds is None:
        return None
    domain, count = key_domain_sql(sql, preds)
    if con.execute(count).fetchone()[0] > max_rows:
        return None
    keys = [k for k in con.execute(domain).fetchall() if None not in k]
    if not all(isinstance(v, str) for k in keys for v in k):
        return None
    order = [p.name for p in preds]
    columns, parts = run_partitions(con, plan, [dict(zip(order, k)) for k in keys])
    return KeyIndex(order, columns, {k: part for k, part in zip(keys, parts) if part[0]})


class KeyUniverse:
    """The values a plan's equality conjuncts can meet: every key the rows of its FROM clause
    hold. A request whose key is not among them has an empty answer (total 0, on every page)
    whatever its other parameters, so no query is needed: ~1,800 of the 7,952 queries of a
    2 x 300-path EDGE verification ask for a statistic code, a station or a bill that does not exist.

    Exactness: the plan is a plain SELECT ... FROM ... WHERE conjunction (eq_conjuncts; no
    aggregate: build_universe checks that the plan returns no row for an absent key), and
    the parameters must be text and the columns VARCHAR (DuckDB compares VARCHAR exactly, as
    Python does; a text parameter meeting a numeric or ENUM column would be cast, so such plans
    keep their queries)."""

    def __init__(self, names: list[str], keys: frozenset[tuple]):
        self.names = names
        self.keys = keys

    def excludes(self, bound: dict[str, Any]) -> bool:
        key = tuple(bound.get(n) for n in self.names)
        return all(isinstance(v, str) for v in key) and key not in self.keys


def build_universe(con, sql: str, names: list[str], max_keys: int,
                   cache: dict[tuple, frozenset | None] | None = None) -> KeyUniverse | None:
    """The KeyUniverse of a specialised plan, or None where it has no equality conjunct, its
    FROM clause needs a parameter, its keys are not all text, there are more than `max_keys`,
    or it answers a row when no FROM row matches (an aggregate). `cache` shares the keys of one
    FROM clause and columns between plans."""
    found = eq_conjuncts(sql, names)
    if found is None:
        return None
    preds, from_clause = found
    ck = (from_clause, tuple(p.expr for p in preds))
    keys = cache.get(ck, ...) if cache is not None else ...
    if keys is ...:
        exprs = ", ".join(p.expr for p in preds)
        cur = con.execute(f"SELECT DISTINCT {exprs} {from_clause} LIMIT {int(max_keys) + 1}")
        varchar = all(str(d[1]) == "VARCHAR" for d in cur.description)  # not an ENUM: it casts (and may fail)
        rows = [k for k in cur.fetchall() if None not in k]  # a NULL column equals no parameter
        keys = frozenset(rows) if varchar and len(rows) <= max_keys else None
        if cache is not None:
            cache[ck] = keys
    if keys is None:
        return None
    absent = {n: None for n in names}
    absent.update({p.name: "\x00kopa: no such key" for p in preds})
    if con.execute(f"SELECT count(*) FROM ({sql}) AS q", absent).fetchone()[0] != 0:
        return None  # rows without a matching FROM row: not a plain selection (an aggregate)
    return KeyUniverse([p.name for p in preds], keys)

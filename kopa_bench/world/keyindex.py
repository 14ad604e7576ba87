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


def eq_predicates(sql: str, names: list[str]) -> list[EqPredicate] | None:
    """The top-level `column = $name` conjuncts of the WHERE, one per parameter, or None unless
    every parameter is used exactly once and only that way (then the plan is keyed)."""
    if not names or "--" in sql or "/*" in sql:
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
    preds = []
    for name in names:
        uses = list(re.finditer(r"\$" + re.escape(name) + r"(?![A-Za-z0-9_])", sql))
        found = [m for m in re.finditer(r"(\(\s*)?(" + _EXPR + r")\s*=\s*\$" + re.escape(name)
                                        + r"(?![A-Za-z0-9_])(\s*\))?", sql)]
        if len(uses) != 1 or len(found) != 1:
            return None
        m = found[0]
        if bool(m.group(1)) != bool(m.group(3)) or not where[0] < m.start() < order:
            return None
        if _depth_at(sql, m.start()) != 0 or not _WORD_BEFORE.search(sql[:m.start()]) \
                or not _WORD_AFTER.match(sql[m.end():]):
            return None
        preds.append(EqPredicate(name, m.group(2), m.start(), m.end()))
    return preds


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

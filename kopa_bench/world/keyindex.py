"""Answers of equality-keyed plans from a per-plan index, and keys no row holds, without a query each.

A world query costs DuckDB about as much to plan as to run, and plans keyed by equality on their
parameters (`basDt = $basDt`, `sggCd = $LAWD_CD AND deal_ymd = $DEAL_YMD`) are asked again and
again with other keys. For such a plan (specialised by QueryPlanner.plan) one query gives every
key's whole answer: the plan with its key conjuncts removed and the key columns added, each
key's rows numbered in the plan's order and each row's sort-key peers counted by window
functions; a page is then a slice.

Exactness: a page holding a row with a sort-key peer is not answered here (the single query
decides that order); keys and parameters must both be text, the key columns VARCHAR (DuckDB
would cast a text parameter to a numeric or ENUM column; Python equality would not); a plan
that could answer a row for a key no row holds (an aggregate) is not indexed; anything the
rewrite does not recognise keeps its single queries. tests/test_world_keyindex.py and
tests/test_world_universe.py compare these answers with the single queries on every SQL
operation of the catalog.
"""

from __future__ import annotations

from itertools import groupby
from typing import Any

from sqlglot import exp

from .sql_rewrite import KeyConjunct, key_conjuncts, parse, plain_select, render

ABSENT_KEY = "\x00kopa: no such key"


def _keyed(sql: str, names: list[str], every: bool) -> tuple[exp.Select, list[KeyConjunct]] | None:
    """(the plan's tree, its key conjuncts) where it is a plain selection with at least one (with
    `every`: one for each parameter), else None."""
    select = plain_select(parse(sql)) if names else None
    if select is None:
        return None
    rows_only = not any(e.find(exp.AggFunc, exp.Window) for e in select.expressions + [select.args.get("order")] if e)
    keys = key_conjuncts(select, names)
    if not rows_only or not keys or (every and len(keys) != len(names)):
        return None
    return select, keys


def eq_predicates(sql: str, names: list[str]) -> list[KeyConjunct] | None:
    """The top-level `column = $name` conjuncts of the WHERE, one per parameter, or None unless
    every parameter is used exactly once and only that way (then the plan is keyed)."""
    found = _keyed(sql, names, every=True)
    return None if found is None else found[1]


def eq_conjuncts(sql: str, names: list[str]) -> list[KeyConjunct] | None:
    """The parameters used exactly once, as a top-level `column = $name` conjunct of the WHERE,
    whatever the others do; None when there is none or the statement has another shape."""
    found = _keyed(sql, names, every=False)
    return None if found is None else found[1]


class KeyIndex:
    """Each key's whole answer (rows in the plan's order, and whether each row has a sort-key
    peer); `page` answers a request as QueryPlanner.window_page would, or None to leave it to SQL."""

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
        # window_page reads the total off the page, counting apart only past offset 0
        return page, (len(rows) if page or offset > 0 else 0)


def all_keys_query(con, sql: str, names: list[str]) -> tuple[str, str, list[str]] | None:
    """(every key's answer with `__rn` and `__peers`, ordered by key and `__rn`; the count of
    those rows; the plan's output columns) as SQL, or None where the plan is not keyed."""
    found = _keyed(sql, names, every=True)
    if found is None:
        return None
    select, keys = found
    out = [d[0] for d in con.execute(f"SELECT * FROM ({sql}) AS q LIMIT 0", {n: None for n in names}).description]
    lowered = [c.lower() for c in out]
    if len(set(lowered)) != len(lowered) or any(c.startswith("__") for c in lowered):
        return None  # q.* would rename duplicates; __ names are the index's own
    order = select.args.get("order")
    select.set("order", None)
    for k in keys:
        k.conjunct.replace(exp.true())
    count = f"SELECT count(*) FROM ({render(select)}) AS q"
    window_order = []
    for i, item in enumerate(order.expressions if order else []):
        expr = item.this
        if isinstance(expr, exp.Literal):
            return None  # positional ORDER BY: not rewritten
        # ORDER BY binds a bare name to an output column first; anything else is evaluated next
        # to the select list, as ORDER BY does
        if isinstance(expr, exp.Column) and not expr.table and expr.name.lower() in lowered:
            target = exp.column(out[lowered.index(expr.name.lower())], table="q", quoted=True)
        else:
            select.select(exp.alias_(expr.copy(), f"__o{i}"), copy=False)
            target = exp.column(f"__o{i}", table="q")
        item = item.copy()
        item.set("this", target)
        window_order.append(render(item))
    for i, k in enumerate(keys):
        select.select(exp.alias_(k.column.copy(), f"__k{i}"), copy=False)
    part = ", ".join(f"q.__k{i}" for i in range(len(keys)))
    spec = f"PARTITION BY {part}" + (" ORDER BY " + ", ".join(window_order) if window_order else "")
    query = (f"SELECT q.*, row_number() OVER ({spec}) AS __rn, "
             f"count(*) OVER ({spec} RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS __peers "
             f"FROM ({render(select)}) AS q ORDER BY {part}, __rn")
    return query, count, out


def build_index(con, sql: str, names: list[str], max_rows: int) -> KeyIndex | None:
    """The index of a specialised plan, or None where it is not keyed, its key columns are not
    VARCHAR, or its answers over all keys exceed `max_rows` rows."""
    found = all_keys_query(con, sql, names)
    if found is None:
        return None
    query, count, out = found
    if con.execute(count).fetchone()[0] > max_rows:
        return None
    cur = con.execute(query)
    n, m = len(out), len(names)
    cols = [d[0] for d in cur.description]
    key_cols = [cols.index(f"__k{i}") for i in range(m)]
    if any(str(cur.description[i][1]) != "VARCHAR" for i in key_cols):
        return None
    i_peers = cols.index("__peers")
    shared: dict[Any, Any] = {}  # equal values stored once: an index holds many rows
    parts: dict[tuple, tuple[list[tuple], list[bool]]] = {}
    for key, group in groupby(cur.fetchall(), key=lambda r: tuple(r[i] for i in key_cols)):
        if None in key:
            continue  # a NULL column equals no parameter
        rows, peers = parts.setdefault(key, ([], []))
        for r in group:
            # keyed with the type: 1, 1.0 and True are equal as dict keys but render differently
            rows.append(tuple(shared.setdefault((type(v), v), v) if isinstance(v, (str, int, float)) else v
                              for v in r[:n]))
            peers.append(r[i_peers] > 1)
    return KeyIndex(list(names), out, parts)  # keyed on every parameter, in their order


class KeyUniverse:
    """The values a plan's equality conjuncts can meet: every key the rows of its FROM clause
    hold. A request whose key is not among them has an empty answer (total 0, on every page)
    whatever its other parameters, so no query is needed.

    Exactness: the plan is a plain selection (eq_conjuncts; build_universe also checks that the
    plan returns no row for an absent key), the parameters must be text and the columns
    VARCHAR, as for KeyIndex."""

    def __init__(self, names: list[str], keys: frozenset[tuple]):
        self.names = names
        self.keys = keys

    def excludes(self, bound: dict[str, Any]) -> bool:
        key = tuple(bound.get(n) for n in self.names)
        return all(isinstance(v, str) for v in key) and key not in self.keys


def build_universe(con, sql: str, names: list[str], max_keys: int,
                   cache: dict[str, frozenset | None] | None = None) -> KeyUniverse | None:
    """The KeyUniverse of a specialised plan, or None where it has no equality conjunct, its
    FROM clause needs a parameter, its keys are not all VARCHAR, there are more than
    `max_keys`, or it answers a row when no FROM row matches. `cache` shares the keys of one
    FROM clause and columns between plans."""
    found = _keyed(sql, names, every=False)
    if found is None:
        return None
    select, keys = found
    domain = select
    for clause in ("where", "order"):
        domain.set(clause, None)
    domain.set("expressions", [k.column.copy() for k in keys])
    domain.set("distinct", exp.Distinct())
    if domain.find(exp.Placeholder):
        return None  # the FROM clause needs a parameter
    domain_sql = render(domain)
    values = cache.get(domain_sql, ...) if cache is not None else ...
    if values is ...:
        cur = con.execute(f"{domain_sql} LIMIT {int(max_keys) + 1}")
        varchar = all(str(d[1]) == "VARCHAR" for d in cur.description)
        rows = [k for k in cur.fetchall() if None not in k]  # a NULL column equals no parameter
        values = frozenset(rows) if varchar and len(rows) <= max_keys else None
        if cache is not None:
            cache[domain_sql] = values
    if values is None:
        return None
    absent = {n: None for n in names}
    absent.update({k.name: ABSENT_KEY for k in keys})
    if con.execute(f"SELECT count(*) FROM ({sql}) AS q", absent).fetchone()[0] != 0:
        return None  # rows without a matching FROM row: not a plain selection
    return KeyUniverse([k.name for k in keys], values)

"""Catalog SQL over lazily generated entity tables.

An operation's `lazy_tables` names entity tables whose rows for a key (a district-month, a year)
are generated on request (kopa_bench.world.answers.LAZY_TABLES) rather than stored, wherever
the world file does not hold that key. The generated rows are registered on the asking
thread's cursor for one query, and the query reads them in place of the table."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator

import pyarrow as pa
from sqlglot import exp

from .answers import lazy_table
from .sql_rewrite import parse, render

PREFIX = "__lazy_"


@functools.lru_cache(maxsize=512)
def reading(sql: str, tables: frozenset[str]) -> str:
    """`sql` with each of `tables` read from its registered stand-in."""
    tree = parse(sql)
    if tree is None:
        raise ValueError(f"lazy tables {sorted(tables)} need SQL that sqlglot can read: {sql[:200]}")
    for node in tree.find_all(exp.Table):
        if node.name in tables and not node.args.get("db"):
            alias = node.alias or node.name
            node.set("this", exp.to_identifier(PREFIX + node.name))
            node.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
    return render(tree)


def generated(world, op, params: dict) -> dict[str, pa.Table]:
    """The generated stand-ins the request needs: table -> its rows for the request's key
    (none where the world file stores that key)."""
    out = {}
    for table, names in op.lazy_tables.items():
        rows = lazy_table(table)(world, tuple(params.get(n) for n in names))
        if rows is not None:
            out[table] = rows
    return out


@contextlib.contextmanager
def registered(cursor, tables: dict[str, pa.Table]) -> Iterator[None]:
    """The stand-ins visible to `cursor` (the asking thread's own) for the duration of one query."""
    for name, rows in tables.items():
        cursor.register(PREFIX + name, rows)
    try:
        yield
    finally:
        for name in tables:
            cursor.unregister(PREFIX + name)

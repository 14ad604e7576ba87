"""Catalog SQL read as a sqlglot tree (DuckDB dialect) and rewritten without changing its answers:
parameter-free sub-selects in scalar position replaced by their values."""

from __future__ import annotations

from typing import Callable

import sqlglot
from sqlglot import exp

DIALECT = "duckdb"
# contexts where a parenthesised SELECT is a table or a set of rows, not one value
_NOT_SCALAR = (exp.From, exp.Join, exp.Lateral, exp.Exists, exp.Any, exp.All, exp.Union, exp.Except, exp.Intersect,
               exp.CTE, exp.Table)


def parse(sql: str) -> exp.Expression | None:
    """The statement's tree, or None where sqlglot cannot read it (then nothing is rewritten)."""
    try:
        return sqlglot.parse_one(sql, dialect=DIALECT)
    except sqlglot.errors.SqlglotError:
        return None


def render(tree: exp.Expression) -> str:
    return tree.sql(dialect=DIALECT)


def parameter_names(tree: exp.Expression) -> list[str]:
    """The `$name` parameters the statement reads, sorted."""
    return sorted({p.name for p in tree.find_all(exp.Placeholder)})


def _attached(node: exp.Expression, root: exp.Expression) -> bool:
    """Whether `node` is still part of `root` (not inside a part already replaced)."""
    while node.parent is not None:
        node = node.parent
    return node is root


def fold_constants(sql: str, evaluate: Callable[[str], exp.Expression | None]) -> tuple[str, list[str]]:
    """(the query with each parameter-free sub-select in scalar position (not a table, an IN list,
    EXISTS, ANY or ALL) replaced by `evaluate(its SQL)`, a literal of its value, where that gives
    one (None: left as written), its parameters). Unchanged text when nothing is replaced; no
    parameters are known when sqlglot cannot read the query."""
    tree = parse(sql)
    if tree is None:
        return sql, []
    changed = False
    for sub in list(tree.find_all(exp.Subquery)):
        parent = sub.parent
        if (isinstance(parent, _NOT_SCALAR) or (isinstance(parent, exp.In) and sub.arg_key == "query")
                or sub.find(exp.Placeholder) or not _attached(sub, tree)):
            continue
        literal = evaluate(render(sub.this))
        if literal is not None:
            sub.replace(literal)
            changed = True
    # the tree is read once: folding only swaps parameter-free parts, so the parameters stay
    return (render(tree) if changed else sql), parameter_names(tree)


def typed_literal(text: str | None, type_name: str) -> exp.Expression | None:
    """`CAST('<text>' AS <type>)` (DuckDB's text of a value and its type name), or None where
    sqlglot does not know the type."""
    try:
        to = exp.DataType.build(type_name, dialect=DIALECT)
    except sqlglot.errors.SqlglotError:
        return None
    return exp.cast(exp.null() if text is None else exp.Literal.string(text), to)

"""Catalog SQL read as a sqlglot tree (DuckDB dialect) and rewritten without changing its answers:
optional-parameter guards specialised, constant sub-selects replaced by their values, and the
top-level `column = $param` conjuncts a key index or key universe relies on found."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import sqlglot
from sqlglot import exp

DIALECT = "duckdb"
# contexts where a parenthesised SELECT is a table or a set of rows, not one value
_NOT_SCALAR = (exp.From, exp.Join, exp.Lateral, exp.Exists, exp.Any, exp.All, exp.Union, exp.Except, exp.Intersect,
               exp.CTE, exp.Table)
# the clauses of a plain `SELECT ... FROM ... [WHERE ...] [ORDER BY ...]` (older sqlglot names `from_` `from`)
_PLAIN_CLAUSES = {"expressions", "from", "from_", "joins", "where", "order"}


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


def _guard(paren: exp.Expression) -> tuple[str, exp.Or] | None:
    """(x, the OR whose left side is `$x IS NULL`) when `paren` is `($x IS NULL OR p)`."""
    if not isinstance(paren, exp.Paren) or not isinstance(paren.this, exp.Or):
        return None
    first = paren.this
    while isinstance(first.this, exp.Or):
        first = first.this
    test = first.this
    if isinstance(test, exp.Is) and isinstance(test.this, exp.Placeholder) and isinstance(test.expression, exp.Null):
        return test.this.name, first
    return None


def specialise(sql: str, bound: frozenset[str]) -> str:
    """The query for one set of supplied parameters: each `($x IS NULL OR p)` becomes `(p)` when
    $x is supplied and `TRUE` when it is not.

    Exact in SQL's three-valued logic wherever the guard stands: with $x non-NULL, `$x IS NULL`
    is FALSE and `FALSE OR p` is p (also when p is NULL); with $x NULL the guard is TRUE. Only a
    parenthesised guard is rewritten (a function's argument list is not a parenthesis); other
    shapes are left to DuckDB. Unchanged text when there is no guard."""
    tree = parse(sql)
    if tree is None:
        return sql
    changed = False
    for paren in list(tree.find_all(exp.Paren)):
        found = _guard(paren)
        if found is None or not _attached(paren, tree):
            continue
        name, first = found
        if name in bound:
            first.replace(first.expression)  # drop `$x IS NULL OR`; p keeps its own guards
        else:
            paren.replace(exp.true())
        changed = True
    return render(tree) if changed else sql


def fold_constants(sql: str, evaluate: Callable[[str], exp.Expression | None]) -> str:
    """The query with each parameter-free sub-select in scalar position (not a table, an IN list,
    EXISTS, ANY or ALL) replaced by `evaluate(its SQL)`, a literal of its value, where that gives
    one (None: left as written). Unchanged text when nothing is replaced."""
    tree = parse(sql)
    if tree is None:
        return sql
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
    return render(tree) if changed else sql


def typed_literal(text: str | None, type_name: str) -> exp.Expression | None:
    """`CAST('<text>' AS <type>)` (DuckDB's text of a value and its type name), or None where
    sqlglot does not know the type."""
    try:
        to = exp.DataType.build(type_name, dialect=DIALECT)
    except sqlglot.errors.SqlglotError:
        return None
    return exp.cast(exp.null() if text is None else exp.Literal.string(text), to)


@dataclass
class KeyConjunct:
    name: str  # the parameter
    expr: str  # the column it equals, as SQL
    column: exp.Column
    conjunct: exp.Expression  # the WHERE conjunct holding it (with any wrapping parentheses)


def plain_select(tree: exp.Expression | None) -> exp.Select | None:
    """The statement if it is one `SELECT ... FROM ... [WHERE ...] [ORDER BY ...]` (nothing that
    groups, deduplicates, limits, windows or combines at the top), else None."""
    if not isinstance(tree, exp.Select) or not any(isinstance(v, exp.From) for v in tree.args.values()):
        return None
    if any(v for k, v in tree.args.items() if k not in _PLAIN_CLAUSES):
        return None
    return tree


def key_conjuncts(select: exp.Select, names: list[str]) -> list[KeyConjunct]:
    """The parameters used exactly once in the statement, as a top-level `column = $name`
    conjunct of its WHERE."""
    where = select.args.get("where")
    if where is None:
        return []
    uses: dict[str, int] = {}
    for p in select.find_all(exp.Placeholder):
        uses[p.name] = uses.get(p.name, 0) + 1
    conjuncts = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
    found: dict[str, KeyConjunct] = {}
    for node in conjuncts:
        eq = node.unnest()
        if isinstance(eq, exp.EQ) and isinstance(eq.this, exp.Column) and isinstance(eq.expression, exp.Placeholder):
            name = eq.expression.name
            if name in names and uses.get(name) == 1:
                found[name] = KeyConjunct(name, render(eq.this), eq.this, node)
    return [found[n] for n in names if n in found]

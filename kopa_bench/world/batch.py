"""Many world requests of one SQL operation answered by one DuckDB query.

EDGE verification sends dozens of distinct probes at once, and a catalog query costs DuckDB a
large fixed amount per statement (parse, bind, plan, a scan of a wide table, a sort) whatever the
parameters. `BatchPlan` rewrites one operation's specialised SQL (`World._plan`) so that a table
of parameter tuples, one row per request, is joined LATERAL with it:

    WITH __b AS (SELECT unnest($__pid) AS __pid, unnest($__off) AS __off, ..., unnest($x) AS "x")
    SELECT __b.__pid, q.*, count(*) OVER (PARTITION BY __pid) AS __total,
           row_number() OVER w AS __rn,
           count(*) OVER (w RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS __peers
    FROM __b, LATERAL (<the query, $x -> __b."x", ORDER BY keys as extra columns>) AS q
    WINDOW w AS (PARTITION BY __pid ORDER BY <the query's own ORDER BY, on those columns>)

Each request's page is the rows numbered offset+1 .. offset+limit of its partition, in the
query's ORDER BY; its total is the partition's size (row 1 is always kept so that a page past
the end still learns the total).

Exactness. A page taken this way equals the single query's page only if the ORDER BY orders the
page's rows totally: a row with a peer (another row with equal sort keys) could sit in another
order or on another page there. So `__peers` counts each row's peers, and any request whose page
holds a row with a peer is *not* answered from the batch (the caller runs its single query). A
query without ORDER BY has every row as a peer of every other, so only answers of at most one
row are taken from the batch (point look-ups). Parameters are bound as typed lists, and requests
are grouped so that each list has one Python type (DuckDB would coerce a mixed list to VARCHAR,
unlike the single query's per-value binding). tests/test_world_batch.py compares batched answers
with `World._compute_rows` on every SQL operation of the catalog.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_PARAM_RE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# SQL the rewrite does not understand at the top level; such operations keep the single query.
_REJECT_TOP = {"LIMIT", "OFFSET", "UNION", "INTERSECT", "EXCEPT", "QUALIFY", "WINDOW", "GROUP", "HAVING",
               "DISTINCT", "FETCH", "WITH"}
_ORDER_MOD_RE = re.compile(r"\s+(?:(ASC|DESC)\s*)?(NULLS\s+(?:FIRST|LAST))?\s*$", re.IGNORECASE)
_BARE_NAME_RE = re.compile(r'^(?:[A-Za-z_\uac00-\ud7a3][A-Za-z0-9_\uac00-\ud7a3]*|"[^"]+")$')
_INT32 = range(-2 ** 31, 2 ** 31)


def closing_quote(sql: str, i: int) -> int:
    """Index of the quote closing the literal or identifier opened at `sql[i]` (a doubled quote
    inside it is part of it), or -1 if it never closes."""
    q, n = sql[i], len(sql)
    j = sql.find(q, i + 1)
    while j != -1 and j + 1 < n and sql[j + 1] == q:
        j = sql.find(q, j + 2)
    return j


def _top_level_words(sql: str) -> list[tuple[int, str]]:
    """(position, upper-cased word) for each word outside parentheses and quotes."""
    out, depth, i, n = [], 0, 0, len(sql)
    while i < n:
        c = sql[i]
        if c in "'\"":
            j = closing_quote(sql, i)
            if j == -1:
                raise ValueError("unbalanced quote")
            i = j + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0 and (c.isalpha() or c == "_") and (i == 0 or not (sql[i - 1].isalnum() or sql[i - 1] in "_$")):
            m = _WORD_RE.match(sql, i)
            if m:
                out.append((i, m.group(0).upper()))
                i = m.end()
                continue
        i += 1
    if depth != 0:
        raise ValueError("unbalanced parentheses")
    return out


def _split_top_commas(text: str) -> list[str]:
    parts, depth, start, i, n = [], 0, 0, 0, len(text)
    while i < n:
        c = text[i]
        if c in "'\"":
            j = closing_quote(text, i)
            i = (j if j != -1 else n - 1) + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def _type_tag(values: list[Any]) -> str | None:
    """One DuckDB-relevant type for a parameter column, or None if the values mix types."""
    tags = set()
    for v in values:
        if v is None:
            continue
        if isinstance(v, bool):
            tags.add("bool")
        elif isinstance(v, int):
            tags.add("int32" if v in _INT32 else "int64")
        elif isinstance(v, float):
            tags.add("float")
        elif isinstance(v, str):
            tags.add("str")
        else:
            return None
        if len(tags) > 1:
            return None
    return tags.pop() if tags else "null"


def type_signature(params: dict[str, Any], names: list[str]) -> tuple | None:
    """The per-parameter type tags a batch must share (None: a value type batching does not bind)."""
    sig = []
    for n in names:
        t = _type_tag([params.get(n)])
        if t is None:
            return None
        sig.append(t)
    return tuple(sig)


@dataclass
class BatchPlan:
    sql: str  # the batched statement; parameters $__pid, $__off, $__lim and one $__p<i> per name
    names: list[str]  # the single query's parameters, in the order of $__p<i>
    columns: int  # the single query's output columns, which follow __pid in the batched result


def build_plan(sql: str, names: list[str], output_names: list[str]) -> BatchPlan | None:
    """The batched form of a specialised single query (whose result columns are `output_names`),
    or None where the rewrite would not be sure to mean the same (then the operation keeps its
    single queries)."""
    lowered = [c.lower() for c in output_names]
    if len(set(lowered)) != len(lowered) or any(c.startswith("__") for c in lowered):
        return None  # q.* would rename duplicates; __ names are the batch's own
    s = sql.strip().rstrip(";").strip()
    if "--" in s or "/*" in s:
        return None
    try:
        words = _top_level_words(s)
    except ValueError:
        return None
    if not words or words[0] != (0, "SELECT"):
        return None
    if any(w in _REJECT_TOP for _, w in words):
        return None
    from_pos = next((p for p, w in words if w == "FROM"), None)
    if from_pos is None:
        return None
    order_pos = None
    for k, (p, w) in enumerate(words):
        if w == "ORDER" and k + 1 < len(words) and words[k + 1][1] == "BY":
            order_pos = (p, words[k + 1][0] + 2)
    select_list = s[len("SELECT"):from_pos].strip()
    if not select_list or select_list == "*" or select_list.upper().startswith(("DISTINCT", "ALL ")):
        return None
    body = s[from_pos:order_pos[0]] if order_pos else s[from_pos:]
    items = _split_top_commas(s[order_pos[1]:]) if order_pos else []
    key_exprs, window_order = [], []
    for k, item in enumerate(items):
        m = _ORDER_MOD_RE.search(item)
        expr = item[:m.start()].strip() if m and m.group(0).strip() else item.strip()
        mods = " ".join(g.upper() for g in (m.group(1), m.group(2)) if g) if m else ""
        if not expr or expr.isdigit():
            return None  # positional ORDER BY: not rewritten
        # A bare name may be an output alias (ORDER BY binds those first): order by the output
        # column itself then; anything else is evaluated next to the select list, as ORDER BY does.
        if _BARE_NAME_RE.match(expr) and expr.strip('"').lower() in lowered:
            name = output_names[lowered.index(expr.strip('"').lower())]
            window_order.append(('q."' + name.replace('"', '""') + '" ' + mods).strip())
            continue
        key_exprs.append(f"{expr} AS __k{k}")
        window_order.append(f"q.__k{k} {mods}".strip())
    inner = "SELECT " + select_list + "".join(", " + e for e in key_exprs) + " " + body.strip()
    index = {n: i for i, n in enumerate(names)}
    if set(_PARAM_RE.findall(inner)) - set(index):
        return None
    inner = _PARAM_RE.sub(lambda m: f'__b."__p{index[m.group(1)]}"', inner)
    unnests = ", ".join(["unnest($__pid) AS __pid", "unnest($__off) AS __off", "unnest($__lim) AS __lim"]
                        + [f'unnest($__p{i}) AS "__p{i}"' for i in range(len(names))])
    order = " ORDER BY " + ", ".join(window_order) if window_order else ""
    batched = (
        f"WITH __b AS (SELECT {unnests}) "
        f"SELECT * FROM (SELECT __b.__pid AS __pid, q.*, count(*) OVER (PARTITION BY __b.__pid) AS __total, "
        f"row_number() OVER __w AS __rn, count(*) OVER (__w RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS __peers, "
        f"__b.__off AS __off, __b.__lim AS __lim "
        f"FROM __b, LATERAL ({inner}) AS q WINDOW __w AS (PARTITION BY __b.__pid{order})) AS r "
        f"WHERE __rn = 1 OR (__rn > __off AND (__lim IS NULL OR __rn <= __off + __lim))")
    return BatchPlan(batched, list(names), len(output_names))


def _execute(con, plan: BatchPlan, requests: list[tuple[dict[str, Any], int, int | None]]) -> tuple:
    """Run the batched statement for `requests`; (cursor, the single query's columns, the index
    past them, and the indexes of __total, __rn and __peers in each result row)."""
    binds: dict[str, Any] = {"__pid": list(range(len(requests))),
                             "__off": [int(o) for _, o, _ in requests],
                             "__lim": [None if lim is None else int(lim) for _, _, lim in requests]}
    for i, n in enumerate(plan.names):
        binds[f"__p{i}"] = [p.get(n) for p, _, _ in requests]
    cur = con.execute(plan.sql, binds)
    cols = [d[0] for d in cur.description]
    # __pid, the single query's columns, __k<i> keys, __total, __rn, __peers, __off, __lim
    first_key = 1 + plan.columns
    return cur, cols[1:first_key], first_key, cols.index("__total"), cols.index("__rn"), cols.index("__peers")


def run_batch(con, plan: BatchPlan, requests: list[tuple[dict[str, Any], int, int | None]]
              ) -> list[tuple[list[dict[str, Any]], int] | None]:
    """Answers (rows, total) per request, in order; None where the batch cannot vouch for the
    page (a row with a sort-key peer), so the caller runs that request's single query."""
    cur, out_cols, first_key, i_total, i_rn, i_peers = _execute(con, plan, requests)
    rows: list[list] = [[] for _ in requests]
    totals = [0] * len(requests)
    bad = [False] * len(requests)
    for r in cur.fetchall():
        pid = r[0]
        totals[pid] = r[i_total]
        _, off, lim = requests[pid]
        rn = r[i_rn]
        if rn <= off or (lim is not None and rn > off + lim):
            continue  # row 1 kept only for the total
        if r[i_peers] > 1:
            bad[pid] = True
        rows[pid].append((rn, dict(zip(out_cols, r[1:first_key]))))
    answers: list[tuple[list[dict[str, Any]], int] | None] = []
    for pid in range(len(requests)):
        if bad[pid]:
            answers.append(None)
            continue
        page = [d for _, d in sorted(rows[pid], key=lambda x: x[0])]
        _, off, _ = requests[pid]
        # World._window_page reads the total off the page's rows, counting apart only for an
        # empty page past offset 0; an empty page at offset 0 (limit 0) answers total 0 there
        answers.append((page, int(totals[pid]) if page or off > 0 else 0))
    return answers


def run_partitions(con, plan: BatchPlan, params_list: list[dict[str, Any]], chunk: int = 2000
                   ) -> tuple[list[str], list[tuple[list[tuple], list[bool]]]]:
    """The output columns, and each parameter set's whole answer (rows as tuples of values, in
    the query's order) with, for each row, whether it has a sort-key peer (a page holding such a
    row is not to be taken from here): run_batch with offset 0 and no limit, chunk by chunk.
    Equal values are stored once (an index holds tens of thousands of rows)."""
    out: list[tuple[list[tuple], list[bool]]] = []
    out_cols: list[str] = []
    shared: dict[Any, Any] = {}
    for lo in range(0, len(params_list), chunk):
        part = params_list[lo:lo + chunk]
        cur, out_cols, first_key, i_total, i_rn, i_peers = _execute(con, plan, [(p, 0, None) for p in part])
        rows: list[list] = [[] for _ in part]
        totals = [0] * len(part)
        for r in cur.fetchall():
            totals[r[0]] = r[i_total]
            # keyed with the type: 1, 1.0 and True are equal as dict keys but render differently
            vals = tuple(shared.setdefault((type(v), v), v) if isinstance(v, (str, int, float)) else v
                         for v in r[1:first_key])
            rows[r[0]].append((r[i_rn], r[i_peers] > 1, vals))
        for pid, rs in enumerate(rows):
            rs.sort(key=lambda x: x[0])
            if len(rs) != totals[pid] or [x[0] for x in rs] != list(range(1, len(rs) + 1)):
                raise RuntimeError(f"partition {pid} of {plan.sql[:60]!r} is incomplete")  # never expected
            out.append(([d for _, _, d in rs], [p for _, p, _ in rs]))
    return out_cols, out

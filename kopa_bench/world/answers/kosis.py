"""KOSIS statisticsParameterData, answered per request: the cells of DT_1B040A3 (orgId 101,
monthly) that the item, region and period selectors keep; months before the stored window come
from kosis_history.py (the table starts in 2011-01)."""

from __future__ import annotations

from typing import Any

from ...refdata.platform_facts import KOSIS_MAX_CELLS
from .kosis_history import population

FIELDS = ["ORG_ID", "TBL_ID", "TBL_NM", "C1", "C1_NM", "C1_OBJ_NM", "ITM_ID", "ITM_NM", "UNIT_NM", "PRD_SE", "PRD_DE", "DT", "LST_CHN_DE"]


def _split(v: str | None) -> list[str]:
    return [t for t in (v or "").split("+") if t.strip()]


def data_rows(world, params: dict[str, Any]) -> list[dict]:
    if params.get("orgId") != "101" or params.get("tblId") != "DT_1B040A3" or params.get("prdSe") != "M":
        return []
    where, binds = [], []
    items = _split(params.get("itmId"))
    if items and "ALL" not in [i.upper() for i in items]:
        where.append(f"ITM_ID IN ({', '.join('?' for _ in items)})")
        binds += items
    objs = _split(params.get("objL1"))
    if objs and "ALL" not in [o.upper() for o in objs]:
        parts = []
        for o in objs:
            if o.endswith("*"):
                parts.append("C1 LIKE ?")
                binds.append(o[:-1] + "%")
            else:
                parts.append("C1 = ?")
                binds.append(o)
        where.append("(" + " OR ".join(parts) + ")")
    start, end, n = params.get("startPrdDe"), params.get("endPrdDe"), params.get("newEstPrdCnt")
    if n:
        where.append("PRD_DE IN (SELECT DISTINCT PRD_DE FROM kosis_population ORDER BY PRD_DE DESC LIMIT ?)")
        binds.append(int(n))
    else:
        if start:
            where.append("PRD_DE >= ?")
            binds.append(start)
        if end:
            where.append("PRD_DE <= ?")
            binds.append(end)
    sql = (f"SELECT {', '.join(FIELDS)} FROM kosis_population WHERE {' AND '.join(where) or 'TRUE'} "
           f"ORDER BY CASE WHEN C1 = '00' THEN 0 ELSE length(C1) END, C1, ITM_ID, PRD_DE LIMIT {KOSIS_MAX_CELLS + 1}")
    earlier = None if n else population(world, start)
    if earlier is None:
        cur = world.con.execute(sql, binds)
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r)) for r in cur.fetchall()]
    con = world.new_cursor()  # the stored months and the earlier ones, read in place of the table
    try:
        con.register("__kosis_population", earlier)
        cur = con.execute(sql.replace("FROM kosis_population", "FROM __kosis_population"), binds)
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r)) for r in cur.fetchall()]
    finally:
        con.close()

"""juso.go.kr addrLinkApi, answered per request: a keyword search over `juso_addr`."""

from __future__ import annotations

import re
from typing import Any

from ...refdata.platform_facts import JUSO_MAX_RESULTS, JUSO_SIDO_FULL


def search_rows(world, params: dict[str, Any]) -> list[dict]:
    """addrLinkApi: every token must match; number tokens match building/lot numbers exactly."""
    kw = params.get("keyword") or ""
    where, binds = [], []
    for t in (JUSO_SIDO_FULL.get(t, t) for t in kw.split()):
        if re.fullmatch(r"\d+(-\d+)?", t):
            mn, _, sl = t.partition("-")
            if sl:
                where.append("((buldMnnm = ? AND buldSlno = ?) OR (lnbrMnnm = ? AND lnbrSlno = ?))")
                binds += [str(int(mn)), str(int(sl)), str(int(mn)), str(int(sl))]
            else:
                where.append("(buldMnnm = ? OR lnbrMnnm = ?)")
                binds += [str(int(mn)), str(int(mn))]
        else:
            where.append("(roadAddr || ' ' || jibunAddr || ' ' || bdNm) LIKE ?")
            binds.append(f"%{t}%")
    sql = ("SELECT roadAddr, roadAddrPart1, roadAddrPart2, jibunAddr, engAddr, zipNo, admCd, rnMgtSn, bdMgtSn, detBdNmList, "
           "bdNm, bdKdcd, siNm, sggNm, emdNm, liNm, rn, udrtYn, buldMnnm, buldSlno, mtYn, lnbrMnnm, lnbrSlno, emdNo "
           f"FROM juso_addr WHERE {' AND '.join(where) or 'TRUE'} "
           f"ORDER BY siNm, sggNm, rn, CAST(buldMnnm AS INTEGER), CAST(buldSlno AS INTEGER) LIMIT {JUSO_MAX_RESULTS + 1}")
    cur = world.con.execute(sql, binds)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]

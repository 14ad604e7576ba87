"""KOSIS DT_1B040A3 months before the stored window, per request.

The world file stores the monthly resident population from 2023-01 (world/gen/kosis.py); the
real table starts in 2011-01. Earlier months are the first stored month carried back at its
province's growth rate (the build's SIDO_POP rates), district by district and sex by sex,
rounded per district; cities, provinces and the nation are the sums of their districts and
총인구수 is 남자 + 여자, as in the stored months. The months depend only on the stored first
month, so they are the same whatever was asked."""

from __future__ import annotations

import math
import threading
import weakref

import numpy as np
import pyarrow as pa

from ...clock import shift_months
from ..gen.kosis import SIDO_POP

FIRST_MONTH = "201101"
_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def first_stored(world) -> str:
    return _history(world)[0]


def _history(world) -> tuple[str, pa.Table]:
    with _LOCK:
        hit = _CACHE.get(world)
    if hit is not None:
        return hit
    stored = world.con.sql("SELECT * FROM kosis_population").to_arrow_table()
    first = min(stored.column("PRD_DE").to_pylist())
    base = world.sql("SELECT * FROM kosis_population WHERE PRD_DE = $p ORDER BY C1, ITM_ID", {"p": first})
    value = {(r["C1"], r["ITM_ID"]): int(r["DT"]) for r in base}
    meta = {r["C1"]: r for r in base}
    codes = sorted(meta)
    districts = [c for c in codes if len(c) == 5]
    cities = {c for c in districts if c[4] == "0" and any(d != c and d[:4] == c[:4] for d in districts)}
    leaves = [c for c in districts if c not in cities]
    months = []
    y, m = int(first[:4]), int(first[4:])
    for back in range(1, 12 * 40):
        yy, mm = shift_months(y, m, -back)
        if f"{yy:04d}{mm:02d}" < FIRST_MONTH:
            break
        months.append((back, f"{yy:04d}{mm:02d}", yy, mm))
    # every leaf carried back at its province's rate, sex by sex; parents are sums of their leaves
    backs = np.array([b for b, *_ in months], dtype=float)
    rates = np.array([SIDO_POP.get(leaf[:2], (0, 0.0))[1] for leaf in leaves])
    factor = np.exp(-np.outer(backs, rates))  # months x leaves
    sexes = {item: np.round(factor * np.array([value.get((leaf, item), 0) for leaf in leaves])).astype(np.int64)
             for item in ("T21", "T22")}
    member = np.array([[_under(x, c, cities) if c not in leaves else x == c for x in leaves] for c in codes], dtype=np.int64)
    cells = {item: sexes[item] @ member.T for item in ("T21", "T22")}  # months x codes
    cells["T20"] = cells["T21"] + cells["T22"]
    names = {"T20": "총인구수", "T21": "남자인구수", "T22": "여자인구수"}
    cols: dict[str, list] = {name: [] for name in stored.schema.names}
    for j, code in enumerate(codes):  # stored order: C1, then ITM_ID, then PRD_DE ascending
        r = meta[code]
        for item in ("T20", "T21", "T22"):
            if (code, item) not in value:
                continue
            series = cells[item][:, j]
            for (back, prd, yy, mm), dt in sorted(zip(months, series.tolist()), key=lambda x: x[0][1]):
                ny, nm = shift_months(yy, mm, 1)
                row = {"ORG_ID": r["ORG_ID"], "TBL_ID": r["TBL_ID"], "TBL_NM": r["TBL_NM"], "C1": code,
                       "C1_NM": r["C1_NM"], "C1_OBJ_NM": r["C1_OBJ_NM"], "ITM_ID": item, "ITM_NM": names[item],
                       "UNIT_NM": r["UNIT_NM"], "PRD_SE": r["PRD_SE"], "PRD_DE": prd, "DT": str(dt),
                       "LST_CHN_DE": f"{ny:04d}-{nm:02d}-12"}
                for k in cols:
                    cols[k].append(row.get(k))
    generated = pa.Table.from_pydict(cols, schema=stored.schema)
    out = (first, pa.concat_tables([generated, stored]))
    with _LOCK:
        _CACHE[world] = out
    return out


def _under(leaf: str, parent: str, cities: set[str]) -> bool:
    """Whether district `leaf` counts towards `parent`: 전국 (00), its province, or its city."""
    if parent == "00":
        return True
    if parent in cities:
        return leaf[:4] == parent[:4]
    return len(parent) == 2 and leaf[:2] == parent


def population(world, start: str | None) -> pa.Table | None:
    """`kosis_population` with the months before the stored window, for a request starting before
    it; None otherwise."""
    if not start:
        return None
    first, table = _history(world)
    return table if str(start) < first else None

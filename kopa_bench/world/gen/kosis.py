"""KOSIS DT_1B040A3 (행정구역(시군구)별 성별 인구수): monthly resident population.

Rows for 전국 (00), every 시도 (2-digit) and every 시군구 (5-digit, the real codes from
`legal_dong`; cities with 구 get both the city and its 구) from 2023-01 to the last month
published before the world clock (resident registration figures come out in the following
month, so the clock's previous month). Sido totals start near the real Jan-2023 levels
(Seoul ~9.4M) and drift with their real direction (Seoul, Busan decline; Gyeonggi, Sejong,
Incheon grow). Leaves are weighted by their number of legal dongs; city = sum of its 구,
sido = sum of its leaves, 전국 = sum of sidos; T20 = T21 + T22.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

DEPENDS = ["regions"]
TBL_NM = "행정구역(시군구)별 성별 인구수"
# (Jan 2023 population, monthly growth rate)
SIDO_POP = {
    "11": (9420000, -0.0006), "26": (3310000, -0.0007), "27": (2370000, -0.0004), "28": (2990000, 0.0006),
    "29": (1420000, -0.0004), "30": (1445000, -0.0002), "31": (1105000, -0.0004), "36": (385000, 0.0010),
    "41": (13590000, 0.0004), "51": (1535000, -0.0003), "43": (1595000, -0.0001), "44": (2125000, 0.0002),
    "52": (1765000, -0.0006), "45": (1765000, -0.0006), "46": (1810000, -0.0005), "47": (2590000, -0.0006),
    "48": (3270000, -0.0005), "50": (676000, -0.0002),
}
ITEMS = [("T20", "총인구수"), ("T21", "남자인구수"), ("T22", "여자인구수")]


def generate(ctx) -> dict:
    rng = np.random.default_rng(int(ctx.rng("kosis").random() * 2**32))
    legal = ctx.rows("legal_dong")
    places = ctx.rows("places")
    dongs_per_sgg: dict[str, int] = {}
    for p in places:
        dongs_per_sgg[p["lawd_cd"]] = dongs_per_sgg.get(p["lawd_cd"], 0) + 1
    sido_name, sgg_name = {}, {}
    for r in legal:
        code, full = r["region_cd"], r["locatadd_nm"]
        if r["sgg_cd"] == "000" and r["umd_cd"] == "000":
            sido_name[code[:2]] = full
        elif r["umd_cd"] == "000" and r["ri_cd"] == "00":
            sgg_name[code[:5]] = " ".join(full.split()[1:]) or full
    sido_name.setdefault("36", "세종특별자치시")
    if "36110" in sgg_name and not sgg_name["36110"].strip():
        sgg_name["36110"] = "세종특별자치시"
    # leaves: districts that are not a city with 구 below them
    names = set(sgg_name.values())
    parents = {}
    for code, nm in sgg_name.items():
        if " " in nm:
            parent = nm.split()[0]
            pc = [c for c, n in sgg_name.items() if n == parent and c[:2] == code[:2]]
            if pc:
                parents[code] = pc[0]
    is_parent = set(parents.values())
    leaves = sorted(c for c in sgg_name if c not in is_parent and dongs_per_sgg.get(c))
    del names

    ym = []
    y, m = 2023, 1
    last = ctx.clock.last_month()
    while f"{y}{m:02d}" <= last:
        ym.append(f"{y}{m:02d}")
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    n_m = len(ym)
    t = np.arange(n_m)

    series: dict[str, np.ndarray] = {}  # code -> (n_m,) totals
    male: dict[str, np.ndarray] = {}
    for sd, (pop0, g) in SIDO_POP.items():
        kids = [c for c in leaves if c[:2] == sd]
        if not kids or sd not in sido_name:
            continue
        w = np.array([dongs_per_sgg[c] for c in kids], float) ** 0.3 * rng.lognormal(0, 0.35, len(kids))
        w /= w.sum()
        trend = pop0 * (1 + g) ** t
        for c, wi in zip(kids, w):
            own = g + rng.normal(0, 0.0004)
            base = wi / (1 + g) ** 0 * pop0
            v = np.rint(base * (1 + own) ** t * (1 + rng.normal(0, 0.0002, n_m)))
            series[c] = np.maximum(v, 800)
            male[c] = np.rint(series[c] * rng.uniform(0.485, 0.515))
        del trend
        for code, par in parents.items():
            if code[:2] == sd and code in series:
                series[par] = series.get(par, 0) + series[code]
                male[par] = male.get(par, 0) + male[code]
        series[sd] = sum(series[c] for c in kids)
        male[sd] = sum(male[c] for c in kids)
    sidos = sorted(c for c in series if len(c) == 2)
    series["00"] = sum(series[c] for c in sidos)
    male["00"] = sum(male[c] for c in sidos)

    cols: dict[str, list] = {k: [] for k in ("ORG_ID", "TBL_ID", "TBL_NM", "C1", "C1_NM", "C1_OBJ_NM", "ITM_ID", "ITM_NM",
                                             "UNIT_NM", "PRD_SE", "PRD_DE", "DT", "LST_CHN_DE")}
    order = ["00"] + sidos + sorted(c for c in series if len(c) == 5)
    for code in order:
        nm = "전국" if code == "00" else sido_name[code] if len(code) == 2 else sgg_name[code]
        tot, ma = series[code].astype(np.int64), male[code].astype(np.int64)
        vals = {"T20": tot, "T21": ma, "T22": tot - ma}
        for iid, inm in ITEMS:
            for i, prd in enumerate(ym):
                y_, m_ = int(prd[:4]), int(prd[4:])
                y2, m2 = (y_ + 1, 1) if m_ == 12 else (y_, m_ + 1)
                cols["ORG_ID"].append("101")
                cols["TBL_ID"].append("DT_1B040A3")
                cols["TBL_NM"].append(TBL_NM)
                cols["C1"].append(code)
                cols["C1_NM"].append(nm)
                cols["C1_OBJ_NM"].append("행정구역(시군구)별")
                cols["ITM_ID"].append(iid)
                cols["ITM_NM"].append(inm)
                cols["UNIT_NM"].append("명")
                cols["PRD_SE"].append("M")
                cols["PRD_DE"].append(prd)
                cols["DT"].append(str(int(vals[iid][i])))
                cols["LST_CHN_DE"].append(f"{y2}-{m2:02d}-12")
    return {"kosis_population": pa.table({k: pa.array(v, pa.string()) for k, v in cols.items()})}

"""Bank of Korea ECOS: a handful of real statistical tables with plausible series.

Real table/item codes (722Y001 기준금리, 731Y001 환율, 901Y009 CPI, 200Y101 GDP, 817Y002
시장금리). The base-rate path is the real decision history up to May 2025 (2.50%); after the
author's knowledge ends the world ASSUMES the rate held at 2.50% through the world clock
(2026-11). FX, CPI, GDP and market rates are generated around real anchors (values from
2025-06 on are generated, not observed). Daily series run on business days only (weekends and
refdata holidays.csv public holidays skipped) up to the last business day before the clock.
"""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pyarrow as pa

from ...refdata import table_rows

DEPENDS: list[str] = []
START = date(2020, 1, 1)

# (effective date, rate) — real Monetary Policy Board decisions; 2.50 held afterwards (assumed)
BASE_RATE = [
    (date(2019, 10, 16), 1.25), (date(2020, 3, 17), 0.75), (date(2020, 5, 28), 0.50),
    (date(2021, 8, 26), 0.75), (date(2021, 11, 25), 1.00), (date(2022, 1, 14), 1.25),
    (date(2022, 4, 14), 1.50), (date(2022, 5, 26), 1.75), (date(2022, 7, 13), 2.25),
    (date(2022, 8, 25), 2.50), (date(2022, 10, 12), 3.00), (date(2022, 11, 24), 3.25),
    (date(2023, 1, 13), 3.50), (date(2024, 10, 11), 3.25), (date(2024, 11, 28), 3.00),
    (date(2025, 2, 25), 2.75), (date(2025, 5, 29), 2.50),
]
# FX anchors (date, level); values between anchors interpolated plus AR noise
FX_ANCHORS = {
    "0000001": [(date(2020, 1, 2), 1158), (date(2020, 3, 19), 1285), (date(2020, 12, 31), 1088), (date(2021, 12, 31), 1185),
                (date(2022, 10, 25), 1440), (date(2022, 12, 30), 1264), (date(2023, 10, 4), 1363), (date(2023, 12, 28), 1288),
                (date(2024, 8, 1), 1370), (date(2024, 12, 30), 1472), (date(2025, 4, 9), 1484), (date(2025, 6, 30), 1356),
                (date(2025, 12, 30), 1440), (date(2026, 6, 30), 1415), (date(2026, 11, 30), 1432)],
    "0000002": [(date(2020, 1, 2), 1066), (date(2020, 12, 31), 1054), (date(2021, 12, 31), 1030), (date(2022, 12, 30), 953),
                (date(2023, 12, 28), 912), (date(2024, 7, 10), 856), (date(2024, 12, 30), 937), (date(2025, 6, 30), 938),
                (date(2025, 12, 30), 925), (date(2026, 11, 30), 940)],
    "0000003": [(date(2020, 1, 2), 1298), (date(2020, 12, 31), 1338), (date(2021, 12, 31), 1342), (date(2022, 12, 30), 1351),
                (date(2023, 12, 28), 1426), (date(2024, 12, 30), 1528), (date(2025, 6, 30), 1592), (date(2025, 12, 30), 1690),
                (date(2026, 11, 30), 1665)],
    "0000053": [(date(2020, 1, 2), 166), (date(2020, 12, 31), 166), (date(2021, 12, 31), 186), (date(2022, 12, 30), 181),
                (date(2023, 12, 28), 181), (date(2024, 12, 30), 201), (date(2025, 6, 30), 189), (date(2025, 12, 30), 203),
                (date(2026, 11, 30), 200)],
}
FX_ITEMS = [("0000001", "원/미국달러(매매기준율)", "원"), ("0000002", "원/일본엔(100엔)", "원"),
            ("0000003", "원/유로", "원"), ("0000053", "원/위안(매매기준율)", "원")]
# market rates: spread over the base rate (percentage points)
MKT_ITEMS = [("010101000", "콜금리(1일, 전체거래)", 0.03), ("010502000", "CD(91일)", 0.35),
             ("010190000", "국고채(1년)", 0.05), ("010200000", "국고채(3년)", 0.15),
             ("010200001", "국고채(5년)", 0.30), ("010210000", "국고채(10년)", 0.55),
             ("010300000", "회사채(3년, AA-)", 0.95)]
CPI_ANNUAL = {2020: 100.0, 2021: 102.5, 2022: 107.72, 2023: 111.59, 2024: 114.18, 2025: 116.45, 2026: 118.65, 2027: 120.8}
GDP_Q = [0.1 * x for x in (-13, -32, 22, 12, 17, 8, 2, 13, 6, 8, -3, 5, 4, 6, 8, 5, 13, -2, 1, 1, -2, 7, 13, 2, 3, 4, 6, 3)]  # 2020Q1..2026Q4 %qoq


def _business_days(end: date) -> list[date]:
    hol = {str(r["date"]) for r in table_rows("holidays") if r.get("is_holiday") == "Y"}
    out, d = [], START
    while d <= end:
        if d.weekday() < 5 and d.isoformat() not in hol:
            out.append(d)
        d += timedelta(days=1)
    return out


def base_rate_on(d: date) -> float:
    rate = BASE_RATE[0][1]
    for day, r in BASE_RATE:
        if day <= d:
            rate = r
    return rate


def _fmt(x: float, nd: int) -> str:
    return f"{x:.{nd}f}".rstrip("0").rstrip(".") if nd else str(int(round(x)))


def generate(ctx) -> dict:
    rng = np.random.default_rng(int(ctx.rng("ecos").random() * 2**32))
    today = ctx.clock.today()
    days = _business_days(today - timedelta(days=1))
    last_month = date(today.year, today.month, 1) - timedelta(days=1)  # CPI published for the previous month
    months = []
    y, m = START.year, START.month
    while (y, m) <= (last_month.year, last_month.month):
        months.append((y, m))
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    # GDP: quarters with a preliminary estimate (about 4 weeks after the quarter ends)
    quarters = [(y, q) for y in range(2020, today.year + 1) for q in range(1, 5)
                if date(y, 3 * q, 28) + timedelta(days=30) <= today]

    data: list[dict] = []

    def add(stat, stat_name, code, name, unit, cycle, time, value):
        data.append({"STAT_CODE": stat, "STAT_NAME": stat_name, "ITEM_CODE1": code, "ITEM_NAME1": name,
                     "ITEM_CODE2": None, "ITEM_NAME2": None, "ITEM_CODE3": None, "ITEM_NAME3": None,
                     "ITEM_CODE4": None, "ITEM_NAME4": None, "UNIT_NAME": unit, "WGT": None,
                     "TIME": time, "DATA_VALUE": value, "CYCLE": cycle})

    # 722Y001 base rate: D, M, Q, A (period-end value as ECOS shows)
    sn = "1.3.1. 한국은행 기준금리 및 여수신금리"
    for d in days:
        add("722Y001", sn, "0101000", "한국은행 기준금리", "연%", "D", d.strftime("%Y%m%d"), _fmt(base_rate_on(d), 2))
    for (y, m) in months:
        nd = date(y + (m == 12), m % 12 + 1, 1) - timedelta(days=1)
        add("722Y001", sn, "0101000", "한국은행 기준금리", "연%", "M", f"{y}{m:02d}", _fmt(base_rate_on(nd), 2))
    for y in range(2020, today.year):
        add("722Y001", sn, "0101000", "한국은행 기준금리", "연%", "A", str(y), _fmt(base_rate_on(date(y, 12, 31)), 2))

    # 731Y001 FX daily
    sn = "3.1.1.1. 주요국 통화의 대원화환율"
    ords = np.array([d.toordinal() for d in days], dtype=float)
    fx_last = {}
    for code, name, unit in FX_ITEMS:
        anc = FX_ANCHORS[code]
        level = np.interp(ords, [a[0].toordinal() for a in anc], [a[1] for a in anc])
        noise = np.zeros(len(days))
        shocks = rng.normal(0, 0.0035, len(days))
        acc = 0.0
        for i, s in enumerate(shocks):
            acc = 0.9 * acc + s
            noise[i] = acc
        vals = np.round(level * (1 + noise), 2)
        for d, v in zip(days, vals):
            add("731Y001", sn, code, name, unit, "D", d.strftime("%Y%m%d"), f"{v:.2f}")
        fx_last[code] = (days[-1], vals[-1])

    # 817Y002 market rates daily
    sn = "1.3.2.2. 시장금리(일별)"
    base = np.array([base_rate_on(d) for d in days])
    mkt_last = {}
    for code, name, spread in MKT_ITEMS:
        shocks = rng.normal(0, 0.012, len(days))
        acc, noise = 0.0, np.zeros(len(days))
        for i, s in enumerate(shocks):
            acc = 0.97 * acc + s
            noise[i] = acc
        vals = np.round(np.clip(base + spread + noise * 3, 0.1, 9), 3)
        for d, v in zip(days, vals):
            add("817Y002", sn, code, name, "연%", "D", d.strftime("%Y%m%d"), _fmt(v, 3))
        mkt_last[code] = (days[-1], vals[-1])

    # 901Y009 CPI monthly (2020=100)
    sn = "4.2.1. 소비자물가지수"
    cpi = {}
    for (y, m) in months:
        a0, a1 = CPI_ANNUAL[y], CPI_ANNUAL.get(y + 1, CPI_ANNUAL[y] * 1.02)
        v = a0 + (a1 - a0) * (m - 6.5) / 12 + rng.normal(0, 0.08) + (0.15 if m in (8, 9) else 0)
        cpi[(y, m)] = round(v, 2)
        add("901Y009", sn, "0", "총지수", "2020=100", "M", f"{y}{m:02d}", f"{cpi[(y, m)]:.2f}")
    for y in range(2020, today.year):
        add("901Y009", sn, "0", "총지수", "2020=100", "A", str(y), f"{CPI_ANNUAL[y]:.2f}")

    # 200Y101 GDP quarterly
    sn = "2.1.1.1. 주요지표(분기지표)"
    nominal = 470000.0
    gdp_last = None
    for i, (y, q) in enumerate(quarters):
        g = GDP_Q[i] if i < len(GDP_Q) else 0.4
        nominal *= 1 + (g + 0.6) / 100
        add("200Y101", sn, "10111", "국내총생산(GDP)(실질, 계절조정, 전기비)", "%", "Q", f"{y}Q{q}", f"{g:.1f}")
        add("200Y101", sn, "1010101", "국내총생산(GDP)(명목, 원계열)", "십억원", "Q", f"{y}Q{q}", f"{nominal:.1f}")
        gdp_last = (f"{y}Q{q}", g)

    table = pa.Table.from_pylist(data)

    # StatisticTableList: folder nodes (SRCH_YN=N) + searchable tables, one row per cycle
    tl = [
        ("0000000001", "1.3.", "1.3. 금리", None, "N"),
        ("1.3.", "722Y001", "1.3.1. 한국은행 기준금리 및 여수신금리", "D", "Y"),
        ("1.3.", "722Y001", "1.3.1. 한국은행 기준금리 및 여수신금리", "M", "Y"),
        ("1.3.", "722Y001", "1.3.1. 한국은행 기준금리 및 여수신금리", "A", "Y"),
        ("1.3.", "817Y002", "1.3.2.2. 시장금리(일별)", "D", "Y"),
        ("0000000002", "2.1.", "2.1. 국민계정", None, "N"),
        ("2.1.", "200Y101", "2.1.1.1. 주요지표(분기지표)", "Q", "Y"),
        ("0000000003", "3.1.", "3.1. 환율", None, "N"),
        ("3.1.", "731Y001", "3.1.1.1. 주요국 통화의 대원화환율", "D", "Y"),
        ("0000000004", "4.2.", "4.2. 소비자/생산자 물가", None, "N"),
        ("4.2.", "901Y009", "4.2.1. 소비자물가지수", "M", "Y"),
        ("4.2.", "901Y009", "4.2.1. 소비자물가지수", "A", "Y"),
    ]
    tables = [{"P_STAT_CODE": p, "STAT_CODE": s, "STAT_NAME": n, "CYCLE": c, "SRCH_YN": y, "ORG_NAME": "한국은행" if y == "Y" else None}
              for p, s, n, c, y in tl]

    # StatisticItemList from the data itself (one row per item and cycle)
    import duckdb

    con = duckdb.connect()
    con.register("d", table)
    items = con.sql("""
        SELECT STAT_CODE, any_value(STAT_NAME) AS STAT_NAME, 'Group1' AS GRP_CODE,
          CASE STAT_CODE WHEN '731Y001' THEN '통화별' WHEN '817Y002' THEN '계정항목' ELSE '계정항목' END AS GRP_NAME,
          ITEM_CODE1 AS ITEM_CODE, any_value(ITEM_NAME1) AS ITEM_NAME, NULL::VARCHAR AS P_ITEM_CODE, NULL::VARCHAR AS P_ITEM_NAME,
          CYCLE, min(TIME) AS START_TIME, max(TIME) AS END_TIME, count(*)::VARCHAR AS DATA_CNT,
          any_value(UNIT_NAME) AS UNIT_NAME, NULL::VARCHAR AS WEIGHT
        FROM d GROUP BY STAT_CODE, ITEM_CODE1, CYCLE
        ORDER BY STAT_CODE, ITEM_CODE1, CASE CYCLE WHEN 'A' THEN 1 WHEN 'S' THEN 2 WHEN 'Q' THEN 3 WHEN 'M' THEN 4 WHEN 'SM' THEN 5 ELSE 6 END
    """).to_arrow_table()
    con.close()

    # 100대 통계지표 (KeyStatisticList), consistent with the series; CYCLE holds the period
    def ymd(d):
        return d.strftime("%Y%m%d")

    ly, lm = months[-1]
    keys = [
        ("시장금리", "한국은행 기준금리", _fmt(base_rate_on(days[-1]), 2), ymd(days[-1]), "%"),
        ("시장금리", "콜금리(익일물)", _fmt(mkt_last["010101000"][1], 3), ymd(days[-1]), "%"),
        ("시장금리", "CD수익률(91일)", _fmt(mkt_last["010502000"][1], 3), ymd(days[-1]), "%"),
        ("시장금리", "국고채수익률(3년)", _fmt(mkt_last["010200000"][1], 3), ymd(days[-1]), "%"),
        ("시장금리", "국고채수익률(5년)", _fmt(mkt_last["010200001"][1], 3), ymd(days[-1]), "%"),
        ("시장금리", "회사채수익률(3년,AA-)", _fmt(mkt_last["010300000"][1], 3), ymd(days[-1]), "%"),
        ("환율", "원/달러 환율(종가)", f"{fx_last['0000001'][1]:.2f}", ymd(days[-1]), "원"),
        ("환율", "원/엔(100엔) 환율(매매기준율)", f"{fx_last['0000002'][1]:.2f}", ymd(days[-1]), "원"),
        ("환율", "원/유로 환율(매매기준율)", f"{fx_last['0000003'][1]:.2f}", ymd(days[-1]), "원"),
        ("환율", "원/위안 환율(종가)", f"{fx_last['0000053'][1]:.2f}", ymd(days[-1]), "원"),
        ("물가", "소비자물가지수", f"{cpi[(ly, lm)]:.2f}", f"{ly}{lm:02d}", "2020=100"),
        ("물가", "소비자물가상승률(전년동월비)",
         f"{(cpi[(ly, lm)] / cpi[(ly - 1, lm)] - 1) * 100:.1f}", f"{ly}{lm:02d}", "%"),
        ("성장률", "경제성장률(실질, 계절조정 전기대비)", f"{gdp_last[1]:.1f}", gdp_last[0], "%"),
        ("통화량", "M2(광의통화, 평잔)", "4,367,512.3".replace(",", ""), f"{ly}{lm:02d}", "십억원"),
        ("고용", "실업률", "2.7", f"{ly}{lm:02d}", "%"),
        ("고용", "고용률", "63.2", f"{ly}{lm:02d}", "%"),
        ("경기", "경상수지", "10124.5", f"{ly}{lm:02d}", "백만달러"),
        ("주식", "코스피지수", "3962.41", ymd(days[-1]), "1980.01.04=100"),
        ("주식", "코스닥지수", "871.12", ymd(days[-1]), "1996.07.01=1000"),
    ]
    key_rows = [{"CLASS_NAME": c, "KEYSTAT_NAME": n, "DATA_VALUE": v, "CYCLE": t, "UNIT_NAME": u} for c, n, v, t, u in keys]
    return {"ecos_data": table, "ecos_items": items, "ecos_tables": tables, "ecos_keystats": key_rows}

"""MOLIT RTMS: apartment complexes per district, sale and lease reports for 25 months.

Every legal-dong district (5-digit LAWD_CD with dongs in `places`) gets 8-60 complexes named
like real ones (래미안 대치팰리스, 역삼자이, 힐스테이트 ..., 은마, 주공3단지) in its dongs. Sale
reports cover the 24 months before the world clock plus the current month (thinner: the real
service fills a month for ~30 days after contracts). Prices follow a per-district level in
만원 per m2 (강남/서초 highest, provinces lowest), complex age and size, and a mild trend.
Values are strings exactly as the renewed API prints them: dealAmount "   72,000" (만원, commas,
leading spaces), dealMonth/dealDay without zero padding.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ...clock import shift_months

DEPENDS = ["regions"]
MONTHS = 25  # the current month and the 24 before it

# 만원 per m2 of exclusive area (an 84 m2 flat costs ~84x this)
DISTRICT_LEVEL = {
    "11680": 2700, "11650": 2500, "11710": 2000, "11170": 2100, "11200": 1700, "11440": 1550,
    "11560": 1350, "11590": 1350, "11740": 1200, "11470": 1350, "11500": 1050, "11215": 1300,
    "11110": 1250, "11140": 1250, "11230": 1050, "11290": 1050, "11410": 1150, "11380": 950,
    "11620": 1000, "11530": 900, "11545": 850, "11350": 800, "11320": 780, "11305": 800, "11260": 800,
    "41290": 1800, "41135": 1450, "41131": 900, "41133": 750, "41465": 950, "41117": 850,
    "41450": 950, "41430": 850, "41190": 700, "41390": 620, "41285": 750, "41287": 700,
    "26350": 750, "26500": 650, "26260": 550, "27260": 650, "30200": 550, "36110": 600,
    "28185": 700, "31140": 500,
}
SIDO_LEVEL = {
    "서울": 1100, "경기": 520, "인천": 430, "부산": 420, "대구": 400, "대전": 400, "광주": 350,
    "울산": 360, "세종": 560, "제주": 420, "충북": 260, "충남": 250, "강원": 240, "전북": 230,
    "전남": 210, "경북": 210, "경남": 250,
}
BRANDS = ["래미안", "자이", "힐스테이트", "e편한세상", "푸르지오", "롯데캐슬", "아이파크", "더샵",
          "SK뷰", "센트레빌", "우미린", "호반베르디움", "한라비발디", "중흥S-클래스", "꿈에그린", "어울림"]
TAILS = ["", "", "", "퍼스트", "센트럴", "파크", "리버뷰", "더퍼스트", "트리니티", "캐슬", "팰리스", "에듀포레"]
OLD_NAMES = ["현대", "한신", "삼익", "우성", "대우", "삼성", "동아", "쌍용", "벽산", "한양", "극동", "라이프",
             "미성", "진로", "신동아", "선경", "경남", "한진", "금호", "코오롱"]
AREAS = np.array([39.6, 49.94, 59.97, 74.88, 84.97, 84.99, 101.9, 114.7, 134.8, 164.5])
AREA_P = np.array([0.05, 0.08, 0.18, 0.14, 0.25, 0.12, 0.07, 0.05, 0.04, 0.02])


def _stem(umd: str) -> str:
    s = umd
    for suf in ("동", "읍", "면", "가"):
        if s.endswith(suf) and len(s) > 2:
            s = s[: -len(suf)]
            break
    return s.rstrip("0123456789.")


def _complex_name(rng, umd: str, build_year: int, i: int) -> str:
    stem = _stem(umd) or umd
    if build_year < 2000:
        r = rng.random()
        if r < 0.25:
            return f"{stem}주공{rng.randint(1, 9)}단지"
        if r < 0.4:
            return ["은마", "개포우성", "잠실주공", "목동신시가지", "상계주공", "미도", "청구", "한양"][i % 8] if rng.random() < 0.2 else f"{stem}{rng.choice(OLD_NAMES)}"
        return f"{rng.choice(OLD_NAMES)}{rng.choice(['', '1차', '2차', '3차', '타운'])}"
    brand = rng.choice(BRANDS)
    tail = rng.choice(TAILS)
    form = rng.random()
    if form < 0.4:
        return f"{brand} {stem}{tail}".strip()
    if form < 0.7:
        return f"{stem}{brand}{tail}"
    return f"{stem}{brand}{rng.randint(1, 3)}차"


def _complexes(ctx, places: list[dict]) -> list[dict]:
    rng = ctx.rng("molit.complexes")
    by_lawd: dict[str, list[dict]] = {}
    for p in places:
        by_lawd.setdefault(p["lawd_cd"], []).append(p)
    out = []
    for lawd in sorted(by_lawd):
        dongs = [p for p in by_lawd[lawd] if p["umd_name"].endswith(("동", "가", "읍"))] or by_lawd[lawd]
        short = dongs[0]["sido_short"]
        metro = short in ("서울", "부산", "대구", "인천", "광주", "대전", "울산", "세종")
        n = rng.randint(25, 60) if short in ("서울", "경기") else rng.randint(15, 40) if metro else rng.randint(8, 25)
        level = DISTRICT_LEVEL.get(lawd, SIDO_LEVEL.get(short, 250))
        seen = set()
        for i in range(n):
            d = rng.choice(dongs)
            year = int(min(2025, max(1978, rng.gauss(2006, 10))))
            name = _complex_name(rng, d["umd_name"], year, i)
            if (name, d["umd_name"]) in seen:
                name = f"{name}{rng.randint(2, 5)}단지"
            seen.add((name, d["umd_name"]))
            age_factor = 1.25 if year >= 2018 else 1.0 if year >= 2005 else 0.9 if year >= 1995 else 1.05  # old = redevelopment hope
            areas = sorted(set(rng.choices(list(range(len(AREAS))), weights=list(AREA_P), k=3)))
            out.append({
                "lawd_cd": lawd, "sido_short": short, "sgg_name": d["sgg_name"], "umdNm": d["umd_name"],
                "aptNm": name, "aptSeq": f"{lawd}-{100 + i * 7 + rng.randint(0, 6)}",
                "jibun": f"{rng.randint(1, 999)}" + (f"-{rng.randint(1, 30)}" if rng.random() < 0.3 else ""),
                "buildYear": year, "area_idx": areas, "floors": rng.randint(10, 35) if year >= 1995 else rng.randint(5, 15),
                "unit_price": level * age_factor * rng.lognormvariate(0, 0.18),
                "weight": rng.lognormvariate(0, 0.6),
            })
    return out


def _fmt_manwon(values: np.ndarray, pad: bool) -> list[str]:
    return [f"{v:>9,}" if pad else f"{v:,}" for v in values.tolist()]


def _months(ctx) -> list[tuple[int, int]]:
    now = ctx.clock.now()
    return [shift_months(now.year, now.month, -k) for k in range(MONTHS - 1, -1, -1)]


def _draw(ctx, stream: str, complexes: list[dict], rate: float):
    """Shared skeleton of trade and rent reports: which complex, month, day, area, floor."""
    rng = np.random.default_rng(int(ctx.rng(stream).random() * 2**32))
    now = ctx.clock.now()
    months = _months(ctx)
    lawds = sorted({c["lawd_cd"] for c in complexes})
    cidx_by_lawd = {l: [] for l in lawds}
    for i, c in enumerate(complexes):
        cidx_by_lawd[c["lawd_cd"]].append(i)
    weights = np.array([c["weight"] for c in complexes])
    rows_c, rows_m, rows_d = [], [], []
    for l in lawds:
        idx = np.array(cidx_by_lawd[l])
        w = weights[idx] / weights[idx].sum()
        base = rate * len(idx) ** 0.8
        for mi, (y, m) in enumerate(months):
            seasonal = 1.0 + 0.25 * np.sin((m - 3) / 12 * 2 * np.pi)
            lam = base * seasonal * (0.45 if mi == MONTHS - 1 else 1.0)
            k = int(min(60, rng.poisson(lam)))
            if k == 0:
                continue
            rows_c.append(rng.choice(idx, size=k, p=w))
            rows_m.append(np.full(k, mi))
            last = now.day if mi == MONTHS - 1 else [31, 29 if y % 4 == 0 else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
            rows_d.append(rng.integers(1, last + 1, size=k))
    c = np.concatenate(rows_c)
    mi = np.concatenate(rows_m)
    day = np.concatenate(rows_d)
    n = len(c)
    area_choice = np.array([complexes[i]["area_idx"][j % len(complexes[i]["area_idx"])]
                            for i, j in zip(c.tolist(), rng.integers(0, 3, n).tolist())])
    area = AREAS[area_choice]
    floors = np.array([complexes[i]["floors"] for i in c.tolist()])
    floor = np.maximum(1, (rng.random(n) * floors).astype(int) + 1)
    floor[rng.random(n) < 0.01] = -1  # basement units exist in the real data
    unit = np.array([complexes[i]["unit_price"] for i in c.tolist()])
    trend = 1.0 + 0.004 * (mi - MONTHS)  # ~5% a year up to now
    size_prem = np.where(area > 100, 0.93, np.where(area < 50, 1.08, 1.0))
    floor_prem = np.where(floor <= 2, 0.93, 1.0) * (1 + 0.003 * np.clip(floor, 0, 20))
    price = unit * area * trend * size_prem * floor_prem * rng.lognormal(0, 0.06, n)
    ym = np.array([f"{y:04d}{m:02d}" for y, m in months])[mi]
    yy = np.array([str(y) for y, _ in months])[mi]
    mm = np.array([str(m) for _, m in months])[mi]
    return rng, c, mi, day, area, floor, price, ym, yy, mm


def _common_columns(complexes, c, day, area, floor, ym, yy, mm) -> dict:
    pick = lambda key: np.array([complexes[i][key] for i in c.tolist()], dtype=object)  # noqa: E731
    return {
        "sggCd": pick("lawd_cd"), "umdNm": pick("umdNm"), "aptNm": pick("aptNm"), "jibun": pick("jibun"),
        "excluUseAr": pa.array(area).cast(pa.string()), "dealYear": yy, "dealMonth": mm,
        "dealDay": pa.array(day).cast(pa.string()), "floor": pa.array(floor).cast(pa.string()),
        "buildYear": pa.array(pick("buildYear").astype(int)).cast(pa.string()), "aptSeq": pick("aptSeq"),
        "deal_ymd": ym,
    }


def _trades(ctx, complexes) -> pa.Table:
    rng, c, mi, day, area, floor, price, ym, yy, mm = _draw(ctx, "molit.trade", complexes, 0.9)
    n = len(c)
    amount = (np.round(price / 10) * 10).astype(np.int64)
    amount = np.maximum(amount, 3000)
    cancelled = rng.random(n) < 0.03
    direct = rng.random(n) < 0.12
    cols = _common_columns(complexes, c, day, area, floor, ym, yy, mm)
    sgg_names = np.array([complexes[i]["sido_short"] + " " + complexes[i]["sgg_name"] for i in c.tolist()], dtype=object)
    reg = rng.random(n) < np.where(mi < MONTHS - 2, 0.9, 0.3)
    reg_date = [(f"{int(y[2:]) + (m == '12'):02d}.{int(m) % 12 + 1:02d}.{d:02d}") if r else "" for y, m, d, r in
                zip(yy.tolist(), mm.tolist(), rng.integers(1, 29, n).tolist(), reg.tolist())]
    cols.update({
        "dealAmount": _fmt_manwon(amount, pad=True),
        "aptDong": np.where(rng.random(n) < 0.7, (101 + rng.integers(0, 15, n)).astype(str), "").astype(object),
        "cdealType": np.where(cancelled, "O", "").astype(object),
        "cdealDay": [f"{y[2:]}.{int(m):02d}.{min(28, d + 9):02d}" if x else "" for y, m, d, x in
                     zip(yy.tolist(), mm.tolist(), day.tolist(), cancelled.tolist())],
        "dealingGbn": np.where(direct, "직거래", "중개거래").astype(object),
        "estateAgentSggNm": np.where(direct, "", sgg_names).astype(object),
        "rgstDate": reg_date,
        "slerGbn": np.where(rng.random(n) < 0.95, "개인", "법인").astype(object),
        "buyerGbn": np.where(rng.random(n) < 0.96, "개인", "법인").astype(object),
        "landLeaseholdGbn": np.full(n, "N", dtype=object),
        "deal_amount_manwon": amount,
        "seq": np.arange(n),
    })
    return pa.table({k: v if isinstance(v, (pa.Array, pa.ChunkedArray)) else pa.array(list(v) if isinstance(v, np.ndarray) and v.dtype == object else v)
                     for k, v in cols.items()})


def _rents(ctx, complexes) -> pa.Table:
    rng, c, mi, day, area, floor, price, ym, yy, mm = _draw(ctx, "molit.rent", complexes, 1.3)
    n = len(c)
    jeonse_value = price * rng.uniform(0.48, 0.62, n)
    monthly = rng.random(n) < 0.42
    deposit_share = rng.choice([0.05, 0.1, 0.2, 0.3, 0.5], size=n)
    deposit = np.where(monthly, jeonse_value * deposit_share, jeonse_value)
    rent = np.where(monthly, (jeonse_value - deposit) * 0.05 / 12, 0)
    deposit = np.maximum(100, (np.round(deposit / 500) * 500)).astype(np.int64)
    rent = (np.round(rent / 5) * 5).astype(np.int64)
    renewal = rng.random(n) < 0.3
    used_right = renewal & (rng.random(n) < 0.6)
    start_y = np.array([int(y) for y in yy.tolist()])
    start_m = np.array([int(m) for m in mm.tolist()]) + 1
    start_y = start_y + (start_m > 12)
    start_m = np.where(start_m > 12, start_m - 12, start_m)
    term = [f"{y % 100:02d}.{m:02d}~{(y + 2) % 100:02d}.{m:02d}" if t else "" for y, m, t in
            zip(start_y.tolist(), start_m.tolist(), (rng.random(n) < 0.8).tolist())]
    pre_dep = np.where(renewal, (deposit * 0.95 / 500).round() * 500, 0).astype(np.int64)
    pre_rent = np.where(renewal, (rent * 0.95).round(), 0).astype(np.int64)
    cols = _common_columns(complexes, c, day, area, floor, ym, yy, mm)
    cols.update({
        "deposit": _fmt_manwon(deposit, pad=False),
        "monthlyRent": pa.array(rent).cast(pa.string()),
        "contractTerm": term,
        "contractType": np.where(renewal, "갱신", np.where(rng.random(n) < 0.7, "신규", "")).astype(object),
        "useRRRight": np.where(used_right, "사용", "").astype(object),
        "preDeposit": [f"{v:,}" if r else "" for v, r in zip(pre_dep.tolist(), renewal.tolist())],
        "preMonthlyRent": [str(v) if r else "" for v, r in zip(pre_rent.tolist(), renewal.tolist())],
        "deposit_manwon": deposit, "monthly_rent_manwon": rent,
        "seq": np.arange(n),
    })
    return pa.table({k: v if isinstance(v, (pa.Array, pa.ChunkedArray)) else pa.array(list(v) if isinstance(v, np.ndarray) and v.dtype == object else v)
                     for k, v in cols.items()})


def generate(ctx) -> dict:
    complexes = _complexes(ctx, ctx.rows("places"))
    table = pa.table({
        "sggCd": [c["lawd_cd"] for c in complexes], "umdNm": [c["umdNm"] for c in complexes],
        "aptNm": [c["aptNm"] for c in complexes], "aptSeq": [c["aptSeq"] for c in complexes],
        "jibun": [c["jibun"] for c in complexes], "buildYear": [str(c["buildYear"]) for c in complexes],
    })
    return {"molit_complexes": table, "molit_apt_trade": _trades(ctx, complexes), "molit_apt_rent": _rents(ctx, complexes)}

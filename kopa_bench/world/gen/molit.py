"""MOLIT RTMS: the apartment complexes that sale and lease reports name.

Complexes are the real ones of K-apt (refdata `kapt_complexes`: code, name, legal dong, 사용승인일,
세대수), each in its legal dong of the world's map (a 리 in its 읍/면), named as RTMS prints
them (K-apt's trailing "아파트" dropped: 은마아파트 -> 은마). What K-apt lacks is drawn per complex
from the seed: the lot number, floor count, unit sizes (smaller in older and bigger complexes)
and a price per m2 of exclusive area at the clock's year, from a per-district level (강남/서초
highest, provinces lowest), the complex's age and a spread.

Sale and lease reports themselves are not stored: every district-month, the stored months'
included, is generated on request from these complexes (world/answers/rtms_history.py, trade
counts calibrated to the real Seoul counts), so the months cannot disagree or jump where a
stored window would meet the generated ones. `molit_apt_trade` and `molit_apt_rent` are stored
empty, for their schema.
"""

from __future__ import annotations

import re

import pyarrow as pa

from ...refdata import table_rows

DEPENDS = ["regions"]

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
AREAS = [39.6, 49.94, 59.97, 74.88, 84.97, 84.99, 101.9, 114.7, 134.8, 164.5]
AREA_P = [0.05, 0.08, 0.18, 0.14, 0.25, 0.12, 0.07, 0.05, 0.04, 0.02]

_STR = pa.string()
_COMMON = ["sggCd", "umdNm", "aptNm", "jibun", "excluUseAr", "dealYear", "dealMonth", "dealDay", "floor", "buildYear",
           "aptSeq", "deal_ymd"]
TRADE_SCHEMA = pa.schema([(n, _STR) for n in _COMMON + [
    "dealAmount", "aptDong", "cdealType", "cdealDay", "dealingGbn", "estateAgentSggNm", "rgstDate", "slerGbn", "buyerGbn",
    "landLeaseholdGbn"]] + [("deal_amount_manwon", pa.int64()), ("seq", pa.int64())])
RENT_SCHEMA = pa.schema([(n, _STR) for n in _COMMON + [
    "deposit", "monthlyRent", "contractTerm", "contractType", "useRRRight", "preDeposit", "preMonthlyRent"]]
    + [("deposit_manwon", pa.int64()), ("monthly_rent_manwon", pa.int64()), ("seq", pa.int64())])
COMPLEX_SCHEMA = pa.schema([(n, _STR) for n in ("sggCd", "umdNm", "aptNm", "aptSeq", "jibun", "buildYear", "kaptCode", "areas")]
                           + [("households", pa.int32()), ("buildings", pa.int32()), ("floors", pa.int32()),
                              ("unit_price", pa.float64())])


def rtms_name(kapt_name: str) -> str:
    """The name RTMS prints for a K-apt complex: without the word 아파트 (은마아파트 -> 은마)."""
    name = " ".join(re.sub(r"아파트(?=\s|$)", " ", kapt_name).split())
    return name or kapt_name


def _complexes(ctx, places: list[dict]) -> list[dict]:
    rng = ctx.rng("molit.complexes")
    clock_year = ctx.clock.now().year
    place_at = {p["region_cd"]: p for p in places}
    out: list[dict] = []
    for k in table_rows("kapt_complexes"):
        code = k["region_cd"]
        p = place_at.get(code) or place_at.get(code[:8] + "00")
        if p is None:
            continue
        out.append({"k": k, "p": p})
    out.sort(key=lambda c: (c["p"]["lawd_cd"], c["k"]["kapt_code"]))
    rows, per_lawd = [], {}
    for c in out:
        k, p = c["k"], c["p"]
        lawd = p["lawd_cd"]
        i = per_lawd[lawd] = per_lawd.get(lawd, 0) + 1
        year = int(k["use_date"][:4]) if k["use_date"][:4].isdigit() else int(min(clock_year - 1, max(1978, rng.gauss(2000, 10))))
        households = int(k["households"] or 0)
        big = households >= 1000
        n_areas = 3 if big else rng.choice([1, 2, 2, 3])
        weights = [w * (1.6 if a < 60 and year < 1995 else 1.0) for a, w in zip(AREAS, AREA_P)]
        areas = sorted(set(rng.choices(AREAS, weights=weights, k=n_areas)))
        level = DISTRICT_LEVEL.get(lawd, SIDO_LEVEL.get(p["sido_short"], 250))
        age_factor = 1.25 if year >= 2018 else 1.0 if year >= 2005 else 0.9 if year >= 1995 else 1.05  # old = redevelopment hope
        rows.append({
            "sggCd": lawd, "umdNm": p["umd_name"], "aptNm": rtms_name(k["name"]),
            "aptSeq": f"{lawd}-{100 + i * 7 + rng.randint(0, 6)}",
            "jibun": f"{rng.randint(1, 999)}" + (f"-{rng.randint(1, 30)}" if rng.random() < 0.3 else ""),
            "buildYear": str(year), "kaptCode": k["kapt_code"], "areas": ",".join(f"{a:g}" for a in areas),
            "households": households, "buildings": int(k["buildings"] or 0),
            "floors": rng.randint(10, 35) if year >= 1995 else rng.randint(5, 15),
            "unit_price": round(level * age_factor * rng.lognormvariate(0, 0.18), 1),
        })
    return rows


def generate(ctx) -> dict:
    complexes = _complexes(ctx, ctx.rows("places"))
    return {"molit_complexes": pa.Table.from_pylist(complexes, schema=COMPLEX_SCHEMA),
            "molit_apt_trade": TRADE_SCHEMA.empty_table(), "molit_apt_rent": RENT_SCHEMA.empty_table()}

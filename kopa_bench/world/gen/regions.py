"""Administrative geography: legal-dong codes (MOIS) and a coordinate for every dong.

Coordinates come from real points, in this order: the KMA grid table's 행정동 point of the
administrative dong with the same name in the same district; the median position of the real
schools in the legal dong (refdata `schools`, by 지번 address); a landmark building in it
(`_landmarks`: 태평로1가 is where 서울특별시청 stands); else its district's point plus a small
deterministic offset, so every dong has a place on the map and chains like dong -> TM
coordinates -> nearest station always work.
"""

from __future__ import annotations

from statistics import median

from ...transforms.regions import SIDO
from ...refdata import table_rows
from ._landmarks import LANDMARKS

SIDO_SHORT = {full: short for _, full, short, _ in SIDO}


def _nospace(s: str) -> str:
    return (s or "").replace(" ", "")


def split_name(full: str) -> tuple[str, str, str, str]:
    """'경기도 수원시 장안구 파장동' -> (sido, sgg '수원시 장안구', umd '파장동', ri '')."""
    parts = full.split()
    sido = parts[0]
    rest = parts[1:]
    sgg_parts: list[str] = []
    while rest and rest[0][-1] in "시군구" and not rest[0].endswith(("읍", "면", "동", "가", "리")):
        sgg_parts.append(rest.pop(0))
    umd = rest.pop(0) if rest else ""
    ri = rest.pop(0) if rest else ""
    return sido, " ".join(sgg_parts), umd, ri


def generate(ctx) -> dict:
    rng = ctx.rng("regions")
    grid = table_rows("kma_grid")
    by_dong: dict[tuple[str, str, str], tuple[float, float]] = {}
    by_sgg: dict[tuple[str, str], tuple[float, float]] = {}
    by_sido: dict[str, tuple[float, float]] = {}
    for g in grid:
        if not g["lat"] or not g["lon"]:
            continue
        ll = (float(g["lat"]), float(g["lon"]))
        sido, sgg, dong = g["level1_sido"], _nospace(g["level2_sigungu"]), g["level3_eupmyeondong"] or ""
        if dong:
            by_dong.setdefault((sido, sgg, dong), ll)
        elif sgg:
            by_sgg[(sido, sgg)] = ll
        else:
            by_sido[sido] = ll

    # real points inside legal dongs: schools (by their 지번 address), then landmark buildings
    points: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
    for s in table_rows("schools"):
        sido, sgg, umd, _ = split_name(s["jibun_addr"])
        points.setdefault((sido, _nospace(sgg), umd), []).append((s["lat"], s["lon"]))
    real_point = {k: (median(p[0] for p in v), median(p[1] for p in v)) for k, v in points.items()}
    landmark_at = {(lawd, dong): (lat, lon) for lawd, dong, _, _, _, lat, lon in LANDMARKS}

    legal, places = [], []
    for row in table_rows("legal_dong_codes"):
        if row["status"] != "존재":
            continue
        code, full = str(row["code"]), row["name"]
        sido, sgg, umd, ri = split_name(full)
        sgg_cd, umd_cd, ri_cd = code[2:5], code[5:8], code[8:10]
        if umd_cd == "000" and sgg_cd == "000":
            high = "0000000000"
        elif umd_cd == "000":
            high = code[:2] + "00000000"
        elif ri_cd == "00":
            high = code[:5] + "00000"
        else:
            high = code[:8] + "00"
        lowest = full.split()[-1]
        legal.append({
            "region_cd": code, "sido_cd": code[:2], "sgg_cd": sgg_cd, "umd_cd": umd_cd, "ri_cd": ri_cd,
            "locatjumin_cd": code, "locatjijuk_cd": code, "locatadd_nm": full,
            "locat_order": str(1 + rng.randrange(0, 40)), "locat_rm": "", "locathigh_cd": high,
            "locallow_nm": lowest, "adpt_de": f"{rng.choice([1988, 1995, 2006, 2012, 2023])}0{rng.randint(1, 9)}1{rng.randint(0, 9)}",
        })
        if umd and not ri:
            ll = by_dong.get((sido, _nospace(sgg), umd)) or real_point.get((sido, _nospace(sgg), umd)) \
                or landmark_at.get((code[:5], umd))
            if ll is None:
                base = by_sgg.get((sido, _nospace(sgg))) or by_sido.get(sido)
                if base is None:
                    continue
                ll = (base[0] + rng.uniform(-0.02, 0.02), base[1] + rng.uniform(-0.02, 0.02))
            places.append({"region_cd": code, "lawd_cd": code[:5], "sido_name": sido, "sido_short": SIDO_SHORT.get(sido, sido),
                           "sgg_name": sgg, "umd_name": umd, "lat": round(ll[0], 6), "lon": round(ll[1], 6)})
    sgg_rows = []
    for (sido, sgg), ll in sorted(by_sgg.items()):
        sgg_rows.append({"sido_name": sido, "sgg_key": sgg, "lat": ll[0], "lon": ll[1]})
    return {"legal_dong": legal, "places": places, "sgg_centroids": sgg_rows}

"""Seoul Open Data: subway stations (real realtime ids/names) and 따릉이.

- `seoul_stations`: one row per (station, line) of the vendored realtime station list, with a
  4-digit STATION_CD and FR_CODE for the 8088 services; STATION_NM is the realtime name except
  서울 -> 서울역 (the real 8088 quirk);
  the private columns (`_subway_id`, `_idx` ...) carry the line order that the timetables and
  realtime arrivals are answered from (world/answers/seoul.py);
- `seoul_bikes`: ~2,000 따릉이 stations around real Seoul dongs, a snapshot at the world clock.
"""

from __future__ import annotations

from ...refdata import table_rows
from ._romanize_ko import romanize_title

DEPENDS = ["regions"]

LINE_LABEL = {"경의중앙선": "경의선", "우이신설선": "우이신설경전철"}
FR_LETTER = {"1032": "A", "1063": "K", "1065": "A", "1067": "P", "1075": "K", "1077": "D", "1081": "K",
             "1092": "S", "1093": "S", "1094": "S"}
OTHER_PREFIX = {"1032": 20, "1063": 21, "1065": 22, "1067": 23, "1075": 24, "1077": 25, "1081": 26, "1092": 27,
                "1093": 28, "1094": 29}


def _line_label(line_name: str) -> str:
    if line_name.endswith("호선") and line_name[:-2].isdigit():
        return f"{int(line_name[:-2]):02d}호선"
    return LINE_LABEL.get(line_name, line_name)


def _stations() -> list[dict]:
    rows = sorted(table_rows("seoul_subway_stations"), key=lambda r: r["statn_id"])
    by_line: dict[str, list[dict]] = {}
    for r in rows:
        by_line.setdefault(r["subway_id"], []).append(r)
    out = []
    for sid, lst in sorted(by_line.items()):
        for i, r in enumerate(lst):
            tail = int(r["statn_id"][-3:])
            n = int(sid) - 1000
            if 1 <= n <= 9:
                fr = str(tail)
                code = f"1{i:03d}" if n == 1 else f"{n:02d}{i + 1:02d}"
            else:
                letter = FR_LETTER.get(sid, "X")
                fr = f"{letter}{i + 1:02d}" if letter == "D" else f"{letter}{110 + i}"
                code = f"{OTHER_PREFIX.get(sid, 30)}{i + 1:02d}"
            nm = r["statn_nm"]
            out.append({
                "STATION_CD": code, "STATION_NM": "서울역" if nm == "서울" else nm,
                "LINE_NUM": _line_label(r["line_name"]), "FR_CODE": fr,
                "STATION_NM_ENG": "Seoul Station" if nm == "서울" else romanize_title(nm.split("(")[0]),
                "STATION_NM_CHN": None, "STATION_NM_JPN": None,
                "_subway_id": sid, "_statn_id": r["statn_id"], "_rt_name": nm, "_idx": i, "_n": len(lst),
                "_line_name": r["line_name"],
            })
    return out


def _bikes(ctx) -> list[dict]:
    rng = ctx.rng("seoul.bikes")
    subway_names = {r["statn_nm"] for r in table_rows("seoul_subway_stations")}
    seoul = [p for p in ctx.rows("places") if p["lawd_cd"].startswith("11")]
    out = []
    n = 100
    for p in seoul:
        stem = p["umd_name"].rstrip("0123456789").removesuffix("동").removesuffix("가") or p["umd_name"]
        stem = "".join(ch for ch in stem if not ch.isdigit()) or stem
        templates = [f"{p['umd_name']} 주민센터 앞", f"{stem}사거리", f"{stem}우체국 앞", f"{stem} 공영주차장",
                     f"{stem}근린공원 입구", f"{stem}초등학교 정문 앞", f"{stem} 어린이공원"]
        if stem in subway_names:
            templates = [f"{stem}역 {k}번출구 앞" for k in (1, 2, 3, 4, 5, 6)] + templates
        k = rng.randint(3, 6)
        for t in rng.sample(templates, min(k, len(templates))):
            n += rng.randint(1, 3)
            rack = rng.choice([5, 8, 10, 10, 12, 15, 15, 20, 25, 30])
            parked = max(0, int(rng.gauss(rack * 0.6, rack * 0.45)))
            out.append({
                "rackTotCnt": str(rack), "stationName": f"{n}. {t}", "parkingBikeTotCnt": str(parked),
                "shared": str(round(parked / rack * 100)),
                "stationLatitude": f"{p['lat'] + rng.uniform(-0.004, 0.004):.8f}",
                "stationLongitude": f"{p['lon'] + rng.uniform(-0.005, 0.005):.8f}",
                "stationId": f"ST-{n - 99}", "_sgg": p["sgg_name"],
            })
    return out


def generate(ctx) -> dict:
    return {"seoul_stations": _stations(), "seoul_bikes": _bikes(ctx)}

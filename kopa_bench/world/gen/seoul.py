"""Seoul Open Data: subway stations (real realtime ids/names) and 따릉이.

- `seoul_stations`: one row per (station, line) of the vendored realtime station list, with the
  real 서울교통공사 STATION_CD (전철역코드) and FR_CODE (외부코드) for the 8088 services (generated
  in the same shape for the few names the two lists spell differently); STATION_NM is the
  realtime name except 서울 -> 서울역 (the real 8088 quirk);
  the private columns (`_line_key`, `_idx` ...) carry the line order that the timetables and
  realtime arrivals are answered from (world/answers/seoul.py): line 2's loop in ascending
  외부코드 order (201 시청 -> 243 충정로, the 내선순환 direction) and its two branches apart;
- `seoul_bikes`: the 2,731 real 따릉이 stations (2023-06 list) with their bikeList ids, names,
  coordinates and racks; the bikes parked there are a generated snapshot at the world clock.
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


def _real_codes() -> dict[tuple[str, str], dict]:
    """(8088 line label, station name) -> its 서울교통공사 row; also under the name without its
    parenthetical ("군자(능동)" -> "군자"), as the two lists name some stations differently."""
    out: dict[tuple[str, str], dict] = {}
    for r in table_rows("seoul_subway_codes"):
        out.setdefault((r["line_num"], r["station_nm"]), r)
    for r in table_rows("seoul_subway_codes"):
        out.setdefault((r["line_num"], r["station_nm"].split("(")[0]), r)
    return out


def _segment(sid: str, fr_code: str) -> str:
    """Line 2's two branches run apart from its loop: 211-x 성수지선, 234-x 신정지선."""
    if sid == "1002" and "-" in fr_code:
        return {"211": "성수지선", "234": "신정지선"}.get(fr_code.split("-")[0], "지선")
    return ""


def _stations() -> list[dict]:
    rows = sorted(table_rows("seoul_subway_stations"), key=lambda r: r["statn_id"])
    codes = _real_codes()
    by_line: dict[str, list[dict]] = {}
    for r in rows:
        by_line.setdefault(r["subway_id"], []).append(r)
    out = []
    for sid, lst in sorted(by_line.items()):
        seg_idx: dict[str, int] = {}
        built = []
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
            label = _line_label(r["line_name"])
            real = codes.get((label, "서울역" if nm == "서울" else nm)) or codes.get((label, nm.split("(")[0]))
            eng = "Seoul Station" if nm == "서울" else romanize_title(nm.split("(")[0])
            if real:  # the real 전철역코드/외부코드; generated ones only where the lists disagree
                code, fr, eng = real["station_cd"], real["fr_code"], real["station_nm_eng"] or eng
            seg = _segment(sid, fr)
            built.append({
                "STATION_CD": code, "STATION_NM": "서울역" if nm == "서울" else nm,
                "LINE_NUM": label, "FR_CODE": fr, "STATION_NM_ENG": eng,
                "STATION_NM_CHN": None, "STATION_NM_JPN": None,
                "_subway_id": sid, "_statn_id": r["statn_id"], "_rt_name": nm,
                "_idx": seg_idx.setdefault(seg, 0), "_n": 0, "_line_name": r["line_name"],
                "_line_key": f"{sid}{'-' + seg if seg else ''}",
            })
            seg_idx[seg] += 1
        for st in built:
            st["_n"] = seg_idx[_segment(sid, st["FR_CODE"])]
        out += built
    return out


def _bikes(ctx) -> list[dict]:
    """The real stations (refdata `seoul_bike_stations`): id, "<번호>. <이름>", coordinates and racks;
    the bikes parked at the world clock are generated."""
    rng = ctx.rng("seoul.bikes")
    out = []
    for r in table_rows("seoul_bike_stations"):
        rack = max(1, int(r["racks"] or 0))
        parked = max(0, int(rng.gauss(rack * 0.6, rack * 0.45)))
        out.append({
            "rackTotCnt": str(rack), "stationName": f"{r['station_no']}. {r['name']}", "parkingBikeTotCnt": str(parked),
            "shared": str(round(parked / rack * 100)),
            "stationLatitude": r["lat"], "stationLongitude": r["lon"],
            "stationId": r["station_id"], "_sgg": r["gu"],
        })
    return out


def generate(ctx) -> dict:
    return {"seoul_stations": _stations(), "seoul_bikes": _bikes(ctx)}

"""Seoul Open Data: subway stations (real realtime ids/names), timetables, realtime arrivals, 따릉이.

- `seoul_stations`: one row per (station, line) of the vendored realtime station list, with a
  4-digit STATION_CD and FR_CODE for the 8088 services; STATION_NM is the realtime name except
  서울 -> 서울역 (the real 8088 quirk);
- timetables (SearchSTNTimeTableByIDService) and realtime arrivals (realtimeStationArrival) are
  computed on demand from ONE schedule model per line (origin departures by headway, 2 min per
  station), so an arrival "3분 후" matches a LEFTTIME in the timetable;
- `seoul_bikes`: ~2,000 따릉이 stations around real Seoul dongs, a snapshot at the world clock.
"""

from __future__ import annotations

import functools
import math
from datetime import datetime, timedelta

from ..refdata import table_rows
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


@functools.lru_cache(maxsize=1)
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
    return {"seoul_stations": [dict(s) for s in _stations()], "seoul_bikes": _bikes(ctx)}


# ---- the schedule model (shared by the timetable and realtime handlers) ----------------------

@functools.lru_cache(maxsize=1)
def _lines() -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for s in _stations():
        out.setdefault(s["_subway_id"], []).append(s)
    return out


def _headway(minute_of_day: int, week: str, sid: str) -> float:
    h = minute_of_day / 60
    if week == "1":
        hw = 3.0 if (7 <= h < 9.5 or 18 <= h < 20) else 6.0 if h < 22 else 8.0
        if sid == "1002":
            hw *= 0.8
    elif week == "2":
        hw = 6.0 if 8 <= h < 21 else 9.0
    else:
        hw = 7.0 if 9 <= h < 21 else 10.0
    if int(sid) > 1009:
        hw *= 2.0
    return hw


@functools.lru_cache(maxsize=512)
def _departures(sid: str, week: str, up: bool) -> list[tuple[int, int]]:
    """[(train number, origin departure in seconds after midnight)] for a line/day/direction."""
    first = 5 * 3600 + 30 * 60 + (int(sid) % 7) * 60 + (0 if up else 120)
    last = 24 * 3600 + (int(sid) % 5) * 60
    out, t, k = [], first, 0
    while t <= last:
        out.append((k, t))
        t += int(_headway(t // 60, week, sid) * 60)
        k += 1
    return out


def _hms(sec: int) -> str:
    return f"{sec // 3600:02d}:{sec % 3600 // 60:02d}:{sec % 60:02d}"


def _train_no(sid: str, k: int, up: bool) -> str:
    n = int(sid) - 1000
    digit = n if 1 <= n <= 9 else 0
    return f"{digit}{(2 * k + (0 if up else 1)) % 1000:03d}"


def _passes(station: dict, week: str, up: bool):
    """Yield (train no, arrival sec, departure sec, origin, dest) of trains through a station."""
    line = _lines()[station["_subway_id"]]
    n, i = len(line), station["_idx"]
    origin, dest = (line[-1], line[0]) if up else (line[0], line[-1])
    hops = (n - 1 - i) if up else i
    for k, t0 in _departures(station["_subway_id"], week, up):
        dep = t0 + hops * 120
        arr = dep - 30 if hops else 0
        yield _train_no(station["_subway_id"], k, up), arr, dep, origin, dest, hops


def station_timetable(world, params) -> list[dict]:
    code, week, inout = params.get("STATION_CD"), str(params.get("WEEK_TAG")), str(params.get("INOUT_TAG"))
    if week not in ("1", "2", "3") or inout not in ("1", "2"):
        return []
    st = next((s for s in _stations() if s["STATION_CD"] == str(code)), None)
    if st is None:
        return []
    up = inout == "1"
    out = []
    for tno, arr, dep, origin, dest, hops in _passes(st, week, up):
        if dest is st:
            continue  # terminating trains do not leave
        out.append({"LINE_NUM": st["LINE_NUM"], "FR_CODE": st["FR_CODE"], "STATION_CD": st["STATION_CD"],
                    "STATION_NM": st["STATION_NM"], "TRAIN_NO": tno, "ARRIVETIME": _hms(arr) if hops else "00:00:00",
                    "LEFTTIME": _hms(dep), "ORIGINSTATION": origin["STATION_CD"], "DESTSTATION": dest["STATION_CD"],
                    "SUBWAYSNAME": origin["STATION_NM"], "SUBWAYENAME": dest["STATION_NM"], "WEEK_TAG": week,
                    "INOUT_TAG": inout, "FL_FLAG": "", "EXPRESS_YN": "G", "BRANCH_LINE": ""})
    return out


def _week_tag(now: datetime) -> str:
    holidays = {h["date"] for h in table_rows("holidays") if h["is_holiday"] == "Y"}
    d = now.date()
    if d.weekday() == 6 or d in holidays:
        return "3"
    return "2" if d.weekday() == 5 else "1"


def realtime_arrivals(world, params) -> list[dict]:
    name = str(params.get("statnNm") or "").strip()
    if name.endswith("역") and name != "서울역" and name not in {s["_rt_name"] for s in _stations()}:
        name = name[:-1]
    if name == "서울역":
        name = "서울"
    here = [s for s in _stations() if s["_rt_name"] == name]
    if not here:
        return []
    now = world.clock.now()
    now_s = now.hour * 3600 + now.minute * 60 + now.second
    week = _week_tag(now)
    subway_list = ",".join(s["_subway_id"] for s in here)
    statn_list = ",".join(s["_statn_id"] for s in here)
    out = []
    for st in here:
        line = _lines()[st["_subway_id"]]
        i = st["_idx"]
        for up in (True, False):
            updn = ("내선" if up else "외선") if st["_subway_id"] == "1002" else ("상행" if up else "하행")
            nxt = line[i - 1] if up and i > 0 else line[i + 1] if not up and i + 1 < len(line) else None
            prv = line[i + 1] if up and i + 1 < len(line) else line[i - 1] if not up and i > 0 else None
            if nxt is None:
                continue  # terminal in this direction: trains end here
            found = 0
            for tno, arr, dep, origin, dest, hops in _passes(st, week, up):
                eta = (arr if hops else dep) - now_s
                if eta < 0:
                    continue
                found += 1
                away = max(0, math.ceil(eta / 120))
                pos = line[min(len(line) - 1, i + away)] if up else line[max(0, i - away)]
                if eta < 30:
                    cd, msg2 = "0", f"{st['_rt_name']} 진입"
                elif eta < 90:
                    cd, msg2 = "5", "전역 도착"
                elif eta < 150:
                    cd, msg2 = "3", "전역 출발"
                else:
                    cd, msg2 = "99", f"{round(eta / 60)}분 후 ({pos['_rt_name']})"
                recv = now - timedelta(seconds=(int(tno) * 7) % 40)
                out.append({
                    "subwayId": st["_subway_id"], "subwayNm": None, "updnLine": updn,
                    "trainLineNm": f"{dest['_rt_name']}행 - {nxt['_rt_name']}방면",
                    "statnFid": prv["_statn_id"] if prv else "", "statnTid": nxt["_statn_id"],
                    "statnId": st["_statn_id"], "statnNm": st["_rt_name"], "trnsitCo": str(len(here)),
                    "ordkey": f"{0 if up else 1}{found}{away:03d}{dest['_rt_name']}0",
                    "subwayList": subway_list, "statnList": statn_list, "btrainSttus": "일반",
                    "barvlDt": str(eta), "btrainNo": tno, "bstatnId": dest["_statn_id"], "bstatnNm": dest["_rt_name"],
                    "recptnDt": recv.strftime("%Y-%m-%d %H:%M:%S"), "arvlMsg2": msg2,
                    "arvlMsg3": pos["_rt_name"] if cd == "99" else (prv["_rt_name"] if prv and cd in ("3", "5") else st["_rt_name"]),
                    "arvlCd": cd, "lstcarAt": "0",
                })
                if found == 2:
                    break
    return out

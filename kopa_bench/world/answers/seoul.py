"""Seoul subway timetables (SearchSTNTimeTableByIDService) and realtime arrivals
(realtimeStationArrival), answered per request from ONE schedule model per line (origin
departures by headway, 2 min per station) over the world's `seoul_stations`, so an arrival
"3분 후" matches a LEFTTIME in the timetable."""

from __future__ import annotations

import functools
import math
import weakref
from datetime import datetime, timedelta

from ...refdata import table_rows

# per world: (stations in line order, line id -> its stations)
_NETWORK: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _network(world) -> tuple[list[dict], dict[str, list[dict]]]:
    net = _NETWORK.get(world)
    if net is None:
        stations = world.sql("SELECT * FROM seoul_stations ORDER BY _line_key, _idx")
        lines: dict[str, list[dict]] = {}
        for s in stations:
            lines.setdefault(s["_line_key"], []).append(s)
        net = _NETWORK[world] = (stations, lines)
    return net


def _toward_start(sid: str, inbound: bool) -> bool:
    """Whether a train runs toward the first station of its line list (`_idx` 0). `inbound` is
    상행, or 내선 on line 2, whose 내선순환 runs clockwise: ascending station codes, 201 시청 ->
    202 을지로입구 -> ... -> 243 충정로, i.e. away from the first station."""
    return not inbound if sid == "1002" else inbound


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


def _passes(line: list[dict], station: dict, week: str, up: bool):
    """Yield (train no, arrival sec, departure sec, origin, dest) of trains through a station of `line`."""
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
    stations, lines = _network(world)
    st = next((s for s in stations if s["STATION_CD"] == str(code)), None)
    if st is None:
        return []
    up = _toward_start(st["_subway_id"], inout == "1")
    out = []
    for tno, arr, dep, origin, dest, hops in _passes(lines[st["_line_key"]], st, week, up):
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
    stations, lines = _network(world)
    name = str(params.get("statnNm") or "").strip()
    if name.endswith("역") and name != "서울역" and name not in {s["_rt_name"] for s in stations}:
        name = name[:-1]
    if name == "서울역":
        name = "서울"
    here = [s for s in stations if s["_rt_name"] == name]
    if not here:
        return []
    now = world.clock.now()
    now_s = now.hour * 3600 + now.minute * 60 + now.second
    week = _week_tag(now)
    subway_list = ",".join(s["_subway_id"] for s in here)
    statn_list = ",".join(s["_statn_id"] for s in here)
    out = []
    for st in here:
        line = lines[st["_line_key"]]
        i = st["_idx"]
        for inbound in (True, False):
            up = _toward_start(st["_subway_id"], inbound)
            updn = ("내선" if inbound else "외선") if st["_subway_id"] == "1002" else ("상행" if inbound else "하행")
            nxt = line[i - 1] if up and i > 0 else line[i + 1] if not up and i + 1 < len(line) else None
            prv = line[i + 1] if up and i + 1 < len(line) else line[i - 1] if not up and i > 0 else None
            if nxt is None:
                continue  # terminal in this direction: trains end here
            found = 0
            for tno, arr, dep, origin, dest, hops in _passes(line, st, week, up):
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
                    "ordkey": f"{0 if inbound else 1}{found}{away:03d}{dest['_rt_name']}0",
                    "subwayList": subway_list, "statnList": statn_list, "btrainSttus": "일반",
                    "barvlDt": str(eta), "btrainNo": tno, "bstatnId": dest["_statn_id"], "bstatnNm": dest["_rt_name"],
                    "recptnDt": recv.strftime("%Y-%m-%d %H:%M:%S"), "arvlMsg2": msg2,
                    "arvlMsg3": pos["_rt_name"] if cd == "99" else (prv["_rt_name"] if prv and cd in ("3", "5") else st["_rt_name"]),
                    "arvlCd": cd, "lstcarAt": "0",
                })
                if found == 2:
                    break
    return out

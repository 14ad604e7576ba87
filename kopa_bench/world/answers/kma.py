"""KMA 단기예보 (VilageFcstInfoService_2.0): weather answered per request for every grid cell.

Rows for 149 x 253 cells x every issued base time would be far too many, so the three
operations are handlers that compute a deterministic answer from (world seed, nx, ny,
base_date, base_time, category, valid time) with the model in kma_weather.py:
getUltraSrtNcst gives the truth at the base hour, getUltraSrtFcst and getVilageFcst forecasts.

Availability (the real service's rules, world clock = "now"):
* getVilageFcst base_time must be one of 0200 0500 0800 1100 1400 1700 2000 2300 (any other
  well-formed time such as 0900 answers 03 NO_DATA, as the real service does for an
  unpublished slot); a run is published at base+10 min.
* getUltraSrtNcst: HH00 observations, published at HH40; a base_time with minutes is floored
  to the hour (baseTime in the rows is HH00).
* getUltraSrtFcst: HH30 runs, published at HH45 (15 min after the base time); minutes are floored to the latest HH30.
* base times in the future (not yet published) or with a base_date before yesterday
  ("최근 1일간의 자료만 제공합니다") answer 03 NO_DATA; so does an impossible date.
"""

from __future__ import annotations

import math
from datetime import date, datetime, timedelta

from ...clock import KST
from .kma_weather import Truth, day_extreme, forecast_at, precip_type

VILAGE_HOURS = (2, 5, 8, 11, 14, 17, 20, 23)
VILAGE_CATS = ("TMP", "UUU", "VVV", "VEC", "WSD", "SKY", "PTY", "POP", "WAV", "PCP", "REH", "SNO")
NCST_CATS = ("PTY", "REH", "RN1", "T1H", "UUU", "VEC", "VVV", "WSD")
ULTRA_CATS = ("LGT", "PTY", "RN1", "SKY", "T1H", "REH", "UUU", "VVV", "VEC", "WSD")
VILAGE_DAYS_AHEAD = 3  # forecasts run to the end of 글피 (day + 3)


# ---- value formatting ------------------------------------------------------------------

def _f1(x: float) -> str:
    v = round(x + 0.0, 1)
    return "0" if v == 0 else f"{v:.1f}"


def _vec(u: float, v: float) -> str:
    return str(int(round((270 - math.degrees(math.atan2(v, u))) % 360)) % 360)


def _amount_text(mm: float) -> str:
    if mm < 0.1:
        return "강수없음"
    if mm < 1.0:
        return "1mm 미만"
    if mm < 30.0:
        return f"{mm:.1f}mm"
    if mm < 50.0:
        return "30.0~50.0mm"
    return "50.0mm 이상"


def _snow_text(cm: float) -> str:
    if cm < 0.1:
        return "적설없음"
    if cm < 1.0:
        return "1cm 미만"
    if cm < 5.0:
        return f"{cm:.1f}cm"
    return "5.0cm 이상"


# ---- request handling ------------------------------------------------------------------

def _parse_base(params: dict) -> tuple[datetime, str, str] | None:
    bd, bt = str(params.get("base_date") or ""), str(params.get("base_time") or "")
    if len(bd) != 8 or len(bt) != 4 or not (bd.isdigit() and bt.isdigit()):
        return None
    try:
        day = date(int(bd[:4]), int(bd[4:6]), int(bd[6:]))
    except ValueError:
        return None
    hh, mm = int(bt[:2]), int(bt[2:])
    if hh > 23 or mm > 59:
        return None
    return datetime(day.year, day.month, day.day, hh, mm, tzinfo=KST), bd, bt


def _available(world, base: datetime, lag_min: int) -> bool:
    now = world.clock.now()
    oldest = datetime.combine(world.clock.yesterday(), datetime.min.time(), tzinfo=KST)
    return oldest <= base and base + timedelta(minutes=lag_min) <= now


def _grid(params: dict) -> tuple[int, int] | None:
    try:
        nx, ny = int(params["nx"]), int(params["ny"])
    except (KeyError, TypeError, ValueError):
        return None
    if not (1 <= nx <= 149 and 1 <= ny <= 253):
        return None
    return nx, ny


def _seed(world) -> str:
    return str(getattr(world, "meta", {}).get("seed", "0"))


def get_vilage_fcst(world, params: dict) -> list[dict]:
    parsed, grid = _parse_base(params), _grid(params)
    if parsed is None or grid is None:
        return []
    base, bd, bt = parsed
    if base.minute != 0 or base.hour not in VILAGE_HOURS or not _available(world, base, 10):
        return []
    nx, ny = grid
    truth = Truth(_seed(world), nx, ny, world.clock.today())
    end = datetime.combine(base.date() + timedelta(days=VILAGE_DAYS_AHEAD + 1), datetime.min.time(), tzinfo=KST)
    rows: list[dict] = []
    when = base + timedelta(hours=1)
    while when < end:
        t = truth.hours(when)
        fc = forecast_at(truth, base, t, False)
        ws = math.hypot(fc["u"], fc["v"])
        values = {
            "TMP": str(int(round(fc["temp"]))), "UUU": _f1(fc["u"]), "VVV": _f1(fc["v"]),
            "VEC": _vec(fc["u"], fc["v"]), "WSD": _f1(ws), "SKY": str(fc["sky"]), "PTY": str(fc["ptype"]),
            "POP": str(fc["pop"]), "WAV": _f1(0.4 + 0.22 * ws) if fc["sea"] else "0",
            "PCP": _amount_text(fc["rate"]) if fc["ptype"] else "강수없음",
            "REH": str(int(round(fc["reh"]))),
            "SNO": _snow_text(fc["rate"] * (1.0 if fc["ptype"] == 3 else 0.4)) if fc["ptype"] in (2, 3) else "적설없음",
        }
        fd, ft = when.strftime("%Y%m%d"), when.strftime("%H%M")
        for cat in VILAGE_CATS:
            rows.append({"baseDate": bd, "baseTime": bt, "category": cat, "fcstDate": fd, "fcstTime": ft,
                         "fcstValue": values[cat], "nx": nx, "ny": ny})
        if when.hour == 6:
            tmn = day_extreme(truth, base, when.date(), 0, 9, min)
            rows.append({"baseDate": bd, "baseTime": bt, "category": "TMN", "fcstDate": fd, "fcstTime": ft,
                         "fcstValue": f"{round(tmn):.1f}", "nx": nx, "ny": ny})
        if when.hour == 15:
            tmx = day_extreme(truth, base, when.date(), 9, 18, max)
            rows.append({"baseDate": bd, "baseTime": bt, "category": "TMX", "fcstDate": fd, "fcstTime": ft,
                         "fcstValue": f"{round(tmx):.1f}", "nx": nx, "ny": ny})
        when += timedelta(hours=1)
    return rows


def get_ultra_srt_ncst(world, params: dict) -> list[dict]:
    parsed, grid = _parse_base(params), _grid(params)
    if parsed is None or grid is None:
        return []
    base, bd, _ = parsed
    base = base.replace(minute=0)
    if not _available(world, base, 40):
        return []
    nx, ny = grid
    truth = Truth(_seed(world), nx, ny, world.clock.today())
    t = truth.hours(base)
    s = truth.at(t)
    rain_1h = (truth.at(t - 0.75)["rate"] + s["rate"] + truth.at(t - 0.25)["rate"]) / 3.0
    ptype = precip_type(s["rate"], s["temp"], s["shower"], True)
    values = {
        "PTY": str(ptype), "REH": str(int(round(s["reh"]))),
        "RN1": _f1(rain_1h) if rain_1h >= 0.1 and ptype in (1, 2, 3) else "0",
        "T1H": _f1(s["temp"]), "UUU": _f1(s["u"]), "VEC": _vec(s["u"], s["v"]), "VVV": _f1(s["v"]),
        "WSD": _f1(math.hypot(s["u"], s["v"])),
    }
    bt = base.strftime("%H%M")
    return [{"baseDate": bd, "baseTime": bt, "category": c, "nx": nx, "ny": ny, "obsrValue": values[c]} for c in NCST_CATS]


def get_ultra_srt_fcst(world, params: dict) -> list[dict]:
    parsed, grid = _parse_base(params), _grid(params)
    if parsed is None or grid is None:
        return []
    base, _, _ = parsed
    base = base.replace(minute=30) if base.minute >= 30 else (base - timedelta(hours=1)).replace(minute=30)
    if not _available(world, base, 15):  # HH30 run out at HH45
        return []
    nx, ny = grid
    truth = Truth(_seed(world), nx, ny, world.clock.today())
    bd, bt = base.strftime("%Y%m%d"), base.strftime("%H%M")
    per_time = []
    for k in range(1, 7):
        when = base.replace(minute=0) + timedelta(hours=k)
        fc = forecast_at(truth, base, truth.hours(when), True)
        values = {
            "LGT": "1" if fc["rate"] >= 6.0 else "0", "PTY": str(fc["ptype"]),
            "RN1": _amount_text(fc["rate"]) if fc["ptype"] in (1, 2, 3) else ("1mm 미만" if fc["ptype"] else "강수없음"),
            "SKY": str(fc["sky"]), "T1H": str(int(round(fc["temp"]))), "REH": str(int(round(fc["reh"]))),
            "UUU": _f1(fc["u"]), "VVV": _f1(fc["v"]), "VEC": _vec(fc["u"], fc["v"]),
            "WSD": _f1(math.hypot(fc["u"], fc["v"])),
        }
        per_time.append((when.strftime("%Y%m%d"), when.strftime("%H%M"), values))
    rows = []
    for cat in ULTRA_CATS:  # the real service lists category-major: LGT x6, PTY x6, ...
        for fd, ft, values in per_time:
            rows.append({"baseDate": bd, "baseTime": bt, "category": cat, "fcstDate": fd, "fcstTime": ft,
                         "fcstValue": values[cat], "nx": nx, "ny": ny})
    return rows

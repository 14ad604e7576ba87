"""KMA 단기예보 (VilageFcstInfoService_2.0): weather computed on demand for every grid cell.

Rows for 149 x 253 cells x every issued base time would be far too many, so the three
operations are Python handlers (`handler: "kopa_bench.world.gen.kma:..."`) that compute a
deterministic answer from (world seed, nx, ny, base_date, base_time, category, valid time):

* a *truth* field per cell and hour: late-November climatology by latitude (Seoul ~4 C mean,
  Jeju ~12 C, colder Gangwon highlands), a diurnal cycle (min ~06h, max ~15h), smooth
  seed-phased synoptic waves, and a few scripted precipitation events placed relative to the
  world's "today" (so they follow the clock):
    - today, night to late morning: light rain/snow on the 강원 영동 coast, drizzle on Jeju;
    - tomorrow (2026-12-01 with the default clock): a SW-NE rain band crossing the country
      west to east from ~03h to ~21h, heaviest over 충청/전라/경북 (~6 mm/h), light over
      서울/경기 and turning to sleet/snow in the cold north-east; colder air behind it;
    - day+2 afternoon: showers (PTY 4) over Jeju and the south coast;
    - day+2 night to day+3 morning: sea-effect snow on the 호남 west coast.
* getUltraSrtNcst gives the truth at the base hour; getUltraSrtFcst and getVilageFcst give
  the truth plus an error that grows with lead time (timing and amplitude), so a cell's TMP
  forecast and its later T1H observation are close, and PTY/POP/PCP/SKY/SNO agree
  (PTY > 0 <=> PCP != 강수없음 <=> POP >= 60; SKY 4 when it precipitates).

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

import hashlib
import math
import random
from datetime import date, datetime, timedelta
from functools import lru_cache

from ...geo import kma_grid_to_latlon
from ..clock import KST
from ..refdata import table_rows

DEPENDS: list[str] = []

VILAGE_HOURS = (2, 5, 8, 11, 14, 17, 20, 23)
VILAGE_CATS = ("TMP", "UUU", "VVV", "VEC", "WSD", "SKY", "PTY", "POP", "WAV", "PCP", "REH", "SNO")
NCST_CATS = ("PTY", "REH", "RN1", "T1H", "UUU", "VEC", "VVV", "WSD")
ULTRA_CATS = ("LGT", "PTY", "RN1", "SKY", "T1H", "REH", "UUU", "VVV", "VEC", "WSD")
VILAGE_DAYS_AHEAD = 3  # forecasts run to the end of 글피 (day + 3)


def generate(ctx) -> dict:
    """No tables: every answer is computed by the handlers below."""
    return {}


# ---- deterministic helpers -------------------------------------------------------------

def _u(*key) -> float:
    """Uniform [0, 1) from a key, stable across processes (no Python hash randomisation)."""
    d = hashlib.blake2b(repr(key).encode(), digest_size=8).digest()
    return int.from_bytes(d, "big") / 2**64


@lru_cache(maxsize=8)
def _waves(seed: str) -> list[tuple[float, float, float, float, float]]:
    r = random.Random(f"kma-waves:{seed}")
    out = []
    for _ in range(4):
        out.append((r.uniform(0.4, 1.3), r.uniform(-1.0, 1.0), r.uniform(0.02, 0.09), r.uniform(0, 2 * math.pi), r.uniform(0.6, 1.2)))
    return out


def _wave(seed: str, lat: float, lon: float, t: float, offset: int = 0) -> float:
    s = 0.0
    for i, (kx, ky, om, ph, amp) in enumerate(_waves(seed)):
        s += amp * math.sin(kx * lon + ky * lat + om * t + ph + offset * (i + 1.7))
    return s / 2.0  # roughly in [-1.7, 1.7]


@lru_cache(maxsize=1)
def _land() -> frozenset[tuple[int, int]]:
    cells = set()
    for g in table_rows("kma_grid"):
        nx, ny = int(g["nx"]), int(g["ny"])
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                cells.add((nx + dx, ny + dy))
    return frozenset(cells)


@lru_cache(maxsize=40000)
def _cell(nx: int, ny: int) -> tuple[float, float, bool]:
    lat, lon = kma_grid_to_latlon(nx, ny)
    return lat, lon, (nx, ny) in _land()


_DIURNAL = ((0, -0.6), (3, -0.85), (6, -1.0), (9, -0.4), (12, 0.6), (15, 1.0), (18, 0.4), (21, -0.2), (24, -0.6))


def _diurnal(hour: float) -> float:
    h = hour % 24
    for (h0, v0), (h1, v1) in zip(_DIURNAL, _DIURNAL[1:]):
        if h0 <= h <= h1:
            return v0 + (v1 - v0) * (h - h0) / (h1 - h0)
    return -0.6


def _gauss(x: float, w: float) -> float:
    return math.exp(-(x / w) ** 2)


def _front_lon(lat: float, t: float) -> float:
    # t: hours since today 00:00. The front crosses 125.5E at day+1 03h and 130E at 21h,
    # tilted SW-NE (further east in the north).
    return 125.5 + (t - 27.0) * (4.5 / 18.0) - 0.6 * (lat - 36.0)


def _precip(lat: float, lon: float, t: float) -> tuple[float, bool]:
    """Truth precipitation rate (mm/h) and whether it is showery (convective)."""
    rate, shower = 0.0, False
    # 1. today: 강원 영동 coast light rain/snow until ~11h; Jeju drizzle 04-10h
    if -14 <= t <= 11 and lat > 37.0 and lon > 128.3:
        env = min(1.0, (11 - t) / 4.0)
        rate += 1.3 * env * _gauss(lon - 128.9, 0.35) * _gauss(lat - 37.8, 0.7)
    if 4 <= t <= 10 and lat < 33.7:
        rate += 0.07 * _gauss(lat - 33.4, 0.25)
    # 2. tomorrow: frontal rain band
    if 18 <= t <= 44:
        d = lon - _front_lon(lat, t)
        strength = 6.0 * _gauss(lat - 35.9, 1.1) + 0.9
        if lat > 38.9 or lat < 33.0:
            strength *= 0.3
        rate += strength * _gauss(d, 0.45)
    # 3. day+2 afternoon showers: Jeju and the south coast
    if 58 <= t <= 68 and lat < 35.0:
        env = _gauss(t - 63, 3.0)
        cells = 0.5 + 0.5 * math.sin(7.0 * lon + 5.0 * lat)
        rate += 3.5 * env * cells * _gauss(lat - 34.0, 0.7)
        shower = rate > 0.1
    # 4. day+2 night to day+3 morning: west-coast snow in 호남
    if 64 <= t <= 82 and 34.6 < lat < 36.3 and lon < 127.2:
        rate += 1.6 * _gauss(t - 72, 5.0) * _gauss(lon - 126.6, 0.35)
    return rate, shower


def _temp(seed: str, lat: float, lon: float, sea: bool, t: float) -> float:
    base = 4.5 - 1.9 * (lat - 37.5)
    if lon > 128.7 and 35.8 < lat < 38.7:
        base += 1.5  # 영동 coast is milder
    if 127.6 < lon < 128.7 and lat > 37.1:
        base -= 2.8  # 강원 highlands
    if 127.4 < lon < 128.3 and 35.5 < lat < 36.4:
        base -= 1.0  # 소백/덕유 mountains
    amp = 2.2 if sea else 4.6
    # front: mild ahead, a cold surge behind, slow recovery
    passed = t - (27.0 + (lon - 125.5 + 0.6 * (lat - 36.0)) * 18.0 / 4.5)
    front = 1.2 - 5.0 / (1.0 + math.exp(-passed / 3.0))
    if passed > 30:
        front += min(3.0, (passed - 30) * 0.08)
    return base + amp * _diurnal(t) + front + 1.3 * _wave(seed, lat, lon, t)


def _cloud(seed: str, lat: float, lon: float, t: float) -> float:
    c = 0.35 + 0.3 * _wave(seed, lat, lon, t, offset=3)
    near = 0.0
    for dt in (-3.0, 0.0, 3.0):
        r, _ = _precip(lat, lon, t + dt)
        near = max(near, min(1.0, r / 0.8))
    return max(0.0, min(1.0, c + 0.8 * near))


def _wind(seed: str, lat: float, lon: float, sea: bool, t: float) -> tuple[float, float]:
    passed = t - (27.0 + (lon - 125.5 + 0.6 * (lat - 36.0)) * 18.0 / 4.5)
    behind = 1.0 / (1.0 + math.exp(-passed / 3.0))
    u = 1.6 + 1.2 * _wave(seed, lat, lon, t, offset=5) + 2.5 * behind
    v = (1.8 - 4.2 * behind) + 1.0 * _wave(seed, lat, lon, t, offset=7)
    k = 1.7 if sea else (1.2 if lon > 128.9 or lon < 126.4 else 0.8)
    return u * k, v * k


class _Truth:
    """Truth at one cell, memoised per hour."""

    def __init__(self, seed: str, nx: int, ny: int, today: date):
        self.seed, self.nx, self.ny = seed, nx, ny
        self.lat, self.lon, land = _cell(nx, ny)
        self.sea = not land
        self.t0 = datetime(today.year, today.month, today.day, tzinfo=KST)

    def hours(self, when: datetime) -> float:
        return (when - self.t0).total_seconds() / 3600.0

    def at(self, t: float) -> dict:
        lat, lon, seed = self.lat, self.lon, self.seed
        rate, shower = _precip(lat, lon, t)
        temp = _temp(seed, lat, lon, self.sea, t)
        if rate > 0.05:
            temp -= min(1.5, rate * 0.3)  # evaporative cooling in rain
        cloud = _cloud(seed, lat, lon, t)
        u, v = _wind(seed, lat, lon, self.sea, t)
        reh = 58 + 22 * cloud - 9 * _diurnal(t) + (18 if rate > 0.1 else 0) + 5 * _wave(seed, lat, lon, t, offset=11)
        return {"rate": rate, "shower": shower, "temp": temp, "cloud": cloud, "u": u, "v": v,
                "reh": max(18, min(100, reh))}


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


def _ptype(rate: float, temp: float, shower: bool, ultra: bool) -> int:
    if rate < 0.02:
        return 0
    if ultra and rate < 0.1:  # drizzle / flurries: 빗방울, 빗방울눈날림, 눈날림
        return 7 if temp <= 0.5 else (6 if temp <= 2.0 else 5)
    if rate < 0.1:
        return 0
    if temp <= 0.5:
        return 3
    if temp <= 2.0:
        return 2
    return 4 if (shower and not ultra) else 1


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


def _fc_error(seed: str, nx: int, ny: int, base: datetime, lead: float) -> tuple[float, float, float]:
    """(temperature error C, timing shift h, intensity factor) for a forecast of `lead` hours."""
    key = (seed, nx // 3, ny // 3, base.strftime("%Y%m%d%H%M"))
    ph = 2 * math.pi * _u("ph", *key)
    z = math.sin(0.13 * lead + ph)
    t_err = (0.25 + 0.045 * lead) * (1.4 * z + 0.6 * (_u("c", seed, nx, ny, key[3]) - 0.5))
    shift = (lead / 24.0) * (2.0 * _u("sh", *key) - 1.0)
    factor = 1.0 + (lead / 48.0) * 0.3 * (2.0 * _u("f", *key) - 1.0)
    return t_err, shift, factor


def _forecast_at(truth: _Truth, base: datetime, t: float, ultra: bool) -> dict:
    lead = max(0.0, t - truth.hours(base))
    t_err, shift, factor = _fc_error(truth.seed, truth.nx, truth.ny, base, lead)
    s = truth.at(t + shift)
    temp_now = truth.at(t)["temp"]
    temp = temp_now + t_err
    rate = s["rate"] * factor
    ptype = _ptype(rate, temp, s["shower"], ultra)
    near = 0.0
    for dt in (-4.0, -2.0, 2.0, 4.0):
        near = max(near, truth.at(t + shift + dt)["rate"])
    if ptype in (1, 2, 3, 4):
        pop = min(100, 60 + 10 * round(min(4.0, rate * 1.5)))
    else:
        pop = min(50, 10 * round(min(5.0, near * 6.0 + s["cloud"] * 2.0)))
        rate = 0.0 if ptype == 0 else rate
    cloud = s["cloud"]
    sky = 4 if (ptype != 0 or cloud >= 0.72) else (3 if cloud >= 0.38 else 1)
    return {"temp": temp, "rate": rate, "ptype": ptype, "pop": pop, "sky": sky,
            "u": s["u"], "v": s["v"], "reh": s["reh"], "sea": truth.sea}


def _day_extreme(truth: _Truth, base: datetime, day: date, lo: int, hi: int, fn) -> float:
    start = truth.hours(datetime(day.year, day.month, day.day, tzinfo=KST))
    return fn(_forecast_at(truth, base, start + h, False)["temp"] for h in range(lo, hi + 1))


def get_vilage_fcst(world, params: dict) -> list[dict]:
    parsed, grid = _parse_base(params), _grid(params)
    if parsed is None or grid is None:
        return []
    base, bd, bt = parsed
    if base.minute != 0 or base.hour not in VILAGE_HOURS or not _available(world, base, 10):
        return []
    nx, ny = grid
    truth = _Truth(_seed(world), nx, ny, world.clock.today())
    end = datetime.combine(base.date() + timedelta(days=VILAGE_DAYS_AHEAD + 1), datetime.min.time(), tzinfo=KST)
    rows: list[dict] = []
    when = base + timedelta(hours=1)
    while when < end:
        t = truth.hours(when)
        fc = _forecast_at(truth, base, t, False)
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
            tmn = _day_extreme(truth, base, when.date(), 0, 9, min)
            rows.append({"baseDate": bd, "baseTime": bt, "category": "TMN", "fcstDate": fd, "fcstTime": ft,
                         "fcstValue": f"{round(tmn):.1f}", "nx": nx, "ny": ny})
        if when.hour == 15:
            tmx = _day_extreme(truth, base, when.date(), 9, 18, max)
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
    truth = _Truth(_seed(world), nx, ny, world.clock.today())
    t = truth.hours(base)
    s = truth.at(t)
    rain_1h = (truth.at(t - 0.75)["rate"] + s["rate"] + truth.at(t - 0.25)["rate"]) / 3.0
    ptype = _ptype(s["rate"], s["temp"], s["shower"], True)
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
    truth = _Truth(_seed(world), nx, ny, world.clock.today())
    bd, bt = base.strftime("%Y%m%d"), base.strftime("%H%M")
    per_time = []
    for k in range(1, 7):
        when = base.replace(minute=0) + timedelta(hours=k)
        fc = _forecast_at(truth, base, truth.hours(when), True)
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

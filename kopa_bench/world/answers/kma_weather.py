"""KMA weather as one deterministic model: a *truth* field per grid cell and hour, and
forecasts that are the truth plus an error growing with lead time.

The truth: late-November climatology by latitude (Seoul ~4 C mean, Jeju ~12 C, colder Gangwon
highlands), a diurnal cycle (min ~06h, max ~15h), smooth seed-phased synoptic waves, and a few
scripted precipitation events placed relative to the world's "today" (so they follow the clock):
  - today, night to late morning: light rain/snow on the 강원 영동 coast, drizzle on Jeju;
  - tomorrow (2026-12-01 with the default clock): a SW-NE rain band crossing the country
    west to east from ~03h to ~21h, heaviest over 충청/전라/경북 (~6 mm/h), light over
    서울/경기 and turning to sleet/snow in the cold north-east; colder air behind it;
  - day+2 afternoon: showers (PTY 4) over Jeju and the south coast;
  - day+2 night to day+3 morning: sea-effect snow on the 호남 west coast.
Forecast errors are in timing and amplitude, so a cell's TMP forecast and its later T1H
observation are close, and PTY/POP/PCP/SKY/SNO agree (PTY > 0 <=> PCP != 강수없음 <=> POP >= 60;
SKY 4 when it precipitates).
"""

from __future__ import annotations

import hashlib
import math
import random
from datetime import date, datetime
from functools import lru_cache

from ...clock import KST
from ...geo import kma_grid_to_latlon
from ...refdata import table_rows


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


class Truth:
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


def precip_type(rate: float, temp: float, shower: bool, ultra: bool) -> int:
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


def _fc_error(seed: str, nx: int, ny: int, base: datetime, lead: float) -> tuple[float, float, float]:
    """(temperature error C, timing shift h, intensity factor) for a forecast of `lead` hours."""
    key = (seed, nx // 3, ny // 3, base.strftime("%Y%m%d%H%M"))
    ph = 2 * math.pi * _u("ph", *key)
    z = math.sin(0.13 * lead + ph)
    t_err = (0.25 + 0.045 * lead) * (1.4 * z + 0.6 * (_u("c", seed, nx, ny, key[3]) - 0.5))
    shift = (lead / 24.0) * (2.0 * _u("sh", *key) - 1.0)
    factor = 1.0 + (lead / 48.0) * 0.3 * (2.0 * _u("f", *key) - 1.0)
    return t_err, shift, factor


def forecast_at(truth: Truth, base: datetime, t: float, ultra: bool) -> dict:
    lead = max(0.0, t - truth.hours(base))
    t_err, shift, factor = _fc_error(truth.seed, truth.nx, truth.ny, base, lead)
    s = truth.at(t + shift)
    temp_now = truth.at(t)["temp"]
    temp = temp_now + t_err
    rate = s["rate"] * factor
    ptype = precip_type(rate, temp, s["shower"], ultra)
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


def day_extreme(truth: Truth, base: datetime, day: date, lo: int, hi: int, fn) -> float:
    start = truth.hours(datetime(day.year, day.month, day.day, tzinfo=KST))
    return fn(forecast_at(truth, base, start + h, False)["temp"] for h in range(lo, hi + 1))

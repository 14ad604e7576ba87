"""AirKorea: 656 real stations, TM coordinates of every dong, hourly measurements.

Measurements cover the 92 days up to the world clock (3MONTH is the longest dataTerm). PM10
follows a late-autumn level per region with a diurnal cycle, AR(1) weather noise and a few
multi-day dust episodes (so "나쁨" days exist and differ by region); PM2.5 tracks PM10. Grades
use the real breakpoints. About 0.5% of hours carry a real status flag with the value "-".
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...geo import wgs84_to_tm
from ...refdata import table_rows

DEPENDS = ["regions"]
DAYS = 92

SIDO_LEVEL = {  # late-November PM10 means by region (ug/m3), roughly as observed
    "서울": 42, "경기": 46, "인천": 44, "강원": 33, "충북": 45, "충남": 41, "대전": 38, "세종": 40,
    "전북": 44, "전남": 32, "광주": 36, "경북": 37, "경남": 34, "대구": 39, "울산": 35, "부산": 33, "제주": 28,
}


def _grade(values: np.ndarray, cuts: tuple[int, int, int]) -> np.ndarray:
    return 1 + (values > cuts[0]).astype(int) + (values > cuts[1]).astype(int) + (values > cuts[2]).astype(int)


def _stations(ctx) -> list[dict]:
    out = []
    for i, s in enumerate(table_rows("airkorea_stations")):
        tm_x, tm_y = wgs84_to_tm(float(s["lat"]), float(s["lon"]))
        out.append({
            "stationName": s["station_name"], "stationCode": f"{111000 + i * 7}", "addr": s["addr"],
            "sidoName": s["sido_name"], "mangName": s["mang_name"], "item": s["items"], "year": str(s["year"]),
            "dmX": f"{float(s['lat']):.6f}", "dmY": f"{float(s['lon']):.6f}",
            "tmX": round(tm_x, 6), "tmY": round(tm_y, 6),
        })
    return out


def _tm_dongs(ctx) -> list[dict]:
    rows = []
    for p in ctx.rows("places"):
        x, y = wgs84_to_tm(p["lat"], p["lon"])
        rows.append({"sidoName": p["sido_name"], "sggName": p["sgg_name"], "umdName": p["umd_name"],
                     "tmX": f"{x:.6f}", "tmY": f"{y:.6f}", "region_cd": p["region_cd"]})
    return rows


def _measurements(ctx, stations: list[dict]) -> pa.Table:
    rng = np.random.default_rng(int(ctx.rng("airkorea.meas").random() * 2**32))
    now = ctx.clock.now().replace(minute=0, second=0, microsecond=0)
    hours = DAYS * 24
    times = [(now - timedelta(hours=h)) for h in range(hours - 1, -1, -1)]
    hour_of_day = np.array([t.hour for t in times])
    diurnal = 1.0 + 0.18 * np.sin((hour_of_day - 5) / 24 * 2 * np.pi)
    # Region-wide dust episodes: (start hour index, length, strength) drawn once per sido.
    sidos = sorted({s["sidoName"] for s in stations})
    episode = {}
    for sido in sidos:
        e = np.ones(hours)
        for _ in range(rng.integers(2, 5)):
            start = int(rng.integers(0, hours - 24))
            length = int(rng.integers(18, 72))
            e[start:start + length] *= rng.uniform(1.8, 3.2)
        if sido in ("경기", "충남", "인천", "전북"):  # a dust episode still running on world day
            e[-30:] *= 1.8
        episode[sido] = e
    n = len(stations)
    pm10 = np.empty((n, hours))
    for i, s in enumerate(stations):
        level = SIDO_LEVEL.get(s["sidoName"], 38) * rng.uniform(0.75, 1.25)
        if s["mangName"] == "도로변대기":
            level *= 1.15
        pm10[i] = level * diurnal * episode[s["sidoName"]]
    # AR(1) weather noise, vectorised over stations (one loop over hours, not stations x hours)
    shocks = rng.normal(0, 0.18, (n, hours))
    noise = np.empty((n, hours))
    acc = np.zeros(n)
    for h in range(hours):
        acc = 0.93 * acc + shocks[:, h]
        noise[:, h] = acc
    pm10 = np.clip(pm10 * np.exp(noise), 3, 600)
    pm25 = np.clip(pm10 * rng.uniform(0.45, 0.65, (n, 1)) + rng.normal(0, 2.5, (n, hours)), 1, 400)
    o3 = np.clip(0.025 + 0.012 * np.sin((hour_of_day - 9) / 24 * 2 * np.pi) + rng.normal(0, 0.006, (n, hours)), 0.001, 0.15)
    no2 = np.clip(0.028 - 0.008 * np.sin((hour_of_day - 9) / 24 * 2 * np.pi) + rng.normal(0, 0.007, (n, hours)), 0.002, 0.12)
    co = np.clip(0.45 + rng.normal(0, 0.12, (n, hours)), 0.1, 2.0)
    so2 = np.clip(0.003 + rng.normal(0, 0.0008, (n, hours)), 0.001, 0.02)
    pm10_i, pm25_i = np.rint(pm10).astype(int), np.rint(pm25).astype(int)
    # 24h moving averages (what pm10Value24 / the 24h grades use)
    counts = np.minimum(np.arange(1, hours + 1), 24)

    def moving24(a: np.ndarray) -> np.ndarray:
        c = np.cumsum(a, axis=1)
        out = c.copy()
        out[:, 24:] = c[:, 24:] - c[:, :-24]
        return np.rint(out / counts).astype(int)

    pm10_24, pm25_24 = moving24(pm10), moving24(pm25)
    pm10_g, pm25_g = _grade(pm10_24, (30, 80, 150)), _grade(pm25_24, (15, 35, 75))
    pm10_g1, pm25_g1 = _grade(pm10_i, (30, 80, 150)), _grade(pm25_i, (15, 35, 75))
    khai = np.rint(np.maximum(pm10_i * 0.95, pm25_i * 1.6) + 10).astype(int)
    khai_g = _grade(khai, (50, 100, 250))
    flagged = rng.random((n, hours)) < 0.005

    mask = pa.array(flagged.ravel())

    def fmt(arr, spec):
        # pyarrow casts numbers to text faster than numpy string formatting; decimals via rounding.
        digits = int(spec[2]) if spec.startswith("%.") else 0
        flat = np.round(np.asarray(arr, dtype=float).ravel(), digits)
        col = pa.array(flat.astype(int) if digits == 0 else flat).cast(pa.string())
        return pc.if_else(mask, pa.scalar("-"), col)

    flag = pc.if_else(mask, pa.scalar("통신장애"), pa.nulls(len(mask), pa.string()))
    time_str = np.array([t.strftime("%Y-%m-%d %H:%M") for t in times], dtype=object)
    cols = {
        "stationName": np.repeat(np.array([s["stationName"] for s in stations], dtype=object), hours),
        "stationCode": np.repeat(np.array([s["stationCode"] for s in stations], dtype=object), hours),
        "sidoName": np.repeat(np.array([s["sidoName"] for s in stations], dtype=object), hours),
        "mangName": np.repeat(np.array([s["mangName"] for s in stations], dtype=object), hours),
        "dataTime": np.tile(time_str, n),
        "so2Value": fmt(so2, "%.3f"), "coValue": fmt(co, "%.1f"), "o3Value": fmt(o3, "%.3f"),
        "no2Value": fmt(no2, "%.3f"), "pm10Value": fmt(pm10_i, "%d"), "pm10Value24": fmt(pm10_24, "%d"),
        "pm25Value": fmt(pm25_i, "%d"), "pm25Value24": fmt(pm25_24, "%d"), "khaiValue": fmt(khai, "%d"),
        "khaiGrade": fmt(khai_g, "%d"), "so2Grade": fmt(np.ones_like(khai), "%d"), "coGrade": fmt(np.ones_like(khai), "%d"),
        "o3Grade": fmt(_grade(np.rint(o3 * 1000), (30, 90, 150)), "%d"), "no2Grade": fmt(_grade(np.rint(no2 * 1000), (30, 60, 200)), "%d"),
        "pm10Grade": fmt(pm10_g, "%d"), "pm25Grade": fmt(pm25_g, "%d"), "pm10Grade1h": fmt(pm10_g1, "%d"),
        "pm25Grade1h": fmt(pm25_g1, "%d"),
        "so2Flag": flag, "coFlag": flag, "o3Flag": flag, "no2Flag": flag, "pm10Flag": flag, "pm25Flag": flag,
    }
    return pa.table({k: v if isinstance(v, (pa.Array, pa.ChunkedArray)) else pa.array(v, type=pa.string())
                     for k, v in cols.items()})


def generate(ctx) -> dict:
    stations = _stations(ctx)
    return {
        "air_stations": stations,
        "air_tm_dongs": _tm_dongs(ctx),
        "air_measurements": _measurements(ctx, stations),
    }

"""AirKorea: 656 real stations, TM coordinates of every dong, hourly measurements.

Measurements cover the 92 days up to the world clock (3MONTH is the longest dataTerm). They
sample one smooth pollution field (see `_air_field`): regional late-autumn levels, drifting
weather, multi-day haze episodes (so "나쁨" days exist and differ by region) and a diurnal cycle,
so neighbouring stations agree. Grades and KHAI use the real breakpoints. About 0.5% of hours
carry a real status flag with the value "-".
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...geo import wgs84_to_tm
from ...refdata import table_rows
from . import _air_field as air_field

DEPENDS = ["regions"]
DAYS = 92


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
    f = air_field.measurements(rng, stations, now, DAYS)
    times = f["times"]
    n, hours = f["pm10"].shape
    bp = air_field.breakpoints()
    pm10_i, pm25_i = np.rint(f["pm10"]).astype(int), np.rint(f["pm25"]).astype(int)
    so2, co, o3, no2 = (np.round(f[k], d) for k, d in (("so2", 3), ("co", 1), ("o3", 3), ("no2", 3)))
    # 24h moving averages (what pm10Value24 / the 24h grades use)
    counts = np.minimum(np.arange(1, hours + 1), 24)

    def moving24(a: np.ndarray) -> np.ndarray:
        c = np.cumsum(a, axis=1)
        out = c.copy()
        out[:, 24:] = c[:, 24:] - c[:, :-24]
        return np.rint(out / counts).astype(int)

    pm10_24, pm25_24 = moving24(f["pm10"]), moving24(f["pm25"])
    grades = {"SO2": air_field.grade(so2, bp["SO2"]), "CO": air_field.grade(co, bp["CO"]),
              "O3": air_field.grade(o3, bp["O3"]), "NO2": air_field.grade(no2, bp["NO2"]),
              "PM10": air_field.grade(pm10_24, bp["PM10"]), "PM25": air_field.grade(pm25_24, bp["PM25"])}
    pm10_g1, pm25_g1 = air_field.grade(pm10_i, bp["PM10"]), air_field.grade(pm25_i, bp["PM25"])
    values = {"SO2": so2, "CO": co, "O3": o3, "NO2": no2, "PM10": pm10_24, "PM25": pm25_24}
    khai = np.max([air_field.sub_index(values[p], bp[p]) for p in values], axis=0)
    n_bad = np.sum([g >= 3 for g in grades.values()], axis=0)
    khai = np.rint(np.minimum(khai + np.where(n_bad >= 3, 75, np.where(n_bad == 2, 50, 0)), 500)).astype(int)
    khai_g = air_field.grade(khai, bp["KHAI"])
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
        "khaiGrade": fmt(khai_g, "%d"), "so2Grade": fmt(grades["SO2"], "%d"), "coGrade": fmt(grades["CO"], "%d"),
        "o3Grade": fmt(grades["O3"], "%d"), "no2Grade": fmt(grades["NO2"], "%d"),
        "pm10Grade": fmt(grades["PM10"], "%d"), "pm25Grade": fmt(grades["PM25"], "%d"), "pm10Grade1h": fmt(pm10_g1, "%d"),
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

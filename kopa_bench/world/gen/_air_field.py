"""AirKorea hourly measurements as one smooth pollution field sampled at the stations.

PM10 at station i and hour t is

    level(i) * exp(background(t) + modes(i, t) + episodes(i, t)) * diurnal(hour) * network(i) + local(i, t)

- level: a late-autumn PM10 mean per region, smoothed over space with a Gaussian kernel so
  that a border between provinces is not a step;
- background: a national log-level that drifts over days (synoptic weather);
- modes: a few long-wavelength sinusoids over the TM plane (200-700 km) whose amplitudes drift
  over days, so regions go up and down together and differ from each other;
- episodes: haze/dust plumes, Gaussian in space (sigma 90-220 km), drifting east, rising and
  falling over one to three days; one is still over the west on the world's last day;
- diurnal: morning and evening rush-hour peaks; network: roadside stations read a little higher;
- local: a small, bounded additive station term (a static offset plus slow noise) in ug/m3.

Everything spatial is smooth at the scale of neighbouring stations, so two stations a few km
apart differ by a few ug/m3 plus the bounded local term (tests/test_air_field.py states the
bound). PM2.5 is PM10 times a smooth fine fraction (never above PM10); NO2 and CO follow an
urbanity proxy (how many stations stand within 12 km), the network and a rush-hour cycle; O3
peaks in the afternoon and is lower where NO2 is high. Grades and the integrated index (KHAI)
follow the breakpoints in refdata `airkorea_grade_breakpoints`.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np

from ...refdata import table_rows

SIDO_LEVEL = {  # late-November PM10 means by region (ug/m3), roughly as observed
    "서울": 42, "경기": 46, "인천": 44, "강원": 33, "충북": 45, "충남": 41, "대전": 38, "세종": 40,
    "전북": 44, "전남": 32, "광주": 36, "경북": 37, "경남": 34, "대구": 39, "울산": 35, "부산": 33, "제주": 28,
}
# Hour-of-day multipliers (KST, index = hour): PM and NO2/CO peak in the morning and evening rush
# hours, NO2 dips in the afternoon when sunlight splits it; O3 is made by that sunlight.
PM_DIURNAL = np.array([0.98, 0.96, 0.94, 0.92, 0.91, 0.92, 0.96, 1.02, 1.08, 1.10, 1.09, 1.06,
                       1.02, 0.99, 0.97, 0.96, 0.97, 1.00, 1.04, 1.07, 1.08, 1.06, 1.03, 1.00])
NO2_DIURNAL = np.array([0.95, 0.90, 0.86, 0.83, 0.82, 0.86, 0.98, 1.15, 1.28, 1.24, 1.10, 0.96,
                        0.86, 0.80, 0.78, 0.80, 0.88, 1.00, 1.14, 1.22, 1.20, 1.14, 1.06, 1.00])
O3_DIURNAL = np.array([0.70, 0.65, 0.62, 0.60, 0.58, 0.57, 0.55, 0.52, 0.55, 0.70, 0.90, 1.10,
                       1.30, 1.45, 1.52, 1.50, 1.40, 1.22, 1.00, 0.88, 0.80, 0.76, 0.73, 0.71])
NETWORK_PM = {"도로변대기": 1.06, "교외대기": 0.95, "국가배경농도": 0.9}
NETWORK_NO2 = {"도로변대기": 1.35, "교외대기": 0.6, "국가배경농도": 0.45, "항만": 1.1}
LOCAL_STATIC_UG = 3.0   # max |static station offset| in ug/m3
LOCAL_DYNAMIC_UG = 6.0  # max |slow station noise| in ug/m3
LOCAL_WHITE_UG = 1.5    # max |hour-to-hour jitter| in ug/m3
KHAI_BANDS = (0.0, 50.0, 100.0, 250.0, 500.0)


def breakpoints() -> dict[str, tuple[float, float, float, float]]:
    """pollutant -> (good_max, moderate_max, bad_max, very_bad_max) from the vendored table."""
    return {r["pollutant"]: (r["good_max"], r["moderate_max"], r["bad_max"], r["very_bad_max"])
            for r in table_rows("airkorea_grade_breakpoints")}


def grade(values: np.ndarray, cuts: tuple[float, ...]) -> np.ndarray:
    """1 좋음 .. 4 매우나쁨: a value at or below a grade's upper bound is in that grade."""
    v = np.asarray(values, dtype=float)
    return 1 + (v > cuts[0]).astype(int) + (v > cuts[1]).astype(int) + (v > cuts[2]).astype(int)


def sub_index(values: np.ndarray, cuts: tuple[float, ...]) -> np.ndarray:
    """CAI sub-index: linear within each concentration band onto the index band 0-50-100-250-500."""
    conc = np.concatenate([[0.0], np.asarray(cuts, dtype=float)])
    return np.interp(np.asarray(values, dtype=float), conc, np.array(KHAI_BANDS))


def _ar1(rng, shape_n: int, hours: int, phi: float, sd: float) -> np.ndarray:
    """Stationary AR(1) series (n, hours) with stationary standard deviation sd."""
    shocks = rng.normal(0, sd * np.sqrt(1 - phi ** 2), (shape_n, hours))
    out = np.empty((shape_n, hours))
    acc = rng.normal(0, sd, shape_n)
    for h in range(hours):
        acc = phi * acc + shocks[:, h]
        out[:, h] = acc
    return out


def _smoothed_level(xy: np.ndarray, sidos: list[str]) -> np.ndarray:
    raw = np.array([SIDO_LEVEL.get(s, 38) for s in sidos], dtype=float)
    d2 = ((xy[:, None, :] - xy[None, :, :]) ** 2).sum(-1)
    w = np.exp(-d2 / (2 * 25.0 ** 2))
    return (w @ raw) / w.sum(1)


def _modes(rng, xy: np.ndarray, hours: int, count: int, sd: float, dynamic: bool) -> np.ndarray:
    waves = rng.uniform(200, 700, count)
    theta = rng.uniform(0, np.pi, count)
    k = np.stack([np.cos(theta), np.sin(theta)], 1) * (2 * np.pi / waves)[:, None]
    phase = rng.uniform(0, 2 * np.pi, count)
    basis = np.sin(xy @ k.T + phase)  # (n, count)
    amp = _ar1(rng, count, hours, 0.985, sd) if dynamic else np.full((count, hours), 1.0) * rng.normal(0, sd, (count, 1))
    return basis @ amp


def _episodes(rng, xy: np.ndarray, hours: int) -> tuple[np.ndarray, np.ndarray]:
    """Log-PM10 contribution of drifting plumes and their normalised intensity (for the fine fraction)."""
    n = len(xy)
    total = np.zeros((n, hours))
    centre_x, centre_y = np.percentile(xy[:, 0], [5, 60]), np.percentile(xy[:, 1], [10, 95])
    plans = []
    for _ in range(int(rng.integers(7, 11))):
        length = int(rng.integers(24, 84))
        plans.append((int(rng.integers(0, hours - length)), length))
    plans.append((hours - 40, 40 + 12))  # a haze episode over the west, still building on the world's day
    last = len(plans) - 1
    t = np.arange(hours)
    for e, (start, length) in enumerate(plans):
        sigma = rng.uniform(90, 220)
        amp = rng.uniform(0.45, 1.05)
        vx, vy = rng.uniform(4, 14), rng.uniform(-4, 4)  # km/h, prevailing westerlies
        x0 = rng.uniform(centre_x[0] - 150, centre_x[0])
        y0 = rng.uniform(*centre_y)
        if e == last:
            sigma, amp, vx, vy = 110.0, 0.85, 1.5, 0.0
            x0, y0 = centre_x[0] - 40, np.percentile(xy[:, 1], 35)
        active = (t >= start) & (t < start + length)
        tau = (t[active] - start) / length
        env = np.sin(np.pi * tau)
        cx = x0 + vx * (t[active] - start)
        cy = y0 + vy * (t[active] - start)
        d2 = (xy[:, 0:1] - cx[None, :]) ** 2 + (xy[:, 1:2] - cy[None, :]) ** 2
        total[:, active] += amp * env[None, :] * np.exp(-d2 / (2 * sigma ** 2))
    return total, np.clip(total / 1.05, 0, 1)


def measurements(rng: np.random.Generator, stations: list[dict], now: datetime, days: int) -> dict[str, np.ndarray]:
    """Float arrays (stations x hours, oldest hour first) of every pollutant, plus `times`."""
    hours = days * 24
    times = [now - timedelta(hours=h) for h in range(hours - 1, -1, -1)]
    hod = np.array([t.hour for t in times])
    xy = np.array([[s["tmX"], s["tmY"]] for s in stations], dtype=float) / 1000.0  # km
    n = len(stations)
    mang = [s["mangName"] for s in stations]

    level = _smoothed_level(xy, [s["sidoName"] for s in stations])
    background = _ar1(rng, 1, hours, 0.99, 0.22)
    static = _modes(rng, xy, hours, 5, 0.06, dynamic=False)
    dynamic = _modes(rng, xy, hours, 6, 0.12, dynamic=True)
    episodes, intensity = _episodes(rng, xy, hours)
    net_pm = np.array([NETWORK_PM.get(m, 1.0) for m in mang])[:, None]
    field = level[:, None] * np.exp(background + static + dynamic + episodes) * PM_DIURNAL[hod][None, :] * net_pm
    local = (rng.uniform(-LOCAL_STATIC_UG, LOCAL_STATIC_UG, (n, 1))
             + LOCAL_DYNAMIC_UG * np.tanh(_ar1(rng, n, hours, 0.9, 0.5))
             + rng.uniform(-LOCAL_WHITE_UG, LOCAL_WHITE_UG, (n, hours)))
    pm10 = np.clip(field + local, 3, 600)

    fine = 0.52 + 0.04 * np.tanh(_modes(rng, xy, hours, 3, 1.0, dynamic=False)) + 0.14 * intensity
    pm25 = np.minimum(np.clip(pm10 * fine + rng.uniform(-1.5, 1.5, (n, hours)), 1, 500), pm10)

    d2 = ((xy[:, None, :] - xy[None, :, :]) ** 2).sum(-1)
    urban = np.clip(((d2 < 12.0 ** 2).sum(1) - 1) / 20.0, 0, 1)[:, None]
    stagnant = np.exp(0.6 * (background + dynamic))  # still air holds traffic gases too
    net_no2 = np.array([NETWORK_NO2.get(m, 1.0) for m in mang])[:, None]
    no2 = (0.007 + 0.024 * urban) * net_no2 * NO2_DIURNAL[hod][None, :] * stagnant
    no2 = np.clip(no2 * np.exp(rng.normal(0, 0.08, (n, hours))), 0.002, 0.15)
    co = (0.25 + 0.30 * urban) * (1 + 0.5 * (NO2_DIURNAL[hod][None, :] - 1)) * np.sqrt(stagnant)
    co = np.clip(co * np.exp(rng.normal(0, 0.06, (n, hours))), 0.1, 3.0)
    o3 = 0.024 * O3_DIURNAL[hod][None, :] * (1.15 - 0.35 * urban) * np.exp(0.5 * static - 0.3 * dynamic)
    o3 = np.clip(o3 - 0.25 * (no2 - 0.015) + rng.normal(0, 0.002, (n, hours)), 0.001, 0.12)
    so2 = (0.0022 + 0.0012 * urban) * np.where(np.array(mang) == "항만", 2.0, 1.0)[:, None]
    so2 = np.clip(so2 * np.exp(rng.normal(0, 0.15, (n, hours))), 0.001, 0.02)
    return {"times": times, "pm10": pm10, "pm25": pm25, "no2": no2, "co": co, "o3": o3, "so2": so2}

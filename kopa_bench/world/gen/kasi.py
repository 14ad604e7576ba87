"""KASI 특일정보 (SpcdeInfoService): holidays, anniversaries and the 24 solar terms.

Holidays and anniversaries are the vendored 월력요항 table (`refdata/holidays.csv`, 2020-2027;
anniversaries 2022-2027) with KASI's own names (`kasi_date_name`: 설날 x3, 추석 x3,
대체공휴일(X)). `seq` numbers the records sharing a date in KASI's order (anniversaries first,
so 2024-10-01 gives 국군의 날 seq 1 and 임시공휴일 seq 2, as recorded from the live API).
The 24 solar terms (get24DivisionsInfo) are computed from the sun's apparent longitude
(Meeus low-precision formula, ~15 min accuracy) for 2020-2027, with their KST time.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import pyarrow as pa

from ...refdata import table_rows

DEPENDS: list[str] = []

TERMS = {
    0: "춘분", 15: "청명", 30: "곡우", 45: "입하", 60: "소만", 75: "망종", 90: "하지", 105: "소서",
    120: "대서", 135: "입추", 150: "처서", 165: "백로", 180: "추분", 195: "한로", 210: "상강", 225: "입동",
    240: "소설", 255: "대설", 270: "동지", 285: "소한", 300: "대한", 315: "입춘", 330: "우수", 345: "경칩",
}
YEARS = range(2020, 2028)


def _sun_longitude(jd: float) -> float:
    t = (jd - 2451545.0) / 36525.0
    l0 = 280.46646 + 36000.76983 * t + 0.0003032 * t * t
    m = math.radians(357.52911 + 35999.05029 * t - 0.0001537 * t * t)
    c = ((1.914602 - 0.004817 * t - 0.000014 * t * t) * math.sin(m) + (0.019993 - 0.000101 * t) * math.sin(2 * m)
         + 0.000289 * math.sin(3 * m))
    omega = math.radians(125.04 - 1934.136 * t)
    return (l0 + c - 0.00569 - 0.00478 * math.sin(omega)) % 360.0


def _jd(dt: datetime) -> float:  # dt in UTC (naive)
    return dt.timestamp() / 86400.0 + 2440587.5 if dt.tzinfo else (dt - datetime(1970, 1, 1)).total_seconds() / 86400.0 + 2440587.5


def solar_terms(years=YEARS) -> list[dict]:
    """The 24 solar terms of `years`: {date, dateName, kst HHMM, sunLongitude}, in time order."""
    rows = []
    for year in years:
        start = datetime(year, 1, 1) - timedelta(hours=9)  # KST midnight in UTC
        jd0 = _jd(start)
        lon_prev = _sun_longitude(jd0)
        step = 0.25
        jd = jd0
        end = _jd(datetime(year + 1, 1, 1) - timedelta(hours=9))
        while jd < end:
            jd_next = jd + step
            lon_next = _sun_longitude(jd_next)
            for target in TERMS:
                # crossing of `target` between jd and jd_next (handles the 360 -> 0 wrap)
                a = (lon_prev - target + 180) % 360 - 180
                b = (lon_next - target + 180) % 360 - 180
                if a < 0 <= b:
                    lo, hi = jd, jd_next
                    for _ in range(40):
                        mid = (lo + hi) / 2
                        if (_sun_longitude(mid) - target + 180) % 360 - 180 < 0:
                            lo = mid
                        else:
                            hi = mid
                    when = datetime(1970, 1, 1) + timedelta(days=hi - 2440587.5) + timedelta(hours=9)
                    if when.year == year:
                        rows.append({"date": when.date(), "dateName": TERMS[target], "kst": when.strftime("%H%M"),
                                     "sunLongitude": target})
            jd, lon_prev = jd_next, lon_next
    return rows


def generate(ctx) -> dict:
    by_date: dict = {}
    src = sorted(table_rows("holidays"), key=lambda r: (r["date"], r["date_kind"] != "02"))
    days = []
    for r in src:
        seq = by_date.get(r["date"], 0) + 1
        by_date[r["date"]] = seq
        d = r["date"]
        days.append({
            "dateKind": r["date_kind"], "dateName": r["kasi_date_name"], "isHoliday": r["is_holiday"],
            "locdate": int(d.strftime("%Y%m%d")), "seq": seq, "solYear": f"{d.year:04d}", "solMonth": f"{d.month:02d}",
            "category": r["category"],
        })
    terms = []
    for t in solar_terms():
        d = t["date"]
        seq = by_date.get(d, 0) + 1
        terms.append({"dateKind": "03", "dateName": t["dateName"], "isHoliday": "N", "kst": t["kst"],
                      "locdate": int(d.strftime("%Y%m%d")), "seq": seq, "sunLongitude": t["sunLongitude"],
                      "solYear": f"{d.year:04d}", "solMonth": f"{d.month:02d}"})
    return {
        "kasi_special_days": pa.Table.from_pylist(days),
        "kasi_24divisions": pa.Table.from_pylist(terms),
    }

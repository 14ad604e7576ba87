"""ECOS 722Y001 (한국은행 기준금리) before the stored window, per request.

The world file stores ECOS series from 2020 (world/gen/ecos.py). The base-rate table's real
series starts on 1999-05-06 (the call-rate target until March 2008, the base rate since), and its
path is public: every Monetary Policy Board decision is listed below. A request for 722Y001
reaching before 2020 reads the stored rows of its cycle plus these generated ones; other tables
keep the stored window (their earlier values are not known to the project)."""

from __future__ import annotations

import functools
from datetime import date, timedelta

import pyarrow as pa

from ...refdata import table_rows
from ..gen.ecos import BASE_RATE, START

FIRST_DAY = date(1999, 5, 6)
# (effective date, rate %) of every decision from the series' start to the first stored one
EARLIER_DECISIONS = [
    (date(1999, 5, 6), 4.75), (date(2000, 2, 10), 5.00), (date(2000, 10, 5), 5.25), (date(2001, 2, 8), 5.00),
    (date(2001, 7, 5), 4.75), (date(2001, 8, 9), 4.50), (date(2001, 9, 19), 4.00), (date(2002, 5, 7), 4.25),
    (date(2003, 5, 13), 4.00), (date(2003, 7, 10), 3.75), (date(2004, 8, 12), 3.50), (date(2004, 11, 11), 3.25),
    (date(2005, 10, 11), 3.50), (date(2005, 12, 8), 3.75), (date(2006, 2, 9), 4.00), (date(2006, 6, 8), 4.25),
    (date(2006, 8, 10), 4.50), (date(2007, 7, 12), 4.75), (date(2007, 8, 9), 5.00), (date(2008, 8, 7), 5.25),
    (date(2008, 10, 9), 5.00), (date(2008, 10, 27), 4.25), (date(2008, 11, 7), 4.00), (date(2008, 12, 11), 3.00),
    (date(2009, 1, 9), 2.50), (date(2009, 2, 12), 2.00), (date(2010, 7, 9), 2.25), (date(2010, 11, 16), 2.50),
    (date(2011, 1, 13), 2.75), (date(2011, 3, 10), 3.00), (date(2011, 6, 10), 3.25), (date(2012, 7, 12), 3.00),
    (date(2012, 10, 11), 2.75), (date(2013, 5, 9), 2.50), (date(2014, 8, 14), 2.25), (date(2014, 10, 15), 2.00),
    (date(2015, 3, 12), 1.75), (date(2015, 6, 11), 1.50), (date(2016, 6, 9), 1.25), (date(2017, 11, 30), 1.50),
    (date(2018, 11, 30), 1.75), (date(2019, 7, 18), 1.50),
]
DECISIONS = EARLIER_DECISIONS + [d for d in BASE_RATE if d[0] > EARLIER_DECISIONS[-1][0]]
FIXED_HOLIDAYS_1999 = {(1, 1), (3, 1), (4, 5), (5, 5), (6, 6), (7, 17), (8, 15), (10, 3), (12, 25)}
STAT, STAT_NAME, ITEM, ITEM_NAME, UNIT = "722Y001", "1.3.1. 한국은행 기준금리 및 여수신금리", "0101000", "한국은행 기준금리", "연%"


def rate_on(d: date) -> float:
    rate = DECISIONS[0][1]
    for day, r in DECISIONS:
        if day <= d:
            rate = r
    return rate


def _fmt(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


@functools.lru_cache(maxsize=1)
def _days_off() -> frozenset[date]:
    return frozenset(r["date"] for r in table_rows("kasi_holidays_history") if r["is_holiday"] == "Y")


def _business_days(a: date, b: date) -> list[date]:
    off, out, d = _days_off(), [], a
    while d <= b:
        if d.weekday() < 5 and d not in off and not (d.year == 1999 and (d.month, d.day) in FIXED_HOLIDAYS_1999):
            out.append(d)
        d += timedelta(days=1)
    return out


@functools.lru_cache(maxsize=8)
def _history(cycle: str) -> tuple[tuple[str, str], ...]:
    """(TIME, DATA_VALUE) of the base rate before the stored window, in the cycle's format."""
    end = START - timedelta(days=1)
    if cycle == "D":
        return tuple((d.strftime("%Y%m%d"), _fmt(rate_on(d))) for d in _business_days(FIRST_DAY, end))
    if cycle == "M":
        out, (y, m) = [], (FIRST_DAY.year, FIRST_DAY.month)
        while date(y, m, 1) < START:
            last = date(y + (m == 12), m % 12 + 1, 1) - timedelta(days=1)
            out.append((f"{y}{m:02d}", _fmt(rate_on(last))))
            y, m = (y + 1, 1) if m == 12 else (y, m + 1)
        return tuple(out)
    if cycle == "A":
        return tuple((str(y), _fmt(rate_on(date(y, 12, 31)))) for y in range(FIRST_DAY.year, START.year))
    return ()


def base_rate_rows(world, key: tuple) -> pa.Table | None:
    """`ecos_data` for a 722Y001 request reaching before the stored window: the stored rows of its
    table and cycle plus the earlier ones; None for every other request."""
    stat, cycle, start_time = (str(k) if k is not None else "" for k in key)
    first_stored = {"D": START.strftime("%Y%m%d"), "M": START.strftime("%Y%m"), "A": str(START.year)}.get(cycle)
    if stat != STAT or first_stored is None or not start_time or start_time >= first_stored:
        return None
    history = _history(cycle)
    stored = world.con.sql(f"SELECT * FROM ecos_data WHERE STAT_CODE = '{STAT}' AND CYCLE = '{cycle}'").to_arrow_table()
    earlier = {name: [None] * len(history) for name in stored.schema.names}
    earlier.update({"STAT_CODE": [STAT] * len(history), "STAT_NAME": [STAT_NAME] * len(history),
                    "ITEM_CODE1": [ITEM] * len(history), "ITEM_NAME1": [ITEM_NAME] * len(history),
                    "UNIT_NAME": [UNIT] * len(history), "CYCLE": [cycle] * len(history),
                    "TIME": [t for t, _ in history], "DATA_VALUE": [v for _, v in history]})
    return pa.concat_tables([pa.Table.from_pydict(earlier, schema=stored.schema), stored])

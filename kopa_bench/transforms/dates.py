"""Date reformatting and the KMA base_date/base_time schedules."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from datetime import date, datetime, timedelta
from typing import Any

from kopa_bench.clock import KST, WorldClock, parse_world_datetime, shift_months

from .generic import _text
from .registry import _register


_DATE_FORMATS = "YYYYMMDD, YYYY-MM-DD, YYYY.MM.DD, YYYYMM, an ISO datetime, 'YYYYMMDD HHMMSS', int locdate or date"


def _to_date(value: Any) -> date:
    """Parse the date spellings Korean APIs use (KASI int locdate, NEIS, Assembly, law.go.kr)."""
    if isinstance(value, datetime):
        return (value if value.tzinfo is None else value.astimezone(KST)).date()
    if isinstance(value, date):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    text = _text(value, "date")
    try:
        if m := re.fullmatch(r"(\d{4})(\d{2})(\d{2})(?:[ T]?\d{4,6})?", text):
            return date(int(m[1]), int(m[2]), int(m[3]))
        if m := re.match(r"(\d{4})[-./](\d{1,2})[-./](\d{1,2})\.?(?:$|[ T])", text):
            return date(int(m[1]), int(m[2]), int(m[3]))
        if m := re.fullmatch(r"(\d{4})[-.]?(\d{2})", text):
            return date(int(m[1]), int(m[2]), 1)
    except ValueError as exc:  # e.g. month 13
        raise ValueError(f"date {value!r} is not a real calendar date ({exc})") from None
    raise ValueError(f"date {value!r} is not in a known format; expected {_DATE_FORMATS}")


def _date_transform(name: str, description: str, fmt: Callable[[date], str]) -> None:
    # Memoised for the text and integer dates records hold (EDGE binds the same dates over and
    # over); `typed` keeps True apart from 1. Anything else is converted each time.
    @lru_cache(maxsize=8192, typed=True)
    def memo(value: str | int) -> str:
        return fmt(_to_date(value))

    def convert(value: Any) -> str:
        return memo(value) if isinstance(value, (str, int)) else fmt(_to_date(value))

    _register(name, description, "date", "text")(convert)


_date_transform("yyyymmdd", "Date as YYYYMMDD ('2024-10-03' -> '20241003').", lambda d: d.strftime("%Y%m%d"))
_date_transform("dash_to_yyyymmdd", "Alias of yyyymmdd for YYYY-MM-DD inputs.", lambda d: d.strftime("%Y%m%d"))
_date_transform("yyyy_mm_dd", "Date as YYYY-MM-DD (20241003 -> '2024-10-03').", lambda d: d.isoformat())
_date_transform("yyyymmdd_to_dash", "Alias of yyyy_mm_dd for YYYYMMDD inputs.", lambda d: d.isoformat())
_date_transform("yyyy_dot_mm_dd", "Date as YYYY.MM.DD (law.go.kr lists).", lambda d: d.strftime("%Y.%m.%d"))
_date_transform("yyyymm", "Month as YYYYMM (MOLIT DEAL_YMD): '2024-10-03' -> '202410'.", lambda d: d.strftime("%Y%m"))
_date_transform("year", "Year as YYYY (KASI solYear).", lambda d: f"{d.year:04d}")
_date_transform("month_2d", "Month as 2 digits (KASI solMonth): '20241003' -> '10'.", lambda d: f"{d.month:02d}")
_date_transform("day_2d", "Day of month as 2 digits.", lambda d: f"{d.day:02d}")
_date_transform("first_day_of_month", "First day of the month, YYYYMMDD.", lambda d: d.replace(day=1).strftime("%Y%m%d"))
_date_transform(
    "last_day_of_month",
    "Last day of the month, YYYYMMDD.",
    lambda d: (date(*shift_months(d.year, d.month, 1), 1) - timedelta(days=1)).strftime("%Y%m%d"),
)


@_register("shift_month", "Move a date/month by n months; result YYYYMM ('202601', n=-1 -> '202512').", "date", "text", ("n",))
def _shift_month(value: Any, n: int = -1) -> str:
    d = _to_date(value)
    y, m = shift_months(d.year, d.month, int(n))
    return f"{y:04d}{m:02d}"


@_register("shift_day", "Move a date by n days; result YYYYMMDD ('20261130', n=1 -> '20261201').", "date", "text", ("n",))
def _shift_day(value: Any, n: int = 1) -> str:
    return (_to_date(value) + timedelta(days=int(n))).strftime("%Y%m%d")


# ----------------------------------------------------------------------------------------
# KMA base_date / base_time snapping
# ----------------------------------------------------------------------------------------
def _to_datetime(value: Any) -> datetime:
    """A KST datetime from a datetime/date/ISO string/'YYYYMMDDHHMM'; None = the world's now."""
    if value is None:
        return WorldClock().now()
    if isinstance(value, str) and (m := re.fullmatch(r"(\d{8})[ T]?(\d{2})(\d{2})", value.strip())):
        return datetime(int(m[1][:4]), int(m[1][4:6]), int(m[1][6:]), int(m[2]), int(m[3]), tzinfo=KST)
    return parse_world_datetime(value, source="datetime")


_VILAGE_HOURS = (2, 5, 8, 11, 14, 17, 20, 23)


def _vilage_base(value: Any) -> tuple[str, str]:
    # Issued at 02,05,...,23h and available ~10 min later; before 02:10 the latest run is the
    # previous day's 2300.
    t = _to_datetime(value) - timedelta(minutes=10)
    past = [h for h in _VILAGE_HOURS if h <= t.hour]
    if not past:
        return (t.date() - timedelta(days=1)).strftime("%Y%m%d"), "2300"
    return t.strftime("%Y%m%d"), f"{past[-1]:02d}00"


def _ultra_ncst_base(value: Any) -> tuple[str, str]:
    # HH00 observations are published somewhere between HH10 and ~HH50 depending on the
    # source; the safe rule used by working clients is minute < 45 -> previous hour.
    t = _to_datetime(value) - timedelta(minutes=45)
    return t.strftime("%Y%m%d"), f"{t.hour:02d}00"


def _ultra_fcst_base(value: Any) -> tuple[str, str]:
    # HH30 runs are available around HH45: before HH45 use the previous hour's HH30.
    t = _to_datetime(value) - timedelta(minutes=45)
    return t.strftime("%Y%m%d"), f"{t.hour:02d}30"


for _name, _fn, _label in (
    ("kma_base", _vilage_base, "getVilageFcst (0200..2300, +10 min lag)"),
    ("kma_ultra_ncst_base", _ultra_ncst_base, "getUltraSrtNcst (HH00; minute<45 -> previous hour)"),
    ("kma_ultra_fcst_base", _ultra_fcst_base, "getUltraSrtFcst (HH30, available ~HH45)"),
):
    _register(f"{_name}_date", f"Latest base_date for {_label}; value None = world now.", "datetime", "text")(
        lambda value, _f=_fn: _f(value)[0]
    )
    _register(f"{_name}_time", f"Latest base_time for {_label}; value None = world now.", "datetime", "text")(
        lambda value, _f=_fn: _f(value)[1]
    )
    _register(f"{_name}", f"{{base_date, base_time}} for {_label}; value None = world now.", "datetime", "dict")(
        lambda value, _f=_fn: dict(zip(("base_date", "base_time"), _f(value)))
    )
del _name, _fn, _label


# ----------------------------------------------------------------------------------------

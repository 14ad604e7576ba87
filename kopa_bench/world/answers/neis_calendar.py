"""NEIS: a school's academic calendar for an academic year (AY y = y-03-01..y+1-02-end), drawn
from the school's seed: 토요휴업일, public holidays (refdata holidays), 개교기념일, 재량휴업일, exams,
여름방학, 대학수학능력시험, 방학식, 겨울방학 ... School days are the weekdays from the 입학식 to
the 방학식 that are not 휴업일/공휴일 in the calendar.

The current year (AY, the world clock's) is answered when a request names no year or date; NEIS
keeps the years before it, so every year from FIRST_AY is there too, each drawn from its own
stream of the school's seed (the current year's draw is the same whichever others were asked)."""

from __future__ import annotations

import calendar
import functools
import random
from datetime import date, timedelta

from ...refdata import table_rows

AY = 2026
FIRST_AY = 2020  # the years NEIS answers here: FIRST_AY..AY (the vendored holidays start in 2020)
AY_START, AY_END = date(2026, 3, 1), date(2027, 2, 28)
# 대학수학능력시험 (2020's was postponed to December by COVID-19)
SUNEUNG = {2020: date(2020, 12, 3), 2021: date(2021, 11, 18), 2022: date(2022, 11, 17), 2023: date(2023, 11, 16),
           2024: date(2024, 11, 14), 2025: date(2025, 11, 13), 2026: date(2026, 11, 19)}


def ay_span(ay: int) -> tuple[date, date]:
    """First and last day of academic year `ay`."""
    return date(ay, 3, 1), date(ay + 1, 3, 1) - timedelta(days=1)


def academic_years(exact, lo, hi, ay=None) -> list[int]:
    """The academic years a request reaches: the one it names (AY), else those its YYYYMMDD prefix or
    bounds overlap, else the current one."""
    if ay is not None:
        return [int(ay)] if str(ay).isdigit() and FIRST_AY <= int(ay) <= AY else []
    if not (exact or lo or hi):
        return [AY]
    text = str(exact) if exact else ""
    start = str(lo) if lo else (text + "00000101"[len(text):] if text else "00000101")
    end = str(hi) if hi else (text + "99991231"[len(text):] if text else "99991231")
    out = []
    for y in range(FIRST_AY, AY + 1):
        a, b = ay_span(y)
        if start <= b.strftime("%Y%m%d") and end >= a.strftime("%Y%m%d"):
            out.append(y)
    return out


def _d(ay: int, month: int, day: int) -> date:
    """A calendar anchor of academic year `ay` (January and February fall in the next calendar year)."""
    return date(ay + (month < 3), month, day)


@functools.lru_cache(maxsize=16)
def _holidays(ay: int = AY) -> dict[date, str]:
    start, end = ay_span(ay)
    out = {}
    for h in table_rows("holidays"):
        if h["is_holiday"] == "Y" and start <= h["date"] <= end:
            out[h["date"]] = h["kasi_date_name"] if not h["kasi_date_name"].startswith("대체") else h["name"]
    return out


def _weekday_near(d: date, rng: random.Random, spread: int = 3, hol: dict | None = None) -> date:
    hol = _holidays() if hol is None else hol
    d = d + timedelta(days=rng.randint(0, spread))
    while d.weekday() >= 5 or d in hol:
        d += timedelta(days=1)
    return d


def school_days_between(a: date, b: date, off: set[date]) -> list[date]:
    out, d = [], a
    while d <= b:
        if d.weekday() < 5 and d not in off:
            out.append(d)
        d += timedelta(days=1)
    return out


@functools.lru_cache(maxsize=4096)
def _calendar(seed: int, kind: str, foas: str, ay: int = AY) -> tuple[list[tuple[date, str, str, tuple[int, ...]]], set[date], date, date, date]:
    """(events [(date, EVENT_NM, SBTR_DD_SC_NM, grades)], days off, first day, 2nd-sem start, last day)."""
    rng = random.Random(seed if ay == AY else f"{seed}:{ay}")
    hol = _holidays(ay)
    ay_start, ay_end = ay_span(ay)

    def near(d: date, r: random.Random, spread: int = 3) -> date:
        return _weekday_near(d, r, spread, hol)

    all_g = (1, 2, 3, 4, 5, 6) if kind in ("els", "sps") else (1, 2, 3)
    ev: list[tuple[date, str, str, tuple[int, ...]]] = []
    off: set[date] = set(hol)
    for d, nm in hol.items():
        ev.append((d, nm, "공휴일", all_g))
    first = near(_d(ay, 3, 2), rng, 0)
    ev.append((first, "입학식", "해당없음", (1,)))
    ev.append((first, "시업식", "해당없음", all_g))
    # 재량휴업일
    for d0 in (_d(ay, 5, 4), _d(ay, 10, 2) if rng.random() < 0.5 else _d(ay, 10, 8)):
        if d0.weekday() < 5 and d0 not in hol:
            ev.append((d0, "재량휴업일", "휴업일", all_g))
            off.add(d0)
    a_month = int(foas[4:6])
    a_year = ay + (a_month < 3)
    anniv = date(a_year, a_month, min(int(foas[6:8]), calendar.monthrange(a_year, a_month)[1]))
    if anniv.weekday() < 5 and anniv not in hol and anniv not in off:
        ev.append((anniv, "개교기념일", "휴업일", all_g))
        off.add(anniv)
    if kind in ("mis", "his"):
        for start, nm in ((_d(ay, 4, 27), "1학기 중간고사"), (_d(ay, 7, 1), "1학기 기말고사"),
                          (_d(ay, 10, 12), "2학기 중간고사"),
                          (_d(ay, 12, 7) if kind == "his" else _d(ay, 12, 14), "2학기 기말고사")):
            d = near(start, rng, 2)
            for _ in range(3 if kind == "mis" else 4):
                ev.append((d, nm, "해당없음", all_g))
                d = near(d + timedelta(days=1), rng, 0)
    else:
        ev.append((near(_d(ay, 5, 12), rng, 10), "현장체험학습", "해당없음", all_g))
        ev.append((near(_d(ay, 11, 9), rng, 14), "학예회", "해당없음", all_g))
    ev.append((near(_d(ay, 5, 18) if rng.random() < 0.5 else _d(ay, 10, 19), rng, 8), "체육대회", "해당없음", all_g))
    ev.append((near(_d(ay, 9, 14), rng, 10), "학부모 상담주간", "해당없음", all_g))
    summer_end = near(_d(ay, 7, 17), rng, 6)
    ev.append((summer_end, "여름방학식", "해당없음", all_g))
    back = near(_d(ay, 8, 13), rng, 8)
    d = summer_end + timedelta(days=1)
    while d < back:
        if d.weekday() < 5 and d not in hol:
            ev.append((d, "여름방학", "휴업일", all_g))
        off.add(d)
        d += timedelta(days=1)
    ev.append((back, "개학식", "해당없음", all_g))
    if kind == "his":
        suneung = SUNEUNG.get(ay, _d(ay, 11, 19))
        ev.append((suneung, "대학수학능력시험", "휴업일", all_g))
        off.add(suneung)
        ev.append((near(_d(ay, 12, 21), rng, 3), "학교축제", "해당없음", all_g))
    last = near(_d(ay, 12, 31) if rng.random() < 0.4 else _d(ay, 1, 5), rng, 3)
    together = rng.random() < 0.5
    if together:
        ev.append((last, "졸업식 및 종업식", "해당없음", all_g))
    else:
        ev.append((last, "겨울방학식", "해당없음", all_g))
    d = last + timedelta(days=1)
    feb_open = near(_d(ay, 2, 3), rng, 3)
    while d <= ay_end:
        if d.weekday() < 5 and d not in hol:
            if together or d < feb_open:
                ev.append((d, "겨울방학" if together or d < feb_open else "", "휴업일", all_g))
        off.add(d)
        d += timedelta(days=1)
    if not together:
        ev.append((feb_open, "개학식", "해당없음", all_g))
        grad = near(feb_open + timedelta(days=5), rng, 2)
        ev.append((grad, "졸업식", "해당없음", (all_g[-1],)))
        ev.append((near(grad + timedelta(days=1), rng, 0), "종업식", "해당없음", all_g))
        off.discard(feb_open)
        for d2 in school_days_between(feb_open, grad + timedelta(days=1), set(hol)):
            off.discard(d2)
    # 토요휴업일
    d = ay_start
    while d <= ay_end:
        if d.weekday() == 5 and d not in hol:
            ev.append((d, "토요휴업일", "휴업일", all_g))
        d += timedelta(days=1)
    ev.sort(key=lambda e: (e[0], e[1]))
    return ev, off, first, back, last


def school_calendar(school: dict, ay: int = AY) -> tuple[list[tuple[date, str, str, tuple[int, ...]]], set[date], date, date, date]:
    """The calendar of a `neis_schools` row in academic year `ay` (see `_calendar`)."""
    return _calendar(int(school["_seed"]), school["_kind"], school["FOAS_MEMRD"], ay)

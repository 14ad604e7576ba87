"""NEIS: a school's academic calendar for AY 2026 (2026-03-01..2027-02-28), drawn from the
school's seed: 토요휴업일, public holidays (refdata holidays), 개교기념일, 재량휴업일, exams,
여름방학, 대학수학능력시험, 방학식, 겨울방학 ... School days are the weekdays from the 입학식 to
the 방학식 that are not 휴업일/공휴일 in the calendar."""

from __future__ import annotations

import functools
import random
from datetime import date, timedelta

from ...refdata import table_rows

AY = 2026
AY_START, AY_END = date(2026, 3, 1), date(2027, 2, 28)


@functools.lru_cache(maxsize=1)
def _holidays() -> dict[date, str]:
    out = {}
    for h in table_rows("holidays"):
        if h["is_holiday"] == "Y" and AY_START <= h["date"] <= AY_END:
            out[h["date"]] = h["kasi_date_name"] if not h["kasi_date_name"].startswith("대체") else h["name"]
    return out


def _weekday_near(d: date, rng: random.Random, spread: int = 3) -> date:
    d = d + timedelta(days=rng.randint(0, spread))
    while d.weekday() >= 5 or d in _holidays():
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
def _calendar(seed: int, kind: str, foas: str) -> tuple[list[tuple[date, str, str, tuple[int, ...]]], set[date], date, date, date]:
    """(events [(date, EVENT_NM, SBTR_DD_SC_NM, grades)], days off, first day, 2nd-sem start, last day)."""
    rng = random.Random(seed)
    hol = _holidays()
    all_g = (1, 2, 3, 4, 5, 6) if kind in ("els", "sps") else (1, 2, 3)
    ev: list[tuple[date, str, str, tuple[int, ...]]] = []
    off: set[date] = set(hol)
    for d, nm in hol.items():
        ev.append((d, nm, "공휴일", all_g))
    first = _weekday_near(date(2026, 3, 2), rng, 0)
    ev.append((first, "입학식", "해당없음", (1,)))
    ev.append((first, "시업식", "해당없음", all_g))
    # 재량휴업일
    for d0 in (date(2026, 5, 4), date(2026, 10, 2) if rng.random() < 0.5 else date(2026, 10, 8)):
        if d0.weekday() < 5 and d0 not in hol:
            ev.append((d0, "재량휴업일", "휴업일", all_g))
            off.add(d0)
    anniv = date(2026, int(foas[4:6]), int(foas[6:8]))
    if anniv.weekday() < 5 and anniv not in hol and anniv not in off:
        ev.append((anniv, "개교기념일", "휴업일", all_g))
        off.add(anniv)
    if kind in ("mis", "his"):
        for start, nm in ((date(2026, 4, 27), "1학기 중간고사"), (date(2026, 7, 1), "1학기 기말고사"),
                          (date(2026, 10, 12), "2학기 중간고사"),
                          (date(2026, 12, 7) if kind == "his" else date(2026, 12, 14), "2학기 기말고사")):
            d = _weekday_near(start, rng, 2)
            for _ in range(3 if kind == "mis" else 4):
                ev.append((d, nm, "해당없음", all_g))
                d = _weekday_near(d + timedelta(days=1), rng, 0)
    else:
        ev.append((_weekday_near(date(2026, 5, 12), rng, 10), "현장체험학습", "해당없음", all_g))
        ev.append((_weekday_near(date(2026, 11, 9), rng, 14), "학예회", "해당없음", all_g))
    ev.append((_weekday_near(date(2026, 5, 18) if rng.random() < 0.5 else date(2026, 10, 19), rng, 8), "체육대회", "해당없음", all_g))
    ev.append((_weekday_near(date(2026, 9, 14), rng, 10), "학부모 상담주간", "해당없음", all_g))
    summer_end = _weekday_near(date(2026, 7, 17), rng, 6)
    ev.append((summer_end, "여름방학식", "해당없음", all_g))
    back = _weekday_near(date(2026, 8, 13), rng, 8)
    d = summer_end + timedelta(days=1)
    while d < back:
        if d.weekday() < 5 and d not in hol:
            ev.append((d, "여름방학", "휴업일", all_g))
        off.add(d)
        d += timedelta(days=1)
    ev.append((back, "개학식", "해당없음", all_g))
    if kind == "his":
        suneung = date(2026, 11, 19)
        ev.append((suneung, "대학수학능력시험", "휴업일", all_g))
        off.add(suneung)
        ev.append((_weekday_near(date(2026, 12, 21), rng, 3), "학교축제", "해당없음", all_g))
    last = _weekday_near(date(2026, 12, 31) if rng.random() < 0.4 else date(2027, 1, 5), rng, 3)
    together = rng.random() < 0.5
    if together:
        ev.append((last, "졸업식 및 종업식", "해당없음", all_g))
    else:
        ev.append((last, "겨울방학식", "해당없음", all_g))
    d = last + timedelta(days=1)
    feb_open = _weekday_near(date(2027, 2, 3), rng, 3)
    while d <= AY_END:
        if d.weekday() < 5 and d not in hol:
            if together or d < feb_open:
                ev.append((d, "겨울방학" if together or d < feb_open else "", "휴업일", all_g))
        off.add(d)
        d += timedelta(days=1)
    if not together:
        ev.append((feb_open, "개학식", "해당없음", all_g))
        grad = _weekday_near(feb_open + timedelta(days=5), rng, 2)
        ev.append((grad, "졸업식", "해당없음", (all_g[-1],)))
        ev.append((_weekday_near(grad + timedelta(days=1), rng, 0), "종업식", "해당없음", all_g))
        off.discard(feb_open)
        for d2 in school_days_between(feb_open, grad + timedelta(days=1), set(hol)):
            off.discard(d2)
    # 토요휴업일
    d = AY_START
    while d <= AY_END:
        if d.weekday() == 5 and d not in hol:
            ev.append((d, "토요휴업일", "휴업일", all_g))
        d += timedelta(days=1)
    ev.sort(key=lambda e: (e[0], e[1]))
    return ev, off, first, back, last


def school_calendar(school: dict) -> tuple[list[tuple[date, str, str, tuple[int, ...]]], set[date], date, date, date]:
    """The calendar of a `neis_schools` row (see `_calendar`)."""
    return _calendar(int(school["_seed"]), school["_kind"], school["FOAS_MEMRD"])

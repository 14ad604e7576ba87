"""Festivals of 전국문화축제표준데이터 (refdata `festivals`) as TourAPI holds them: one record per
festival, with the dates of the edition the record shows on the world's day.

The standard data lists editions (one row per year and provider: "보령머드축제" and "제29회
보령머드축제" are one festival). A TourAPI record carries one edition's dates and is updated when
the organiser announces the next one, a few months ahead, so the record shows:
- the earliest real edition still running or to come, if the data has one;
- else, for a festival held within the last two years whose next edition starts within three months,
  that next edition: the latest real dates moved by whole 52-week years to the first that has not
  ended (an annual festival keeps its season and weekday; these dates are generated, `projected`);
- else its latest real edition, past as it is (a record not updated yet, or a festival no longer held).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

ANNOUNCED = timedelta(days=92)  # a next edition this close is announced (its record updated)
ALIVE = timedelta(days=730)  # a festival held within this long is expected again
YEAR = timedelta(weeks=52)  # keeps the weekday: festivals are held on the same weekend of the year

# "2026 ", "2026년 ", "제29회 ", "2026년 제8회 ": the edition, not the festival
_EDITION = re.compile(r"^\s*(?:\d{4}\s*년?\s*)?(?:제\s*\d+\s*회\s*)?(?:\d{4}\s*년?\s*)?")


def display_name(name: str) -> str:
    """The festival's name without its edition (year, ordinal)."""
    return _EDITION.sub("", name).strip() or name


def festival_key(name: str) -> str:
    return re.sub(r"\s+", "", display_name(name))


@dataclass
class Festival:
    title: str
    start: date
    end: date
    row: dict  # the source row of the edition shown (place, content, address, coordinates, ...)
    projected: bool


def _edition_dates(row: dict) -> tuple[date, date]:
    start = date.fromisoformat(row["start"])
    end = date.fromisoformat(row["end"])
    return start, max(start, end)  # a few source rows end before they start


def _preferred(rows: list[dict]) -> dict:
    """One row of an edition listed by several providers: the one with coordinates, from the local
    government rather than 한국관광공사, with the longest description."""
    return max(rows, key=lambda r: (r["lat"] is not None, r["provider"] != "한국관광공사", len(r["content"]), r["name"]))


def festivals(rows: list[dict], region_of, today: date) -> list[Festival]:
    """One Festival per (festival, district) in the source, ordered by key. `region_of(row)`: the
    district a row's address names (editions in different districts are different festivals)."""
    groups: dict[tuple[str, str], dict[date, list[dict]]] = {}
    for r in rows:
        start, _ = _edition_dates(r)
        groups.setdefault((festival_key(r["name"]), region_of(r)), {}).setdefault(start, []).append(r)
    out = []
    for key in sorted(groups):
        editions = sorted((*_edition_dates(_preferred(rs)), _preferred(rs)) for rs in groups[key].values())
        running = [e for e in editions if e[1] >= today]
        if running:
            start, end, row = running[0]
            out.append(Festival(row["name"], start, end, row, False))
            continue
        start, end, row = max(editions, key=lambda e: (e[1], e[0]))
        years = 1
        while end + years * YEAR < today:
            years += 1
        if end >= today - ALIVE and start + years * YEAR <= today + ANNOUNCED:
            out.append(Festival(display_name(row["name"]), start + years * YEAR, end + years * YEAR, row, True))
        else:
            out.append(Festival(row["name"], start, end, row, False))
    return out

"""KASI 특일정보 rows for the years the world file does not store, per requested solYear.

The world file stores 2020-2027 (world/gen/kasi.py); the service answers from 2000 to a few years
ahead, so 2000-2019 and 2028-2030 come from here: holidays from the vendored
`kasi_holidays_history` table (national days and holidays only: KASI's anniversaries start in
2022) and the 24 solar terms computed as the build computes them. A year's rows are the same
whatever else was asked; a stored year is never answered from here."""

from __future__ import annotations

import functools
import threading
import weakref

import pyarrow as pa

from ...refdata import table_rows
from ..gen.kasi import solar_terms

FIRST_YEAR, LAST_YEAR = 2000, 2030
_SCHEMAS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def _schema(world, table: str) -> pa.Schema:
    with _LOCK:
        per_world = _SCHEMAS.setdefault(world, {})
        if table not in per_world:
            per_world[table] = world.con.sql(f"SELECT * FROM {table} LIMIT 0").to_arrow_table().schema
            per_world[table + ":years"] = {r[0] for r in world.con.sql(f"SELECT DISTINCT solYear FROM {table}").fetchall()}
        return per_world[table], per_world[table + ":years"]


def _year(key: tuple) -> int | None:
    text = str(key[0]) if key and key[0] is not None else ""
    return int(text) if text.isdigit() and len(text) == 4 else None


@functools.lru_cache(maxsize=64)
def _days(year: int) -> tuple[dict, ...]:
    seq: dict = {}
    out = []
    for r in table_rows("kasi_holidays_history"):
        d = r["date"]
        if d.year != year:
            continue
        seq[d] = seq.get(d, 0) + 1
        out.append({"dateKind": r["date_kind"], "dateName": r["kasi_date_name"], "isHoliday": r["is_holiday"],
                    "locdate": int(d.strftime("%Y%m%d")), "seq": seq[d], "solYear": f"{d.year:04d}",
                    "solMonth": f"{d.month:02d}", "category": r["category"]})
    return tuple(out)


@functools.lru_cache(maxsize=64)
def _terms(year: int) -> tuple[dict, ...]:
    taken: dict = {}
    for r in _days(year):
        taken[r["locdate"]] = taken.get(r["locdate"], 0) + 1
    out = []
    for t in solar_terms([year]):
        d = t["date"]
        locdate = int(d.strftime("%Y%m%d"))
        out.append({"dateKind": "03", "dateName": t["dateName"], "isHoliday": "N", "kst": t["kst"], "locdate": locdate,
                    "seq": taken.get(locdate, 0) + 1, "sunLongitude": t["sunLongitude"], "solYear": f"{d.year:04d}",
                    "solMonth": f"{d.month:02d}"})
    return tuple(out)


def _rows(world, table: str, key: tuple, build) -> pa.Table | None:
    schema, stored = _schema(world, table)
    year = _year(key)
    if year is None or f"{year:04d}" in stored:
        return None
    rows = list(build(year)) if FIRST_YEAR <= year <= LAST_YEAR else []
    return pa.Table.from_pylist(rows, schema=schema)


def special_days(world, key: tuple) -> pa.Table | None:
    """`kasi_special_days` rows of one solYear, or None where the world file stores that year."""
    return _rows(world, "kasi_special_days", key, _days)


def divisions(world, key: tuple) -> pa.Table | None:
    """`kasi_24divisions` rows of one solYear, or None where the world file stores that year."""
    return _rows(world, "kasi_24divisions", key, _terms)

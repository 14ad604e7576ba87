"""Vendored reference tables (real Korean public code lists) as pyarrow Tables.

The CSV files next to this module are the only reference data the project reads at run
time; ``SOURCES.md`` in this folder says where each came from and how it was cleaned.
Files are read through :mod:`importlib.resources`, so the loaders work from a source
checkout, an installed wheel or a zipped package alike.

Column types are fixed per table instead of inferred: codes such as ``"01"`` (holiday
``date_kind``) or ``"1100000000"`` (법정동 code) must stay strings, because the APIs give
them as strings and a number would lose leading zeros or change how they compare.

Example:
    >>> from kopa_bench.refdata import load_table
    >>> load_table("neis_offices").num_rows
    17
"""

from __future__ import annotations

import gzip
import io
from functools import lru_cache
from importlib import resources

import pyarrow as pa
import pyarrow.csv as pacsv

__all__ = ["TABLE_NAMES", "TABLE_FILES", "load_table", "table_rows", "read_resource_bytes"]

_STR = pa.string()

# name -> (file name in this package, explicit column types; unlisted columns are strings).
_TABLES: dict[str, tuple[str, dict[str, pa.DataType]]] = {
    "legal_dong_codes": ("legal_dong_codes.csv.gz", {}),
    "kma_grid": (
        "kma_grid.csv",
        {"nx": pa.int32(), "ny": pa.int32(), "lon": pa.float64(), "lat": pa.float64()},
    ),
    "airkorea_stations": (
        "airkorea_stations.csv",
        {"year": pa.int32(), "lat": pa.float64(), "lon": pa.float64()},
    ),
    "holidays": ("holidays.csv", {"date": pa.date32()}),
    "kasi_holidays_history": ("kasi_holidays_history.csv", {"date": pa.date32()}),
    "seoul_subway_stations": ("seoul_subway_stations.csv", {}),
    "tago_city_codes": ("tago_city_codes.csv", {}),
    "tourapi_area_codes": ("tourapi_area_codes.csv", {}),
    "neis_offices": ("neis_offices.csv", {}),
    "schools": ("schools.csv.gz", {"lat": pa.float64(), "lon": pa.float64()}),
    "assembly22_members": ("assembly22_members.csv.gz", {}),
    "assembly22_bills": ("assembly22_bills.csv.gz", {}),
    "seoul_bike_stations": ("seoul_bike_stations.csv.gz", {}),
    "seoul_subway_codes": ("seoul_subway_codes.csv", {}),
    "statute_articles": ("statute_articles.csv.gz", {}),
    "krx_listed_companies": ("krx_listed_companies.csv.gz", {}),
    "airkorea_grade_breakpoints": (
        "airkorea_grade_breakpoints.csv",
        {c: pa.float64() for c in ("good_max", "moderate_max", "bad_max", "very_bad_max")},
    ),
    "tourapi_landmarks": ("tourapi_landmarks.csv", {"lat": pa.float64(), "lon": pa.float64()}),
    "kapt_complexes": ("kapt_complexes.csv.gz", {"buildings": pa.int32(), "households": pa.int32()}),
    "seoul_apt_trade_counts": ("seoul_apt_trade_counts.csv", {"trades": pa.int32()}),
    "festivals": ("festivals.csv.gz", {"lat": pa.float64(), "lon": pa.float64()}),
}

#: Valid table names, in a stable order.
TABLE_NAMES: tuple[str, ...] = tuple(_TABLES)
#: Table name -> file name inside this package.
TABLE_FILES: dict[str, str] = {name: spec[0] for name, spec in _TABLES.items()}


def _check_name(name: str) -> None:
    if name not in _TABLES:
        raise KeyError(
            f"unknown reference table {name!r}; valid names: {', '.join(TABLE_NAMES)}"
        )


def read_resource_bytes(file_name: str) -> bytes:
    """The bytes of a file shipped in this package, e.g. ``"legal_dong_codes.csv.gz"``, with
    gzip undone; FileNotFoundError if the package does not ship it."""
    res = resources.files(__name__).joinpath(file_name)
    if not res.is_file():
        raise FileNotFoundError(
            f"reference file {file_name!r} is missing from package {__name__}; "
            "reinstall the package or restore the file from version control"
        )
    data = res.read_bytes()
    return gzip.decompress(data) if file_name.endswith(".gz") else data


@lru_cache(maxsize=None)
def load_table(name: str) -> pa.Table:
    """One vendored reference table of :data:`TABLE_NAMES` with fixed column types: code-like
    columns strings, ``nx``/``ny`` int32, ``lat``/``lon`` float64 (null where the source is
    blank), ``holidays.date`` date32. Cached: Tables are immutable, so sharing is safe."""
    _check_name(name)
    file_name, types = _TABLES[name]
    raw = read_resource_bytes(file_name)
    header = raw.split(b"\n", 1)[0].decode("utf-8").strip().split(",")
    column_types = {col: types.get(col, _STR) for col in header}
    return pacsv.read_csv(
        io.BytesIO(raw),
        read_options=pacsv.ReadOptions(encoding="utf8"),
        parse_options=pacsv.ParseOptions(newlines_in_values=True),  # statute texts span lines
        # Blank strings stay "" (not null) so string columns never surprise callers with
        # None; blank numbers (e.g. the 이어도 rows without coordinates) become null.
        convert_options=pacsv.ConvertOptions(column_types=column_types, strings_can_be_null=False),
    )


@lru_cache(maxsize=None)
def _rows_cached(name: str) -> tuple[dict, ...]:
    return tuple(load_table(name).to_pylist())


def table_rows(name: str) -> list[dict]:
    """A table as row dicts: a fresh list of the cached rows (do not mutate the dicts, they are shared)."""
    _check_name(name)
    return list(_rows_cached(name))

"""Named value transforms shared by gold programs (benchmark tasks) and EDGE bindings.

A chain between two Korean public APIs rarely passes a value through unchanged: a 10-digit
법정동 code becomes MOLIT's 5-digit ``LAWD_CD``, ``서울특별시`` becomes AirKorea's ``서울``,
TourAPI's ``mapy``/``mapx`` become KMA's ``nx``/``ny``. Each such step is a named
:class:`Transform` in :data:`TRANSFORMS`, so task files and synthesized trajectories can refer
to it by name (``{"$ref": "$s1.items[0].region_cd", "transform": "lawd_cd"}``) and every
consumer computes it identically.

Conventions:

* Transforms take API values as the APIs give them (usually strings) and are strict: a value
  they cannot handle raises ``ValueError`` naming the value and what was expected, never a
  silent guess.
* Reference lookups (NEIS offices, TourAPI areas, TAGO cities, subway lines) read the
  vendored tables in :mod:`kopa_bench.world.refdata` lazily, on first use.
* Points may be given as ``(lat, lon)`` pairs or as API records (dicts) carrying one of the
  known coordinate field pairs (``mapy``/``mapx``, ``gpslati``/``gpslong``, ``YPos``/``XPos``,
  ``lat``/``lon`` ...); see :func:`_latlon_from`.

Example:
    >>> apply_transform("lawd_cd", "1168010600")
    '11680'
    >>> apply_transform("shift_month", "202601", n=-1)
    '202512'
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any

from kopa_bench import geo
from kopa_bench.world.clock import KST, WorldClock, parse_world_datetime, shift_months

__all__ = ["KINDS", "Transform", "TRANSFORMS", "apply_transform", "transform_names", "SIDO"]

#: The value kinds a transform declares for its input and output.
KINDS = frozenset(
    {"any", "text", "code", "number", "date", "datetime", "latlon", "xy", "pair", "list", "dict"}
)


@dataclass(frozen=True)
class Transform:
    """One named transform.

    Attributes:
        name: Registry key, e.g. ``"lawd_cd"``.
        description: One line for humans and for LLM-facing tool docs.
        input_kind: Kind of the value it takes (one of :data:`KINDS`).
        output_kind: Kind of what it returns.
        func: ``func(value, **params)``.
        params: Names of the keyword arguments it accepts (``apply_transform`` checks them).
    """

    name: str
    description: str
    input_kind: str
    output_kind: str
    func: Callable[..., Any] = field(repr=False)
    params: tuple[str, ...] = ()

    def __call__(self, value: Any, **kwargs: Any) -> Any:
        return self.func(value, **kwargs)


TRANSFORMS: dict[str, Transform] = {}


def _register(
    name: str,
    description: str,
    input_kind: str,
    output_kind: str,
    params: tuple[str, ...] = (),
    defaults: Mapping[str, Any] | None = None,
):
    """Decorator adding ``func`` to :data:`TRANSFORMS` (``defaults`` makes preset variants)."""
    assert input_kind in KINDS and output_kind in KINDS, (name, input_kind, output_kind)

    def deco(func: Callable[..., Any]) -> Callable[..., Any]:
        if name in TRANSFORMS:
            raise RuntimeError(f"transform {name!r} registered twice")
        impl = func
        if defaults:
            fixed = dict(defaults)

            def impl(value: Any, **kwargs: Any) -> Any:  # noqa: ANN202 - tiny closure
                return func(value, **{**fixed, **kwargs})

        TRANSFORMS[name] = Transform(name, description, input_kind, output_kind, impl, params)
        return func

    return deco


def transform_names() -> list[str]:
    """Sorted names of all registered transforms."""
    return sorted(TRANSFORMS)


def apply_transform(name: str, value: Any, **kwargs: Any) -> Any:
    """Apply the transform called ``name`` to ``value``.

    Args:
        name: A key of :data:`TRANSFORMS`.
        value: The input value (usually a string taken from an API record).
        **kwargs: The transform's parameters (see ``TRANSFORMS[name].params``).

    Returns:
        The transformed value.

    Raises:
        KeyError: If ``name`` is unknown; the message lists the valid names.
        TypeError: If a keyword argument is not one of the transform's parameters.
        ValueError: If the value cannot be transformed (the message says why).
    """
    try:
        t = TRANSFORMS[name]
    except KeyError:
        raise KeyError(f"unknown transform {name!r}; valid names: {', '.join(transform_names())}") from None
    unknown = sorted(set(kwargs) - set(t.params))
    if unknown:
        raise TypeError(
            f"transform {name!r} got unexpected argument(s) {unknown}; "
            f"it accepts {list(t.params) or 'no arguments'}"
        )
    return t.func(value, **kwargs)


# ----------------------------------------------------------------------------------------
# generic
# ----------------------------------------------------------------------------------------
def _text(value: Any, what: str = "value") -> str:
    if value is None or isinstance(value, (dict, list, tuple, set)):
        raise ValueError(f"{what}={value!r} is not a scalar; expected a string or number")
    return str(value).strip()


@_register("identity", "Return the value unchanged.", "any", "any")
def _identity(value: Any) -> Any:
    return value


@_register("to_str", "str(value), trimmed.", "any", "text")
def _to_str(value: Any) -> str:
    return _text(value)


_MISSING = {"", "-", "null", "None"}  # AirKorea uses "-" for a missing measurement


def _number(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError(f"value={value!r} is a bool, not a number")
    if isinstance(value, (int, float)):
        return float(value)
    text = _text(value).replace(",", "")
    if text in _MISSING:
        return None
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"value={value!r} is not a number (commas and spaces are allowed)") from None


@_register("to_int", "Parse an API number string ('  1,234' -> 1234); '-'/'' -> None.", "text", "number")
def _to_int(value: Any) -> int | None:
    num = _number(value)
    if num is None:
        return None
    if num != int(num):
        raise ValueError(f"value={value!r} is not an integer; use to_float")
    return int(num)


@_register("to_float", "Parse an API number string ('37.56' -> 37.56); '-'/'' -> None.", "text", "number")
def _to_float(value: Any) -> float | None:
    return _number(value)


@_register("prefix", "First n characters of a code (prefix(n=5) of 1168010600 -> 11680).", "code", "code", ("n",))
def _prefix(value: Any, n: int = 5) -> str:
    text = _text(value)
    if n <= 0:
        raise ValueError(f"prefix n={n!r} must be positive")
    if len(text) < n:
        raise ValueError(f"code {value!r} is shorter than the {n} characters requested")
    return text[:n]


_register("prefix5", "First 5 characters (시군구 part of a 법정동/행정동 code).", "code", "code", defaults={"n": 5})(_prefix)
_register("prefix2", "First 2 characters (시도 part of a 법정동 code).", "code", "code", defaults={"n": 2})(_prefix)


def _digits(value: Any, what: str) -> str:
    text = _text(value, what)
    if not text.isdigit():
        raise ValueError(f"{what}={value!r} must contain digits only")
    return text


@_register(
    "lawd_cd",
    "MOLIT LAWD_CD: first 5 digits of a 10-digit 법정동 code (1168010600 -> 11680); 5 digits pass through.",
    "code",
    "code",
)
def _lawd_cd(value: Any) -> str:
    text = _digits(value, "법정동 code")
    if len(text) not in (5, 10):
        raise ValueError(f"법정동 code {value!r} has {len(text)} digits; expected 10 (or an already-cut 5)")
    return text[:5]


@_register("strip_hyphens", "Remove '-' (and spaces): '120-81-47521' -> '1208147521'.", "text", "text")
def _strip_hyphens(value: Any) -> str:
    return re.sub(r"[-\s]", "", _text(value))


@_register(
    "to_json_array",
    "Wrap a scalar in a list (lists pass through); as_string=True gives the JSON text.",
    "any",
    "list",
    ("as_string",),
)
def _to_json_array(value: Any, as_string: bool = False) -> list | str:
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    return json.dumps(items, ensure_ascii=False) if as_string else items


@_register(
    "b_no_list",
    "NTS b_no body: strip hyphens, check 10 digits, wrap in a list ('120-81-47521' -> ['1208147521']).",
    "any",
    "list",
)
def _b_no_list(value: Any) -> list[str]:
    raw = list(value) if isinstance(value, (list, tuple)) else [value]
    out = []
    for item in raw:
        b_no = _strip_hyphens(item)
        if not (b_no.isdigit() and len(b_no) == 10):
            raise ValueError(f"business number {item!r} must have 10 digits after removing hyphens")
        out.append(b_no)
    if len(out) > 100:  # the NTS status API accepts at most 100 numbers per call
        raise ValueError(f"{len(out)} business numbers given; NTS accepts at most 100 per call")
    return out


@_register(
    "concat",
    "Join a list of parts into one string (lDongRegnCd '11' + lDongSignguCd '680' -> '11680').",
    "list",
    "text",
    ("sep",),
)
def _concat(value: Any, sep: str = "") -> str:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"concat needs a list of parts, got {value!r}")
    return sep.join(_text(v) for v in value)


@_register("first_tokens", "First n whitespace tokens of an address ('서울특별시 강남구 대치동 1' n=2 -> '서울특별시 강남구').", "text", "text", ("n",))
def _first_tokens(value: Any, n: int = 2) -> str:
    tokens = _text(value).split()
    if len(tokens) < n:
        raise ValueError(f"address {value!r} has fewer than {n} tokens")
    return " ".join(tokens[:n])


# ----------------------------------------------------------------------------------------
# 시도 (province-level) names and codes
# ----------------------------------------------------------------------------------------
#: (법정동 sido code, current full name, short form, other names seen in APIs)
SIDO: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("11", "서울특별시", "서울", ("서울시",)),
    ("26", "부산광역시", "부산", ("부산시",)),
    ("27", "대구광역시", "대구", ("대구시",)),
    ("28", "인천광역시", "인천", ("인천시",)),
    ("29", "광주광역시", "광주", ()),  # not "광주시": that is a city in 경기
    ("30", "대전광역시", "대전", ("대전시",)),
    ("31", "울산광역시", "울산", ("울산시",)),
    ("36", "세종특별자치시", "세종", ("세종시", "세종특별시")),  # TAGO says 세종특별시
    ("41", "경기도", "경기", ()),
    ("43", "충청북도", "충북", ()),
    ("44", "충청남도", "충남", ()),
    ("46", "전라남도", "전남", ()),
    ("47", "경상북도", "경북", ()),
    ("48", "경상남도", "경남", ()),
    ("50", "제주특별자치도", "제주", ("제주도",)),  # TourAPI/TAGO still say 제주도
    ("51", "강원특별자치도", "강원", ("강원도",)),  # 강원도 (code 42) until 2023-06
    ("52", "전북특별자치도", "전북", ("전라북도",)),  # 전라북도 (code 45) until 2024-01
)
_LEGACY_SIDO_CODES = {"42": "51", "45": "52"}


@lru_cache(maxsize=1)
def _sido_index() -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
    by_code = {code: (full, short) for code, full, short, _ in SIDO}
    by_name: dict[str, str] = {}
    for code, full, short, others in SIDO:
        for name in (full, short, *others):
            by_name[name] = code
    return by_code, by_name


def _sido_code_of(value: Any) -> str:
    """Resolve a 시도 given as a code (any 법정동/행정동 code), full, short or legacy name."""
    text = _text(value, "sido")
    by_code, by_name = _sido_index()
    if text.isdigit():
        code = _LEGACY_SIDO_CODES.get(text[:2], text[:2])
        if len(text) >= 2 and code in by_code:
            return code
        raise ValueError(f"{value!r} does not start with a 시도 code; valid codes: {', '.join(sorted(by_code))}")
    first = text.split()[0] if text else ""
    for candidate in (text, first, first.removesuffix("교육청")):
        if candidate in by_name:
            return by_name[candidate]
    raise ValueError(
        f"{value!r} is not a 시도 name; use a full name (서울특별시), a short name "
        f"({', '.join(s for _, _, s, _ in SIDO)}) or a 2-digit 법정동 code"
    )


@_register(
    "sido_code",
    "2-digit 시도 code: first 2 digits of a 법정동 code (1168010600 -> 11), or the code of a 시도 name.",
    "code",
    "code",
)
def _sido_code(value: Any) -> str:
    return _sido_code_of(value)


@_register(
    "sido_short",
    "AirKorea-style short 시도 name (서울특별시 -> 서울, 강원특별자치도 -> 강원); takes the first token of an address.",
    "text",
    "text",
)
def _sido_short(value: Any) -> str:
    return _sido_index()[0][_sido_code_of(value)][1]


@_register("sido_full", "Current full 시도 name (서울 -> 서울특별시, 강원/강원도 -> 강원특별자치도).", "text", "text")
def _sido_full(value: Any) -> str:
    return _sido_index()[0][_sido_code_of(value)][0]


@lru_cache(maxsize=1)
def _neis_by_sido() -> dict[str, str]:
    from kopa_bench.world.refdata import table_rows

    return {r["legal_sido_code"]: r["atpt_ofcdc_sc_code"] for r in table_rows("neis_offices")}


@_register("sido_to_neis_office", "NEIS ATPT_OFCDC_SC_CODE of a 시도 (서울 -> B10, 경기도 -> J10).", "text", "code")
def _sido_to_neis_office(value: Any) -> str:
    return _neis_by_sido()[_sido_code_of(value)]


@lru_cache(maxsize=1)
def _tourapi_by_sido() -> dict[str, str]:
    from kopa_bench.world.refdata import table_rows

    # TourAPI names mix forms (서울, 세종특별자치시, 경기도, 제주도): normalise through the 시도 index.
    return {_sido_code_of(r["name"]): r["area_code"] for r in table_rows("tourapi_area_codes")}


@_register("sido_to_tourapi_area", "TourAPI areaCode of a 시도 (서울 -> 1, 부산광역시 -> 6, 제주 -> 39).", "text", "code")
def _sido_to_tourapi_area(value: Any) -> str:
    return _tourapi_by_sido()[_sido_code_of(value)]


# TAGO city codes: metro codes and the first two digits of 시군 codes use the old province
# numbering, not 법정동 sido codes.
_TAGO_PREFIX_TO_SIDO = {
    "12": "36", "21": "26", "22": "27", "23": "28", "24": "29", "25": "30", "26": "31", "39": "50",
    "31": "41", "32": "51", "33": "43", "34": "44", "35": "52", "36": "46", "37": "47", "38": "48",
}  # fmt: skip


@lru_cache(maxsize=1)
def _tago_index() -> tuple[dict[str, list[tuple[str, str]]], dict[str, str]]:
    from kopa_bench.world.refdata import table_rows

    by_part: dict[str, list[tuple[str, str]]] = {}
    metro: dict[str, str] = {}
    for r in table_rows("tago_city_codes"):
        code, name = r["citycode"], r["cityname"]
        for part in name.split("/"):  # "대전광역시/계룡시", "원주시/횡성군"
            by_part.setdefault(part, []).append((code, name))
        if len(code) == 2:
            metro[_TAGO_PREFIX_TO_SIDO[code]] = code
    return by_part, metro


@_register(
    "city_to_tago_code",
    "TAGO cityCode of a city/county or metro name (대전광역시 -> 25, 수원시 -> 31010, '경기도 수원시' -> 31010).",
    "text",
    "code",
    ("sido",),
)
def _city_to_tago_code(value: Any, sido: str | None = None) -> str:
    text = _text(value, "city")
    by_part, metro = _tago_index()
    tokens = text.split()
    want_sido = _sido_code_of(sido) if sido else None
    if want_sido is None and len(tokens) > 1:
        try:
            want_sido = _sido_code_of(tokens[0])
        except ValueError:
            want_sido = None
    for name in [text, *tokens[1:]]:
        cands = by_part.get(name, [])
        if want_sido:
            cands = [c for c in cands if _TAGO_PREFIX_TO_SIDO[c[0][:2]] == want_sido]
        exact = [c for c in cands if c[1] == name]  # "계룡시" row beats "대전광역시/계룡시"
        cands = exact or cands
        if len(cands) == 1:
            return cands[0][0]
        if len(cands) > 1:
            raise ValueError(
                f"city {value!r} is ambiguous in TAGO: {cands}; pass sido=... (e.g. sido='강원') to choose"
            )
    try:
        code = _sido_code_of(text)
    except ValueError:
        code = None
    if code == "11":
        raise ValueError("Seoul (서울) city buses are not served by TAGO; use the Seoul bus API instead")
    if code in metro and len(tokens) == 1:
        return metro[code]
    raise ValueError(
        f"{value!r} is not a TAGO city name; use a 시군 name as TAGO lists it (수원시, 원주시, 고성군) "
        "or a metro city (부산, 대전광역시, 세종, 제주)"
    )


# ----------------------------------------------------------------------------------------
# coordinates
# ----------------------------------------------------------------------------------------
# (lat key, lon key) pairs of the APIs KOPA chains; AirKorea getMsrstnList's dmX holds the
# latitude and dmY the longitude (despite the x/y names).
_LATLON_KEYS = (
    ("lat", "lon"), ("latitude", "longitude"), ("mapy", "mapx"), ("gpslati", "gpslong"),
    ("gpsLati", "gpsLong"), ("YPos", "XPos"), ("yPos", "xPos"), ("stationLatitude", "stationLongitude"),
    ("dmX", "dmY"), ("y", "x"),
)  # fmt: skip


def _pair(value: Any, what: str) -> tuple[Any, Any]:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return value[0], value[1]
    raise ValueError(f"{what} {value!r} must be a pair or a record with coordinate fields")


def _latlon_from(value: Any) -> tuple[Any, Any]:
    """``(lat, lon)`` from a pair or an API record with a known coordinate field pair."""
    if isinstance(value, Mapping):
        for lat_key, lon_key in _LATLON_KEYS:
            if lat_key in value and lon_key in value:
                return value[lat_key], value[lon_key]
        raise ValueError(
            f"record has no lat/lon fields (keys {sorted(value)}); expected one of "
            f"{[f'{a}/{b}' for a, b in _LATLON_KEYS]}"
        )
    return _pair(value, "point (lat, lon)")


def _xy_from(value: Any, keys: tuple[tuple[str, str], ...], what: str) -> tuple[Any, Any]:
    if isinstance(value, Mapping):
        for x_key, y_key in keys:
            if x_key in value and y_key in value:
                return value[x_key], value[y_key]
        raise ValueError(f"record has no {what} fields (keys {sorted(value)}); expected one of {keys}")
    return _pair(value, f"{what} (x, y)")


_TM_KEYS = (("tmX", "tmY"), ("x", "y"))
_UTMK_KEYS = (("entX", "entY"), ("x", "y"))


@_register("latlon_to_kma_grid", "KMA DFS grid (nx, ny) of a WGS84 point (37.5665,126.978 -> (60,127)).", "latlon", "pair")
def _latlon_to_kma_grid(value: Any) -> tuple[int, int]:
    return geo.latlon_to_kma_grid(*_latlon_from(value))


@_register("kma_nx", "KMA grid nx of a WGS84 point.", "latlon", "number")
def _kma_nx(value: Any) -> int:
    return _latlon_to_kma_grid(value)[0]


@_register("kma_ny", "KMA grid ny of a WGS84 point.", "latlon", "number")
def _kma_ny(value: Any) -> int:
    return _latlon_to_kma_grid(value)[1]


@_register("kma_grid_to_latlon", "WGS84 (lat, lon) of the centre of a KMA grid cell (nx, ny).", "pair", "latlon")
def _kma_grid_to_latlon(value: Any) -> tuple[float, float]:
    return geo.kma_grid_to_latlon(*_xy_from(value, (("nx", "ny"),), "KMA grid"))


@_register("wgs84_to_tm", "AirKorea TM (tmX, tmY) of a WGS84 point (Bessel central belt; variant='grs80' for EPSG:5181).", "latlon", "xy", ("variant",))
def _wgs84_to_tm(value: Any, variant: str = "bessel") -> tuple[float, float]:
    return geo.wgs84_to_tm(*_latlon_from(value), variant=variant)  # type: ignore[arg-type]


@_register("wgs84_to_tm_x", "AirKorea tmX of a WGS84 point.", "latlon", "number", ("variant",))
def _wgs84_to_tm_x(value: Any, variant: str = "bessel") -> float:
    return _wgs84_to_tm(value, variant)[0]


@_register("wgs84_to_tm_y", "AirKorea tmY of a WGS84 point.", "latlon", "number", ("variant",))
def _wgs84_to_tm_y(value: Any, variant: str = "bessel") -> float:
    return _wgs84_to_tm(value, variant)[1]


@_register("tm_to_wgs84", "WGS84 (lat, lon) of AirKorea TM (tmX, tmY).", "xy", "latlon", ("variant",))
def _tm_to_wgs84(value: Any, variant: str = "bessel") -> tuple[float, float]:
    return geo.tm_to_wgs84(*_xy_from(value, _TM_KEYS, "TM"), variant=variant)  # type: ignore[arg-type]


@_register("tm_to_lat", "Latitude of AirKorea TM (tmX, tmY).", "xy", "number", ("variant",))
def _tm_to_lat(value: Any, variant: str = "bessel") -> float:
    return _tm_to_wgs84(value, variant)[0]


@_register("tm_to_lon", "Longitude of AirKorea TM (tmX, tmY).", "xy", "number", ("variant",))
def _tm_to_lon(value: Any, variant: str = "bessel") -> float:
    return _tm_to_wgs84(value, variant)[1]


@_register("utmk_to_wgs84", "WGS84 (lat, lon) of UTM-K EPSG:5179 (juso entX, entY).", "xy", "latlon")
def _utmk_to_wgs84(value: Any) -> tuple[float, float]:
    return geo.utmk_to_wgs84(*_xy_from(value, _UTMK_KEYS, "UTM-K"))


@_register("utmk_to_lat", "Latitude of UTM-K (entX, entY).", "xy", "number")
def _utmk_to_lat(value: Any) -> float:
    return _utmk_to_wgs84(value)[0]


@_register("utmk_to_lon", "Longitude of UTM-K (entX, entY).", "xy", "number")
def _utmk_to_lon(value: Any) -> float:
    return _utmk_to_wgs84(value)[1]


@_register("wgs84_to_utmk", "UTM-K EPSG:5179 (x, y) of a WGS84 point.", "latlon", "xy")
def _wgs84_to_utmk(value: Any) -> tuple[float, float]:
    return geo.wgs84_to_utmk(*_latlon_from(value))


@_register("distance_km", "Haversine km between two WGS84 points given as a pair of points/records.", "pair", "number")
def _distance_km(value: Any) -> float:
    a, b = _pair(value, "pair of points")
    return geo.haversine_km(*_latlon_from(a), *_latlon_from(b))


# ----------------------------------------------------------------------------------------
# dates
# ----------------------------------------------------------------------------------------
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
    _register(name, description, "date", "text")(lambda value: fmt(_to_date(value)))


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
# platform-specific formats
# ----------------------------------------------------------------------------------------
_ECOS_CYCLES = ("A", "S", "Q", "M", "SM", "D")


@_register(
    "ecos_period",
    "Bank of Korea ECOS time for a cycle: A=YYYY, S=YYYYS1|S2, Q=YYYYQn, M=YYYYMM, SM=YYYYMMS1|S2, D=YYYYMMDD.",
    "date",
    "text",
    ("cycle",),
)
def _ecos_period(value: Any, cycle: str = "M") -> str:
    d = _to_date(value)
    c = str(cycle).upper()
    if c == "A":
        return f"{d.year:04d}"
    if c == "S":
        return f"{d.year:04d}S{1 if d.month <= 6 else 2}"
    if c == "Q":
        return f"{d.year:04d}Q{(d.month - 1) // 3 + 1}"
    if c == "M":
        return d.strftime("%Y%m")
    if c == "SM":
        return d.strftime("%Y%m") + ("S1" if d.day <= 15 else "S2")
    if c == "D":
        return d.strftime("%Y%m%d")
    raise ValueError(f"ECOS cycle {cycle!r} is unknown; use one of {_ECOS_CYCLES}")


for _c in ("A", "Q", "M", "D"):
    _register(f"ecos_{_c.lower()}", f"ECOS period for cycle {_c}.", "date", "text", defaults={"cycle": _c})(_ecos_period)
del _c


@_register(
    "assembly_unit_cd",
    "National Assembly UNIT_CD of an 대수 ('22', 22 or '제22대' -> '100022'; '1'+zfill(5)).",
    "code",
    "code",
)
def _assembly_unit_cd(value: Any) -> str:
    text = _text(value, "대수")
    if re.fullmatch(r"1\d{5}", text):  # already a UNIT_CD
        return text
    m = re.fullmatch(r"제?\s*(\d{1,3})\s*대?", text)
    if not m or int(m[1]) == 0:
        raise ValueError(f"{value!r} is not an Assembly 대수; expected e.g. 22, '22' or '제22대'")
    return "1" + m[1].zfill(5)


@_register("assembly_age", "Inverse of assembly_unit_cd ('100022' -> '22').", "code", "code")
def _assembly_age(value: Any) -> str:
    text = _text(value, "UNIT_CD")
    if not re.fullmatch(r"1\d{5}", text):
        raise ValueError(f"{value!r} is not an Assembly UNIT_CD; expected 6 digits like '100022'")
    return str(int(text[1:]))


@_register("manwon_to_int", "MOLIT 만원 amount string to int ('   72,000' -> 72000).", "text", "number")
def _manwon_to_int(value: Any) -> int:
    num = _to_int(value)
    if num is None:
        raise ValueError(f"amount {value!r} is empty; expected a 만원 figure such as '72,000'")
    return num


@_register("manwon_to_won", "MOLIT 만원 amount string to KRW ('   72,000' -> 720000000).", "text", "number")
def _manwon_to_won(value: Any) -> int:
    return _manwon_to_int(value) * 10_000


@_register(
    "strip_station_suffix",
    "Seoul realtime subway station name: drop a trailing '역' ('강남역' -> '강남', '서울역' -> '서울').",
    "text",
    "text",
)
def _strip_station_suffix(value: Any) -> str:
    text = _text(value, "station")
    # Keep a lone '역' (no such station, but never return an empty name).
    return text[:-1] if text.endswith("역") and len(text) > 1 else text


@lru_cache(maxsize=1)
def _subway_line_ids() -> dict[str, str]:
    from kopa_bench.world.refdata import table_rows

    return {r["line_name"]: r["subway_id"] for r in table_rows("seoul_subway_stations")}


@_register("subway_line_to_id", "Seoul realtime subwayId of a line ('02호선'/'2호선' -> '1002', '신분당선' -> '1077').", "text", "code")
def _subway_line_to_id(value: Any) -> str:
    text = _text(value, "line")
    if m := re.fullmatch(r"0?([1-9])\s*호선", text):
        return f"100{m[1]}"  # lines 1-9 are 1000 + n
    ids = _subway_line_ids()
    if text in ids:
        return ids[text]
    raise ValueError(f"subway line {value!r} is unknown; valid names: {', '.join(sorted(ids))}")


@_register("strip_stock_prefix", "KRX short code without the leading 'A' ('A005930' -> '005930').", "code", "code")
def _strip_stock_prefix(value: Any) -> str:
    text = _text(value, "stock code")
    return text[1:] if re.fullmatch(r"A\d{6}", text) else text


@_register("law_article_jo", "law.go.kr JO parameter of an article ('제750조' -> '075000', '제10조의2' -> '001002').", "text", "code")
def _law_article_jo(value: Any) -> str:
    m = re.search(r"제?\s*(\d+)\s*조(?:\s*의\s*(\d+))?", _text(value, "article"))
    if not m:
        raise ValueError(f"{value!r} names no article; expected e.g. '제750조' or '제10조의2'")
    return f"{int(m[1]):04d}{int(m[2] or 0):02d}"


@_register("bill_to_law_name", "Law name of an amendment bill ('도로교통법 일부개정법률안' -> '도로교통법').", "text", "text")
def _bill_to_law_name(value: Any) -> str:
    text = _text(value, "bill name")
    for suffix in ("일부개정법률안", "전부개정법률안", " 법률안"):
        if text.endswith(suffix) and len(text) > len(suffix):
            return text[: -len(suffix)].strip()
    return text  # not an amendment bill: nothing to strip

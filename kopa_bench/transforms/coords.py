"""Coordinate transforms: KMA grid, AirKorea TM, UTM-K, distances; points from API records."""

from __future__ import annotations
from collections.abc import Mapping
from typing import Any

from kopa_bench import geo

from .registry import _register


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


_POINT_CRS = ("wgs84", "tm", "utmk")


@_register("xy_point", "One 'x,y' point string, WGS84 longitude first, from two coordinate fields of a record (x, y: the "
           "field names; crs: their system, wgs84 | tm | utmk, converted to WGS84).", "dict", "text", ("x", "y", "crs"))
def _xy_point(value: Any, x: str = "x", y: str = "y", crs: str = "wgs84") -> str:
    if crs not in _POINT_CRS:
        raise ValueError(f"crs {crs!r} must be one of {_POINT_CRS}")
    if isinstance(value, Mapping):
        if value.get(x) in (None, "") or value.get(y) in (None, ""):
            raise ValueError(f"record lacks {x!r}/{y!r} (keys {sorted(value)})")
        xv, yv = value[x], value[y]
    else:
        xv, yv = _pair(value, "point (x, y)")
    try:
        fx, fy = float(xv), float(yv)
    except (TypeError, ValueError):
        raise ValueError(f"point ({xv!r}, {yv!r}) is not numeric") from None
    if crs == "wgs84":
        lon, lat, text = fx, fy, f"{str(xv).strip()},{str(yv).strip()}"  # the digits as the source wrote them
    else:
        lat, lon = (geo.tm_to_wgs84 if crs == "tm" else geo.utmk_to_wgs84)(fx, fy)
        text = f"{lon:.7f},{lat:.7f}"
    if not (-180 <= lon <= 180 and -90 <= lat <= 90):
        raise ValueError(f"point ({xv}, {yv}) is no longitude,latitude in {crs} (swapped?)")
    return text


@_register("distance_km", "Haversine km between two WGS84 points given as a pair of points/records.", "pair", "number")
def _distance_km(value: Any) -> float:
    a, b = _pair(value, "pair of points")
    return geo.haversine_km(*_latlon_from(a), *_latlon_from(b))


# ----------------------------------------------------------------------------------------

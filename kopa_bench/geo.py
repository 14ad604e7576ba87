"""Coordinate conversions used by Korean public APIs.

Four systems meet in KOPA's chains:

* **WGS84** lat/lon (TourAPI ``mapy``/``mapx``, TAGO ``gpslati``/``gpslong``, HIRA
  ``YPos``/``XPos``, Seoul bike, VWorld default EPSG:4326).
* **AirKorea TM** (``getTMStdrCrdnt`` -> ``tmX``/``tmY`` -> ``getNearbyMsrstnList``): Korean
  Transverse Mercator, central belt, origin 38N 127E, false easting 200000, false northing
  500000. The ellipsoid is not documented by AirKorea. Apps fill ``tmX``/``tmY`` with Kakao
  ``transcoord output_coord=TM``, and Kakao's plain ``TM`` is the *Bessel* belt (its GRS80
  variant is the separately named ``WTM``); AirKorea clients that convert locally use the
  same EPSG:2097 definition (Bessel, lon_0=127, 3-parameter Korean 1985 -> WGS84 shift).
  So the default here is Bessel/EPSG:2097 with ``towgs84=-146.43,507.89,681.46``; the
  GRS80 variant (EPSG:5181: same origin and false offsets, GRS80) is available with
  ``variant="grs80"``. The two differ by about 350 m in Seoul (measured), less than the spacing of
  AirKorea stations, so the nearest station rarely changes.
* **UTM-K** (EPSG:5179, GRS80; juso.go.kr ``entX``/``entY``).
* **KMA DFS grid** (``nx``/``ny`` of the short-term forecast): a 5 km Lambert conformal conic
  grid, computed here with KMA's own published formula (pure math, no pyproj), so results
  match KMA's reference sheet cell for cell.

pyproj ``Transformer`` objects are built lazily on first use and cached; importing this module
does no work.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Literal

__all__ = [
    "TM_BESSEL_PROJ", "TM_GRS80_PROJ", "UTMK_PROJ", "KMA_NX_MAX", "KMA_NY_MAX", "wgs84_to_tm", "tm_to_wgs84",
    "wgs84_to_utmk", "wgs84_to_utmk_arrays", "utmk_to_wgs84", "latlon_to_kma_grid", "kma_grid_to_latlon",
    "haversine_km",
]

TmVariant = Literal["bessel", "grs80"]

#: AirKorea / Kakao "TM": Bessel central belt (EPSG:2097 with its Korean 1985 -> WGS84 shift).
TM_BESSEL_PROJ = (
    "+proj=tmerc +lat_0=38 +lon_0=127 +k=1 +x_0=200000 +y_0=500000 +ellps=bessel "
    "+towgs84=-146.43,507.89,681.46 +units=m +no_defs"
)
#: GRS80 central belt with false northing 500000 (EPSG:5181; Kakao "WTM").
TM_GRS80_PROJ = "EPSG:5181"
#: UTM-K (juso.go.kr entX/entY).
UTMK_PROJ = "EPSG:5179"

_WGS84 = "EPSG:4326"
_TM_PROJ = {"bessel": TM_BESSEL_PROJ, "grs80": TM_GRS80_PROJ}

# KMA DFS grid constants, identical in every copy of KMA's published conversion script.
_RE_KM = 6371.00877  # earth radius (km)
_GRID_KM = 5.0  # grid spacing (km)
_SLAT1, _SLAT2 = 30.0, 60.0  # standard parallels
_OLON, _OLAT = 126.0, 38.0  # projection origin
_XO, _YO = 43, 136  # grid cell of the origin (JS variant; the C variant's 42/135 + 1.5 is equivalent)
#: The KMA forecast domain is 149 x 253 cells, numbered from 1.
KMA_NX_MAX, KMA_NY_MAX = 149, 253

_EARTH_RADIUS_KM = 6371.0088  # IUGG mean radius, for haversine


def _as_float(value: object, what: str) -> float:
    """Convert an API value (often a string such as ``"37.5665"``) to a finite float."""
    try:
        out = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{what}={value!r} is not a number; pass a float or numeric string") from None
    if not math.isfinite(out):
        raise ValueError(f"{what}={value!r} is not finite")
    return out


def _check_latlon(lat: object, lon: object) -> tuple[float, float]:
    la, lo = _as_float(lat, "lat"), _as_float(lon, "lon")
    if not -90.0 <= la <= 90.0:
        raise ValueError(
            f"lat={lat!r} is outside [-90, 90]; did you swap lat and lon "
            "(TourAPI mapy is the latitude, mapx the longitude)?"
        )
    if not -180.0 <= lo <= 180.0:
        raise ValueError(f"lon={lon!r} is outside [-180, 180]")
    return la, lo


@lru_cache(maxsize=None)
def _transformer(src: str, dst: str):
    """Build (once) a pyproj Transformer with x=lon/easting, y=lat/northing axis order."""
    from pyproj import Transformer  # lazy: keeps `import kopa_bench.geo` cheap

    return Transformer.from_crs(src, dst, always_xy=True)


def _tm_proj(variant: str) -> str:
    try:
        return _TM_PROJ[variant]
    except KeyError:
        raise ValueError(
            f"unknown TM variant {variant!r}; use one of {sorted(_TM_PROJ)} "
            "('bessel' = AirKorea/Kakao TM, 'grs80' = EPSG:5181)"
        ) from None


def wgs84_to_tm(lat: float | str, lon: float | str, *, variant: TmVariant = "bessel") -> tuple[float, float]:
    """Convert WGS84 lat/lon (floats or numeric strings) to AirKorea TM ``(tmX, tmY)`` metres;
    ``variant`` is ``"bessel"`` (AirKorea/Kakao TM, EPSG:2097 family) or ``"grs80"`` (EPSG:5181)."""
    la, lo = _check_latlon(lat, lon)
    x, y = _transformer(_WGS84, _tm_proj(variant)).transform(lo, la)
    return float(x), float(y)


def tm_to_wgs84(tm_x: float | str, tm_y: float | str, *, variant: TmVariant = "bessel") -> tuple[float, float]:
    """Convert AirKorea TM ``(tmX, tmY)`` metres to WGS84 ``(lat, lon)``; ``variant`` as in :func:`wgs84_to_tm`."""
    x, y = _as_float(tm_x, "tmX"), _as_float(tm_y, "tmY")
    lo, la = _transformer(_tm_proj(variant), _WGS84).transform(x, y)
    return float(la), float(lo)


def wgs84_to_utmk(lat: float | str, lon: float | str) -> tuple[float, float]:
    """Convert WGS84 lat/lon to UTM-K (EPSG:5179) ``(x, y)`` metres (juso ``entX``, ``entY``)."""
    la, lo = _check_latlon(lat, lon)
    x, y = _transformer(_WGS84, UTMK_PROJ).transform(lo, la)
    return float(x), float(y)


def wgs84_to_utmk_arrays(lat, lon):
    """:func:`wgs84_to_utmk` over numpy arrays, unchecked: ``(x, y)`` arrays."""
    return _transformer(_WGS84, UTMK_PROJ).transform(lon, lat)


def utmk_to_wgs84(x: float | str, y: float | str) -> tuple[float, float]:
    """Convert UTM-K (EPSG:5179) ``(entX, entY)`` metres, e.g. ``("953939.5", "1952050.6")``, to WGS84 ``(lat, lon)``."""
    ex, ey = _as_float(x, "entX"), _as_float(y, "entY")
    lo, la = _transformer(UTMK_PROJ, _WGS84).transform(ex, ey)
    return float(la), float(lo)


@lru_cache(maxsize=1)
def _lcc_constants() -> tuple[float, float, float, float, float]:
    """KMA LCC constants (re, sn, sf, ro, olon) in grid units / radians."""
    d = math.pi / 180.0
    re = _RE_KM / _GRID_KM
    slat1, slat2, olon, olat = _SLAT1 * d, _SLAT2 * d, _OLON * d, _OLAT * d
    sn = math.log(math.cos(slat1) / math.cos(slat2)) / math.log(
        math.tan(math.pi / 4 + slat2 / 2) / math.tan(math.pi / 4 + slat1 / 2)
    )
    sf = math.tan(math.pi / 4 + slat1 / 2) ** sn * math.cos(slat1) / sn
    ro = re * sf / math.tan(math.pi / 4 + olat / 2) ** sn
    return re, sn, sf, ro, olon


def _lcc_xy(lat: float, lon: float) -> tuple[float, float]:
    """Continuous grid coordinates (before rounding) of a WGS84 point."""
    re, sn, sf, ro, olon = _lcc_constants()
    ra = re * sf / math.tan(math.pi / 4 + math.radians(lat) / 2) ** sn
    theta = math.radians(lon) - olon
    if theta > math.pi:
        theta -= 2 * math.pi
    if theta < -math.pi:
        theta += 2 * math.pi
    theta *= sn
    return ra * math.sin(theta) + _XO, ro - ra * math.cos(theta) + _YO


def latlon_to_kma_grid(lat: float | str, lon: float | str) -> tuple[int, int]:
    """Convert WGS84 lat/lon to the KMA short-term forecast grid ``(nx, ny)``, e.g. Seoul City
    Hall (37.5665, 126.9780) -> ``(60, 127)``.

    Uses KMA's published DFS formula (Lambert conformal conic, 5 km cells, rounding with
    ``floor(v + 0.5)``). KMA's own reference sheet lists a few dongs one cell off from this
    formula; the API accepts any cell, so that does not matter for chaining. A point outside
    the KMA domain (nx 1..149, ny 1..253) raises ValueError: lat and lon were usually swapped.
    """
    la, lo = _check_latlon(lat, lon)
    x, y = _lcc_xy(la, lo)
    nx, ny = math.floor(x + 0.5), math.floor(y + 0.5)
    if not (1 <= nx <= KMA_NX_MAX and 1 <= ny <= KMA_NY_MAX):
        raise ValueError(
            f"(lat={lat!r}, lon={lon!r}) maps to KMA grid ({nx}, {ny}), outside the forecast "
            f"domain nx 1..{KMA_NX_MAX}, ny 1..{KMA_NY_MAX}; check that lat/lon are not swapped"
        )
    return nx, ny


def kma_grid_to_latlon(nx: int | str, ny: int | str) -> tuple[float, float]:
    """The WGS84 ``(lat, lon)`` of a KMA grid cell's centre (nx 1..149, ny 1..253, else
    ValueError); :func:`latlon_to_kma_grid` of the result gives back ``(nx, ny)``."""
    try:
        gx, gy = int(str(nx).strip()), int(str(ny).strip())
    except ValueError:
        raise ValueError(f"KMA grid (nx={nx!r}, ny={ny!r}) must be integers") from None
    if not (1 <= gx <= KMA_NX_MAX and 1 <= gy <= KMA_NY_MAX):
        raise ValueError(
            f"KMA grid (nx={nx!r}, ny={ny!r}) is outside the domain nx 1..{KMA_NX_MAX}, ny 1..{KMA_NY_MAX}"
        )
    re, sn, sf, ro, olon = _lcc_constants()
    xn = gx - _XO
    yn = ro - gy + _YO
    ra = math.copysign(math.hypot(xn, yn), sn)
    alat = 2.0 * math.atan((re * sf / ra) ** (1.0 / sn)) - math.pi / 2
    if xn == 0:
        theta = 0.0
    elif yn == 0:
        theta = math.copysign(math.pi / 2, xn)
    else:
        theta = math.atan2(xn, yn)
    alon = theta / sn + olon
    return math.degrees(alat), math.degrees(alon)


_MERCATOR_HALF = 20037508.34  # metres from the origin to the antimeridian in EPSG:3857


def wgs84_to_webmercator(lat: float, lon: float) -> tuple[float, float]:
    """EPSG:3857 (x, y) of a WGS84 point (spherical Web Mercator)."""
    return (lon * _MERCATOR_HALF / 180,
            math.log(math.tan((90 + lat) * math.pi / 360)) / (math.pi / 180) * _MERCATOR_HALF / 180)


def webmercator_to_wgs84(x: float, y: float) -> tuple[float, float]:
    """WGS84 (lat, lon) of an EPSG:3857 point."""
    return math.atan(math.exp(y * math.pi / _MERCATOR_HALF)) * 360 / math.pi - 90, x * 180 / _MERCATOR_HALF


def haversine_km(lat1: float | str, lon1: float | str, lat2: float | str, lon2: float | str) -> float:
    """Great-circle distance in km between two WGS84 points (mean earth radius 6371.0088 km).

    Good to ~0.5 % (sphere vs ellipsoid), plenty for "nearest station / bike dock" ranking.
    """
    a_lat, a_lon = _check_latlon(lat1, lon1)
    b_lat, b_lon = _check_latlon(lat2, lon2)
    p1, p2 = math.radians(a_lat), math.radians(b_lat)
    dp, dl = p2 - p1, math.radians(b_lon - a_lon)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * _EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))

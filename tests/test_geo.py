"""Tests for kopa_bench.geo: KMA grid, TM / UTM-K conversions, haversine."""

import math

import pytest

from kopa_bench import geo

KMA_CASES = [
    ("Seoul City Hall", 37.5665, 126.9780, 60, 127),
    ("Busan City Hall", 35.1796, 129.0756, 98, 76),
    ("Daejeon", 36.3504, 127.3845, 67, 100),
    ("Jeju", 33.4996, 126.5312, 53, 38),
    ("Gangnam-gu office", 37.5172, 127.0473, 61, 126),
]


@pytest.mark.parametrize("name,lat,lon,nx,ny", KMA_CASES, ids=[c[0] for c in KMA_CASES])
def test_kma_grid_known_points(name, lat, lon, nx, ny):
    assert geo.latlon_to_kma_grid(lat, lon) == (nx, ny)
    # strings, as APIs give them
    assert geo.latlon_to_kma_grid(str(lat), str(lon)) == (nx, ny)


@pytest.mark.parametrize("name,lat,lon,nx,ny", KMA_CASES, ids=[c[0] for c in KMA_CASES])
def test_kma_grid_inverse_is_cell_centre(name, lat, lon, nx, ny):
    clat, clon = geo.kma_grid_to_latlon(nx, ny)
    assert geo.latlon_to_kma_grid(clat, clon) == (nx, ny)
    # a cell is 5 km wide: the centre is at most ~3.6 km from any point inside it
    assert geo.haversine_km(lat, lon, clat, clon) < 3.6


def test_kma_grid_roundtrip_whole_domain():
    for nx in range(1, geo.KMA_NX_MAX + 1, 4):
        for ny in range(1, geo.KMA_NY_MAX + 1, 4):
            assert geo.latlon_to_kma_grid(*geo.kma_grid_to_latlon(nx, ny)) == (nx, ny)


def test_kma_grid_matches_official_sheet():
    """KMA's own per-dong sheet: the formula is exact for most rows and never off by > 1."""
    from kopa_bench.refdata import table_rows

    exact = total = 0
    for r in table_rows("kma_grid"):
        if r["lat"] is None:  # 이어도 rows have no coordinates
            continue
        nx, ny = geo.latlon_to_kma_grid(r["lat"], r["lon"])
        assert abs(nx - r["nx"]) <= 1 and abs(ny - r["ny"]) <= 1, r
        exact += (nx, ny) == (r["nx"], r["ny"])
        total += 1
    assert total == 3832
    assert exact / total > 0.98  # measured: 3789 / 3832


def test_kma_grid_errors():
    with pytest.raises(ValueError, match="did you swap lat and lon"):
        geo.latlon_to_kma_grid(126.978, 37.5665)
    with pytest.raises(ValueError, match="outside the forecast domain"):
        geo.latlon_to_kma_grid(10.0, 100.0)
    with pytest.raises(ValueError, match="not a number"):
        geo.latlon_to_kma_grid("abc", 127)
    with pytest.raises(ValueError, match="outside the domain"):
        geo.kma_grid_to_latlon(0, 10)
    with pytest.raises(ValueError, match="integers"):
        geo.kma_grid_to_latlon("x", 10)


def test_tm_bessel_seoul_and_roundtrip():
    x, y = geo.wgs84_to_tm(37.5665, 126.9780)
    # central belt origin is 38N 127E at (200000, 500000): City Hall is ~2 km west, ~48 km south
    assert 197_000 < x < 199_500 and 450_000 < y < 453_000
    lat, lon = geo.tm_to_wgs84(x, y)
    assert lat == pytest.approx(37.5665, abs=1e-6) and lon == pytest.approx(126.9780, abs=1e-6)


def test_tm_origin_and_variants_differ_by_a_few_hundred_metres():
    gx, gy = geo.wgs84_to_tm(38.0, 127.0, variant="grs80")
    assert gx == pytest.approx(200_000, abs=0.01) and gy == pytest.approx(500_000, abs=0.01)
    bx, by = geo.wgs84_to_tm(37.5665, 126.9780)
    gx, gy = geo.wgs84_to_tm(37.5665, 126.9780, variant="grs80")
    shift = math.hypot(bx - gx, by - gy)
    assert 200 < shift < 500  # datum shift Korean 1985 (Bessel) vs KGD2002 (GRS80)


def test_tm_airkorea_documented_sample_is_in_korea():
    # getNearbyMsrstnList sample tmX/tmY seen in many clients: falls in 경기 (이천 area)
    lat, lon = geo.tm_to_wgs84("244148.546388", "412423.75772")
    assert 37.0 < lat < 37.4 and 127.3 < lon < 127.7


def test_tm_bad_variant():
    with pytest.raises(ValueError, match="unknown TM variant 'wgs'"):
        geo.wgs84_to_tm(37.5, 127.0, variant="wgs")


def test_utmk_roundtrip_and_known_range():
    x, y = geo.wgs84_to_utmk(37.5665, 126.9780)
    # UTM-K: false easting 1,000,000 at 127.5E, Seoul northing ~1.95e6
    assert 950_000 < x < 957_000 and 1_948_000 < y < 1_956_000
    lat, lon = geo.utmk_to_wgs84(x, y)
    assert lat == pytest.approx(37.5665, abs=1e-8) and lon == pytest.approx(126.9780, abs=1e-8)
    assert geo.utmk_to_wgs84(1_000_000, 2_000_000) == pytest.approx((38.0, 127.5), abs=1e-9)


def test_haversine():
    assert geo.haversine_km(37.5665, 126.9780, 37.5665, 126.9780) == 0
    d = geo.haversine_km(37.5665, 126.9780, 35.1796, 129.0756)
    assert d == pytest.approx(325.1, abs=0.5)  # Seoul-Busan city halls
    assert geo.haversine_km("0", "0", "0", "1") == pytest.approx(111.195, abs=0.01)


def test_import_builds_no_transformer():
    import importlib

    mod = importlib.reload(geo)
    assert mod._transformer.cache_info().currsize == 0

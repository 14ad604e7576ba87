"""Tests for kopa_bench.transforms: every registered transform has at least one case here."""

from datetime import date, datetime, timezone

import pytest

from kopa_bench.transforms import KINDS, SIDO, TRANSFORMS, Transform, apply_transform, transform_names

A = apply_transform

# (name, value, kwargs, expected)
CASES = [
    ("identity", {"a": 1}, {}, {"a": 1}),
    ("to_str", " 60 ", {}, "60"),
    ("to_int", "  1,234", {}, 1234),
    ("to_int", "-", {}, None),
    ("to_float", "37.5665", {}, 37.5665),
    ("to_float", "", {}, None),
    ("prefix", "1168010600", {"n": 5}, "11680"),
    ("prefix", 1168010600, {"n": 2}, "11"),
    ("prefix5", "1168010600", {}, "11680"),
    ("prefix2", "1168010600", {}, "11"),
    ("lawd_cd", "1168010600", {}, "11680"),
    ("lawd_cd", "11680", {}, "11680"),
    ("strip_hyphens", "120-81-47521", {}, "1208147521"),
    ("to_json_array", "1208147521", {}, ["1208147521"]),
    ("to_json_array", ["a", "b"], {}, ["a", "b"]),
    ("to_json_array", "1208147521", {"as_string": True}, '["1208147521"]'),
    ("b_no_list", "120-81-47521", {}, ["1208147521"]),
    ("b_no_list", ["120-81-47521", "2208162517"], {}, ["1208147521", "2208162517"]),
    ("concat", ["11", "680"], {}, "11680"),
    ("concat", ["서울특별시", "강남구"], {"sep": " "}, "서울특별시 강남구"),
    ("first_tokens", "서울특별시 강남구 대치동 316", {}, "서울특별시 강남구"),
    ("first_tokens", "서울특별시 강남구 대치동 316", {"n": 3}, "서울특별시 강남구 대치동"),
    ("sido_code", "1168010600", {}, "11"),
    ("sido_code", "4211000000", {}, "51"),  # old 강원도 code -> 강원특별자치도
    ("sido_code", "전라북도", {}, "52"),
    ("sido_short", "서울특별시", {}, "서울"),
    ("sido_short", "경기도 수원시 장안구", {}, "경기"),
    ("sido_short", "강원도", {}, "강원"),
    ("sido_full", "서울", {}, "서울특별시"),
    ("sido_full", "강원도", {}, "강원특별자치도"),
    ("sido_full", "세종특별시", {}, "세종특별자치시"),
    ("sido_to_neis_office", "서울", {}, "B10"),
    ("sido_to_neis_office", "전북특별자치도", {}, "P10"),
    ("sido_to_neis_office", "41", {}, "J10"),
    ("sido_to_tourapi_area", "서울특별시", {}, "1"),
    ("sido_to_tourapi_area", "부산", {}, "6"),
    ("sido_to_tourapi_area", "제주특별자치도", {}, "39"),
    ("sido_to_tourapi_area", "세종", {}, "8"),
    ("city_to_tago_code", "대전광역시", {}, "25"),
    ("city_to_tago_code", "부산", {}, "21"),
    ("city_to_tago_code", "세종특별자치시", {}, "12"),
    ("city_to_tago_code", "제주특별자치도", {}, "39"),
    ("city_to_tago_code", "수원시", {}, "31010"),
    ("city_to_tago_code", "경기도 수원시", {}, "31010"),
    ("city_to_tago_code", "계룡시", {}, "34070"),  # own row beats "대전광역시/계룡시"
    ("city_to_tago_code", "횡성군", {}, "32020"),  # "원주시/횡성군"
    ("city_to_tago_code", "광주시", {}, "31250"),  # 경기 광주시, not 광주광역시
    ("city_to_tago_code", "광주광역시", {}, "24"),
    ("latlon_to_kma_grid", (37.5665, 126.9780), {}, (60, 127)),
    ("latlon_to_kma_grid", {"mapy": "35.1796", "mapx": "129.0756"}, {}, (98, 76)),
    ("latlon_to_kma_grid", {"gpslati": 36.3504, "gpslong": 127.3845}, {}, (67, 100)),
    ("kma_nx", {"YPos": "33.4996", "XPos": "126.5312"}, {}, 53),
    ("xy_point", {"stationLatitude": "37.49795", "stationLongitude": "127.02758"},
     {"x": "stationLongitude", "y": "stationLatitude"}, "127.02758,37.49795"),
    ("xy_point", (126.978, 37.5665), {}, "126.978,37.5665"),
    ("kma_ny", {"lat": 37.5172, "lon": 127.0473}, {}, 126),
    ("yyyymmdd", "2024-10-03", {}, "20241003"),
    ("yyyymmdd", 20241003, {}, "20241003"),  # KASI locdate is an int
    ("yyyymmdd", "2024.10.03", {}, "20241003"),
    ("yyyymmdd", "20240215 143000", {}, "20240215"),  # Assembly VOTE_DATE
    ("yyyymmdd", "2024-10-03 12:34:56", {}, "20241003"),  # subway recptnDt
    ("dash_to_yyyymmdd", "2024-10-03", {}, "20241003"),
    ("yyyy_mm_dd", "20241003", {}, "2024-10-03"),
    ("yyyymmdd_to_dash", "20241003", {}, "2024-10-03"),
    ("yyyy_dot_mm_dd", date(2024, 1, 5), {}, "2024.01.05"),
    ("yyyymm", "2024-10-03", {}, "202410"),
    ("yyyymm", datetime(2026, 11, 30, 9), {}, "202611"),
    ("year", "20241003", {}, "2024"),
    ("month_2d", "20240103", {}, "01"),
    ("day_2d", "20240103", {}, "03"),
    ("first_day_of_month", "20240215", {}, "20240201"),
    ("last_day_of_month", "20240215", {}, "20240229"),
    ("last_day_of_month", "202312", {}, "20231231"),
    ("shift_month", "202601", {"n": -1}, "202512"),
    ("shift_month", "2026-11-30", {"n": 2}, "202701"),
    ("shift_month", "202611", {}, "202610"),
    ("shift_day", "20261130", {}, "20261201"),
    ("shift_day", "2024-03-01", {"n": -1}, "20240229"),
    ("ecos_period", "20240815", {}, "202408"),
    ("ecos_period", "20240815", {"cycle": "S"}, "2024S2"),
    ("ecos_period", "20240815", {"cycle": "SM"}, "202408S1"),
    ("ecos_period", "20240816", {"cycle": "sm"}, "202408S2"),
    ("ecos_a", "20240815", {}, "2024"),
    ("ecos_q", "20240815", {}, "2024Q3"),
    ("ecos_q", "20240101", {}, "2024Q1"),
    ("ecos_m", "2024-08-15", {}, "202408"),
    ("ecos_d", "2024-08-15", {}, "20240815"),
    ("assembly_unit_cd", "22", {}, "100022"),
    ("assembly_unit_cd", 21, {}, "100021"),
    ("assembly_unit_cd", "제22대", {}, "100022"),
    ("assembly_unit_cd", "100022", {}, "100022"),
    ("assembly_age", "100022", {}, "22"),
    ("manwon_to_int", "   72,000", {}, 72000),
    ("manwon_to_int", "9,500", {}, 9500),
    ("manwon_to_won", "   72,000", {}, 720_000_000),
    ("strip_station_suffix", "강남역", {}, "강남"),
    ("strip_station_suffix", "서울역", {}, "서울"),
    ("strip_station_suffix", "역삼", {}, "역삼"),
    ("subway_line_to_id", "02호선", {}, "1002"),
    ("subway_line_to_id", "9호선", {}, "1009"),
    ("subway_line_to_id", "신분당선", {}, "1077"),
    ("subway_line_to_id", "경의중앙선", {}, "1063"),
    ("strip_stock_prefix", "A005930", {}, "005930"),
    ("strip_stock_prefix", "005930", {}, "005930"),
    ("law_article_jo", "제750조", {}, "075000"),
    ("law_article_jo", "제10조의2", {}, "001002"),
    ("law_article_jo", "민법 제750조", {}, "075000"),
    ("bill_to_law_name", "도로교통법 일부개정법률안", {}, "도로교통법"),
    ("bill_to_law_name", "민법 전부개정법률안", {}, "민법"),
    ("bill_to_law_name", "도로교통법", {}, "도로교통법"),
    ("strip_parenthetical", "서울특별시 중구 세종대로 110 (태평로1가)", {}, "서울특별시 중구 세종대로 110"),
    ("constituency_district", "서울 강남구갑", {}, "서울특별시 강남구"),
    ("constituency_district", "경북 의성군청송군영덕군", {}, "경상북도 의성군"),
    ("constituency_district", "경기 수원시을", {}, "경기도 수원시"),
    ("constituency_district", "세종특별자치시갑", {}, "세종특별자치시"),
    ("umd_from_address", "서울특별시 강남구 대치동 316", {}, "대치동"),
    ("umd_from_address", {"addr1": "서울특별시 종로구 계동길 349", "addr2": "(계동)"}, {}, "계동"),
    ("umd_from_address", "서울특별시 중구 세종대로 110 (태평로1가)", {}, "태평로1가"),
    ("umd_from_address", {"addr1": "서울특별시 종로구 사직로 161", "addr2": "(세종로)"}, {}, "세종로"),
    ("cited_law_name", "민법 제750조", {}, "민법"),
    ("cited_law_name", "도로교통법 제44조, 민법 제750조", {}, "도로교통법"),
]


@pytest.mark.parametrize("name,value,kwargs,expected", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_cases(name, value, kwargs, expected):
    assert A(name, value, **kwargs) == expected


KMA_TIME_CASES = [
    # getVilageFcst: 0200..2300 every 3 h, +10 min
    ("kma_base", "2026-11-30T09:00", ("20261130", "0800")),
    ("kma_base", "2026-11-30T08:09", ("20261130", "0500")),
    ("kma_base", "2026-11-30T08:10", ("20261130", "0800")),
    ("kma_base", "2026-11-30T02:09", ("20261129", "2300")),
    ("kma_base", "2026-11-30T02:10", ("20261130", "0200")),
    ("kma_base", "2026-11-30T00:05", ("20261129", "2300")),
    ("kma_base", "2026-11-30T23:59", ("20261130", "2300")),
    ("kma_base", "2026-01-01T01:00", ("20251231", "2300")),
    ("kma_base", "202611301415", ("20261130", "1400")),
    # getUltraSrtNcst: HH00, minute < 45 -> previous hour
    ("kma_ultra_ncst_base", "2026-11-30T09:44", ("20261130", "0800")),
    ("kma_ultra_ncst_base", "2026-11-30T09:45", ("20261130", "0900")),
    ("kma_ultra_ncst_base", "2026-11-30T00:30", ("20261129", "2300")),
    # getUltraSrtFcst: HH30, available ~HH45
    ("kma_ultra_fcst_base", "2026-11-30T10:44", ("20261130", "0930")),
    ("kma_ultra_fcst_base", "2026-11-30T10:45", ("20261130", "1030")),
    ("kma_ultra_fcst_base", "2026-11-30T10:00", ("20261130", "0930")),
    ("kma_ultra_fcst_base", "2026-11-30T00:20", ("20261129", "2330")),
]


@pytest.mark.parametrize("name,when,expected", KMA_TIME_CASES)
def test_kma_base_times(name, when, expected):
    assert A(name, when) == {"base_date": expected[0], "base_time": expected[1]}
    assert A(f"{name}_date", when) == expected[0]
    assert A(f"{name}_time", when) == expected[1]


def test_kma_base_defaults_to_world_clock(monkeypatch):
    monkeypatch.delenv("KOPA_WORLD_NOW", raising=False)
    assert A("kma_base", None) == {"base_date": "20261130", "base_time": "0800"}
    monkeypatch.setenv("KOPA_WORLD_NOW", "2026-05-05T01:00")
    assert A("kma_base_time", None) == "2300"
    assert A("kma_base_date", None) == "20260504"


def test_kma_base_aware_datetime_converted_to_kst():
    # 2026-11-30 00:00 UTC = 09:00 KST
    assert A("kma_base", datetime(2026, 11, 30, tzinfo=timezone.utc))["base_time"] == "0800"


def test_sido_short_all_17():
    expected = {
        "서울특별시": "서울", "부산광역시": "부산", "대구광역시": "대구", "인천광역시": "인천",
        "광주광역시": "광주", "대전광역시": "대전", "울산광역시": "울산", "세종특별자치시": "세종",
        "경기도": "경기", "강원특별자치도": "강원", "충청북도": "충북", "충청남도": "충남",
        "전북특별자치도": "전북", "전라남도": "전남", "경상북도": "경북", "경상남도": "경남",
        "제주특별자치도": "제주",
    }  # fmt: skip
    assert len(SIDO) == 17
    for full, short in expected.items():
        assert A("sido_short", full) == short
        assert A("sido_full", short) == full
        assert A("sido_short", short) == short  # idempotent
        assert A("sido_full", full) == full


def test_sido_lookups_cover_all_17():
    from kopa_bench.refdata import table_rows

    offices = {A("sido_to_neis_office", full) for _, full, _, _ in SIDO}
    assert offices == {r["atpt_ofcdc_sc_code"] for r in table_rows("neis_offices")}
    areas = {A("sido_to_tourapi_area", short) for _, _, short, _ in SIDO}
    assert areas == {r["area_code"] for r in table_rows("tourapi_area_codes")}


def test_sido_short_matches_airkorea_station_sido_names():
    from kopa_bench.refdata import table_rows

    names = {r["sido_name"] for r in table_rows("airkorea_stations")}
    assert names <= {short for _, _, short, _ in SIDO}


def test_sido_errors():
    with pytest.raises(ValueError, match="'뉴욕' is not a 시도 name"):
        A("sido_short", "뉴욕")
    with pytest.raises(ValueError, match="does not start with a 시도 code"):
        A("sido_code", "9900000000")


def test_tago_errors():
    with pytest.raises(ValueError, match="not served by TAGO"):
        A("city_to_tago_code", "서울특별시")
    with pytest.raises(ValueError, match="not a TAGO city name"):
        A("city_to_tago_code", "아틀란티스시")


def test_tago_every_row_resolves_to_itself():
    from kopa_bench.refdata import table_rows

    for r in table_rows("tago_city_codes"):
        if len(r["citycode"]) > 2:  # 시군 rows: every part name maps back to the row
            for part in r["cityname"].split("/"):
                if part == "계룡시":
                    continue  # listed twice (own row + with 대전); tested above
                assert A("city_to_tago_code", part) == r["citycode"], r


def test_tm_transforms_roundtrip():
    x, y = A("wgs84_to_tm", {"lat": "37.5665", "lon": "126.9780"})
    assert A("wgs84_to_tm_x", (37.5665, 126.9780)) == x
    assert A("wgs84_to_tm_y", (37.5665, 126.9780)) == y
    lat, lon = A("tm_to_wgs84", {"tmX": str(x), "tmY": str(y)})
    assert (lat, lon) == pytest.approx((37.5665, 126.9780), abs=1e-6)
    assert A("tm_to_lat", (x, y)) == pytest.approx(37.5665, abs=1e-6)
    assert A("tm_to_lon", (x, y)) == pytest.approx(126.9780, abs=1e-6)
    gx, _ = A("wgs84_to_tm", (37.5665, 126.9780), variant="grs80")
    assert gx != x


def test_utmk_transforms_roundtrip():
    x, y = A("wgs84_to_utmk", (37.5665, 126.9780))
    rec = {"entX": f"{x:.6f}", "entY": f"{y:.6f}"}
    assert A("utmk_to_wgs84", rec) == pytest.approx((37.5665, 126.9780), abs=1e-6)
    assert A("utmk_to_lat", rec) == pytest.approx(37.5665, abs=1e-6)
    assert A("utmk_to_lon", rec) == pytest.approx(126.9780, abs=1e-6)


def test_kma_grid_to_latlon_and_distance():
    lat, lon = A("kma_grid_to_latlon", {"nx": "60", "ny": "127"})
    assert A("latlon_to_kma_grid", (lat, lon)) == (60, 127)
    d = A("distance_km", ({"mapy": "37.5665", "mapx": "126.9780"}, (35.1796, 129.0756)))
    assert d == pytest.approx(325.1, abs=0.5)


def test_airkorea_dmx_is_latitude():
    assert A("latlon_to_kma_grid", {"dmX": "37.5665", "dmY": "126.978"}) == (60, 127)


def test_value_errors_name_the_value():
    with pytest.raises(ValueError, match="'116801' has 6 digits"):
        A("lawd_cd", "116801")
    with pytest.raises(ValueError, match="digits only"):
        A("lawd_cd", "11680a0600")
    with pytest.raises(ValueError, match="shorter than the 5"):
        A("prefix", "11", n=5)
    with pytest.raises(ValueError, match="'2024/13/01'|not a real calendar date|not in a known format"):
        A("yyyymmdd", "2024/13/01")
    with pytest.raises(ValueError, match="'20241301' is not a real calendar date"):
        A("yyyymmdd", "20241301")
    with pytest.raises(ValueError, match="not in a known format"):
        A("yyyymm", "next week")
    with pytest.raises(ValueError, match="ECOS cycle 'W'"):
        A("ecos_period", "20240101", cycle="W")
    with pytest.raises(ValueError, match="10 digits"):
        A("b_no_list", "123-45")
    with pytest.raises(ValueError, match="not an Assembly 대수"):
        A("assembly_unit_cd", "abc")
    with pytest.raises(ValueError, match="not an Assembly UNIT_CD"):
        A("assembly_age", "22")
    with pytest.raises(ValueError, match="empty"):
        A("manwon_to_int", " ")
    with pytest.raises(ValueError, match="not an integer"):
        A("to_int", "1.5")
    with pytest.raises(ValueError, match="subway line '99호선' is unknown"):
        A("subway_line_to_id", "99호선")
    with pytest.raises(ValueError, match="names no article"):
        A("law_article_jo", "부칙")
    with pytest.raises(ValueError, match="no lat/lon fields"):
        A("latlon_to_kma_grid", {"foo": 1})
    with pytest.raises(ValueError, match="not a scalar"):
        A("to_str", None)
    with pytest.raises(ValueError, match="list of parts"):
        A("concat", "11680")
    with pytest.raises(ValueError, match="fewer than 3 tokens"):
        A("first_tokens", "서울특별시", n=3)


def test_unknown_transform_lists_valid_names():
    with pytest.raises(KeyError) as exc:
        A("prefix_5", "1168010600")
    msg = str(exc.value)
    assert "'prefix_5'" in msg and "prefix5" in msg and "lawd_cd" in msg


def test_unexpected_kwarg_rejected():
    with pytest.raises(TypeError, match=r"'lawd_cd' got unexpected argument\(s\) \['n'\]"):
        A("lawd_cd", "1168010600", n=3)


def test_registry_metadata():
    assert len(TRANSFORMS) >= 60
    assert transform_names() == sorted(TRANSFORMS)
    for name, t in TRANSFORMS.items():
        assert isinstance(t, Transform) and t.name == name
        assert t.description and t.input_kind in KINDS and t.output_kind in KINDS
        assert callable(t.func)
    assert TRANSFORMS["lawd_cd"]("1168010600") == "11680"  # Transform is callable


def test_every_transform_has_a_test_case():
    tested = {c[0] for c in CASES} | {c[0] for c in KMA_TIME_CASES}
    tested |= {f"{n}_{s}" for n in {c[0] for c in KMA_TIME_CASES} for s in ("date", "time")}
    tested |= {
        "wgs84_to_tm", "wgs84_to_tm_x", "wgs84_to_tm_y", "tm_to_wgs84", "tm_to_lat", "tm_to_lon",
        "utmk_to_wgs84", "utmk_to_lat", "utmk_to_lon", "wgs84_to_utmk", "kma_grid_to_latlon", "distance_km",
    }  # fmt: skip
    assert set(TRANSFORMS) - tested == set()


def test_import_does_not_load_refdata():
    import subprocess
    import sys

    # a fresh interpreter: importing the package must not have read any reference table
    code = ("import kopa_bench.transforms, kopa_bench.transforms.regions as mod; "
            "print(mod._neis_by_sido.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert int(out.strip()) == 0


def test_memoised_date_transforms_answer_as_before_and_keep_raising():
    """Date transforms memoise text and integer inputs (EDGE binds the same dates many times);
    the answers, types kept apart (True is not 1) and errors must stay those of the conversion."""
    for _ in range(2):  # the second round is answered from the memo
        assert apply_transform("yyyymmdd", "2024-10-03") == "20241003"
        assert apply_transform("yyyymmdd", 20241003) == "20241003"
        assert apply_transform("yyyymm", "20241003") == "202410"
        assert apply_transform("yyyy_mm_dd", date(2024, 10, 3)) == "2024-10-03"
        assert apply_transform("yyyy_mm_dd", datetime(2024, 10, 3, 23, 0)) == "2024-10-03"
        for bad in ("2024-13-01", True, "not a date"):
            with pytest.raises(ValueError):
                apply_transform("yyyymmdd", bad)
        with pytest.raises(ValueError):
            apply_transform("yyyymmdd", ["20241003"])  # unhashable: converted (and refused) directly

"""Issue 22: the world's static entities are the real public ones, and they answer as a Korean
user expects (schools, the 22nd National Assembly, one geography, 따릉이, subway line 2)."""

from __future__ import annotations

import re

from kopa_bench.refdata import load_table


# schools ------------------------------------------------------------------------------------
def test_every_real_school_with_a_road_address_is_a_neis_school(world):
    real = load_table("schools").to_pylist()
    have = world.sql("SELECT SCHUL_NM, ORG_RDNMA FROM neis_schools")
    pairs = {(r["SCHUL_NM"], r["ORG_RDNMA"]) for r in have}
    with_road = [r for r in real if r["road_addr"]]
    assert len(with_road) > 11_900
    assert all((r["name"], r["road_addr"]) in pairs for r in with_road)


def test_neis_codes_are_derived_in_the_real_format(world):
    rows = world.sql("SELECT ATPT_OFCDC_SC_CODE AS a, SD_SCHUL_CODE AS c FROM neis_schools")
    assert all(re.fullmatch(r"[B-T]10", r["a"]) and re.fullmatch(r"[789]\d{6}", r["c"]) for r in rows)
    assert len({(r["a"], r["c"]) for r in rows}) == len(rows)
    seoul = [r["c"] for r in rows if r["a"] == "B10"]
    assert all(c.startswith("701") for c in seoul)  # 서울특별시교육청 = 행정기관코드 7010000


def test_seoul_science_high_school_exists_with_a_december_menu(call):
    r = call("neis_schoolInfo", SCHUL_NM="서울과학고등학교")
    assert r.ok and r.total_count == 1
    s = r.records[0]
    assert s["ORG_RDNMA"] == "서울특별시 종로구 혜화로 63" and s["FOND_SC_NM"] == "공립"
    assert s["HS_SC_NM"] == "특목고" and s["SPCLY_PURPS_HS_ORD_NM"] == "과학계열"
    assert s["JU_ORG_NM"] == "서울특별시중부교육지원청" and s["FOND_YMD"] == "19880914"
    meals = call("neis_mealServiceDietInfo", ATPT_OFCDC_SC_CODE=s["ATPT_OFCDC_SC_CODE"],
                 SD_SCHUL_CODE=s["SD_SCHUL_CODE"], MLSV_YMD="20261201")
    assert meals.ok
    lunch = [m for m in meals.records if m["MMEAL_SC_CODE"] == "2"]
    assert len(lunch) == 1
    dishes = lunch[0]["DDISH_NM"].split("<br/>")
    kcal = float(lunch[0]["CAL_INFO"].removesuffix(" Kcal"))
    assert 4 <= len(dishes) <= 8 and 600 <= kcal <= 1100
    assert int(lunch[0]["MLSV_FGR"]) > 100


def test_school_counts_by_kind_are_real(world):
    counts = dict(world.con.execute("SELECT SCHUL_KND_SC_NM, count(*) FROM neis_schools GROUP BY 1").fetchall())
    assert 6_200 < counts["초등학교"] < 6_400 and 3_250 < counts["중학교"] < 3_350 and 2_350 < counts["고등학교"] < 2_450


def test_school_buildings_sit_at_the_schools_real_coordinates(world):
    rows = world.sql("SELECT s.SCHUL_NM, s._lat AS slat, s._lon AS slon, j.lat, j.lon FROM neis_schools s "
                     "JOIN juso_addr j ON j.roadAddrPart1 = s.ORG_RDNMA AND j.bdNm = s.SCHUL_NM "
                     "WHERE s.SCHUL_NM = '서울과학고등학교'")
    assert rows and abs(rows[0]["lat"] - 37.591548) < 1e-5 and abs(rows[0]["lon"] - 126.998436) < 1e-5


# National Assembly --------------------------------------------------------------------------
def test_jongno_has_one_member_kwak_sang_eon(call):
    r = call("assembly_nwvrqwxyaytdsfvhu", ORIG_NM="서울 종로구", pSize=10)
    assert r.ok and [(m["HG_NM"], m["POLY_NM"], m["ELECT_GBN_NM"]) for m in r.records] == [("곽상언", "더불어민주당", "지역구")]


def test_members_constituencies_and_parties_are_the_real_22nd_assembly(world):
    members = world.sql("SELECT HG_NM, POLY_NM, ORIG_NM, ELECT_GBN_NM FROM asm_members")
    real = load_table("assembly22_members").to_pylist()
    assert sorted((m["HG_NM"], m["ORIG_NM"]) for m in members) == sorted((r["name"], r["district"].strip()) for r in real)
    districts = {m["ORIG_NM"] for m in members if m["ELECT_GBN_NM"] == "지역구"}
    assert len(districts) == 254 and sum(m["ELECT_GBN_NM"] == "비례대표" for m in members) == 46
    parties = {}
    for m in members:
        parties[m["POLY_NM"]] = parties.get(m["POLY_NM"], 0) + 1
    assert parties["더불어민주당"] == 170 and parties["국민의힘"] == 108 and parties["조국혁신당"] == 12
    by_name = {m["HG_NM"]: m for m in members}
    assert by_name["이재명"]["ORIG_NM"] == "인천 계양구을" and by_name["이준석"]["POLY_NM"] == "개혁신당"


def test_real_bills_keep_their_number_sponsor_and_result(call, world):
    r = call("assembly_nzmimeepazxkubdpn", AGE="22", BILL_NO="2200021")
    assert r.ok and r.total_count == 1
    b = r.records[0]
    assert b["BILL_NAME"] == "애니메이션산업 진흥에 관한 법률 일부개정법률안" and b["RST_PROPOSER"] == "강유정"
    assert b["PROPOSER"] == "강유정의원 등 10인" and b["PROC_RESULT"] == "원안가결" and b["PROC_DT"] == "2024-09-26"
    assert b["COMMITTEE"] == "문화체육관광위원회"
    tally = call("assembly_ncocpgfiaoituanbr", AGE="22", BILL_ID=b["BILL_ID"])
    assert tally.ok and tally.records[0]["PROC_RESULT_CD"] == "원안가결"
    # every real bill decided in plenary has its tally, under its real number and result
    real = {r["bill_no"]: r["status"] for r in load_table("assembly22_bills").to_pylist()}
    tallies = {t["BILL_NO"]: t["PROC_RESULT_CD"] for t in world.sql("SELECT BILL_NO, PROC_RESULT_CD FROM asm_vote_tally")}
    assert all(tallies.get(no) == status for no, status in real.items())
    nos = [x["BILL_NO"] for x in world.sql("SELECT BILL_NO FROM asm_bills")]
    assert len(nos) == len(set(nos)) and len(nos) > 3000


# one geography ------------------------------------------------------------------------------
from kopa_bench.geo import haversine_km, latlon_to_kma_grid, tm_to_wgs84, utmk_to_wgs84, wgs84_to_tm  # noqa: E402

# real buildings: (road address, legal dong, its KMA 행정동, real lat, lon)
PLACES = [
    ("서울특별시 중구 세종대로 110", "태평로1가", "소공동", 37.566680, 126.978415),  # 서울특별시청
    ("서울특별시 종로구 세종대로 209", "세종로", "사직동", 37.575147, 126.975329),  # 정부서울청사
    ("서울특별시 강남구 학동로 426", "삼성동", "삼성2동", 37.517236, 127.047325),  # 강남구청
    ("서울특별시 영등포구 의사당대로 1", "여의도동", "여의동", 37.531878, 126.914011),  # 국회의사당
    ("서울특별시 종로구 혜화로 63", "명륜1가", "혜화동", 37.591548, 126.998436),  # 서울과학고등학교
]
BUILDING_M = 30  # juso and vworld give the building's own point
DONG_M = 2500  # AirKorea's TM centre is its legal dong's point; 여의도동 spans 4 km


def _tm_centre(call, umd: str, sgg: str) -> tuple[float, float]:
    tm = call("airkorea_getTMStdrCrdnt", umdName=umd, numOfRows=100)
    row = next(r for r in tm.records if r["sggName"] == sgg)
    return float(row["tmX"]), float(row["tmY"])


def test_every_locating_tool_puts_a_place_where_it_is(call):
    for addr, umd, admin_dong, lat, lon in PLACES:
        found = call("juso_addrLinkApi", keyword=addr)
        j = next(r for r in found.records if r["roadAddrPart1"] == addr)
        c = call("juso_addrCoordApi", **{k: j[k] for k in ("admCd", "rnMgtSn", "udrtYn", "buldMnnm", "buldSlno")})
        jlat, jlon = utmk_to_wgs84(c.records[0]["entX"], c.records[0]["entY"])
        assert haversine_km(jlat, jlon, lat, lon) * 1000 < BUILDING_M, ("juso", addr)
        v = call("vworld_getcoord", address=addr, type="ROAD").records[0]
        vlon, vlat = float(v["x"]), float(v["y"])
        assert haversine_km(vlat, vlon, lat, lon) * 1000 < BUILDING_M, ("vworld", addr)
        tx, ty = _tm_centre(call, umd, j["sggNm"])
        tlat, tlon = tm_to_wgs84(tx, ty)
        assert haversine_km(tlat, tlon, lat, lon) * 1000 < DONG_M, ("airkorea TM", addr)
        # KMA's grid cell of the building is its administrative dong's cell (5 km cells; ±1 at an edge)
        grid = next(g for g in load_table("kma_grid").to_pylist() if g["level3_eupmyeondong"] == admin_dong
                    and g["level2_sigungu"] == j["sggNm"])
        nx, ny = latlon_to_kma_grid(vlat, vlon)
        assert abs(nx - grid["nx"]) <= 1 and abs(ny - grid["ny"]) <= 1, ("kma grid", addr)


def test_city_hall_nearest_air_station_is_jung_gu(call):
    tx, ty = _tm_centre(call, "태평로1가", "중구")
    near = call("airkorea_getNearbyMsrstnList", tmX=tx, tmY=ty)
    assert near.ok and near.records[0]["stationName"] == "중구"


def test_tourapi_landmark_points_agree_with_the_map(call):
    r = call("tourapi_searchKeyword2", keyword="경복궁")
    item = next(i for i in r.records if i["title"] == "경복궁")
    lat, lon = float(item["mapy"]), float(item["mapx"])
    assert haversine_km(lat, lon, 37.579617, 126.977041) < 0.3  # 경복궁 (사직로 161) as published
    assert item["areacode"] == "1" and item["sigungucode"] == "23"  # 서울 종로구
    # its KMA cell is 종로구's (60, 127), and its TM point's nearest stations are the real neighbours
    assert latlon_to_kma_grid(lat, lon) == (60, 127)
    tx, ty = wgs84_to_tm(lat, lon)
    near = call("airkorea_getNearbyMsrstnList", tmX=f"{tx:.6f}", tmY=f"{ty:.6f}")
    assert {r["stationName"] for r in near.records[:2]} <= {"중구", "종로구", "종로"}


# 따릉이 and the subway ----------------------------------------------------------------------
GANGNAM_STATION = (37.497942, 127.027621)  # 강남역 (2호선 222), 강남대로 지하 396


def test_bike_stations_are_real_and_gangnam_station_has_some_within_300_m(call):
    rows = []
    for start in (1, 1001, 2001):
        r = call("seoul_bikeList", START_INDEX=start, END_INDEX=start + 999)
        rows += r.records
    assert len(rows) == load_table("seoul_bike_stations").num_rows > 2_700
    ids = [x["stationId"] for x in rows]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"ST-\d+", i) for i in ids)
    first = next(x for x in rows if x["stationId"] == "ST-117")  # real: 301 경복궁역 7번출구 앞, 40 racks
    assert first["stationName"] == "301. 경복궁역 7번출구 앞" and first["rackTotCnt"] == "40"
    near = [x for x in rows if haversine_km(float(x["stationLatitude"]), float(x["stationLongitude"]), *GANGNAM_STATION) < 0.3]
    assert len(near) >= 2


def test_subway_codes_are_real_and_line_2_inner_loop_runs_clockwise(call):
    st = call("seoul_SearchInfoBySubwayNameService", STATION_NM="강남").records
    line2 = next(s for s in st if s["LINE_NUM"] == "02호선")
    assert (line2["STATION_CD"], line2["FR_CODE"]) == ("0222", "222")
    city_hall = next(s for s in call("seoul_SearchInfoBySubwayNameService", STATION_NM="시청").records if s["LINE_NUM"] == "02호선")
    assert (city_hall["STATION_CD"], city_hall["FR_CODE"]) == ("0201", "201")
    # 내선순환 = clockwise = ascending codes: at 강남 (222) the next 내선 stop is 교대 (223), the next 외선 stop 역삼 (221)
    rt = [x for x in call("seoul_subway_realtimeStationArrival", statnNm="강남").records if x["subwayId"] == "1002"]
    inner = {x["trainLineNm"].split(" - ")[1] for x in rt if x["updnLine"] == "내선"}
    outer = {x["trainLineNm"].split(" - ")[1] for x in rt if x["updnLine"] == "외선"}
    assert inner == {"교대방면"} and outer == {"역삼방면"}
    # the timetable agrees: 내선 (INOUT_TAG 1) trains at 강남 come from 시청's side
    tt = call("seoul_SearchSTNTimeTableByIDService", STATION_CD="0222", WEEK_TAG="1", INOUT_TAG="1", END_INDEX=5).records
    assert tt and tt[0]["SUBWAYSNAME"] == "시청"
    # the branches are lines of their own: 용답 (211-1) follows 성수, not 충정로
    yd = [x for x in call("seoul_subway_realtimeStationArrival", statnNm="용답").records if x["subwayId"] == "1002"]
    assert yd and "충정로" not in {x["trainLineNm"].split(" - ")[1] for x in yd}


# statutes -----------------------------------------------------------------------------------
def test_road_traffic_act_articles_carry_the_official_text(call):
    law = next(r for r in call("law_lawSearch", query="도로교통법").records if r["법령명한글"] == "도로교통법")
    art = call("law_lawService", MST=law["법령일련번호"], JO="004400")
    assert art.ok and art.records
    text = str(art.records)
    assert "술에 취한 상태에서의 운전 금지" in text and "혈중알코올농도가 0.03퍼센트 이상" in text


def test_precedents_cite_articles_that_exist(world):
    from kopa_bench.transforms import apply_transform

    arts = {(a["법령명"], a["JO"]) for a in world.sql("SELECT 법령명, JO FROM law_articles")}
    refs = [ref for p in world.sql("SELECT 참조조문 FROM law_precs") for ref in p["참조조문"].split(", ")]
    assert refs and all((ref.rsplit(" ", 1)[0], apply_transform("law_article_jo", ref)) in arts for ref in refs)


# FSC ----------------------------------------------------------------------------------------
def test_every_fsc_item_is_a_real_listed_company(world):
    listed = {r["code"]: r for r in load_table("krx_listed_companies").to_pylist()}
    items = world.sql("SELECT srtnCd, itmsNm, mrktCtg FROM fsc_items")
    assert len(items) == 150
    from_kind = [i for i in items if i["srtnCd"] in listed]
    assert len(from_kind) >= 140  # the hand-listed large caps are real too (삼성전자우 is a preferred issue)
    assert all(listed[i["srtnCd"]]["market"] == i["mrktCtg"] for i in from_kind)

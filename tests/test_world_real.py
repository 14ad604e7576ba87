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
    assert sorted((m["HG_NM"], m["ORIG_NM"]) for m in members) == sorted((r["name"], r["district"]) for r in real)
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

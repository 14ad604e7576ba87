"""NEIS (open.neis.go.kr/hub): envelope, codes, sample-key quirk, paging, the school chains."""

import json

import xmltodict

K = {"KEY": "KOPA-SANDBOX"}


def _school(call, kind="고등학교", office="B10"):
    r = call("neis_schoolInfo", ATPT_OFCDC_SC_CODE=office, SCHUL_KND_SC_NM=kind, pSize=5)
    assert r.ok and r.records
    return r.records[0]


def test_xml_default_json_switch_and_envelope(raw_get):
    r = raw_get("/hub/schoolInfo", {**K, "SCHUL_NM": "서울고등학교"})
    assert r.status_code == 200 and "charset=UTF-8" in r.headers["content-type"]
    doc = xmltodict.parse(r.text)
    assert doc["schoolInfo"]["head"]["RESULT"]["CODE"] == "INFO-000"
    for t in ("json", "JSON", "Json"):
        body = raw_get("/hub/schoolInfo", {**K, "Type": t, "SCHUL_NM": "서울고등학교"}).json()
        head, rows = body["schoolInfo"][0]["head"], body["schoolInfo"][1]["row"]
        assert isinstance(head[0]["list_total_count"], int) and head[1]["RESULT"]["CODE"] == "INFO-000"
        assert any(x["SCHUL_NM"] == "서울고등학교" for x in rows)


def test_errors_are_top_level_result(raw_get):
    assert raw_get("/hub/schoolInfo", {"KEY": "WRONG", "Type": "json"}).json()["RESULT"]["CODE"] == "ERROR-290"
    assert raw_get("/hub/mealServiceDietInfo", {**K, "Type": "json", "ATPT_OFCDC_SC_CODE": "B10"}).json()["RESULT"]["CODE"] == "ERROR-300"
    assert raw_get("/hub/schoolInfo", {**K, "Type": "json", "pIndex": "x"}).json()["RESULT"]["CODE"] == "ERROR-333"
    assert raw_get("/hub/schoolInfo", {**K, "Type": "json", "pSize": 1001}).json()["RESULT"]["CODE"] == "ERROR-336"
    assert raw_get("/hub/schoolInfo", {**K, "Type": "json", "SCHUL_NM": "없는학교이름"}).json()["RESULT"]["CODE"] == "INFO-200"
    assert raw_get("/hub/noSuchService", {**K, "Type": "json"}).json()["RESULT"]["CODE"] == "ERROR-310"
    doc = xmltodict.parse(raw_get("/hub/schoolInfo", {"KEY": "WRONG"}).text)
    assert doc["RESULT"]["CODE"] == "ERROR-290"


def test_keyless_behaves_as_sample_key(raw_get):
    body = raw_get("/hub/schoolInfo", {"Type": "json", "pSize": 100, "pIndex": 3}).json()
    rows = body["schoolInfo"][1]["row"]
    assert len(rows) == 5 and body["schoolInfo"][0]["head"][0]["list_total_count"] > 1000
    first = raw_get("/hub/schoolInfo", {**K, "Type": "json", "pSize": 5}).json()["schoolInfo"][1]["row"]
    assert [r["SD_SCHUL_CODE"] for r in rows] == [r["SD_SCHUL_CODE"] for r in first]


def test_paging_consistent(raw_get):
    q = {**K, "Type": "json", "ATPT_OFCDC_SC_CODE": "J10"}
    full = raw_get("/hub/schoolInfo", {**q, "pSize": 1000}).json()["schoolInfo"]
    total = full[0]["head"][0]["list_total_count"]
    assert total > 300
    p2 = raw_get("/hub/schoolInfo", {**q, "pSize": 10, "pIndex": 2}).json()["schoolInfo"]
    assert [r["SD_SCHUL_CODE"] for r in p2[1]["row"]] == [r["SD_SCHUL_CODE"] for r in full[1]["row"][10:20]]
    beyond = raw_get("/hub/schoolInfo", {**q, "pSize": 1000, "pIndex": 50}).json()
    assert beyond["RESULT"]["CODE"] == "INFO-200"


def test_every_office_has_all_kinds(call):
    for office in ("B10", "C10", "I10", "J10", "T10"):
        for kind in ("초등학교", "중학교", "고등학교"):
            r = call("neis_schoolInfo", ATPT_OFCDC_SC_CODE=office, SCHUL_KND_SC_NM=kind, pSize=1)
            assert r.ok and r.total_count >= 1, (office, kind)


def test_school_chain_meals_schedule_classes_timetable(call):
    s = _school(call)
    codes = {"ATPT_OFCDC_SC_CODE": s["ATPT_OFCDC_SC_CODE"], "SD_SCHUL_CODE": s["SD_SCHUL_CODE"]}
    meals = call("neis_mealServiceDietInfo", **codes, MLSV_YMD="202612")
    assert meals.ok and meals.total_count > 10
    m = meals.records[0]
    assert "<br/>" in m["DDISH_NM"] and m["CAL_INFO"].endswith(" Kcal") and m["MMEAL_SC_NM"] in ("조식", "중식", "석식")
    assert all(r["MLSV_YMD"].startswith("202612") for r in meals.records)
    sched = call("neis_SchoolSchedule", **codes, AA_FROM_YMD="20261101", AA_TO_YMD="20261231")
    assert sched.ok and {"2학기 기말고사", "대학수학능력시험", "토요휴업일"} <= {r["EVENT_NM"] for r in sched.records}
    classes = call("neis_classInfo", **codes, GRADE="2")
    assert classes.ok and classes.records
    c = classes.records[0]
    tt = call("neis_hisTimetable", **codes, GRADE=c["GRADE"], CLASS_NM=c["CLASS_NM"], TI_FROM_YMD="20261130", TI_TO_YMD="20261204")
    assert tt.ok and tt.total_count >= 25 and all(r["ITRT_CNTNT"] for r in tt.records)


def test_no_meals_or_classes_on_days_off(call):
    s = _school(call, "초등학교", "C10")
    codes = {"ATPT_OFCDC_SC_CODE": s["ATPT_OFCDC_SC_CODE"], "SD_SCHUL_CODE": s["SD_SCHUL_CODE"]}
    assert call("neis_mealServiceDietInfo", **codes, MLSV_YMD="20261129").result_code == "INFO-200"  # Sunday
    assert call("neis_mealServiceDietInfo", **codes, MLSV_YMD="20261225").result_code == "INFO-200"  # 기독탄신일
    off = call("neis_SchoolSchedule", **codes, AA_YMD="2026", pSize=1000)
    days_off = {r["AA_YMD"] for r in off.records if r["SBTR_DD_SC_NM"] in ("휴업일", "공휴일")}
    meals = call("neis_mealServiceDietInfo", **codes, MLSV_FROM_YMD="20260301", MLSV_TO_YMD="20261231", pSize=1000)
    assert meals.ok and not days_off & {r["MLSV_YMD"] for r in meals.records}


def test_timetable_datasets_only_have_their_kind(call):
    his = _school(call, "고등학교")
    els = _school(call, "초등학교")
    mis = _school(call, "중학교")
    for s, ok_tool in ((his, "neis_hisTimetable"), (els, "neis_elsTimetable"), (mis, "neis_misTimetable")):
        codes = {"ATPT_OFCDC_SC_CODE": s["ATPT_OFCDC_SC_CODE"], "SD_SCHUL_CODE": s["SD_SCHUL_CODE"], "ALL_TI_YMD": "20261201"}
        for tool in ("neis_hisTimetable", "neis_elsTimetable", "neis_misTimetable"):
            r = call(tool, **codes)
            assert r.ok
            assert (r.total_count > 0) == (tool == ok_tool), (s["SCHUL_KND_SC_NM"], tool)


def test_special_school_timetable(call):
    s = _school(call, "특수학교", "J10")
    r = call("neis_spsTimetable", ATPT_OFCDC_SC_CODE=s["ATPT_OFCDC_SC_CODE"], SD_SCHUL_CODE=s["SD_SCHUL_CODE"], ALL_TI_YMD="20261201")
    assert r.ok and r.total_count > 0


def test_schedule_day_to_meal_chain(call):
    s = _school(call, "중학교", "E10")
    codes = {"ATPT_OFCDC_SC_CODE": s["ATPT_OFCDC_SC_CODE"], "SD_SCHUL_CODE": s["SD_SCHUL_CODE"]}
    sched = call("neis_SchoolSchedule", **codes, AA_YMD="202612")
    exam = next(r for r in sched.records if r["EVENT_NM"] == "2학기 기말고사")
    assert call("neis_mealServiceDietInfo", **codes, MLSV_YMD=exam["AA_YMD"]).total_count >= 1


def test_reference_chains(call):
    chains = [json.loads(line) for line in open("tests/data/reference_chains.jsonl", encoding="utf-8")]
    mine = [c for c in chains if c["from_operation"].startswith("neis.") and c["to_operation"].startswith("neis.")]
    assert len(mine) >= 7
    tool = {"neis.mealServiceDietInfo": "neis_mealServiceDietInfo", "neis.SchoolSchedule": "neis_SchoolSchedule",
            "neis.classInfo": "neis_classInfo", "neis.hisTimetable": "neis_hisTimetable"}
    s = call("neis_schoolInfo", SCHUL_NM="서울고등학교").records[0]
    codes = {"ATPT_OFCDC_SC_CODE": s["ATPT_OFCDC_SC_CODE"], "SD_SCHUL_CODE": s["SD_SCHUL_CODE"]}
    for c in mine:
        if c["from_operation"] == "neis.schoolInfo":
            r = call(tool[c["to_operation"]], **codes, **({"pSize": 50}))
        elif c["from_operation"] == "neis.classInfo":
            k = call("neis_classInfo", **codes).records[0]
            r = call("neis_hisTimetable", **codes, GRADE=k["GRADE"], CLASS_NM=k["CLASS_NM"])
        else:  # SchoolSchedule.AA_YMD -> meal date (a school-day event)
            ev = next(e for e in call("neis_SchoolSchedule", **codes, AA_YMD="202612").records if e["SBTR_DD_SC_NM"] == "해당없음")
            r = call("neis_mealServiceDietInfo", **codes, MLSV_YMD=ev["AA_YMD"])
        assert r.ok and r.records, c


# ---- whole school years from 2020 ------------------------------------------------------------------

def _a_school(call, kind="중학교"):
    res = call("neis_schoolInfo", ATPT_OFCDC_SC_CODE="B10", SCHUL_KND_SC_NM=kind, pSize=5)
    s = res.records[0]
    return {"ATPT_OFCDC_SC_CODE": s["ATPT_OFCDC_SC_CODE"], "SD_SCHUL_CODE": s["SD_SCHUL_CODE"]}


def test_meals_of_may_2025_and_every_year_from_2020(call):
    school = _a_school(call)
    may = call("neis_mealServiceDietInfo", **school, MLSV_YMD="202505", pSize=100)
    assert may.ok and may.total_count >= 15  # about 20 school days
    assert {r["MLSV_YMD"][:6] for r in may.records} == {"202505"}
    assert not [r for r in may.records if r["MLSV_YMD"] == "20250505"]  # 어린이날
    for ym in ("202009", "202103", "202311", "202606"):
        assert call("neis_mealServiceDietInfo", **school, MLSV_YMD=ym).total_count > 0, ym
    assert call("neis_mealServiceDietInfo", **school, MLSV_YMD="201905").total_count == 0  # before 2020
    # a date's menu is the same however it is asked for
    day = may.records[3]
    one = call("neis_mealServiceDietInfo", **school, MLSV_YMD=day["MLSV_YMD"])
    ranged = call("neis_mealServiceDietInfo", **school, MLSV_FROM_YMD="20250301", MLSV_TO_YMD="20260228", pSize=1000)
    assert one.records == [day] and day in ranged.records
    assert ranged.total_count > 150  # a whole school year of lunches


def test_schedule_and_timetable_of_past_years(call):
    school = _a_school(call)
    sched = call("neis_SchoolSchedule", **school, AA_YMD="2023", pSize=1000)
    assert sched.ok and {r["AY"] for r in sched.records} == {"2022", "2023"}  # Jan-Feb 2023 belong to AY 2022
    names = {r["EVENT_NM"] for r in sched.records if r["AY"] == "2023"}
    assert {"입학식", "여름방학식", "1학기 중간고사"} <= names
    by_range = call("neis_SchoolSchedule", **school, AA_FROM_YMD="20210301", AA_TO_YMD="20220228", pSize=1000)
    assert by_range.total_count > 50 and {r["AY"] for r in by_range.records} == {"2021"}
    sem1 = call("neis_misTimetable", **school, GRADE="1", CLASS_NM="1", TI_FROM_YMD="20240501", TI_TO_YMD="20240531", pSize=1000)
    assert sem1.ok and sem1.total_count > 50 and {(r["AY"], r["SEM"]) for r in sem1.records} == {("2024", "1")}
    sem2 = call("neis_misTimetable", **school, AY="2020", SEM="2", GRADE="1", CLASS_NM="1", pSize=10)
    assert sem2.total_count > 100 and {r["SEM"] for r in sem2.records} == {"2"}
    classes = call("neis_classInfo", **school, AY="2022")
    assert classes.total_count > 0 and {r["AY"] for r in classes.records} == {"2022"}
    assert call("neis_classInfo", **school, AY="2019").total_count == 0

"""KASI 특일정보 on the data.go.kr protocol: _type switch, single-item object, "" for none."""

import xmltodict

from kopa_bench.transforms import apply_transform

BASE = "/B090041/openapi/service/SpcdeInfoService"
KEY = {"serviceKey": "KOPA-SANDBOX"}


def test_xml_default_locdate_text_and_json_numbers(raw_get):
    r = raw_get(f"{BASE}/getRestDeInfo", {**KEY, "solYear": "2026", "solMonth": "10"})
    assert r.headers["content-type"] == "application/xml;charset=UTF-8"
    doc = xmltodict.parse(r.text)["response"]
    assert doc["header"] == {"resultCode": "00", "resultMsg": "NORMAL SERVICE."}
    items = doc["body"]["items"]["item"]
    assert isinstance(items, list) and items[0]["locdate"].isdigit()
    for v in ("json", "JSON"):
        body = raw_get(f"{BASE}/getRestDeInfo", {**KEY, "solYear": "2026", "solMonth": "10", "_type": v}).json()["response"]["body"]
        first = body["items"]["item"][0]
        assert isinstance(first["locdate"], int) and isinstance(first["seq"], int) and first["dateKind"] == "01"
        assert isinstance(body["totalCount"], int)


def test_single_item_is_object_and_none_is_empty_string(raw_get, call):
    one = raw_get(f"{BASE}/getRestDeInfo", {**KEY, "solYear": "2026", "solMonth": "12", "_type": "json"}).json()
    assert one["response"]["body"]["items"] == {"item": {"dateKind": "01", "dateName": "기독탄신일", "isHoliday": "Y",
                                                         "locdate": 20261225, "seq": 1}}
    none = raw_get(f"{BASE}/getRestDeInfo", {**KEY, "solYear": "2026", "solMonth": "11", "_type": "json"}).json()
    assert none["response"]["header"]["resultCode"] == "00"
    assert none["response"]["body"]["items"] == "" and none["response"]["body"]["totalCount"] == 0
    res = call("kasi_getRestDeInfo", solYear="2026", solMonth="12")
    assert res.ok and res.records == [{"dateKind": "01", "dateName": "기독탄신일", "isHoliday": "Y", "locdate": 20261225, "seq": 1}]
    # one-digit month matches nothing, as on the live service
    assert call("kasi_getRestDeInfo", solYear="2026", solMonth="9").total_count == 0


def test_errors(raw_get):
    r = raw_get(f"{BASE}/getRestDeInfo", {"solYear": "2026", "_type": "json"})
    assert xmltodict.parse(r.text)["OpenAPI_ServiceResponse"]["cmmMsgHeader"]["returnReasonCode"] == "30"
    r = raw_get(f"{BASE}/getRestDeInfo", {**KEY, "_type": "json"})
    assert r.json()["response"]["header"]["resultCode"] == "11"
    r = raw_get(f"{BASE}/getRestDeInfo", {**KEY, "solYear": "26", "_type": "json"})
    assert r.json()["response"]["header"]["resultCode"] == "10"


def test_year_paging_and_real_names(raw_get, call):
    full = call("kasi_getRestDeInfo", solYear="2024", numOfRows=100)
    assert full.ok and full.total_count >= 15 and len(full.records) == full.total_count
    names = [r["dateName"] for r in full.records]
    assert names.count("설날") == 3 and names.count("추석") == 3 and "개천절" in names
    page = raw_get(f"{BASE}/getRestDeInfo", {**KEY, "solYear": "2024", "numOfRows": 5, "pageNo": 2, "_type": "json"}).json()
    body = page["response"]["body"]
    assert body["totalCount"] == full.total_count and body["numOfRows"] == 5 and body["pageNo"] == 2
    assert body["items"]["item"] == full.records[5:10]
    oct24 = call("kasi_getHoliDeInfo", solYear="2024", solMonth="10")
    assert [(r["dateName"], r["locdate"], r["seq"]) for r in oct24.records] == [
        ("임시공휴일", 20241001, 2), ("개천절", 20241003, 1), ("한글날", 20241009, 1)]
    jul = call("kasi_getHoliDeInfo", solYear="2024", solMonth="07")
    assert [(r["dateName"], r["isHoliday"]) for r in jul.records] == [("제헌절", "N")]


def test_anniversaries_and_solar_terms(call):
    ann = call("kasi_getAnniversaryInfo", solYear="2026", solMonth="12")
    assert ann.ok and all(r["dateKind"] == "02" and r["isHoliday"] == "N" for r in ann.records)
    assert any(r["dateName"] == "소비자의 날" and r["locdate"] == 20261203 for r in ann.records)
    terms = call("kasi_get24DivisionsInfo", solYear="2024", numOfRows=30)
    assert terms.total_count == 24
    by = {r["dateName"]: r for r in terms.records}
    assert by["입춘"]["locdate"] == 20240204 and by["동지"]["locdate"] == 20241221 and by["동지"]["sunLongitude"] == 270
    assert len(by["하지"]["kst"]) == 4


def test_chain_holiday_locdate_to_forecast_date(call):
    """kasi locdate -> client-side filter on getVilageFcst fcstDate (only dates within the horizon match)."""
    base = apply_transform("kma_base", "2026-11-30T09:00")
    fc = call("kma_getVilageFcst", nx=60, ny=127, numOfRows=2000, **base)
    assert fc.ok and fc.records
    rest = call("kasi_getRestDeInfo", solYear="2026", solMonth="12")
    assert rest.records and not [r for r in fc.records if r["fcstDate"] == str(rest.records[0]["locdate"])]  # 12-25 is too far
    ann = call("kasi_getAnniversaryInfo", solYear="2026", solMonth="12")
    day = str(next(r["locdate"] for r in ann.records if r["dateName"] == "소비자의 날"))
    assert [r for r in fc.records if r["fcstDate"] == day and r["category"] == "TMX"]


def test_chain_locdate_to_year_month(call):
    rest = call("kasi_getRestDeInfo", solYear="2026", numOfRows=50)
    d = rest.records[-1]["locdate"]
    again = call("kasi_getRestDeInfo", solYear=apply_transform("year", d), solMonth=apply_transform("month_2d", d))
    assert again.ok and d in [r["locdate"] for r in again.records]


def test_accept_json_header_gets_the_real_json_envelope(raw_get):
    """A client sending `Accept: application/json` and no _type gets JSON, quirks included (spec `sources`)."""
    q = {**KEY, "solYear": "2026", "solMonth": "10"}
    by_switch = raw_get(f"{BASE}/getRestDeInfo", {**q, "_type": "json"})
    by_header = raw_get(f"{BASE}/getRestDeInfo", q, headers={"Accept": "application/json"})
    assert by_header.headers["content-type"].startswith("application/json")
    assert by_header.json() == by_switch.json()
    first = by_header.json()["response"]["body"]["items"]["item"][0]
    assert isinstance(first["locdate"], int) and isinstance(first["seq"], int)
    one = raw_get(f"{BASE}/getRestDeInfo", {**KEY, "solYear": "2026", "solMonth": "12"},
                  headers={"Accept": "application/json, text/plain, */*"}).json()
    assert isinstance(one["response"]["body"]["items"]["item"], dict)  # one record: an object
    none = raw_get(f"{BASE}/getRestDeInfo", {**KEY, "solYear": "2026", "solMonth": "11"},
                   headers={"Accept": "application/json"}).json()
    assert none["response"]["body"]["items"] == ""
    # XML stays the default for XML-first or generic Accept headers, and an explicit _type wins
    for accept in ("*/*", "application/xml, application/json", "text/xml"):
        r = raw_get(f"{BASE}/getRestDeInfo", q, headers={"Accept": accept})
        assert r.headers["content-type"].startswith("application/xml"), accept
    r = raw_get(f"{BASE}/getRestDeInfo", {**q, "_type": "xml"}, headers={"Accept": "application/json"})
    assert r.headers["content-type"].startswith("application/xml")
    # the sandbox's answer memo tells the two formats apart
    again = raw_get(f"{BASE}/getRestDeInfo", q)
    assert again.headers["content-type"].startswith("application/xml")
    assert raw_get(f"{BASE}/getRestDeInfo", q, headers={"Accept": "application/json"}).json() == by_switch.json()


def test_holidays_and_solar_terms_from_2000_to_2030(call):
    """Years outside the stored 2020-2027 are answered too (world/answers/kasi_history.py)."""
    chuseok = call("kasi_getRestDeInfo", solYear="2019", solMonth="09")
    assert [(r["dateName"], r["locdate"]) for r in chuseok.records] == [("추석", 20190912), ("추석", 20190913), ("추석", 20190914)]
    assert all(isinstance(r["locdate"], int) for r in chuseok.records)  # numeric locdate kept
    y2017 = call("kasi_getRestDeInfo", solYear="2017", solMonth="10", numOfRows=20)
    assert [(r["dateName"], r["locdate"], r["seq"]) for r in y2017.records][:3] == [
        ("임시공휴일", 20171002, 1), ("개천절", 20171003, 1), ("추석", 20171003, 2)]
    assert call("kasi_getHoliDeInfo", solYear="2010", solMonth="07").records == [
        {"dateKind": "01", "dateName": "제헌절", "isHoliday": "N", "locdate": 20100717, "seq": 1}]  # one item, an object on the wire
    assert call("kasi_getRestDeInfo", solYear="2010", solMonth="07").total_count == 0
    assert call("kasi_getRestDeInfo", solYear="2000", numOfRows=100).total_count >= 15
    assert call("kasi_getRestDeInfo", solYear="2030", numOfRows=100).total_count >= 15
    assert call("kasi_getRestDeInfo", solYear="1999", numOfRows=100).total_count == 0
    assert call("kasi_getAnniversaryInfo", solYear="2015", numOfRows=100).total_count == 0  # anniversaries from 2022
    for year in ("2000", "2013", "2029"):
        terms = call("kasi_get24DivisionsInfo", solYear=year, numOfRows=30)
        assert terms.total_count == 24 and terms.records[0]["dateName"] == "소한"
        assert {r["dateName"] for r in terms.records} >= {"입춘", "하지", "동지"}
    winter = call("kasi_get24DivisionsInfo", solYear="2013", solMonth="12").records
    assert [r["dateName"] for r in winter] == ["대설", "동지"] and winter[1]["locdate"] == 20131222
    # stored years still come from the world file, unchanged
    assert call("kasi_getRestDeInfo", solYear="2026", solMonth="12").records[0]["locdate"] == 20261225

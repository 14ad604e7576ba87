"""AirKorea on the data.go.kr protocol: XML/JSON, gateway key errors, params, paging, quirks."""

import json

import xmltodict

BASE = "/B552584/MsrstnInfoInqireSvc"
ARP = "/B552584/ArpltnInforInqireSvc"


def test_xml_is_default_and_json_switch_is_case_insensitive(raw_get):
    r = raw_get(f"{BASE}/getTMStdrCrdnt", {"serviceKey": "KOPA-SANDBOX", "umdName": "혜화동"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/xml")
    assert "charset=UTF-8" in r.headers["content-type"]
    doc = xmltodict.parse(r.text)
    assert doc["response"]["header"]["resultCode"] == "00"
    for value in ("json", "JSON", "Json"):
        r = raw_get(f"{BASE}/getTMStdrCrdnt", {"serviceKey": "KOPA-SANDBOX", "umdName": "혜화동", "returnType": value})
        body = r.json()["response"]["body"]
        assert isinstance(body["items"], list) and body["totalCount"] >= 1
        assert isinstance(body["totalCount"], int)


def test_missing_or_unknown_key_gets_gateway_xml_30_even_for_json(raw_get):
    for params in ({}, {"serviceKey": "WRONG"}):
        r = raw_get(f"{ARP}/getCtprvnRltmMesureDnsty", {**params, "sidoName": "서울", "returnType": "json"})
        assert r.status_code == 200
        doc = xmltodict.parse(r.text)
        hdr = doc["OpenAPI_ServiceResponse"]["cmmMsgHeader"]
        assert hdr["returnReasonCode"] == "30"
        assert hdr["returnAuthMsg"] == "SERVICE_KEY_IS_NOT_REGISTERED_ERROR"


def test_capital_S_service_key_and_unknown_params_are_tolerated(raw_get):
    r = raw_get(f"{ARP}/getCtprvnRltmMesureDnsty",
                {"ServiceKey": "KOPA-SANDBOX", "sidoName": "서울", "returnType": "json", "foo": "bar"})
    assert r.json()["response"]["header"]["resultCode"] == "00"


def test_parameter_errors_use_codes_10_and_11_never_500(raw_get):
    r = raw_get(f"{ARP}/getMsrstnAcctoRltmMesureDnsty", {"serviceKey": "KOPA-SANDBOX", "returnType": "json", "dataTerm": "DAILY"})
    assert r.status_code == 200 and r.json()["response"]["header"]["resultCode"] == "11"
    r = raw_get(f"{ARP}/getMsrstnAcctoRltmMesureDnsty",
                {"serviceKey": "KOPA-SANDBOX", "returnType": "json", "stationName": "종로구", "dataTerm": "WEEK"})
    assert r.json()["response"]["header"]["resultCode"] == "10"
    r = raw_get(f"{ARP}/getCtprvnRltmMesureDnsty",
                {"serviceKey": "KOPA-SANDBOX", "returnType": "json", "sidoName": "서울", "numOfRows": "-5"})
    assert r.json()["response"]["header"]["resultCode"] == "10"


def test_paging_is_consistent_and_huge_numofrows_is_capped(raw_get):
    q = {"serviceKey": "KOPA-SANDBOX", "returnType": "json", "sidoName": "경기"}
    full = raw_get(f"{ARP}/getCtprvnRltmMesureDnsty", {**q, "numOfRows": 1000}).json()["response"]["body"]
    total = full["totalCount"]
    assert len(full["items"]) == total > 20
    p2 = raw_get(f"{ARP}/getCtprvnRltmMesureDnsty", {**q, "numOfRows": 10, "pageNo": 2}).json()["response"]["body"]
    assert p2["pageNo"] == 2 and p2["numOfRows"] == 10 and p2["totalCount"] == total
    assert [i["stationName"] for i in p2["items"]] == [i["stationName"] for i in full["items"][10:20]]
    big = raw_get(f"{ARP}/getCtprvnRltmMesureDnsty", {**q, "numOfRows": 10**9}).json()["response"]["body"]
    assert big["numOfRows"] == 1000


def test_no_redirects_and_get_with_body(raw_get):
    r = raw_get(f"{BASE}/getTMStdrCrdnt/", {"serviceKey": "KOPA-SANDBOX", "umdName": "혜화동"})
    assert r.status_code == 404
    r = raw_get(f"{BASE}/getTMStdrCrdnt", {"serviceKey": "KOPA-SANDBOX", "umdName": "혜화동", "returnType": "json"},
                content=b"ignored body")
    assert r.json()["response"]["header"]["resultCode"] == "00"


def test_version_gates_pm25(call):
    no_ver = call("airkorea_getMsrstnAcctoRltmMesureDnsty", stationName="종로구", dataTerm="DAILY")
    v13 = call("airkorea_getMsrstnAcctoRltmMesureDnsty", stationName="종로구", dataTerm="DAILY", ver="1.3")
    assert no_ver.ok and v13.ok
    assert no_ver.records[0].get("pm25Value") is None
    assert v13.records[0]["pm25Value"] and v13.records[0]["pm25Grade1h"]
    assert v13.total_count == 24  # DAILY = the last 24 hours


def test_dong_to_station_to_measurement_chain(call):
    tm = call("airkorea_getTMStdrCrdnt", umdName="혜화동")
    assert tm.ok and tm.records[0]["sggName"] == "종로구"
    near = call("airkorea_getNearbyMsrstnList", tmX=tm.records[0]["tmX"], tmY=tm.records[0]["tmY"])
    assert near.ok and len(near.records) == 3
    dists = [r["tm"] for r in near.records]
    assert dists == sorted(dists)
    meas = call("airkorea_getMsrstnAcctoRltmMesureDnsty", stationName=near.records[0]["stationName"], dataTerm="DAILY", ver="1.3")
    assert meas.ok and meas.total_count == 24


def test_dataterm_is_case_insensitive_as_on_the_live_service(raw_get, call):
    """`dataTerm=daily` (widely sent by clients) is DAILY; an unknown period is still code 10."""
    q = {"serviceKey": "KOPA-SANDBOX", "returnType": "json", "stationName": "종로구", "ver": "1.3", "numOfRows": 100}
    upper = raw_get(f"{ARP}/getMsrstnAcctoRltmMesureDnsty", {**q, "dataTerm": "DAILY"}).json()["response"]
    for spelling in ("daily", "Daily"):
        r = raw_get(f"{ARP}/getMsrstnAcctoRltmMesureDnsty", {**q, "dataTerm": spelling}).json()["response"]
        assert r["header"]["resultCode"] == "00"
        assert r["body"] == upper["body"] and r["body"]["totalCount"] >= 20
    month = raw_get(f"{ARP}/getMsrstnAcctoRltmMesureDnsty", {**q, "dataTerm": "month"}).json()["response"]
    assert month["body"]["totalCount"] > upper["body"]["totalCount"]
    # the client's own argument check agrees with the platform
    res = call("airkorea_getMsrstnAcctoRltmMesureDnsty", stationName="종로구", dataTerm="daily", ver="1.3")
    assert res.ok and res.records
    bad = call("airkorea_getMsrstnAcctoRltmMesureDnsty", stationName="종로구", dataTerm="weekly")
    assert not bad.ok and bad.error.type == "argument" and "dataTerm" in bad.error.message

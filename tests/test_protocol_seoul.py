"""Seoul Open Data (8088 path API) and the realtime subway host (swopenapi)."""

import json

import xmltodict

S, RT = "/seoul/KOPA-SANDBOX", "/swopenapi/KOPA-SANDBOX"


def test_path_api_xml_json_envelopes(raw_get):
    r = raw_get(f"{S}/json/SearchInfoBySubwayNameService/1/5/강남/")
    assert "charset=UTF-8" in r.headers["content-type"]
    body = r.json()["SearchInfoBySubwayNameService"]
    assert body["RESULT"]["CODE"] == "INFO-000" and isinstance(body["list_total_count"], int)
    assert {x["LINE_NUM"] for x in body["row"]} >= {"02호선", "신분당선"}
    assert any(x["STATION_CD"] == "0222" for x in body["row"])
    doc = xmltodict.parse(raw_get(f"{S}/xml/SearchInfoBySubwayNameService/1/5/강남").text)
    assert doc["SearchInfoBySubwayNameService"]["RESULT"]["CODE"] == "INFO-000"
    assert raw_get(f"{S}/JSON/SearchInfoBySubwayNameService/1/5/서울역").json()["SearchInfoBySubwayNameService"]["row"]


def test_error_codes(raw_get):
    def code(path):
        r = raw_get(path)
        t = r.text
        return (r.json() if t.startswith("{") else xmltodict.parse(t))["RESULT"]["CODE"]

    assert code("/seoul/WRONG/json/bikeList/1/5/") == "INFO-100"
    assert code(f"{S}/csv/bikeList/1/5/") == "ERROR-301"
    assert code(f"{S}/json/noSuchService/1/5/") == "ERROR-310"
    assert code(f"{S}/json/bikeList/a/5/") == "ERROR-333"
    assert code(f"{S}/json/bikeList/0/5/") == "ERROR-331"
    assert code(f"{S}/json/bikeList/9/5/") == "ERROR-334"
    assert code(f"{S}/json/bikeList/1/1001/") == "ERROR-336"
    assert code("/seoul/sample/json/bikeList/1/6/") == "ERROR-335"
    assert code(f"{S}/json/SearchSTNTimeTableByIDService/1/5/0222/") == "ERROR-300"
    assert code(f"{S}/json/SearchInfoBySubwayNameService/1/5/없는역/") == "INFO-200"
    assert code(f"{S}/json/SearchSTNTimeTableByIDService/1/5/0222/9/1/") == "INFO-200"


def test_bikelist_root_key_paging_and_total_quirk(raw_get, call):
    a = raw_get(f"{S}/json/bikeList/1/1000/").json()["rentBikeStatus"]
    b = raw_get(f"{S}/json/bikeList/1001/2000/").json()["rentBikeStatus"]
    c = raw_get(f"{S}/json/bikeList/2001/3000/").json()["rentBikeStatus"]
    assert len(a["row"]) == 1000 == a["list_total_count"] and len(b["row"]) == 1000
    assert 0 < len(c["row"]) < 1000 and c["list_total_count"] == len(c["row"])
    mid = raw_get(f"{S}/json/bikeList/11/20/").json()["rentBikeStatus"]["row"]
    assert [x["stationId"] for x in mid] == [x["stationId"] for x in a["row"][10:20]]
    r = call("seoul_bikeList")
    assert r.ok and len(r.records) == 1000
    x = r.records[0]
    assert 37.4 < float(x["stationLatitude"]) < 37.72 and 126.7 < float(x["stationLongitude"]) < 127.2
    assert int(x["shared"]) == round(int(x["parkingBikeTotCnt"]) / int(x["rackTotCnt"]) * 100)


def test_realtime_envelopes_and_errors(raw_get):
    body = raw_get(f"{RT}/json/realtimeStationArrival/0/10/강남").json()
    assert body["errorMessage"]["code"] == "INFO-000" and body["errorMessage"]["status"] == 200
    assert body["realtimeArrivalList"] and body["errorMessage"]["total"] >= len(body["realtimeArrivalList"])
    err = raw_get("/swopenapi/WRONG/json/realtimeStationArrival/0/5/강남").json()
    assert err["code"] == "INFO-100" and err["status"] == 500 and "errorMessage" not in err
    none = raw_get(f"{RT}/json/realtimeStationArrival/0/5/없는역").json()
    assert none["code"] == "INFO-200"
    doc = xmltodict.parse(raw_get(f"{RT}/xml/realtimeStationArrival/1/5/강남").text)
    assert doc["realtimeStationArrival"]["RESULT"]["code"] == "INFO-000"


def test_realtime_matches_timetable(call):
    rt = call("seoul_subway_realtimeStationArrival", statnNm="강남")
    assert rt.ok and rt.records
    line2 = [x for x in rt.records if x["subwayId"] == "1002"]
    assert line2 and all(int(x["barvlDt"]) >= 0 for x in line2)
    assert {x["updnLine"] for x in line2} <= {"내선", "외선"}
    x = line2[0]
    inout = "1" if x["updnLine"] == "내선" else "2"
    tt = call("seoul_SearchSTNTimeTableByIDService", STATION_CD="0222", WEEK_TAG="1", INOUT_TAG=inout, END_INDEX=1000)
    assert tt.ok and tt.total_count > 100
    due = 9 * 3600 + int(x["barvlDt"])  # world clock 2026-11-30 (Mon) 09:00
    arrivals = [sum(int(p) * m for p, m in zip(r["ARRIVETIME"].split(":"), (3600, 60, 1))) for r in tt.records]
    assert due in arrivals
    assert any(r["TRAIN_NO"] == x["btrainNo"] for r in tt.records)


def test_reference_chains(call):
    chains = [json.loads(line) for line in open("tests/data/reference_chains.jsonl", encoding="utf-8")]
    mine = [c for c in chains if c["from_operation"].startswith("seoul.") and c["to_operation"].startswith("seoul.")]
    assert len(mine) >= 4
    for name in ("강남", "서울역", "홍대입구", "잠실"):
        st = call("seoul_SearchInfoBySubwayNameService", STATION_NM=name)
        assert st.ok and st.records, name
        row = st.records[0]
        tt = call("seoul_SearchSTNTimeTableByIDService", STATION_CD=row["STATION_CD"], WEEK_TAG="1", INOUT_TAG="2")
        assert tt.ok and tt.records, name
        rt_name = "서울" if row["STATION_NM"] == "서울역" else row["STATION_NM"]
        rt = call("seoul_subway_realtimeStationArrival", statnNm=rt_name)
        assert rt.ok and rt.records, name
        # LINE_NUM -> subwayId client-side filter
        if row["LINE_NUM"].endswith("호선"):
            sid = str(1000 + int(row["LINE_NUM"][:2]))
            assert any(x["subwayId"] == sid for x in rt.records)
        back = call("seoul_SearchInfoBySubwayNameService", STATION_NM=rt.records[0]["bstatnNm"])
        assert back.ok and back.records, rt.records[0]["bstatnNm"]

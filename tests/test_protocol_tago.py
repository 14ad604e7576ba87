"""TAGO buses on the data.go.kr protocol: _type switch, quirks, clock-driven arrivals, chains."""

import xmltodict

from kopa_bench.transforms import apply_transform

STTN = "/1613000/BusSttnInfoInqireService"
ARVL = "/1613000/ArvlInfoInqireService"
ROUTE = "/1613000/BusRouteInfoInqireService"
KEY = {"serviceKey": "KOPA-SANDBOX"}


def test_city_codes_xml_and_json(raw_get, call):
    r = raw_get(f"{STTN}/getCtyCodeList", {**KEY, "numOfRows": 200})
    assert r.headers["content-type"] == "application/xml;charset=UTF-8"
    doc = xmltodict.parse(r.text)["response"]
    assert doc["header"] == {"resultCode": "00", "resultMsg": "NORMAL SERVICE."}
    assert doc["body"]["totalCount"] == "132"
    body = raw_get(f"{STTN}/getCtyCodeList", {**KEY, "_type": "JSON"}).json()["response"]["body"]
    assert body["items"]["item"][0] == {"citycode": 12, "cityname": "세종특별시"} and body["totalCount"] == 132
    names = {r["cityname"] for r in call("tago_getCtyCodeList", numOfRows=200).records}
    assert "대전광역시/계룡시" in names and not any("서울" in n for n in names)


def test_errors_and_empty(raw_get):
    r = raw_get(f"{STTN}/getSttnNoList", {"cityCode": "25", "_type": "json"})
    assert xmltodict.parse(r.text)["OpenAPI_ServiceResponse"]["cmmMsgHeader"]["returnReasonCode"] == "30"
    r = raw_get(f"{STTN}/getSttnNoList", {**KEY, "_type": "json", "nodeNm": "시청"})
    assert r.json()["response"]["header"]["resultCode"] == "11"
    r = raw_get(f"{STTN}/getCrdntPrxmtSttnList", {**KEY, "_type": "json", "gpsLati": "north", "gpsLong": "127.3"})
    assert r.json()["response"]["header"]["resultCode"] == "10"
    for city in ("11", "99999"):  # Seoul is not served; unknown city
        body = raw_get(f"{STTN}/getSttnNoList", {**KEY, "_type": "json", "cityCode": city}).json()["response"]["body"]
        assert body["items"] == "" and body["totalCount"] == 0
    body = raw_get(f"{STTN}/getCrdntPrxmtSttnList", {**KEY, "_type": "json", "gpsLati": 37.0, "gpsLong": 131.5}).json()
    assert body["response"]["body"]["items"] == ""


def test_stop_search_single_item_quirk_and_paging(raw_get, call):
    both = call("tago_getSttnNoList", cityCode="25", nodeNm="대전시청")
    assert both.ok and len(both.records) >= 1 and all(r["nodeid"].startswith("DJB") for r in both.records)
    one = raw_get(f"{STTN}/getSttnNoList", {**KEY, "_type": "json", "cityCode": "25",
                                            "nodeNo": both.records[0]["nodeno"]}).json()["response"]["body"]
    assert isinstance(one["items"]["item"], dict) and one["items"]["item"]["nodeid"] == both.records[0]["nodeid"]
    assert isinstance(one["items"]["item"]["gpslati"], float)
    full = call("tago_getSttnNoList", cityCode="31010", numOfRows=500)
    assert 30 <= full.total_count <= 90 and all(r["nodeid"].startswith("GGB") for r in full.records)
    page = call("tago_getSttnNoList", cityCode="31010", numOfRows=10, pageNo=2)
    assert page.records == full.records[10:20] and page.total_count == full.total_count
    names = [r["nodenm"] for r in full.records]
    assert any(names.count(n) == 2 for n in names)  # both sides of the road


def test_routes_and_partial_route_number(call):
    routes = call("tago_getRouteNoList", cityCode="25", numOfRows=100)
    assert 8 <= routes.total_count <= 30
    r0 = routes.records[0]
    assert r0["routeid"].startswith("DJB") and r0["startnodenm"] and len(r0["startvehicletime"]) == 4
    digit = next(ch for ch in r0["routeno"] if ch.isdigit())
    part = call("tago_getRouteNoList", cityCode="25", routeNo=digit, numOfRows=100)
    assert part.total_count >= 1 and all(digit in r["routeno"] for r in part.records)
    stops = call("tago_getRouteAcctoThrghSttnList", cityCode="25", routeId=r0["routeid"], numOfRows=200)
    ords = [s["nodeord"] for s in stops.records]
    assert ords == list(range(1, len(ords) + 1)) and {s["updowncd"] for s in stops.records} == {0, 1}
    assert stops.records[0]["nodenm"] == r0["startnodenm"]


def test_arrivals_follow_the_clock(call):
    seen = 0
    for city in ("25", "21", "31010", "34010", "37320"):
        stops = call("tago_getSttnNoList", cityCode=city, numOfRows=20).records
        for s in stops[:8]:
            arr = call("tago_getSttnAcctoArvlPrearngeInfoList", cityCode=city, nodeId=s["nodeid"], numOfRows=50)
            assert arr.ok
            for a in arr.records:
                assert isinstance(a["arrtime"], int) and 0 < a["arrtime"] < 4 * 3600
                assert a["arrprevstationcnt"] >= 1 and a["vehicletp"] in {"저상버스", "일반차량"}
                assert a["nodeid"] == s["nodeid"]
            seen += bool(arr.records)
    assert seen >= 25


def test_chain_city_to_stop_to_arrival_to_route_and_back(call):
    cities = call("tago_getCtyCodeList", numOfRows=200)
    code = str(next(c["citycode"] for c in cities.records if c["cityname"].startswith("대전")))
    assert code == apply_transform("city_to_tago_code", "대전광역시")
    stops = call("tago_getSttnNoList", cityCode=code, nodeNm="시청")
    assert stops.records
    arrivals = None
    for s in stops.records:
        arrivals = call("tago_getSttnAcctoArvlPrearngeInfoList", cityCode=code, nodeId=s["nodeid"])
        if arrivals.records:
            break
    assert arrivals.records
    route = call("tago_getRouteAcctoThrghSttnList", cityCode=code, routeId=arrivals.records[0]["routeid"], numOfRows=200)
    assert route.records and s["nodeid"] in [r["nodeid"] for r in route.records]
    nxt = route.records[-1]["nodeid"]
    assert call("tago_getSttnAcctoArvlPrearngeInfoList", cityCode=code, nodeId=nxt).ok


def test_chain_route_number_to_stations(call):
    routes = call("tago_getRouteNoList", cityCode="34010", numOfRows=100)
    exact = routes.records[0]["routeno"]
    picked = [r for r in call("tago_getRouteNoList", cityCode="34010", routeNo=exact).records if r["routeno"] == exact]
    assert len(picked) == 1
    stops = call("tago_getRouteAcctoThrghSttnList", cityCode="34010", routeId=picked[0]["routeid"], numOfRows=200)
    assert stops.total_count >= 5 and all(s["nodeid"].startswith("CAB") for s in stops.records)


def test_chain_coordinates_to_nearby_stops_to_arrivals(call):
    stops = call("tago_getSttnNoList", cityCode="21", numOfRows=100).records
    hits = 0
    for s in stops[:15]:
        near = call("tago_getCrdntPrxmtSttnList", gpsLati=s["gpslati"], gpsLong=s["gpslong"])
        assert near.ok and near.records and near.records[0]["nodeid"] == s["nodeid"]
        first = near.records[0]
        arr = call("tago_getSttnAcctoArvlPrearngeInfoList", cityCode=str(first["citycode"]), nodeId=first["nodeid"])
        hits += bool(arr.records)
    assert hits >= 8


def test_chain_stop_coordinates_to_kma_grid(call):
    s = call("tago_getSttnNoList", cityCode="25", nodeNm="시청").records[0]
    nx, ny = apply_transform("latlon_to_kma_grid", s)
    base = apply_transform("kma_ultra_ncst_base", "2026-11-30T09:00")
    obs = call("kma_getUltraSrtNcst", nx=nx, ny=ny, **base)
    assert obs.ok and obs.total_count == 8

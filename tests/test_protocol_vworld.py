"""VWorld geocoder 2.0: status OK/NOT_FOUND/ERROR, XML/JSON, x=lon y=lat, juso agreement."""

import xmltodict

K = "KOPA-SANDBOX"
Q = {"service": "address", "request": "getcoord", "version": "2.0", "key": K, "address": "서울특별시 중구 세종대로 110", "type": "ROAD"}


def test_json_xml_and_point(raw_get):
    r = raw_get("/vworld/address", {**Q, "format": "JSON"})
    assert "charset=UTF-8" in r.headers["content-type"]
    resp = r.json()["response"]
    assert resp["status"] == "OK" and resp["refined"]["structure"]["level2"] == "중구"
    x, y = float(resp["result"]["point"]["x"]), float(resp["result"]["point"]["y"])
    assert 126.9 < x < 127.1 and 37.5 < y < 37.65  # x is longitude
    doc = xmltodict.parse(raw_get("/vworld/address", Q).text)
    assert doc["response"]["status"] == "OK" and doc["response"]["result"]["point"]["x"] == resp["result"]["point"]["x"]


def test_short_sido_parenthetical_and_crs(raw_get):
    r = raw_get("/vworld/address", {**Q, "format": "json", "address": "서울 중구 세종대로 110 (태평로1가)", "crs": "EPSG:5179"}).json()
    assert r["response"]["status"] == "OK" and float(r["response"]["result"]["point"]["x"]) > 900000


def test_errors_and_not_found(raw_get):
    r = raw_get("/vworld/address", {**Q, "format": "json", "key": "nope"}).json()["response"]
    assert r["status"] == "ERROR" and r["error"]["code"] == "INVALID_KEY"
    r = raw_get("/vworld/address", {**Q, "format": "json", "address": ""}).json()["response"]
    assert r["error"]["code"] == "PARAM_REQUIRED"
    r = raw_get("/vworld/address", {**Q, "format": "json", "type": "HOUSE"}).json()["response"]
    assert r["error"]["code"] == "INVALID_RANGE"
    r = raw_get("/vworld/address", {**Q, "format": "json", "address": "없는시 없는로 1"}).json()["response"]
    assert r["status"] == "NOT_FOUND"


def test_client_and_lowercase_type(call):
    r = call("vworld_getcoord", address="서울특별시 강남구 학동로 426", type="road")
    assert r.ok and r.records[0]["detail"] == "강남구청"
    nf = call("vworld_getcoord", address="서울특별시 강남구 학동로 426", type="PARCEL")
    assert nf.ok and nf.result_code == "NOT_FOUND" and nf.records == []


# -- getAddress: the reverse geocoder on the same path ------------------------------------
R = {"service": "address", "request": "getAddress", "version": "2.0", "key": K, "format": "json"}
CITY_HALL = "126.9783882,37.5666103"  # 서울특별시청, 세종대로 110 (real WGS84 position)


def test_reverse_envelope_both_types_and_landmark(raw_get):
    resp = raw_get("/vworld/address", {**R, "point": CITY_HALL}).json()["response"]
    assert resp["status"] == "OK" and resp["service"]["operation"] == "getAddress"
    assert resp["input"]["point"] == {"x": "126.9783882", "y": "37.5666103"} and resp["input"]["type"] == "both"
    parcel, road = resp["result"]  # type=both: parcel first, then road, of one building
    assert (parcel["type"], road["type"]) == ("parcel", "road")
    assert road["text"] == "서울특별시 중구 세종대로 110"
    assert road["structure"]["level1"] == "서울특별시" and road["structure"]["level2"] == "중구"
    assert road["structure"]["level4L"] == "세종대로" and road["structure"]["level5"] == "110"
    assert parcel["structure"]["level4L"] == parcel["structure"]["level4A"] and parcel["text"].startswith("서울특별시 중구 ")
    assert set(road["structure"]) == {"level0", "level1", "level2", "level3", "level4L", "level4LC", "level4A", "level4AC",
                                      "level5", "detail"}
    assert road["zipcode"] == parcel["zipcode"] and len(road["zipcode"]) == 5


def test_reverse_agrees_with_getcoord_in_every_crs(raw_get):
    """One geography: the point getcoord gives for an address reverse-geocodes to that address."""
    for crs in ("epsg:4326", "EPSG:5179", "epsg:3857"):
        pt = raw_get("/vworld/address", {**Q, "format": "json", "crs": crs}).json()["response"]["result"]["point"]
        resp = raw_get("/vworld/address", {**R, "request": "getaddress", "point": f"{pt['x']},{pt['y']}", "crs": crs,
                                           "type": "ROAD"}).json()["response"]
        assert resp["status"] == "OK" and [r["text"] for r in resp["result"]] == ["서울특별시 중구 세종대로 110"], crs


def test_reverse_not_found_errors_and_xml(raw_get):
    sea = raw_get("/vworld/address", {**R, "point": "124.2,35.0"}).json()["response"]  # the Yellow Sea
    assert sea["status"] == "NOT_FOUND" and "result" not in sea
    r = raw_get("/vworld/address", {**R, "point": ""}).json()["response"]
    assert r["status"] == "ERROR" and r["error"]["code"] == "PARAM_REQUIRED"
    r = raw_get("/vworld/address", {**R, "point": "서울시청"}).json()["response"]
    assert r["error"]["code"] == "INVALID_TYPE"
    r = raw_get("/vworld/address", {**R, "point": CITY_HALL, "type": "house"}).json()["response"]
    assert r["error"]["code"] == "INVALID_RANGE"
    r = raw_get("/vworld/address", {**R, "point": CITY_HALL, "crs": "epsg:9999"}).json()["response"]
    assert r["error"]["code"] == "INVALID_RANGE"
    r = raw_get("/vworld/address", {**R, "request": "getFeature", "point": CITY_HALL}).json()["response"]
    assert r["error"]["code"] == "INVALID_RANGE"
    r = raw_get("/vworld/address", {**R, "point": CITY_HALL, "key": "nope"}).json()["response"]
    assert r["error"]["code"] == "INVALID_KEY"
    doc = xmltodict.parse(raw_get("/vworld/address", {**R, "format": "xml", "point": CITY_HALL, "type": "road"}).text)
    assert doc["response"]["status"] == "OK" and doc["response"]["result"]["text"] == "서울특별시 중구 세종대로 110"


def test_reverse_client_records_and_options(call):
    r = call("vworld_getAddress", point=CITY_HALL, type="ROAD")
    assert r.ok and len(r.records) == 1
    rec = r.records[0]
    assert rec["text"] == "서울특별시 중구 세종대로 110" and rec["level2"] == "중구" and rec["type"] == "road"
    assert len(rec["level4AC"]) == 10 and rec["level4AC"].startswith("11140")
    both = call("vworld_getAddress", point=CITY_HALL)
    assert [x["type"] for x in both.records] == ["parcel", "road"]
    slim = call("vworld_getAddress", point=CITY_HALL, type="road", zipcode="false", simple="true")
    assert slim.ok and "zipcode" not in slim.records[0] and "level1" not in slim.records[0]
    nf = call("vworld_getAddress", point="124.2,35.0")
    assert nf.ok and nf.result_code == "NOT_FOUND" and nf.records == []


def test_reverse_finds_sampled_buildings(world, call):
    """Deterministic nearest building: a sample of juso buildings answer to their own point (or to
    a building standing at the very same spot)."""
    rows = world.sql("SELECT roadAddrPart1, lon, lat FROM juso_addr USING SAMPLE 40 ROWS (reservoir, 7)")
    for r in rows:
        got = call("vworld_getAddress", point=f"{r['lon']},{r['lat']}", type="road")
        assert got.ok and got.records, r
        if got.records[0]["text"] != r["roadAddrPart1"]:
            same = world.sql("SELECT count(*) AS n FROM juso_addr WHERE roadAddrPart1 = ? AND abs(lon - ?) < 1e-4 "
                             "AND abs(lat - ?) < 1e-4", [got.records[0]["text"], r["lon"], r["lat"]])
            assert same[0]["n"] >= 1, (r, got.records[0]["text"])
        again = call("vworld_getAddress", point=f"{r['lon']},{r['lat']}", type="road")
        assert again.records == got.records

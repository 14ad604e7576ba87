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

"""HIRA pharmacies on data.go.kr: misspelled operation, HIRA codes, distance search, chains."""

import xmltodict

PATH = "/B551182/pharmacyInfoService/getParmacyBasisList"


def test_xml_default_json_switch_and_key(raw_get):
    r = raw_get(PATH, {"ServiceKey": "KOPA-SANDBOX", "sidoCd": "110000"})
    doc = xmltodict.parse(r.text)["response"]
    assert r.headers["content-type"] == "application/xml;charset=UTF-8"
    assert doc["header"]["resultCode"] == "00" and int(doc["body"]["totalCount"]) > 500
    r = raw_get(PATH, {"serviceKey": "KOPA-SANDBOX", "sidoCd": "110000", "_type": "json"})
    assert isinstance(r.json()["response"]["body"]["totalCount"], int)
    r = raw_get(PATH, {"ServiceKey": "nope", "_type": "json"})
    assert "OpenAPI_ServiceResponse" in r.text
    r = raw_get(PATH, {"ServiceKey": "KOPA-SANDBOX", "_type": "json", "xPos": "east"})
    assert r.json()["response"]["header"]["resultCode"] == "10"


def test_codes_and_dong_filter(call):
    jungnang = call("hira_getParmacyBasisList", sgguCd="110019", numOfRows=5)
    assert jungnang.ok and jungnang.records and all(r["sgguCdNm"] == "중랑구" for r in jungnang.records)
    dong = call("hira_getParmacyBasisList", emdongNm="신내동")
    assert dong.ok and dong.records and all("신내동" in r["emdongNm"] for r in dong.records)
    assert all(r["yadmNm"].endswith("약국") and r["addr"] for r in dong.records)
    none = call("hira_getParmacyBasisList", yadmNm="존재하지않는약국이름")
    assert none.ok and none.total_count == 0


def test_distance_search_sorted_within_radius(call):
    res = call("hira_getParmacyBasisList", xPos=126.978, yPos=37.5665, radius=1000, numOfRows=100)
    assert res.ok and res.records
    d = [int(r["distance"]) for r in res.records]
    assert d == sorted(d) and d[-1] <= 1000
    assert all(126.9 < float(r["XPos"]) < 127.1 and 37.5 < float(r["YPos"]) < 37.65 for r in res.records)


def test_chain_tourapi_point_to_pharmacies_and_to_kma_grid(call):
    spot = call("tourapi_searchKeyword2", keyword="경복궁")
    assert spot.ok and spot.records
    detail = call("tourapi_detailCommon2", contentId=spot.records[0]["contentid"])
    rec = detail.records[0]
    ph = call("hira_getParmacyBasisList", xPos=rec["mapx"], yPos=rec["mapy"], radius=2000)
    assert ph.ok and ph.records
    from kopa_bench.transforms import apply_transform

    nx, ny = apply_transform("latlon_to_kma_grid", (float(ph.records[0]["YPos"]), float(ph.records[0]["XPos"])))
    assert (nx, ny) == (60, 127)

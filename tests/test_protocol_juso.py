"""juso.go.kr: results.common envelope, E-codes per API, paging, chains to coord/KOSIS/VWorld."""

import xmltodict

K = "KOPA-SANDBOX"


def test_xml_default_and_json(raw_get):
    r = raw_get("/juso/addrLinkApi.do", {"confmKey": K, "keyword": "세종대로 110"})
    assert r.headers["content-type"].startswith("application/xml") and "charset=UTF-8" in r.headers["content-type"]
    doc = xmltodict.parse(r.text)["results"]
    assert doc["common"]["errorCode"] == "0" and doc["juso"]["bdNm"] == "서울특별시청"
    j = raw_get("/juso/addrLinkApi.do", {"confmKey": K, "keyword": "세종대로 110", "resultType": "JSON"}).json()["results"]
    assert j["common"]["totalCount"] == "1" and j["juso"][0]["admCd"] == "1114010300"


def test_error_codes(raw_get):
    q = {"confmKey": K, "resultType": "json"}
    assert raw_get("/juso/addrLinkApi.do", {**q, "confmKey": "bad", "keyword": "테헤란로"}).json()["results"]["common"]["errorCode"] == "E0001"
    assert raw_get("/juso/addrLinkApi.do", q).json()["results"]["common"]["errorCode"] == "E0005"
    assert raw_get("/juso/addrLinkApi.do", {**q, "keyword": "서울특별시"}).json()["results"]["common"]["errorCode"] == "E0006"
    assert raw_get("/juso/addrLinkApi.do", {**q, "keyword": "a%"}).json()["results"]["common"]["errorCode"] == "E0013"
    res = raw_get("/juso/addrCoordApi.do", {**q, "admCd": "1114010300", "rnMgtSn": "1", "udrtYn": "0", "buldSlno": "0"}).json()["results"]
    assert res["common"]["errorCode"] == "E0005" and res["juso"] is None  # buldMnnm missing, not "keyword"
    assert raw_get("/juso/addrCoordApi.do", {**q, "admCd": "1114010300"}).json()["results"]["common"]["errorCode"] == "E0003"


def test_paging_and_cap(raw_get):
    q = {"confmKey": K, "resultType": "json", "keyword": "강남구 행정복지센터"}
    full = raw_get("/juso/addrLinkApi.do", {**q, "countPerPage": 100}).json()["results"]
    total = int(full["common"]["totalCount"])
    assert total > 10
    p2 = raw_get("/juso/addrLinkApi.do", {**q, "countPerPage": 5, "currentPage": 2}).json()["results"]
    assert p2["juso"] == full["juso"][5:10] and p2["common"]["countPerPage"] == "5"
    big = raw_get("/juso/addrLinkApi.do", {**q, "countPerPage": 100000}).json()["results"]
    assert big["common"]["countPerPage"] == "100"


def test_chains(call):
    from kopa_bench.geo import utmk_to_wgs84

    s = call("juso_addrLinkApi", keyword="테헤란로")
    assert s.ok and s.total_count > 0
    j = s.records[0]
    c = call("juso_addrCoordApi", **{k: j[k] for k in ("admCd", "rnMgtSn", "udrtYn", "buldMnnm", "buldSlno")})
    assert c.ok and c.records
    lat, lon = utmk_to_wgs84(c.records[0]["entX"], c.records[0]["entY"])
    assert 37.4 < lat < 37.6 and 126.9 < lon < 127.2
    k = call("kosis_statisticsParameterData", orgId="101", tblId="DT_1B040A3", itmId="T20", objL1=j["admCd"][:5], prdSe="M", newEstPrdCnt=1)
    assert k.ok and k.records and k.records[0]["C1_NM"] == "강남구"
    v = call("vworld_getcoord", address=j["roadAddr"], type="ROAD")
    assert v.ok and v.records and abs(float(v.records[0]["y"]) - lat) < 0.01
    v2 = call("vworld_getcoord", address=j["jibunAddr"], type="PARCEL")
    assert v2.ok and v2.records

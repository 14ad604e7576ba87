"""KOSIS: bare array / {err,errMsg}, jsonVD quirk, +lists, sums consistent."""

import json

K = "KOPA-SANDBOX"
Q = {"method": "getList", "apiKey": K, "orgId": "101", "tblId": "DT_1B040A3", "itmId": "T20", "objL1": "11",
     "prdSe": "M", "newEstPrdCnt": "1", "format": "json", "jsonVD": "Y"}
P = "/kosis/Param/statisticsParameterData.do"


def test_bare_array_and_magnitudes(raw_get):
    r = raw_get(P, Q)
    assert "charset=UTF-8" in r.headers["content-type"]
    rows = r.json()
    assert isinstance(rows, list) and len(rows) == 1 and rows[0]["C1_NM"] == "서울특별시"
    assert 8_800_000 < int(rows[0]["DT"]) < 9_600_000 and rows[0]["PRD_DE"] == "202610"


def test_jsonvd_quirk_and_xml(raw_get):
    r = raw_get(P, {**Q, "jsonVD": None})
    try:
        json.loads(r.text)
        raise AssertionError("unquoted keys expected without jsonVD=Y")
    except json.JSONDecodeError:
        pass
    assert "<DT>" in raw_get(P, {**Q, "format": "xml"}).text


def test_errors(raw_get):
    assert raw_get(P, {**Q, "apiKey": None}).json()["err"] == "10"
    assert raw_get(P, {**Q, "apiKey": "bad"}).json()["err"] == "11"
    assert raw_get(P, {**Q, "itmId": None}).json()["err"] == "20"
    assert raw_get(P, {**Q, "objL1": "99999"}).json() == {"err": "30", "errMsg": "조회결과가 없습니다."}
    assert raw_get(P, {**Q, "newEstPrdCnt": None}).json()["err"] == "20"


def test_sums_and_lists(call):
    r = call("kosis_statisticsParameterData", orgId="101", tblId="DT_1B040A3", itmId="T20+T21+T22+", objL1="11+11680", prdSe="M",
             startPrdDe="202601", endPrdDe="202603")
    assert r.ok and len(r.records) == 2 * 3 * 3
    by = {(x["C1"], x["ITM_ID"], x["PRD_DE"]): int(x["DT"]) for x in r.records}
    assert by[("11", "T20", "202601")] == by[("11", "T21", "202601")] + by[("11", "T22", "202601")]
    allr = call("kosis_statisticsParameterData", orgId="101", tblId="DT_1B040A3", itmId="T20", objL1="11*", prdSe="M", newEstPrdCnt=1)
    gus = [int(x["DT"]) for x in allr.records if len(x["C1"]) == 5]
    assert len(gus) == 25 and sum(gus) == next(int(x["DT"]) for x in allr.records if x["C1"] == "11")
    nd = call("kosis_statisticsParameterData", orgId="101", tblId="DT_1B040A3", itmId="T20", objL1="11", prdSe="M",
              startPrdDe="201001", endPrdDe="201012")
    assert nd.ok and nd.result_code == "30" and nd.records == []

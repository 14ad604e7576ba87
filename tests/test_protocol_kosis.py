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


def test_months_from_the_tables_real_start(call):
    """DT_1B040A3 answers from 2011-01 (world/answers/kosis_history.py); sums hold as in stored months."""
    r = call("kosis_statisticsParameterData", orgId="101", tblId="DT_1B040A3", itmId="T20+T21+T22+", objL1="00+11+11680",
             prdSe="M", startPrdDe="201101", endPrdDe="201102")
    assert r.ok and len(r.records) == 3 * 3 * 2
    by = {(x["C1"], x["ITM_ID"], x["PRD_DE"]): int(x["DT"]) for x in r.records}
    assert by[("11", "T20", "201101")] == by[("11", "T21", "201101")] + by[("11", "T22", "201101")]
    assert 9_500_000 < by[("11", "T20", "201101")] < 11_000_000  # Seoul had more people then
    assert 45_000_000 < by[("00", "T20", "201101")] < 56_000_000
    gus = call("kosis_statisticsParameterData", orgId="101", tblId="DT_1B040A3", itmId="T20", objL1="11*", prdSe="M",
               startPrdDe="201506", endPrdDe="201506")
    vals = {x["C1"]: int(x["DT"]) for x in gus.records}
    assert sum(v for c, v in vals.items() if len(c) == 5) == vals["11"]
    across = call("kosis_statisticsParameterData", orgId="101", tblId="DT_1B040A3", itmId="T20", objL1="11", prdSe="M",
                  startPrdDe="202211", endPrdDe="202302")
    assert [x["PRD_DE"] for x in across.records] == ["202211", "202212", "202301", "202302"]
    dec, jan = (int(x["DT"]) for x in across.records[1:3])
    assert abs(dec - jan) / jan < 0.002  # the stored and earlier months meet smoothly

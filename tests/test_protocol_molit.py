"""MOLIT RTMS on data.go.kr: XML only, "000"/"OK", 만원 strings, paging, chains from mois."""

import xmltodict

TRADE = "/1613000/RTMSDataSvcAptTrade/getRTMSDataSvcAptTrade"
RENT = "/1613000/RTMSDataSvcAptRent/getRTMSDataSvcAptRent"
KEY = {"serviceKey": "KOPA-SANDBOX"}


def test_xml_only_success_000_and_json_switch_ignored(raw_get):
    for extra in ({}, {"_type": "json"}, {"type": "JSON"}):
        r = raw_get(TRADE, {**KEY, "LAWD_CD": "11680", "DEAL_YMD": "202610", **extra})
        assert r.status_code == 200 and r.headers["content-type"] == "application/xml;charset=UTF-8"
        doc = xmltodict.parse(r.text)["response"]
        assert doc["header"] == {"resultCode": "000", "resultMsg": "OK"}
        assert int(doc["body"]["totalCount"]) > 0


def test_gateway_key_error_and_param_errors(raw_get):
    r = raw_get(TRADE, {"LAWD_CD": "11680", "DEAL_YMD": "202610"})
    assert xmltodict.parse(r.text)["OpenAPI_ServiceResponse"]["cmmMsgHeader"]["returnReasonCode"] == "30"
    r = raw_get(TRADE, {**KEY, "LAWD_CD": "11680"})
    assert xmltodict.parse(r.text)["response"]["header"]["resultCode"] == "11"
    for bad in ({"LAWD_CD": "1168", "DEAL_YMD": "202610"}, {"LAWD_CD": "11680", "DEAL_YMD": "202613"}):
        r = raw_get(TRADE, {**KEY, **bad})
        assert r.status_code == 200 and xmltodict.parse(r.text)["response"]["header"]["resultCode"] == "10"


def test_no_data_is_000_with_zero_total(call):
    res = call("molit_getRTMSDataSvcAptTrade", LAWD_CD="99999", DEAL_YMD="202610")
    assert res.ok and res.result_code == "000" and res.total_count == 0 and res.records == []
    old = call("molit_getRTMSDataSvcAptTrade", LAWD_CD="11680", DEAL_YMD="201001")
    assert old.ok and old.total_count == 0


def test_paging_consistent_and_capped(raw_get):
    q = {**KEY, "LAWD_CD": "11680", "DEAL_YMD": "202609"}
    full = xmltodict.parse(raw_get(TRADE, {**q, "numOfRows": 1000}).text)["response"]["body"]
    total = int(full["totalCount"])
    items = full["items"]["item"]
    assert len(items) == total > 10
    p2 = xmltodict.parse(raw_get(TRADE, {**q, "numOfRows": 5, "pageNo": 2}).text)["response"]["body"]
    assert [i["aptNm"] for i in p2["items"]["item"]] == [i["aptNm"] for i in items[5:10]]
    assert "<dealAmount>  " in raw_get(TRADE, {**q, "numOfRows": 3}).text  # leading spaces on the wire
    big = xmltodict.parse(raw_get(TRADE, {**q, "numOfRows": 10**7}).text)["response"]["body"]
    assert big["numOfRows"] == "1000"


def test_fields_formats_and_price_levels(call):
    months = ["202607", "202608", "202609", "202610"]

    def median(lawd):
        vals = []
        for m in months:
            res = call("molit_getRTMSDataSvcAptTrade", LAWD_CD=lawd, DEAL_YMD=m, numOfRows=1000)
            assert res.ok
            for r in res.records:
                assert "," in r["dealAmount"] or len(r["dealAmount"].strip()) < 4
                assert r["dealYear"] == m[:4] and r["dealMonth"] == str(int(m[4:]))
                assert r["sggCd"] == lawd and not r["dealDay"].startswith("0")
                vals.append(int(r["dealAmount"].replace(",", "").strip()) / float(r["excluUseAr"]))
        vals.sort()
        return vals[len(vals) // 2]

    gangnam, jinju = median("11680"), median("48170")
    assert gangnam > 3 * jinju
    assert 1500 < gangnam < 5000  # 만원 per m2


def test_current_month_is_thinner_and_rent_fields(call):
    last = call("molit_getRTMSDataSvcAptRent", LAWD_CD="11650", DEAL_YMD="202610", numOfRows=1000)
    assert last.ok and last.total_count > 0
    rec = last.records[0]
    for f in ("deposit", "monthlyRent", "contractTerm", "contractType", "aptNm", "umdNm"):
        assert f in rec
    assert any(r["monthlyRent"] == "0" for r in last.records) and any(r["monthlyRent"] != "0" for r in last.records)
    cur = call("molit_getRTMSDataSvcAptTrade", LAWD_CD="11650", DEAL_YMD="202611", numOfRows=1000)
    assert cur.ok and all(int(r["dealDay"]) <= 30 for r in cur.records)


def test_chain_trade_to_rent_and_trade_dong_to_airkorea(call):
    trade = call("molit_getRTMSDataSvcAptTrade", LAWD_CD="11680", DEAL_YMD="202610", numOfRows=50)
    assert trade.ok and trade.records
    rent = call("molit_getRTMSDataSvcAptRent", LAWD_CD=trade.records[0]["sggCd"], DEAL_YMD="202610", numOfRows=1000)
    assert rent.ok and {r["umdNm"] for r in rent.records} & {r["umdNm"] for r in trade.records}
    tm = call("airkorea_getTMStdrCrdnt", umdName=trade.records[0]["umdNm"])
    assert tm.ok and tm.records

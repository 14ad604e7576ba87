"""FSC stock prices / KRX listed items on data.go.kr: resultType switch, exclusive endBasDt, lag."""

import xmltodict

PRICE = "/1160100/service/GetStockSecuritiesInfoService/getStockPriceInfo"
ITEM = "/1160100/service/GetKrxListedInfoService/getItemInfo"
KEY = {"serviceKey": "KOPA-SANDBOX"}


def test_xml_default_json_switch_strings_and_single_item_quirk(raw_get):
    r = raw_get(PRICE, {**KEY, "basDt": "20261126", "likeSrtnCd": "005930"})
    assert r.headers["content-type"] == "application/xml;charset=UTF-8"
    doc = xmltodict.parse(r.text)["response"]
    assert doc["header"]["resultCode"] == "00" and doc["header"]["resultMsg"] == "NORMAL SERVICE."
    r = raw_get(PRICE, {**KEY, "basDt": "20261126", "itmsNm": "삼성전자", "resultType": "JSON"})
    body = r.json()["response"]["body"]
    assert body["totalCount"] == 1 and isinstance(body["items"]["item"], dict)  # one record -> object
    item = body["items"]["item"]
    assert item["srtnCd"] == "005930" and item["isinCd"] == "KR7005930003"
    assert all(isinstance(item[k], str) for k in ("clpr", "vs", "fltRt", "trqu", "mrktTotAmt"))


def test_key_and_param_errors(raw_get):
    r = raw_get(PRICE, {"basDt": "20261126", "resultType": "json"})
    assert xmltodict.parse(r.text)["OpenAPI_ServiceResponse"]["cmmMsgHeader"]["returnReasonCode"] == "30"
    r = raw_get(PRICE, {**KEY, "basDt": "2026-11-26", "resultType": "json"})
    assert r.json()["response"]["header"]["resultCode"] == "10"


def test_business_days_lag_and_exclusive_end(call):
    latest = call("fsc_getStockPriceInfo", itmsNm="삼성전자", numOfRows=5)
    assert latest.ok and latest.records[0]["basDt"] == "20261126"  # Fri 27th not published before Mon 13:00
    days = [r["basDt"] for r in call("fsc_getStockPriceInfo", itmsNm="삼성전자", beginBasDt="20261001", endBasDt="20261010", numOfRows=100).records]
    assert "20261010" not in days and "20261003" not in days and "20261009" not in days  # exclusive end, holidays
    assert "20261005" not in days and "20261002" in days  # substitute holiday, business day
    assert days == sorted(days, reverse=True)
    recent = call("fsc_getStockPriceInfo", itmsNm="삼성전자", beginBasDt="20260601", numOfRows=500)
    assert 100 < recent.total_count < 130
    today = call("fsc_getStockPriceInfo", basDt="20261130")
    assert today.ok and today.total_count == 0


def test_price_consistency(call):
    res = call("fsc_getStockPriceInfo", likeItmsNm="SK", beginBasDt="20261101", numOfRows=500)
    assert res.ok and res.total_count > 10
    by = {}
    for r in res.records:
        lo, hi, cl, op = int(r["lopr"]), int(r["hipr"]), int(r["clpr"]), int(r["mkp"])
        assert lo <= min(op, cl) <= max(op, cl) <= hi
        by.setdefault(r["srtnCd"], []).append(r)
    for rows in by.values():
        for newer, older in zip(rows, rows[1:]):
            assert int(newer["vs"]) == int(newer["clpr"]) - int(older["clpr"])
    kosdaq = call("fsc_getStockPriceInfo", basDt="20261126", mrktCls="KOSDAQ", numOfRows=500)
    assert kosdaq.ok and all(r["mrktCtg"] == "KOSDAQ" for r in kosdaq.records)


def test_item_info_chain_to_prices(call):
    info = call("fsc_getItemInfo", likeItmsNm="하이닉스", basDt="20261126")
    assert info.ok and info.total_count == 1
    rec = info.records[0]
    assert rec["srtnCd"] == "A000660" and rec["crno"] and rec["corpNm"]
    from kopa_bench.transforms import apply_transform

    code = apply_transform("strip_stock_prefix", rec["srtnCd"])
    by_code = call("fsc_getStockPriceInfo", likeSrtnCd=code, basDt="20261126")
    by_isin = call("fsc_getStockPriceInfo", isinCd=rec["isinCd"], basDt="20261126")
    by_name = call("fsc_getStockPriceInfo", itmsNm=rec["itmsNm"], basDt="20261126")
    assert by_code.records and by_isin.records and by_name.records
    assert by_code.records[0]["clpr"] == by_isin.records[0]["clpr"] == by_name.records[0]["clpr"]
    latest = by_code.records[0]["basDt"]
    window = call("fsc_getStockPriceInfo", likeSrtnCd=code, beginBasDt=apply_transform("shift_day", latest, n=-30),
                  endBasDt=apply_transform("shift_day", latest, n=1), numOfRows=100)
    assert window.ok and window.records[0]["basDt"] == latest and window.total_count > 15


def test_prices_over_years_meet_the_stored_window(call):
    """Date filters before the stored six months are answered (world/answers/fsc_history.py)."""
    jan23 = call("fsc_getStockPriceInfo", itmsNm="삼성전자", beginBasDt="20230101", endBasDt="20230201", numOfRows=100)
    assert jan23.ok and 15 <= jan23.total_count <= 22 and {r["basDt"][:6] for r in jan23.records} == {"202301"}
    assert "20230123" not in {r["basDt"] for r in jan23.records}  # 설날 연휴
    one_day = call("fsc_getStockPriceInfo", basDt="20230131", numOfRows=1000)
    assert one_day.total_count >= 100  # every item trades that day
    same = next(r for r in one_day.records if r["itmsNm"] == "삼성전자")
    assert same == next(r for r in jan23.records if r["basDt"] == "20230131")  # the same whichever window asks
    assert call("fsc_getStockPriceInfo", itmsNm="삼성전자", likeBasDt="2021", numOfRows=400).total_count > 240
    assert call("fsc_getStockPriceInfo", itmsNm="삼성전자", likeBasDt="2019", numOfRows=400).total_count == 0
    # the generated path ends on the close before the first stored day: vs chains without a jump
    span = call("fsc_getStockPriceInfo", itmsNm="삼성전자", beginBasDt="20250101", numOfRows=1000)
    rows = sorted(span.records, key=lambda r: r["basDt"])
    assert all(int(b["clpr"]) - int(b["vs"]) == int(a["clpr"]) for a, b in zip(rows, rows[1:]))
    assert len({r["basDt"] for r in rows}) == len(rows)  # no day twice

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
    for before_or_after in ("200512", "202701"):  # RTMS starts with 2006-01 contracts; no future months
        res = call("molit_getRTMSDataSvcAptTrade", LAWD_CD="11680", DEAL_YMD=before_or_after)
        assert res.ok and res.total_count == 0


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


# ---- every month the real service answers, and the RTMS family -------------------------------------

DEV = "/1613000/RTMSDataSvcAptTradeDev/getRTMSDataSvcAptTradeDev"
DEV_FIELDS = ["sggCd", "umdCd", "landCd", "bonbun", "bubun", "roadNm", "roadNmSggCd", "roadNmCd", "roadNmSeq",
              "roadNmbCd", "roadNmBonbun", "roadNmBubun", "umdNm", "aptNm", "jibun", "excluUseAr", "dealYear",
              "dealMonth", "dealDay", "dealAmount", "floor", "buildYear", "aptSeq", "cdealType", "cdealDay",
              "dealingGbn", "estateAgentSggNm", "rgstDate", "aptDong", "slerGbn", "buyerGbn", "landLeaseholdGbn"]


def _month(call, tool, ym, lawd="11680"):
    res = call(tool, LAWD_CD=lawd, DEAL_YMD=ym, numOfRows=1000)
    assert res.ok and res.result_code == "000", res.error
    return res


def test_2019_05_gangnam_returns_a_realistic_month_of_trades(call):
    res = _month(call, "molit_getRTMSDataSvcAptTrade", "201905")
    assert 100 <= res.total_count <= 1000  # 강남구 closed a few hundred sales a month in 2019
    assert {r["dealYear"] for r in res.records} == {"2019"} and {r["dealMonth"] for r in res.records} == {"5"}
    assert all(int(r["buildYear"]) <= 2019 for r in res.records)  # nothing trades before it is built
    prices = sorted(int(r["dealAmount"].replace(",", "")) for r in res.records)
    assert 60_000 <= prices[len(prices) // 2] <= 300_000  # median 6-30억 in 2019 강남
    assert all(r["dealingGbn"] is None for r in res.records)  # 거래유형 was only reported from 2021-11


def test_202401_returns_rows_and_every_month_back_to_2006(call):
    assert _month(call, "molit_getRTMSDataSvcAptTrade", "202401").total_count > 0
    assert _month(call, "molit_getRTMSDataSvcAptTrade", "200601").total_count > 0
    assert _month(call, "molit_getRTMSDataSvcAptTrade", "201905", lawd="26350").total_count > 0  # 부산 해운대구
    assert _month(call, "molit_getRTMSDataSvcAptRent", "201101").total_count > 0
    assert _month(call, "molit_getRTMSDataSvcAptRent", "201012").total_count == 0  # leases start 2011-01


def test_a_generated_month_is_the_same_whatever_was_asked_before(world, catalog):
    from kopa_bench.world.answers import rtms_history

    op = catalog.get("molit_getRTMSDataSvcAptTrade").op
    first = world.answer(op, {"LAWD_CD": "11680", "DEAL_YMD": "201905", "numOfRows": 1000, "pageNo": 1}, 0, 1000)
    world.answer(op, {"LAWD_CD": "11650", "DEAL_YMD": "201905"}, 0, 10)
    world.answer(op, {"LAWD_CD": "11680", "DEAL_YMD": "201904"}, 0, 10)
    rtms_history._BUILDINGS.clear()
    again = world.answer(op, {"LAWD_CD": "11680", "DEAL_YMD": "201905", "numOfRows": 1000, "pageNo": 1}, 0, 1000)
    assert first == again and first[1] > 0
    page = world.answer(op, {"LAWD_CD": "11680", "DEAL_YMD": "201905"}, 10, 10)
    assert page[0] == first[0][10:20] and page[1] == first[1]


def test_no_month_is_stored_so_months_meet_without_a_jump(world):
    """Every month is generated from the stored complexes: none is answered two ways, and the months
    around where a stored window used to end (2024-10/11) carry the same volume."""
    from kopa_bench.world.answers import rtms_history

    for table in ("molit_apt_trade", "molit_apt_rent"):
        assert world.sql(f"SELECT count(*) AS n FROM {table}")[0]["n"] == 0
    generated = rtms_history.apt_trade(world, ("11680", "202410"))
    assert generated.schema == world.con.sql("SELECT * FROM molit_apt_trade LIMIT 0").to_arrow_table().schema
    assert set(generated.column("deal_ymd").to_pylist()) == {"202410"}
    seoul = [sum(rtms_history.apt_trade(world, (lawd, ym)).num_rows for lawd in rtms_history.SEOUL_SHARE)
             for ym in ("202408", "202409", "202410", "202411", "202412", "202501")]
    for a, b in zip(seoul, seoul[1:]):
        assert 0.75 < b / a < 1.33, seoul  # season and noise, no step


def test_seoul_counts_are_the_real_ones_and_calibrate_other_months(world, call):
    from kopa_bench.refdata import table_rows

    real = {(r["lawd_cd"], r["deal_ym"]): r["trades"] for r in table_rows("seoul_apt_trade_counts")}
    for lawd, ym in (("11680", "202305"), ("11680", "202312"), ("11710", "202210"), ("11350", "202307")):
        assert _month(call, "molit_getRTMSDataSvcAptTrade", ym, lawd=lawd).total_count == real[(lawd, ym)]
    gangnam_2023 = sum(n for (lawd, ym), n in real.items() if lawd == "11680" and ym.startswith("2023")) / 12
    for ym in ("202410", "202510", "202609"):  # the months a stored window used to hold, ~20x too thin
        n = _month(call, "molit_getRTMSDataSvcAptTrade", ym).total_count
        assert 0.5 * gangnam_2023 < n < 3 * gangnam_2023, (ym, n, gangnam_2023)
    # elsewhere by apartment households: 세종 (many complexes) trades far more than 울릉군 (none)
    assert _month(call, "molit_getRTMSDataSvcAptTrade", "202510", lawd="36110").total_count > 100
    assert _month(call, "molit_getRTMSDataSvcAptTrade", "202510", lawd="47940").total_count == 0


def test_trades_name_real_kapt_complexes_of_their_district_and_dong(world, call):
    from kopa_bench.refdata import table_rows
    from kopa_bench.world.gen.molit import rtms_name

    dong_of = {r["region_cd"][:8]: r["umd_name"] for r in world.sql("SELECT region_cd, umd_name FROM places")}
    kapt = {(r["region_cd"][:5], rtms_name(r["name"]), dong_of.get(r["region_cd"][:8])) for r in table_rows("kapt_complexes")}
    counts: dict[str, int] = {}
    for lawd in ("11680", "41117"):
        for ym in ("201905", "202410", "202610"):
            res = _month(call, "molit_getRTMSDataSvcAptTrade", ym, lawd=lawd)
            for r in res.records:
                assert (lawd, r["aptNm"], r["umdNm"]) in kapt, r
                if lawd == "11680":
                    counts[r["aptNm"]] = counts.get(r["aptNm"], 0) + 1
    assert "은마" in counts  # 대치동's 4,424 households
    busiest = max(counts, key=counts.get)
    households = {r["aptNm"]: r["households"] for r in world.sql("SELECT aptNm, households FROM molit_complexes WHERE sggCd = '11680'")}
    assert households[busiest] >= 1000  # trades follow 세대수


def test_dev_service_answers_in_its_real_envelope(raw_get, call):
    for ym in ("202610", "201905"):
        r = raw_get(DEV, {**KEY, "LAWD_CD": "11680", "DEAL_YMD": ym, "numOfRows": 50})
        assert r.status_code == 200 and r.headers["content-type"] == "application/xml;charset=UTF-8"
        doc = xmltodict.parse(r.text)["response"]
        assert doc["header"] == {"resultCode": "000", "resultMsg": "OK"}
        body = doc["body"]
        assert set(body) == {"items", "numOfRows", "pageNo", "totalCount"} and int(body["totalCount"]) > 0
        item = body["items"]["item"][0]
        assert list(item) == DEV_FIELDS  # the technical document's order
        assert len(item["bonbun"]) == 4 and len(item["bubun"]) == 4 and len(item["roadNmBonbun"]) == 5
        assert len(item["umdCd"]) == 5 and item["roadNm"]
    simple = _month(call, "molit_getRTMSDataSvcAptTrade", "201905")
    dev = _month(call, "molit_getRTMSDataSvcAptTradeDev", "201905")
    keep = ("aptNm", "dealAmount", "dealDay", "excluUseAr", "floor")
    assert [[r[k] for k in keep] for r in dev.records] == [[r[k] for k in keep] for r in simple.records]
    gateway = xmltodict.parse(raw_get(DEV, {"LAWD_CD": "11680", "DEAL_YMD": "202610"}).text)  # no key
    assert gateway["OpenAPI_ServiceResponse"]["cmmMsgHeader"]["returnReasonCode"] == "30"


def test_officetel_and_row_house_services(raw_get, call):
    offi = _month(call, "molit_getRTMSDataSvcOffiTrade", "201905")
    assert offi.total_count > 0 and all(r["offiNm"] and r["sggNm"] == "강남구" for r in offi.records)
    rent = _month(call, "molit_getRTMSDataSvcOffiRent", "202401")
    assert rent.total_count > 0 and any(r["monthlyRent"] != "0" for r in rent.records)
    rh = _month(call, "molit_getRTMSDataSvcRHTrade", "202610")
    assert rh.total_count > 0 and {r["houseType"] for r in rh.records} <= {"연립", "다세대"}
    assert all(float(r["landAr"]) > 0 and r["mhouseNm"] for r in rh.records)
    for path in ("/1613000/RTMSDataSvcOffiTrade/getRTMSDataSvcOffiTrade", "/1613000/RTMSDataSvcOffiRent/getRTMSDataSvcOffiRent",
                 "/1613000/RTMSDataSvcRHTrade/getRTMSDataSvcRHTrade"):
        doc = xmltodict.parse(raw_get(path, {**KEY, "LAWD_CD": "11680", "DEAL_YMD": "202001"}).text)["response"]
        assert doc["header"]["resultCode"] == "000" and int(doc["body"]["totalCount"]) > 0
        r = raw_get(path, {**KEY, "LAWD_CD": "11680", "DEAL_YMD": "202013"})
        assert xmltodict.parse(r.text)["response"]["header"]["resultCode"] == "10"
    assert _month(call, "molit_getRTMSDataSvcOffiRent", "201012").total_count == 0

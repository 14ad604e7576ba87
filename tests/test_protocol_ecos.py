"""ECOS: path-segment API, INFO/ERROR codes, XML/JSON, paging, chains."""

import xmltodict

K = "KOPA-SANDBOX"


def test_json_and_xml_envelopes(raw_get):
    r = raw_get(f"/ecos/StatisticSearch/{K}/json/kr/1/10/722Y001/M/202401/202412/0101000")
    assert "charset=UTF-8" in r.headers["content-type"]
    body = r.json()["StatisticSearch"]
    assert body["list_total_count"] == 12 and isinstance(body["list_total_count"], int)
    assert len(body["row"]) == 10 and body["row"][0]["TIME"] == "202401" and isinstance(body["row"][0]["DATA_VALUE"], str)
    r = raw_get(f"/ecos/StatisticSearch/{K}/xml/kr/1/10/722Y001/M/202401/202412/0101000")
    doc = xmltodict.parse(r.text)
    assert doc["StatisticSearch"]["list_total_count"] == "12" and len(doc["StatisticSearch"]["row"]) == 10


def test_base_rate_history(call):
    r = call("ecos_StatisticSearch", STAT_CODE="722Y001", CYCLE="M", START_TIME="202409", END_TIME="202506", ITEM_CODE1="0101000")
    vals = {x["TIME"]: x["DATA_VALUE"] for x in r.records}
    assert vals["202409"] == "3.5" and vals["202410"] == "3.25" and vals["202411"] == "3" and vals["202502"] == "2.75" and vals["202505"] == "2.5"


def test_errors(raw_get):
    assert raw_get(f"/ecos/StatisticSearch/WRONG/json/kr/1/10/722Y001/M/202401/202412").json()["RESULT"]["CODE"] == "INFO-100"
    assert raw_get(f"/ecos/StatisticSearch/{K}/json/kr/1/10/722Y001/M/20240101/20241231").json()["RESULT"]["CODE"] == "ERROR-101"
    assert raw_get(f"/ecos/StatisticSearch/{K}/json/kr/1/10/722Y001").json()["RESULT"]["CODE"] == "ERROR-100"
    assert raw_get(f"/ecos/StatisticSearch/{K}/json/kr/a/10/722Y001/M/202401/202412").json()["RESULT"]["CODE"] == "ERROR-301"
    assert raw_get(f"/ecos/NoSuchService/{K}/json/kr/1/10").json()["RESULT"]["CODE"] == "ERROR-500"
    assert raw_get(f"/ecos/StatisticSearch/{K}/json/kr/1/10/722Y001/M/199001/199012").json()["RESULT"]["CODE"] == "INFO-200"
    r = raw_get(f"/ecos/StatisticSearch/{K}/pdf/kr/1/10/722Y001/M/202401/202412")
    assert xmltodict.parse(r.text)["RESULT"]["CODE"] == "ERROR-200"
    r = raw_get(f"/ecos/StatisticSearch/{K}/xml/kr/1/10/722Y001/M/199001/199012")
    assert xmltodict.parse(r.text)["RESULT"]["CODE"] == "INFO-200"


def test_paging_window_and_question_mark(raw_get):
    full = raw_get(f"/ecos/StatisticSearch/{K}/json/kr/1/1000/731Y001/D/20251001/20251031/?").json()["StatisticSearch"]
    assert full["list_total_count"] == len(full["row"]) > 40  # 4 currencies x business days
    p = raw_get(f"/ecos/StatisticSearch/{K}/json/kr/11/20/731Y001/D/20251001/20251031/?").json()["StatisticSearch"]
    assert p["row"] == full["row"][10:20]


def test_daily_series_skip_weekends_and_holidays(call):
    r = call("ecos_StatisticSearch", STAT_CODE="731Y001", CYCLE="D", START_TIME="20251001", END_TIME="20251012", ITEM_CODE1="0000001")
    times = [x["TIME"] for x in r.records]
    assert "20251004" not in times and "20251003" not in times  # Saturday, 개천절
    assert all(1000 < float(x["DATA_VALUE"]) < 2000 for x in r.records)


def test_all_operations_and_chain(call):
    tl = call("ecos_StatisticTableList", END=1000)
    assert tl.ok and any(t["SRCH_YN"] == "N" for t in tl.records)
    row = next(t for t in tl.records if "환율" in t["STAT_NAME"] and t["SRCH_YN"] == "Y")
    items = call("ecos_StatisticItemList", STAT_CODE=row["STAT_CODE"])
    it = next(i for i in items.records if i["GRP_CODE"] == "Group1" and i["CYCLE"] == row["CYCLE"])
    s = call("ecos_StatisticSearch", STAT_CODE=it["STAT_CODE"], CYCLE=it["CYCLE"], START_TIME=it["END_TIME"], END_TIME=it["END_TIME"],
             ITEM_CODE1=it["ITEM_CODE"])
    assert s.ok and len(s.records) == 1
    ks = call("ecos_KeyStatisticList")
    base = next(k for k in ks.records if k["KEYSTAT_NAME"] == "한국은행 기준금리")
    last = call("ecos_StatisticSearch", STAT_CODE="722Y001", CYCLE="D", START_TIME=base["CYCLE"], END_TIME=base["CYCLE"])
    assert last.records[0]["DATA_VALUE"] == base["DATA_VALUE"]


def test_base_rate_from_its_real_start(call):
    """722Y001 answers from 1999-05-06 (MPB decisions; world/answers/ecos_history.py)."""
    m = call("ecos_StatisticSearch", STAT_CODE="722Y001", CYCLE="M", START_TIME="200801", END_TIME="200912",
             ITEM_CODE1="0101000")
    by = {r["TIME"]: r["DATA_VALUE"] for r in m.records}
    assert m.ok and m.total_count == 24
    assert by["200807"] == "5" and by["200808"] == "5.25" and by["200812"] == "3" and by["200902"] == "2"
    across = call("ecos_StatisticSearch", STAT_CODE="722Y001", CYCLE="M", START_TIME="201906", END_TIME="202003",
                  END=100)
    assert [r["TIME"] for r in across.records] == ["201906", "201907", "201908", "201909", "201910", "201911", "201912",
                                                  "202001", "202002", "202003"]  # stored and generated meet once
    assert [r["DATA_VALUE"] for r in across.records][:2] == ["1.75", "1.5"]
    d = call("ecos_StatisticSearch", STAT_CODE="722Y001", CYCLE="D", START_TIME="20080801", END_TIME="20080831", END=100)
    assert d.total_count == 20 and {r["DATA_VALUE"] for r in d.records} == {"5", "5.25"}
    assert "20080815" not in {r["TIME"] for r in d.records}  # 광복절
    a = call("ecos_StatisticSearch", STAT_CODE="722Y001", CYCLE="A", START_TIME="1999", END_TIME="2021")
    assert [r["TIME"] for r in a.records][0] == "1999" and len(a.records) == 23
    assert call("ecos_StatisticSearch", STAT_CODE="722Y001", CYCLE="M", START_TIME="199801", END_TIME="199812").total_count == 0

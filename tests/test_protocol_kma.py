"""KMA 단기예보 on the data.go.kr protocol: dataType switch, NO_DATA 03, schedules, consistency."""

import json

import xmltodict

from kopa_bench.transforms import apply_transform

BASE = "/1360000/VilageFcstInfoService_2.0"
KEY = {"serviceKey": "KOPA-SANDBOX"}
GRID = {"nx": 60, "ny": 127}


def _by_time(records):
    out = {}
    for r in records:
        out.setdefault((r["fcstDate"], r["fcstTime"]), {})[r["category"]] = r["fcstValue"]
    return out


def test_xml_default_and_json_switch(raw_get):
    q = {**KEY, **GRID, "base_date": "20261130", "base_time": "0800"}
    r = raw_get(f"{BASE}/getUltraSrtNcst", q)
    assert r.headers["content-type"] == "application/xml;charset=UTF-8"
    doc = xmltodict.parse(r.text)["response"]
    assert doc["header"] == {"resultCode": "00", "resultMsg": "NORMAL_SERVICE"}
    assert len(doc["body"]["items"]["item"]) == 8
    for v in ("JSON", "json"):
        body = raw_get(f"{BASE}/getUltraSrtNcst", {**q, "dataType": v}).json()["response"]["body"]
        assert body["dataType"] == "JSON" and body["totalCount"] == 8
        item = body["items"]["item"][0]
        assert isinstance(item["nx"], int) and isinstance(item["obsrValue"], str)
        assert [i["category"] for i in body["items"]["item"]] == ["PTY", "REH", "RN1", "T1H", "UUU", "VEC", "VVV", "WSD"]


def test_auth_and_parameter_errors(raw_get):
    q = {**GRID, "base_date": "20261130", "base_time": "0800", "dataType": "JSON"}
    for extra in ({}, {"serviceKey": "NOPE"}):
        r = raw_get(f"{BASE}/getVilageFcst", {**q, **extra})
        assert xmltodict.parse(r.text)["OpenAPI_ServiceResponse"]["cmmMsgHeader"]["returnReasonCode"] == "30"
    r = raw_get(f"{BASE}/getVilageFcst", {**KEY, "base_date": "20261130", "base_time": "0800", "dataType": "JSON"})
    assert r.json()["response"]["header"]["resultCode"] == "11"
    for bad in ({"nx": 0}, {"ny": 300}, {"nx": "abc"}, {"base_date": "2026-11-30"}, {"base_time": "8"}):
        r = raw_get(f"{BASE}/getVilageFcst", {**KEY, **q, **bad})
        assert r.status_code == 200 and r.json()["response"]["header"]["resultCode"] == "10", bad


def test_nodata_03_for_unpublished_offschedule_and_old_runs(raw_get, call):
    for base_date, base_time in (("20261130", "0900"), ("20261130", "1100"), ("20261201", "0200"),
                                 ("20261127", "0800"), ("20261131", "0800")):
        r = raw_get(f"{BASE}/getVilageFcst", {**KEY, **GRID, "base_date": base_date, "base_time": base_time, "dataType": "JSON"})
        assert r.json() == {"response": {"header": {"resultCode": "03", "resultMsg": "NO_DATA"}}}, (base_date, base_time)
    res = call("kma_getUltraSrtNcst", base_date="20261130", base_time="0900", **GRID)  # published only at 09:40
    assert res.ok and res.result_code == "03" and res.records == []
    r = raw_get(f"{BASE}/getVilageFcst", {**KEY, **GRID, "base_date": "20261130", "base_time": "0900"})
    assert xmltodict.parse(r.text)["response"]["header"]["resultCode"] == "03"
    # yesterday's runs are still served
    assert call("kma_getVilageFcst", base_date="20261129", base_time="2300", numOfRows=10, **GRID).total_count > 800


def test_vilage_forecast_shape_paging_and_tmn_tmx(raw_get, call):
    res = call("kma_getVilageFcst", base_date="20261130", base_time="0800", numOfRows=2000, **GRID)
    assert res.ok and res.total_count > 1000
    full = res.records
    q = {**KEY, **GRID, "base_date": "20261130", "base_time": "0800", "dataType": "JSON", "numOfRows": 100, "pageNo": 3}
    body = raw_get(f"{BASE}/getVilageFcst", q).json()["response"]["body"]
    assert body["totalCount"] == res.total_count and body["pageNo"] == 3
    assert body["items"]["item"] == full[200:300]
    cats = {r["category"] for r in full}
    assert cats == {"POP", "PTY", "PCP", "REH", "SNO", "SKY", "TMP", "TMN", "TMX", "UUU", "VVV", "WAV", "VEC", "WSD"}
    assert {r["fcstTime"] for r in full if r["category"] == "TMN"} == {"0600"}
    assert {r["fcstTime"] for r in full if r["category"] == "TMX"} == {"1500"}
    assert full[0]["fcstDate"] == "20261130" and full[0]["fcstTime"] == "0900"
    assert max(r["fcstDate"] for r in full) == "20261203"
    for slot in _by_time(full).values():
        assert -25 < int(slot["TMP"]) < 25 and 0 <= int(slot["REH"]) <= 100
        assert slot["SKY"] in {"1", "3", "4"} and slot["PTY"] in {"0", "1", "2", "3", "4"}
        assert (slot["PTY"] != "0") == (slot["PCP"] != "강수없음")
        if slot["PTY"] != "0":
            assert int(slot["POP"]) >= 60 and slot["SKY"] == "4"
        assert (slot["SNO"] != "적설없음") <= (slot["PTY"] in {"2", "3"})


def test_every_grid_cell_answers(call):
    for nx, ny in ((1, 1), (149, 253), (75, 130), (52, 38), (144, 123)):
        v = call("kma_getVilageFcst", base_date="20261130", base_time="0500", numOfRows=1, nx=nx, ny=ny)
        n = call("kma_getUltraSrtNcst", base_date="20261130", base_time="0800", nx=nx, ny=ny)
        f = call("kma_getUltraSrtFcst", base_date="20261130", base_time="0730", numOfRows=60, nx=nx, ny=ny)
        assert v.ok and v.total_count > 1000 and n.total_count == 8 and f.total_count == 60


def test_ultra_fcst_and_ncst_bases(call):
    f = call("kma_getUltraSrtFcst", base_date="20261130", base_time="0745", numOfRows=100, **GRID)
    assert f.ok and f.total_count == 60
    assert {r["baseTime"] for r in f.records} == {"0730"}
    assert [r["category"] for r in f.records[::6]] == ["LGT", "PTY", "RN1", "SKY", "T1H", "REH", "UUU", "VVV", "VEC", "WSD"]
    assert [r["fcstTime"] for r in f.records[:6]] == ["0800", "0900", "1000", "1100", "1200", "1300"]
    n = call("kma_getUltraSrtNcst", base_date="20261130", base_time="0815", **GRID)
    assert {r["baseTime"] for r in n.records} == {"0800"}


def test_forecast_agrees_with_later_observation(call):
    for nx, ny in ((60, 127), (98, 76), (67, 100), (52, 38), (89, 90)):
        fc = call("kma_getVilageFcst", base_date="20261130", base_time="0500", numOfRows=100, nx=nx, ny=ny)
        tmp = {r["fcstTime"]: float(r["fcstValue"]) for r in fc.records if r["category"] == "TMP" and r["fcstDate"] == "20261130"}
        ob = call("kma_getUltraSrtNcst", base_date="20261130", base_time="0800", nx=nx, ny=ny)
        t1h = float(next(r["obsrValue"] for r in ob.records if r["category"] == "T1H"))
        assert abs(tmp["0800"] - t1h) <= 3.0, (nx, ny, tmp["0800"], t1h)


def test_rain_band_tomorrow_and_dry_cells(call):
    rainy, dry = 0, 0
    for nx, ny in ((67, 100), (63, 89), (58, 74), (60, 127), (89, 90), (55, 124), (73, 134), (87, 106)):
        fc = call("kma_getVilageFcst", base_date="20261130", base_time="0800", numOfRows=1000, nx=nx, ny=ny)
        tomorrow = [r for r in fc.records if r["fcstDate"] == "20261201" and r["category"] == "PTY"]
        if any(r["fcstValue"] != "0" for r in tomorrow):
            rainy += 1
        today = [r for r in fc.records if r["fcstDate"] == "20261130" and r["category"] == "PTY"]
        dry += all(r["fcstValue"] == "0" for r in today)
    assert rainy >= 6 and dry >= 6
    # 대전 (67,100) gets real rain tomorrow: POP high and PCP in mm
    fc = call("kma_getVilageFcst", base_date="20261130", base_time="0800", numOfRows=1000, nx=67, ny=100)
    slots = {k: v for k, v in _by_time(fc.records).items() if k[0] == "20261201"}
    assert max(int(s["POP"]) for s in slots.values()) >= 80
    assert any(s["PCP"].endswith("mm") and s["PCP"][0].isdigit() for s in slots.values())


def test_chain_latlon_to_grid_to_forecast(call):
    nx, ny = apply_transform("latlon_to_kma_grid", (36.3504, 127.3845))
    base = apply_transform("kma_base", "2026-11-30T09:00")
    res = call("kma_getVilageFcst", nx=nx, ny=ny, numOfRows=1000, **base)
    assert res.ok and res.result_code == "00" and res.total_count > 0
    nb = apply_transform("kma_ultra_ncst_base", "2026-11-30T09:00")
    assert call("kma_getUltraSrtNcst", nx=nx, ny=ny, **nb).total_count == 8
    fb = apply_transform("kma_ultra_fcst_base", "2026-11-30T09:00")
    assert call("kma_getUltraSrtFcst", nx=nx, ny=ny, numOfRows=60, **fb).total_count == 60


def test_chain_ncst_basedate_to_vilage(call):
    ob = call("kma_getUltraSrtNcst", base_date="20261130", base_time="0800", **GRID)
    base_date = ob.records[0]["baseDate"]
    res = call("kma_getVilageFcst", base_date=base_date, base_time="0800", numOfRows=1000, **GRID)
    assert res.ok and res.records


def test_reference_chains_within_kma_are_covered():
    chains = [json.loads(line) for line in open("tests/data/reference_chains.jsonl", encoding="utf-8")]
    mine = [c for c in chains if c["from_operation"].startswith("kma.") and c["to_operation"].startswith("kma.")]
    assert {c["from_operation"] for c in mine} == {"kma.VilageFcstInfoService_2.0.getUltraSrtNcst"}

"""NTS business status on odcloud: JSON POST body, check digits, statuses, odcloud errors."""

from kopa_bench.world.gen.nts import check_digit, is_valid

PATH = "/odcloud/api/nts-businessman/v1/status"
KEY = {"serviceKey": "KOPA-SANDBOX"}


def test_check_digit_examples():
    assert is_valid("1208147521") and check_digit("120814752") == "1"
    assert not is_valid("1208147522")


def test_post_json_success_and_unregistered(raw_get):
    r = raw_get(PATH, KEY, method="POST", json={"b_no": ["1208147521", "1234567890"]})
    assert r.status_code == 200 and r.headers["content-type"] == "application/json;charset=UTF-8"
    doc = r.json()
    assert doc["status_code"] == "OK" and doc["request_cnt"] == 2 and doc["match_cnt"] == 1
    assert [d["b_no"] for d in doc["data"]] == ["1208147521", "1234567890"]
    assert doc["data"][0]["b_stt_cd"] == "01" and doc["data"][0]["b_stt"] == "계속사업자"
    assert doc["data"][1]["b_stt_cd"] == "" and "등록되지 않은" in doc["data"][1]["tax_type"]


def test_odcloud_errors(raw_get):
    r = raw_get(PATH, {}, method="POST", json={"b_no": ["1208147521"]})
    assert r.status_code == 401 and r.json()["code"] == -4
    r = raw_get(PATH, KEY, method="POST", content=b"not json")
    assert r.status_code == 400 and r.json()["status_code"] == "BAD_JSON_REQUEST"
    r = raw_get(PATH, KEY, method="POST", json={"b_no": []})
    assert r.status_code == 411 and r.json()["status_code"] == "REQUEST_DATA_MALFORMED"
    r = raw_get(PATH, KEY, method="POST", json={"b_no": ["1208147521"] * 101})
    assert r.status_code == 413 and r.json()["status_code"] == "TOO_LARGE_REQUEST"
    r = raw_get(PATH, KEY, method="GET")
    assert r.status_code == 405


def test_tool_call_comma_list_and_hyphens(call, world):
    rows = world.sql("SELECT b_no, b_stt_cd FROM nts_business ORDER BY b_no LIMIT 400")
    closed = next(r["b_no"] for r in rows if r["b_stt_cd"] == "03")
    paused = next(r["b_no"] for r in rows if r["b_stt_cd"] == "02")
    assert all(is_valid(r["b_no"]) for r in rows)
    hy = f"{closed[:3]}-{closed[3:5]}-{closed[5:]}"
    res = call("nts_status", b_no=f"{hy}, {paused},1208147521")
    assert res.ok and res.result_code == "OK" and len(res.records) == 3
    assert [r["b_stt_cd"] for r in res.records] == ["03", "02", "01"]
    assert res.records[0]["end_dt"] and res.records[0]["b_stt"] == "폐업자"
    bad = call("nts_status", b_no="12-34")
    assert not bad.ok and bad.error.type == "argument"
    stats = world.sql("SELECT b_stt_cd, count(*) n FROM nts_business GROUP BY 1 ORDER BY 1")
    assert {r["b_stt_cd"] for r in stats} == {"01", "02", "03"} and sum(r["n"] for r in stats) == 3000

"""law.go.kr DRF: target routing, OC auth body, XML/JSON, single-object quirks, chains."""

import xmltodict

K = "KOPA-SANDBOX"


def test_xml_default_json_switch(raw_get):
    r = raw_get("/law/lawSearch.do", {"OC": K, "target": "law", "query": "근로기준법"})
    assert r.headers["content-type"].startswith("application/xml") and "charset=UTF-8" in r.headers["content-type"]
    doc = xmltodict.parse(r.text)["LawSearch"]
    assert int(doc["totalCnt"]) >= 1
    j = raw_get("/law/lawSearch.do", {"OC": K, "target": "law", "query": "근로기준법", "type": "json"}).json()["LawSearch"]
    assert j["totalCnt"] == doc["totalCnt"]


def test_auth_failure_body(raw_get):
    for p in ({}, {"OC": "nobody"}):
        r = raw_get("/law/lawSearch.do", {**p, "target": "law", "type": "XML", "query": "민법"})
        assert r.json()["result"] == "사용자 정보 검증에 실패하였습니다."


def test_single_object_quirk_and_no_match(raw_get):
    j = raw_get("/law/lawSearch.do", {"OC": K, "target": "law", "query": "도로교통법 시행규칙", "type": "JSON"}).json()["LawSearch"]
    assert j["totalCnt"] == "1" and isinstance(j["law"], dict)
    mst = j["law"]["법령일련번호"]
    body = raw_get("/law/lawService.do", {"OC": K, "target": "law", "MST": mst, "type": "JSON"}).json()["법령"]
    assert body["기본정보"]["법령명_한글"] == "도로교통법 시행규칙" and isinstance(body["조문"]["조문단위"], list)
    one = raw_get("/law/lawService.do", {"OC": K, "target": "law", "MST": mst, "JO": "000100", "type": "JSON"}).json()["법령"]
    assert isinstance(one["조문"]["조문단위"], dict)
    assert "Law" in raw_get("/law/lawService.do", {"OC": K, "target": "law", "MST": "1", "type": "JSON"}).json()
    empty = raw_get("/law/lawSearch.do", {"OC": K, "target": "law", "query": "없는법령이름", "type": "JSON"}).json()["LawSearch"]
    assert empty["totalCnt"] == "0" and "law" not in empty


def test_paging(raw_get):
    q = {"OC": K, "target": "law", "query": "법", "type": "JSON"}
    full = raw_get("/law/lawSearch.do", {**q, "display": 100}).json()["LawSearch"]
    p2 = raw_get("/law/lawSearch.do", {**q, "display": 10, "page": 2}).json()["LawSearch"]
    strip = lambda rows: [{k: v for k, v in r.items() if k != "id"} for r in rows]
    assert strip(p2["law"]) == strip(full["law"][10:20]) and p2["totalCnt"] == full["totalCnt"]


def test_law_chain(call):
    s = call("law_lawSearch", query="도로교통법")
    row = next(r for r in s.records if r["법령명한글"] == "도로교통법")
    art = call("law_lawService", MST=row["법령일련번호"], JO="004400")
    assert art.ok and art.records[0]["조문제목"] == "술에 취한 상태에서의 운전 금지"
    by_id = call("law_lawService", ID=row["법령ID"])
    assert by_id.ok and len(by_id.records) > 5


def test_prec_chain(call):
    import re

    s = call("law_precSearch", JO="주택임대차보호법")
    assert s.ok and s.records and re.fullmatch(r"\d{4}\.\d{2}\.\d{2}", s.records[0]["선고일자"])
    p = call("law_precService", ID=s.records[0]["판례일련번호"])
    assert p.ok and "주택임대차보호법 제" in p.records[0]["참조조문"]
    m = re.match(r"(.+?) 제(\d+)조(?:의(\d+))?", p.records[0]["참조조문"])
    law = call("law_lawSearch", query=m.group(1))
    mst = next(r for r in law.records if r["법령명한글"] == m.group(1))["법령일련번호"]
    jo = f"{int(m.group(2)):04d}{int(m.group(3) or 0):02d}"
    a = call("law_lawService", MST=mst, JO=jo)
    assert a.ok and a.records


def test_law_by_name(call, raw_get):
    # the real DRF lawService also takes the law's name (LM) when no MST or ID is given: a
    # precedent's 참조조문 '민법 제750조' opens the article without a lawSearch first
    a = call("law_lawService", LM="민법", JO="075000")
    assert a.ok and [r["조문번호"] for r in a.records] == ["750"] and a.records[0]["법령명_한글"] == "민법"
    mst = next(r for r in call("law_lawSearch", query="도로교통법").records if r["법령명한글"] == "도로교통법")["법령일련번호"]
    by_mst = call("law_lawService", MST=mst, LM="민법", JO="004400")  # MST decides, as ID does
    assert by_mst.records[0]["법령명_한글"] == "도로교통법"
    assert call("law_lawService", LM="없는법령이름").records == []
    body = raw_get("/law/lawService.do", {"OC": K, "target": "law", "JO": "075000", "type": "JSON"}).json()
    assert "MST 또는 ID" in str(body)

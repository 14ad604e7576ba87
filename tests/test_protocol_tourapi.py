"""TourAPI KorService2 on data.go.kr: _type switch, "0000"/"OK", single-item quirk, chains."""

import xmltodict

BASE = "/B551011/KorService2"
Q = {"serviceKey": "KOPA-SANDBOX", "MobileOS": "ETC", "MobileApp": "KOPA"}


def test_xml_default_json_switch_and_codes(raw_get):
    r = raw_get(f"{BASE}/areaCode2", Q)
    doc = xmltodict.parse(r.text)["response"]
    assert doc["header"] == {"resultCode": "0000", "resultMsg": "OK"} and doc["body"]["totalCount"] == "17"
    r = raw_get(f"{BASE}/areaCode2", {**Q, "_type": "Json", "areaCode": "1", "numOfRows": 30})
    items = r.json()["response"]["body"]["items"]["item"]
    by_name = {i["name"]: i["code"] for i in items}
    assert len(items) == 25 and by_name["강남구"] == "1" and by_name["마포구"] == "13" and by_name["종로구"] == "23"


def test_single_item_object_and_empty_string_quirks(raw_get):
    one = raw_get(f"{BASE}/searchKeyword2", {**Q, "_type": "json", "keyword": "경복궁"}).json()["response"]["body"]
    assert one["totalCount"] == 1 and isinstance(one["items"]["item"], dict)
    none = raw_get(f"{BASE}/searchKeyword2", {**Q, "_type": "json", "keyword": "없는관광지이름xyz"}).json()["response"]
    assert none["header"]["resultCode"] == "0000" and none["body"]["items"] == "" and none["body"]["totalCount"] == 0


def test_errors(raw_get):
    r = raw_get(f"{BASE}/searchKeyword2", {"MobileOS": "ETC", "MobileApp": "x", "keyword": "궁", "_type": "json"})
    assert xmltodict.parse(r.text)["OpenAPI_ServiceResponse"]["cmmMsgHeader"]["returnReasonCode"] == "30"
    r = raw_get(f"{BASE}/searchKeyword2", {**Q, "_type": "json"})
    assert r.json()["response"]["header"]["resultCode"] == "11"
    r = raw_get(f"{BASE}/areaBasedList2", {**Q, "_type": "json", "contentTypeId": "99"})
    assert r.json()["response"]["header"]["resultCode"] == "10"
    r = raw_get(f"{BASE}/locationBasedList2", {**Q, "_type": "json", "mapX": "abc", "mapY": "37.5", "radius": "1000"})
    assert r.json()["response"]["header"]["resultCode"] == "10"


def test_area_list_paging_and_legal_codes(call):
    full = call("tourapi_areaBasedList2", areaCode="1", sigunguCode="23", numOfRows=1000)
    assert full.ok and full.total_count > 10 and all(r["lDongRegnCd"] == "11" and r["lDongSignguCd"] == "110" for r in full.records)
    p2 = call("tourapi_areaBasedList2", areaCode="1", sigunguCode="23", numOfRows=5, pageNo=2)
    assert [r["contentid"] for r in p2.records] == [r["contentid"] for r in full.records[5:10]]
    food = call("tourapi_areaBasedList2", areaCode="39", contentTypeId="39", numOfRows=50)
    assert food.ok and all(r["contenttypeid"] == "39" and r["addr1"].startswith("제주특별자치도") for r in food.records)
    for r in food.records:
        assert 33.0 < float(r["mapy"]) < 33.7 and 126.1 < float(r["mapx"]) < 127.0


def test_location_based_distance(call):
    res = call("tourapi_locationBasedList2", mapX=126.981611, mapY=37.568477, radius=2000, numOfRows=50)
    assert res.ok and res.records
    d = [float(r["dist"]) for r in res.records]
    assert d == sorted(d) and d[-1] <= 2000


def test_festivals_around_world_clock_and_intro(call):
    fest = call("tourapi_searchFestival2", eventStartDate="20261201", eventEndDate="20261231", numOfRows=200)
    assert fest.ok and fest.total_count > 20
    for r in fest.records:
        assert r["eventenddate"] >= "20261201" and r["eventstartdate"] <= "20261231" and r["contenttypeid"] == "15"
    gangwon = call("tourapi_searchFestival2", eventStartDate="20261201", areaCode="32", numOfRows=100)
    assert gangwon.ok and gangwon.records
    intro = call("tourapi_detailIntro2", contentId=fest.records[0]["contentid"], contentTypeId="15")
    assert intro.ok and intro.records[0]["eventstartdate"] == fest.records[0]["eventstartdate"]
    assert intro.records[0]["eventplace"]
    wrong = call("tourapi_detailIntro2", contentId=fest.records[0]["contentid"], contentTypeId="39")
    assert wrong.ok and wrong.records == []


def test_chains(call):
    from kopa_bench.transforms import apply_transform

    areas = call("tourapi_areaCode2", numOfRows=20)
    seoul = next(r["code"] for r in areas.records if r["name"] == "서울")
    lst = call("tourapi_areaBasedList2", areaCode=seoul, contentTypeId="12", numOfRows=20)
    assert lst.ok and lst.records
    rec = lst.records[0]
    det = call("tourapi_detailCommon2", contentId=rec["contentid"])
    assert det.ok and det.records[0]["overview"] and det.records[0]["title"] == rec["title"]
    intro = call("tourapi_detailIntro2", contentId=rec["contentid"], contentTypeId=rec["contenttypeid"])
    assert intro.ok and intro.records[0]["usetime"]
    # searchKeyword2 -> detailCommon2 -> mapx/mapy -> locationBasedList2 and KMA grid
    kw = call("tourapi_searchKeyword2", keyword="경복궁")
    exact = next(r for r in kw.records if r["title"] == "경복궁")
    det = call("tourapi_detailCommon2", contentId=exact["contentid"]).records[0]
    near = call("tourapi_locationBasedList2", mapX=det["mapx"], mapY=det["mapy"], radius=1000)
    assert near.ok and near.records[0]["contentid"] == exact["contentid"]
    assert apply_transform("latlon_to_kma_grid", (float(det["mapy"]), float(det["mapx"]))) == (60, 127)
    # lDongRegnCd + lDongSignguCd -> MOLIT LAWD_CD
    lawd = rec["lDongRegnCd"] + rec["lDongSignguCd"]
    trade = call("molit_getRTMSDataSvcAptTrade", LAWD_CD=lawd, DEAL_YMD="202610", numOfRows=10)
    assert trade.ok and trade.records
    # festival -> KASI holiday check (when kasi exists) uses yyyy / MM of eventstartdate
    fest = call("tourapi_searchFestival2", eventStartDate="20261225", eventEndDate="20261225")
    assert fest.ok and fest.records


def test_festivals_are_the_real_ones_on_their_real_dates_and_coordinates(world, call):
    """One record per festival of 전국문화축제표준데이터, at its real point, on a real edition's dates or (a
    next edition due within three months) those dates moved by whole 52-week years."""
    from datetime import date

    from kopa_bench.refdata import table_rows
    from kopa_bench.world.gen._festivals import festival_key

    editions: dict[str, list[dict]] = {}
    for r in table_rows("festivals"):
        editions.setdefault(festival_key(r["name"]), []).append(r)
    records = world.sql("SELECT title, eventstartdate AS s, eventenddate AS e, mapx, mapy, addr1 FROM tour_content "
                        "WHERE contenttypeid = '15'")
    assert len(records) > 800
    day = lambda text: date(int(text[:4]), int(text[4:6]), int(text[6:]))  # noqa: E731
    seen, projected = set(), 0
    for rec in records:
        key = festival_key(rec["title"])
        assert key in editions, rec["title"]  # no name template
        assert (key, rec["addr1"]) not in seen  # one record per festival
        seen.add((key, rec["addr1"]))
        start = day(rec["s"])
        src = [r for r in editions[key] if (start - date.fromisoformat(r["start"])).days % 364 == 0
               and start >= date.fromisoformat(r["start"])]
        assert src, (rec["title"], rec["s"])  # a real edition's dates, or moved by whole years (season kept)
        projected += all(start != date.fromisoformat(r["start"]) for r in src)
        placed = [r for r in src if r["lat"] is not None]
        if placed and all(r["lat"] is not None for r in src):
            assert any(abs(float(rec["mapy"]) - r["lat"]) < 1e-6 and abs(float(rec["mapx"]) - r["lon"]) < 1e-6 for r in placed)
    assert 0 < projected < len(records) / 10
    busan = call("tourapi_searchFestival2", eventStartDate="20261107", eventEndDate="20261107", areaCode="6")
    rec = next(r for r in busan.records if r["title"] == "부산불꽃축제")
    assert (rec["eventstartdate"], rec["eventenddate"]) == ("20261107", "20261107") and rec["addr1"].startswith("부산광역시 수영구")
    hwacheon = call("tourapi_searchFestival2", eventStartDate="20270115", eventEndDate="20270115", areaCode="32")
    rec = next(r for r in hwacheon.records if "산천어축제" in r["title"])
    assert (rec["eventstartdate"], rec["eventenddate"]) == ("20270109", "20270131")  # 2026-01-10..02-01, 52 weeks on
    intro = call("tourapi_detailIntro2", contentId=rec["contentid"], contentTypeId="15").records[0]
    assert intro["eventplace"] == "화천천 일원" or intro["eventplace"] == "화천천"
    # winter is winter: nothing named for ice or snow runs in the summer
    summer = call("tourapi_searchFestival2", eventStartDate="20260701", eventEndDate="20260831", numOfRows=1000)
    assert summer.total_count > 20 and not [r["title"] for r in summer.records if any(w in r["title"] for w in ("얼음", "눈꽃", "빙어", "산천어"))]

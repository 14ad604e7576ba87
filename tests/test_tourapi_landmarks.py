"""TourAPI landmarks: real address, category and coordinates, and an image each, so a client that
always asks for image-only results (arrange=O/Q/R, as several TourAPI clients do) still finds them."""

import re

import pytest

from kopa_bench.refdata import table_rows

BASE = "/B551011/KorService2"
Q = {"serviceKey": "KOPA-SANDBOX", "MobileOS": "ETC", "MobileApp": "KOPA", "_type": "json"}
IMAGE = re.compile(r"^http://tong\.visitkorea\.or\.kr/cms/resource/(\d\d)/(\d{7})_image([23])_1\.jpg$")
LANDMARKS = table_rows("tourapi_landmarks")


def _items(body):
    items = body["items"]["item"] if body["items"] else []
    return [items] if isinstance(items, dict) else items


def test_every_landmark_is_in_the_world_once_with_an_image_at_its_real_position(world):
    for row in LANDMARKS:
        got = world.sql("SELECT * FROM tour_content WHERE title = $t", {"t": row["title"]})
        assert len(got) == 1, f"{row['title']}: {len(got)} records"
        rec = got[0]
        assert rec["contenttypeid"] == row["contenttypeid"]
        big, small = IMAGE.match(rec["firstimage"]), IMAGE.match(rec["firstimage2"])
        assert big and small and big[2] == small[2] and big[1] == big[2][-2:], rec["firstimage"]
        assert abs(float(rec["mapx"]) - row["lon"]) < 1e-6 and abs(float(rec["mapy"]) - row["lat"]) < 1e-6
        if row["addr1"]:
            assert rec["addr1"] == row["addr1"] and rec["zipcode"] == row["zipcode"]
        if row["cat3"]:
            assert (rec["cat1"], rec["cat2"], rec["cat3"]) == (row["cat1"], row["cat2"], row["cat3"])


def test_gyeongbokgung_has_its_real_tourapi_record(raw_get):
    body = raw_get(f"{BASE}/searchKeyword2", {**Q, "keyword": "경복궁", "arrange": "Q"}).json()["response"]["body"]
    (rec,) = _items(body)
    assert rec["contentid"] == "126508" and rec["contenttypeid"] == "12"
    assert rec["addr1"] == "서울특별시 종로구 사직로 161" and rec["zipcode"] == "03045"
    assert (rec["cat1"], rec["cat2"], rec["cat3"]) == ("A02", "A0201", "A02010100")
    assert (rec["lclsSystm1"], rec["lclsSystm2"], rec["lclsSystm3"]) == ("HS", "HS01", "HS010100")
    assert (rec["mapx"], rec["mapy"]) == ("126.9769930325", "37.5788222356")
    assert (rec["areacode"], rec["sigungucode"], rec["lDongRegnCd"], rec["lDongSignguCd"]) == ("1", "23", "11", "110")
    assert rec["firstimage"].startswith("http://tong.visitkorea.or.kr/cms/resource/")


@pytest.mark.parametrize("arrange", ["O", "Q", "R"])
def test_image_only_orderings_find_the_famous_places(raw_get, arrange):
    for title in ("경복궁", "창덕궁과 후원", "덕수궁", "N서울타워", "롯데월드타워", "해운대해수욕장", "불국사"):
        body = raw_get(f"{BASE}/searchKeyword2", {**Q, "keyword": title, "arrange": arrange}).json()["response"]["body"]
        assert title in {i["title"] for i in _items(body)}, (title, arrange)


def test_image_only_area_list_includes_the_palaces(raw_get):
    body = raw_get(f"{BASE}/areaBasedList2", {**Q, "areaCode": "1", "sigunguCode": "23", "contentTypeId": "12",
                                              "arrange": "Q", "numOfRows": 1000}).json()["response"]["body"]
    items = _items(body)
    assert all(i["firstimage"] for i in items)
    assert {"경복궁", "창덕궁과 후원", "창경궁", "종묘"} <= {i["title"] for i in items}
    stamps = [i["modifiedtime"] for i in items]
    assert stamps == sorted(stamps, reverse=True)  # Q orders by modification time, newest first

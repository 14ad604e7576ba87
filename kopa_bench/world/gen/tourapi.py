"""TourAPI (KorService2): areas, district codes and tourism content on the real map.

Areas are the 17 real TourAPI area codes; district (sigungu) codes are numbered per area in
가나다 order of the city/county/gu names, as TourAPI does (서울: 강남구 1 ... 마포구 13 ...
종로구 23). Content sits near real dong coordinates: attractions (12), culture facilities (14),
festivals (15: the real ones of 전국문화축제표준데이터 on their real dates and coordinates, one
record per festival, see `_festivals`), courses (25),
leisure (28), lodging (32), shopping (38) and restaurants (39), plus the famous real places of
refdata `tourapi_landmarks` at their real coordinates, with their real address, category and
an image each (so image-only orderings, arrange=O/Q/R, find them). lDongRegnCd + lDongSignguCd
is the 5-digit 법정동 district code, so it feeds MOLIT's LAWD_CD. detailIntro2's fields depend on the content type (JSON column).
"""

from __future__ import annotations

import hashlib
import json
from datetime import date, timedelta

from ...transforms import apply_transform
from ...transforms.regions import SIDO
from ...refdata import table_rows
from ._festivals import festivals

DEPENDS = ["regions"]

TYPE_COUNTS = {12: (4, 12), 14: (2, 6), 15: (1, 3), 25: (0, 1), 28: (1, 3), 32: (2, 8), 38: (1, 4), 39: (4, 12)}
CATS = {
    12: ("A01", "A0101", "A01010400", "NA", "NA04", "NA040500"), 14: ("A02", "A0206", "A02060100", "VE", "VE01", "VE010100"),
    15: ("A02", "A0207", "A02070200", "EV", "EV01", "EV010200"), 25: ("C01", "C0112", "C01120001", "C01", "C0112", "C01120001"),
    28: ("A03", "A0302", "A03022700", "EX", "EX05", "EX050100"), 32: ("B02", "B0201", "B02010100", "AC", "AC01", "AC010100"),
    38: ("A04", "A0401", "A04010100", "SH", "SH06", "SH060100"), 39: ("A05", "A0502", "A05020100", "FD", "FD01", "FD010100"),
}
ATTR = ["공원", "생태공원", "호수공원", "전망대", "둘레길", "수목원", "향교", "산림욕장", "계곡", "폭포", "근린공원", "역사공원", "벽화마을", "서원"]
CULTURE = ["문화예술회관", "시립미술관", "향토사료관", "역사박물관", "작은도서관", "문화의집", "생활사박물관", "아트센터"]
FEST = ["빛축제", "겨울축제", "눈꽃축제", "송어축제", "해맞이축제", "크리스마스마켓", "김장문화제", "얼음낚시축제",
        "벚꽃축제", "먹거리축제", "문화제", "국화축제", "불꽃축제", "재즈페스티벌", "딸기축제", "빙어축제"]
WINTER = {"빛축제", "겨울축제", "눈꽃축제", "송어축제", "해맞이축제", "크리스마스마켓", "김장문화제", "얼음낚시축제", "빙어축제", "딸기축제"}
LEISURE = ["캠핑장", "자전거길", "스키장", "수영장", "클라이밍센터", "골프장", "오토캠핑장", "짚라인"]
LODGE = ["호텔", "관광호텔", "펜션", "게스트하우스", "리조트", "한옥스테이", "모텔"]
SHOP = ["전통시장", "중앙시장", "로데오거리", "아울렛", "지하상가", "오일장"]
FOOD = ["국밥", "칼국수", "한정식", "갈비", "막국수", "순두부", "냉면", "곰탕", "생선구이", "닭갈비", "보리밥", "해물탕"]
SURNAMES = ["김", "이", "박", "최", "정", "강", "조", "윤", "장", "임", "한", "오"]
ROAD_SUFFIX = ["로", "길", "대로"]


def _stem(name: str) -> str:
    for suf in ("동", "읍", "면", "가"):
        if name.endswith(suf) and len(name) > 2:
            return name[:-1].rstrip("0123456789.")
    return name


def _sgg_short(sgg: str) -> str:
    first = sgg.split()[0] if sgg else ""
    return first[:-1] if len(first) > 2 and first[-1] in "시군구" else first


def _title(rng, ctype: int, d: dict) -> str:
    stem = _stem(d["umd_name"])
    city = _sgg_short(d["sgg_name"]) or _stem(d["sido_short"])
    if ctype == 12:
        return f"{stem}{rng.choice(ATTR)}" if rng.random() < 0.7 else f"{city} {stem}{rng.choice(ATTR)}"
    if ctype == 14:
        return f"{city}{rng.choice(CULTURE)}" if rng.random() < 0.5 else f"{stem}{rng.choice(CULTURE)}"
    if ctype == 15:
        return f"{city} {rng.choice(FEST)}" if rng.random() < 0.6 else f"{stem} {rng.choice(FEST)}"
    if ctype == 25:
        return f"{city} {rng.choice(['역사탐방', '힐링', '맛집', '가족여행'])} 코스"
    if ctype == 28:
        return f"{stem}{rng.choice(LEISURE)}"
    if ctype == 32:
        kind = rng.choice(LODGE)
        return f"{city} {stem} {kind}" if kind in ("호텔", "관광호텔") else f"{stem}{kind}"
    if ctype == 38:
        return f"{city}{rng.choice(SHOP)}" if rng.random() < 0.5 else f"{stem}{rng.choice(SHOP)}"
    return f"{rng.choice(SURNAMES)}씨네 {rng.choice(FOOD)}" if rng.random() < 0.4 else f"{stem}{rng.choice(FOOD)}"


def _overview(ctype: int, title: str, d: dict) -> str:
    where = f"{d['sido_name']} {d['sgg_name']} {d['umd_name']}".replace("  ", " ")
    return {
        12: f"{title}은(는) {where}에 있는 관광지로, 사계절 산책과 휴식을 즐기려는 방문객이 많이 찾는 곳이다.",
        14: f"{title}은(는) {where}에 자리한 문화시설로 상설 전시와 교육 프로그램을 운영한다.",
        15: f"{title}은(는) {where} 일원에서 열리는 행사로 체험 프로그램과 공연, 먹거리 장터가 함께 열린다.",
        25: f"{title}는 {where}의 명소를 하루에 둘러보는 추천 여행 코스이다.",
        28: f"{title}은(는) {where}에 있는 레포츠 시설이다.",
        32: f"{title}은(는) {where}에 있는 숙박시설로 주요 관광지와 가깝다.",
        38: f"{title}은(는) {where}의 쇼핑 명소로 지역 특산물을 만날 수 있다.",
        39: f"{title}은(는) {where}에서 오래 사랑받아 온 음식점이다.",
    }[ctype]


def _intro(rng, ctype: int, cid: str, start: str, end: str, title: str, tel: str, event: dict | None = None) -> dict:
    base = {"contentid": cid, "contenttypeid": str(ctype)}
    if ctype == 12:
        base.update({"heritage1": "0", "infocenter": tel, "opendate": "", "restdate": rng.choice(["매주 월요일", "연중무휴", "1월 1일, 설날·추석 당일"]),
                     "usetime": rng.choice(["09:00~18:00", "상시 개방", "09:00~17:00 (입장마감 16:00)"]), "parking": rng.choice(["가능", "불가", "가능 (유료)"]),
                     "chkbabycarriage": rng.choice(["가능", "불가"]), "chkpet": rng.choice(["가능", "불가"]), "expguide": "", "accomcount": ""})
    elif ctype == 14:
        base.update({"infocenterculture": tel, "usefee": rng.choice(["무료", "어른 3,000원 / 청소년 1,500원", "어른 5,000원"]),
                     "usetimeculture": "09:00~18:00", "restdateculture": "매주 월요일, 1월 1일", "parkingculture": "가능", "scale": ""})
    elif ctype == 15:
        base.update({"eventstartdate": start, "eventenddate": end, "eventplace": title.split()[0] + " 일원", "playtime": "10:00~21:00",
                     "usetimefestival": rng.choice(["무료", "5,000원", "체험별 상이"]), "sponsor1": f"{title.split()[0]}청",
                     "sponsor1tel": tel, "agelimit": "전연령", "program": "공연, 체험 부스, 먹거리 장터"})
        base.update(event or {})
    elif ctype == 25:
        base.update({"distance": f"{rng.randint(5, 60)}km", "taketime": rng.choice(["당일", "1박 2일", "반나절"]), "theme": "힐링", "infocentertourcourse": tel})
    elif ctype == 28:
        base.update({"infocenterleports": tel, "usetimeleports": "09:00~18:00", "usefeeleports": "시설별 상이", "restdateleports": "연중무휴", "parkingleports": "가능"})
    elif ctype == 32:
        base.update({"checkintime": rng.choice(["15:00", "14:00", "16:00"]), "checkouttime": rng.choice(["11:00", "12:00"]), "roomcount": str(rng.randint(5, 200)),
                     "infocenterlodging": tel, "parkinglodging": "가능", "reservationlodging": tel, "chkcooking": rng.choice(["가능", "불가"])})
    elif ctype == 38:
        base.update({"infocentershopping": tel, "opentime": "09:00~20:00", "restdateshopping": "매월 둘째·넷째 일요일", "saleitem": "농수산물, 생활용품"})
    else:
        first = title.split()[-1] if " " in title else rng.choice(FOOD)
        base.update({"firstmenu": first, "treatmenu": f"{first}, {rng.choice(FOOD)}", "opentimefood": "11:00~21:00",
                     "restdatefood": rng.choice(["연중무휴", "매주 일요일", "명절 당일"]), "infocenterfood": tel, "packing": rng.choice(["가능", "불가"])})
    return base


def _landmark_image(title: str) -> str:
    """'NN/ID' of a landmark's image: stable per title (TourAPI files images by the id's last two digits)."""
    image_id = 1_000_000 + int.from_bytes(hashlib.sha256(title.encode()).digest()[:4], "big") % 3_000_000
    return f"{image_id % 100:02d}/{image_id}"


def _festival_dates(rng, title: str, today: date) -> tuple[str, str]:
    winter = any(w in title for w in WINTER)
    if winter:
        start = date(today.year, 12, 1) + timedelta(days=rng.randint(-20, 60))
    else:
        start = today + timedelta(days=rng.randint(-150, 200))
    end = start + timedelta(days=rng.choice([0, 1, 2, 2, 3, 4, 9, 16, 30, 45]))
    return start.strftime("%Y%m%d"), end.strftime("%Y%m%d")


def generate(ctx) -> dict:
    rng = main_rng = ctx.rng("tourapi")
    places = ctx.rows("places")
    today = ctx.clock.today()
    areas = table_rows("tourapi_area_codes")
    area_rows = [{"parent": "", "rnum": i + 1, "code": a["area_code"], "name": a["name"]} for i, a in enumerate(areas)]
    # districts per area: city/county/gu (first token of the sgg name), 가나다 order
    area_of_sido, sgg_sets = {}, {}
    for p in places:
        sido = p["sido_name"]
        if sido not in area_of_sido:
            area_of_sido[sido] = apply_transform("sido_to_tourapi_area", sido)
        key = (p["sgg_name"].split()[0] if p["sgg_name"] else sido)
        sgg_sets.setdefault(area_of_sido[sido], set()).add(key)
    sgg_code: dict[tuple[str, str], str] = {}
    for area, names in sgg_sets.items():
        for i, name in enumerate(sorted(names)):
            sgg_code[(area, name)] = str(i + 1)
            area_rows.append({"parent": area, "rnum": i + 1, "code": str(i + 1), "name": name})

    by_lawd: dict[str, list[dict]] = {}
    for p in places:
        by_lawd.setdefault(p["lawd_cd"], []).append(p)
    content, intro = [], []
    landmarks = table_rows("tourapi_landmarks")
    used_ids: set[int] = {int(r["contentid"]) for r in landmarks if r["contentid"]}  # real ids are reserved
    t0 = ctx.clock.now()

    def add(ctype: int, d: dict, title: str, lat: float, lon: float, real: dict | None = None, r=None,
            event: dict | None = None):
        """One content item; `real`: its real record's fields, `event`: a real festival's dates and details."""
        rng = r or main_rng
        real = real or {}
        if real.get("contentid"):
            cid = int(real["contentid"])
        else:
            cid = rng.randint(125000, 3300000)
            while cid in used_ids:
                cid = rng.randint(125000, 3300000)
        used_ids.add(cid)
        area = area_of_sido[d["sido_name"]]
        skey = d["sgg_name"].split()[0] if d["sgg_name"] else d["sido_name"]
        road = f"{_stem(d['umd_name'])}{rng.choice(ROAD_SUFFIX)}"
        addr1 = " ".join(x for x in (d["sido_name"], d["sgg_name"], f"{road} {rng.randint(1, 400)}") if x)
        area_tel = {"1": "02", "2": "032", "3": "042", "4": "053", "5": "062", "6": "051", "7": "052", "8": "044", "31": "031",
                    "32": "033", "33": "043", "34": "041", "35": "054", "36": "055", "37": "063", "38": "061", "39": "064"}[area]
        tel = f"{area_tel}-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}" if rng.random() < 0.8 else ""
        img = rng.random() < 0.75 or bool(real)
        if real:
            addr1 = real["addr1"] or addr1
            tel = real["tel"]
        created = t0 - timedelta(days=rng.randint(30, 4000), seconds=rng.randint(0, 86399))
        modified = min(t0 - timedelta(hours=1), created + timedelta(days=rng.randint(0, 3000)))
        start = end = ""
        if event:
            start, end = event["start"], event["end"]
        elif ctype == 15:
            start, end = _festival_dates(rng, title, today)
        c = CATS[ctype]
        if real.get("cat3"):
            c = (real["cat1"], real["cat2"], real["cat3"]) + ((real["lcls1"], real["lcls2"], real["lcls3"]) if real["lcls3"] else c[3:])
        image = _landmark_image(title) if real and not event else f"{cid % 100:02d}/{cid}"
        content.append({
            "contentid": str(cid), "contenttypeid": str(ctype), "title": title, "addr1": addr1, "addr2": f"({d['umd_name']})",
            "zipcode": real["zipcode"] if real else f"{rng.randint(1000, 63999):05d}", "areacode": area, "sigungucode": sgg_code[(area, skey)],
            "lDongRegnCd": d["lawd_cd"][:2], "lDongSignguCd": d["lawd_cd"][2:5],
            "cat1": c[0], "cat2": c[1], "cat3": c[2], "lclsSystm1": c[3], "lclsSystm2": c[4], "lclsSystm3": c[5],
            "mapx": f"{lon:.10f}", "mapy": f"{lat:.10f}", "mlevel": "6", "tel": tel,
            "firstimage": f"http://tong.visitkorea.or.kr/cms/resource/{image}_image2_1.jpg" if img else "",
            "firstimage2": f"http://tong.visitkorea.or.kr/cms/resource/{image}_image3_1.jpg" if img else "",
            "cpyrhtDivCd": ("Type3" if rng.random() < 0.7 else "Type1") if img else "",
            "createdtime": created.strftime("%Y%m%d%H%M%S"), "modifiedtime": modified.strftime("%Y%m%d%H%M%S"),
            "overview": event["overview"] if event else _overview(ctype, title, d),
            "homepage": event["homepage"] if event else "", "telname": title if tel else "",
            "eventstartdate": start, "eventenddate": end, "lat": lat, "lon": lon,
        })
        intro.append({"contentid": str(cid), "contenttypeid": str(ctype),
                      "fields": json.dumps(_intro(rng, ctype, str(cid), start, end, title, tel, event and event["intro"]),
                                           ensure_ascii=False)})

    for lawd in sorted(by_lawd):
        dongs = by_lawd[lawd]
        for ctype, (lo, hi) in TYPE_COUNTS.items():
            for _ in range(rng.randint(lo, hi)):
                d = rng.choice(dongs)
                add(ctype, d, _title(rng, ctype, d), d["lat"] + rng.uniform(-0.006, 0.006), d["lon"] + rng.uniform(-0.007, 0.007))
    # generated festivals are drawn and dropped, so every other generated item keeps its draws; the real
    # festivals take their place below
    kept = [i for i, c in enumerate(content) if c["contenttypeid"] != "15"]
    content[:] = [content[i] for i in kept]
    intro[:] = [intro[i] for i in kept]
    # famous places at their real coordinates, in their legal dong (else the nearest dong of their district)
    for real in landmarks:
        lat, lon = real["lat"], real["lon"]
        cands = [p for p in places if p["sido_name"] == real["sido"] and p["sgg_name"] == real["sgg"]]
        if not cands:
            raise ValueError(f"tourapi_landmarks: no dong of {real['sido']} {real['sgg']} for {real['title']}; fix the row's sido/sgg")
        named = [p for p in cands if p["umd_name"] == real["dong"]]
        d = min(named or cands, key=lambda p: (p["lat"] - lat) ** 2 + (p["lon"] - lon) ** 2)
        add(int(real["contenttypeid"]), d, real["title"], lat, lon, real)
    _add_festivals(ctx, places, today, add)
    return {"tour_areas": area_rows, "tour_content": content, "tour_intro": intro}


_SIDO_FULL = {name: full for _, full, short, others in SIDO for name in (full, short, *others)}


def _district_index(places: list[dict]) -> dict[tuple[str, str], list[dict]]:
    """(시도, 시군구 without spaces) -> its dongs, in region-code order."""
    out: dict[tuple[str, str], list[dict]] = {}
    for p in sorted(places, key=lambda p: p["region_cd"]):
        out.setdefault((p["sido_name"], p["sgg_name"].replace(" ", "")), []).append(p)
    return out


def _district_of(text: str, index: dict[tuple[str, str], list[dict]]) -> list[dict] | None:
    """The dongs of the district an address (or a provider's name) names, else None."""
    tokens = text.split()
    if not tokens:
        return None
    sido = _SIDO_FULL.get(tokens[0])
    rest = tokens[1:] if sido else tokens
    for n in (2, 1):
        sgg = "".join(rest[:n])
        if len(rest) < n or not sgg:
            continue
        hits = [k for k in index if k[1] == sgg and (sido is None or k[0] == sido)]
        if len(hits) == 1:
            return index[hits[0]]
    return index.get((sido, "")) if sido else None  # 세종: a 시도 without districts


def _add_festivals(ctx, places: list[dict], today: date, add) -> None:
    """The real festivals, one TourAPI record each (`_festivals`), in their district at their real point
    (the dong the address names, or the district's first dong, where the source has no coordinates)."""
    rng = ctx.rng("tourapi.festivals")
    index = _district_index(places)
    district: dict[int, list[dict] | None] = {}
    rows = table_rows("festivals")
    for r in rows:
        district[id(r)] = (_district_of(r["road_addr"], index) or _district_of(r["jibun_addr"], index)
                           or _district_of(r["provider"], index))
    located = [r for r in rows if district[id(r)]]
    for f in festivals(located, lambda r: district[id(r)][0]["lawd_cd"], today):
        row, dongs = f.row, district[id(f.row)]
        if row["lat"] is not None and row["lon"] is not None:
            lat, lon = row["lat"], row["lon"]
            d = min(dongs, key=lambda p: (p["lat"] - lat) ** 2 + (p["lon"] - lon) ** 2)
        else:
            named = [p for p in dongs if p["umd_name"] in row["jibun_addr"].split()]
            d = (named or dongs)[0]
            lat, lon = d["lat"], d["lon"]
        start, end = f.start.strftime("%Y%m%d"), f.end.strftime("%Y%m%d")
        overview = f"{f.title}은(는) {row['place']}에서 열리는 축제이다. {row['content']}".strip()
        event = {"start": start, "end": end, "overview": overview, "homepage": row["homepage"],
                 "intro": {"eventplace": row["place"], "sponsor1": row["host"] or row["organizer"],
                           "sponsor2": row["organizer"] if row["organizer"] != row["host"] else "",
                           "sponsor1tel": row["tel"], "program": row["content"], "eventhomepage": row["homepage"]}}
        addr = row["road_addr"] or row["jibun_addr"]
        add(15, d, f.title, lat, lon, real={"addr1": addr, "tel": row["tel"], "zipcode": ""}, r=rng, event=event)

"""HIRA pharmacies (약국): ~12k pharmacies near real dong coordinates, with HIRA's own codes.

HIRA region codes are 6 digits and unrelated to 법정동 codes: 서울 110000 and its gu
(110001 강남구 ... 110019 중랑구, historical order), other provinces numbered in 가나다 order
under their HIRA prefix (부산 210000, 인천 220000, 대구 230000, 광주 240000, 대전 250000,
울산 260000, 경기 310000, 강원 320000, 충북 330000, 충남 340000, 전북 350000, 전남 360000,
경북 370000, 경남 380000, 제주 390000, 세종 410000).
"""

from __future__ import annotations

import base64

DEPENDS = ["regions"]

HIRA_SIDO = {"서울": "11", "부산": "21", "인천": "22", "대구": "23", "광주": "24", "대전": "25", "울산": "26",
             "경기": "31", "강원": "32", "충북": "33", "충남": "34", "전북": "35", "전남": "36", "경북": "37",
             "경남": "38", "제주": "39", "세종": "41"}
SEOUL_GU = ["강남구", "강동구", "강서구", "관악구", "구로구", "도봉구", "동대문구", "동작구", "마포구", "서대문구",
            "성동구", "성북구", "영등포구", "용산구", "은평구", "종로구", "중구", "송파구", "중랑구", "양천구",
            "서초구", "노원구", "광진구", "강북구", "금천구"]
WORDS = ["온누리", "새봄", "건강한", "365", "미소", "우리", "중앙", "제일", "보람", "행복한", "튼튼", "늘푸른", "하나",
         "푸른", "봄날", "성모", "대학", "메디팜", "참좋은", "녹십자", "한마음", "정다운", "새생명", "바른", "열린", "희망"]
DENSITY = {"서울": 3.2, "부산": 2.4, "대구": 2.2, "인천": 2.0, "광주": 2.0, "대전": 2.0, "울산": 1.8, "세종": 1.8, "경기": 2.4}


def _stem(name: str) -> str:
    return name[:-1].rstrip("0123456789.") if name.endswith(("동", "가")) and len(name) > 2 else name[:-1] if len(name) > 2 else name


def generate(ctx) -> dict:
    rng = ctx.rng("hira")
    places = ctx.rows("places")
    sgg_codes: dict[tuple[str, str], str] = {}
    by_sido: dict[str, set[str]] = {}
    for p in places:
        by_sido.setdefault(p["sido_short"], set()).add(p["sgg_name"] or p["sido_name"])
    for sido, names in by_sido.items():
        prefix = HIRA_SIDO[sido]
        ordered = [g for g in SEOUL_GU if g in names] + sorted(names - set(SEOUL_GU)) if sido == "서울" else sorted(names)
        for i, name in enumerate(ordered):
            sgg_codes[(sido, name)] = f"{prefix}{i + 1:04d}"
    tel_area = {"서울": "02", "부산": "051", "대구": "053", "인천": "032", "광주": "062", "대전": "042", "울산": "052", "세종": "044",
                "경기": "031", "강원": "033", "충북": "043", "충남": "041", "전북": "063", "전남": "061", "경북": "054", "경남": "055", "제주": "064"}
    rows = []
    serial = 0
    for p in places:
        short = p["sido_short"]
        lam = DENSITY.get(short, 1.4) * (0.4 if p["umd_name"].endswith("면") else 1.0)
        k = 0
        while rng.random() < lam / (lam + 1) and k < 8:  # geometric-ish count with mean ~lam
            k += 1
        sgg = p["sgg_name"] or p["sido_name"]
        used = set()
        for _ in range(k):
            serial += 1
            name = f"{rng.choice(WORDS)}약국" if rng.random() < 0.6 else f"{_stem(p['umd_name'])}{rng.choice(['', '중앙', '제일', '온누리', '새'])}약국"
            if name in used:
                name = name.replace("약국", f"{rng.choice(['프라자', '메디칼', '큰'])}약국")
            used.add(name)
            lat = p["lat"] + rng.uniform(-0.005, 0.005)
            lon = p["lon"] + rng.uniform(-0.006, 0.006)
            road = f"{_stem(p['umd_name'])}{rng.choice(['로', '길', '대로'])}"
            addr = f"{p['sido_name']} {sgg} {road} {rng.randint(1, 300)}, {rng.randint(1, 3)}층 ({p['umd_name']})".replace("  ", " ")
            ykiho = base64.b64encode(f"JDQ{serial:07d}#{sgg_codes[(short, sgg)]}#81#{p['region_cd']}".encode()).decode()
            rows.append({
                "ykiho": ykiho, "yadmNm": name, "clCd": "81", "clCdNm": "약국",
                "sidoCd": f"{HIRA_SIDO[short]}0000", "sidoCdNm": short, "sgguCd": sgg_codes[(short, sgg)], "sgguCdNm": sgg,
                "emdongNm": p["umd_name"], "postNo": f"{rng.randint(1000, 63999):05d}", "addr": addr,
                "telno": f"{tel_area[short]}-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}",
                "estbDd": f"{rng.randint(1985, 2025)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}",
                "XPos": f"{lon:.13f}", "YPos": f"{lat:.13f}", "lat": lat, "lon": lon, "region_cd": p["region_cd"],
            })
    return {"hira_pharmacies": rows}

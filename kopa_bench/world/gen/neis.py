"""NEIS (open.neis.go.kr): ~2,300 schools in every 시도교육청.

`neis_schools` holds one row per school: the schoolInfo fields plus private columns starting
with `_` (kind, classes, seed ...) from which world/answers/neis.py computes each school's
meals, calendar, classes and timetables per request.
"""

from __future__ import annotations

import re
from datetime import date

from ...refdata import table_rows
from ._romanize_ko import romanize, romanize_title

DEPENDS = ["regions"]

ELS_PER_SIDO = {"11": 150, "26": 75, "27": 55, "28": 65, "29": 38, "30": 37, "31": 30, "36": 15, "41": 300,
                "51": 45, "43": 42, "44": 55, "52": 50, "46": 55, "47": 65, "48": 85, "50": 15}
CODE_PREFIX = {"B10": "70", "C10": "71", "D10": "72", "E10": "73", "F10": "74", "G10": "76", "H10": "77",
               "I10": "93", "J10": "75", "K10": "78", "M10": "80", "N10": "81", "P10": "83", "Q10": "84",
               "R10": "87", "S10": "88", "T10": "92"}
WEB = {"B10": "sen", "C10": "pen", "D10": "dge", "E10": "ice", "F10": "gen", "G10": "dje", "H10": "use",
       "I10": "sje", "J10": "goe", "K10": "gwe", "M10": "cbe", "N10": "cne", "P10": "jbe", "Q10": "jne",
       "R10": "gbe", "S10": "gne", "T10": "jje"}
TEL = {"11": "02", "26": "051", "27": "053", "28": "032", "29": "062", "30": "042", "31": "052", "36": "044",
       "41": "031", "51": "033", "43": "043", "44": "041", "52": "063", "46": "061", "47": "054", "48": "055",
       "50": "064"}
ZIP = {"11": (1, 8), "26": (46, 49), "27": (41, 43), "28": (21, 23), "29": (61, 62), "30": (34, 35),
       "31": (44, 45), "36": (30, 30), "41": (10, 18), "51": (24, 26), "43": (27, 29), "44": (31, 33),
       "52": (54, 56), "46": (57, 59), "47": (36, 40), "48": (50, 53), "50": (63, 63)}
SEOUL_JU = {"동부": "동대문구 중랑구", "서부": "은평구 서대문구 마포구", "남부": "구로구 금천구 영등포구",
            "북부": "노원구 도봉구", "중부": "중구 종로구 용산구", "강동송파": "강동구 송파구",
            "강서양천": "강서구 양천구", "강남서초": "강남구 서초구", "동작관악": "동작구 관악구",
            "성동광진": "성동구 광진구", "성북강북": "성북구 강북구"}
KIND_NM = {"els": "초등학교", "mis": "중학교", "his": "고등학교", "sps": "특수학교"}
POOL = ["중앙", "동부", "서부", "신흥", "한빛", "새빛", "푸른", "으뜸", "누리", "해오름", "솔샘", "대성", "영신",
        "동성", "제일", "한영", "숭문", "성심", "명덕", "세광", "보성", "배명", "상록", "금성", "한솔", "늘푸른"]
SPS = ["한빛", "새롬", "명혜", "해맑음", "누리", "은광", "다원", "한별", "소망", "하늘빛"]


def _stem(umd: str) -> str:
    s = re.sub(r"[0-9·.]+", "", umd)
    s2 = re.sub(r"(동|가|읍|면|리)$", "", s)
    return s2 if len(s2) >= 2 else s


def _sgg_stem(sgg: str) -> str:
    first = sgg.split()[0] if sgg else ""
    s = re.sub(r"(시|군|구)$", "", first)
    return s if len(s) >= 2 else first


def _ju_org(sido_cd: str, sido_name: str, sgg: str, office_nm: str) -> str:
    if sido_cd == "36" or not sgg:
        return office_nm
    if sido_cd == "11":
        gu = sgg.split()[0]
        for k, v in SEOUL_JU.items():
            if gu in v.split():
                return f"서울특별시{k}교육지원청"
    return f"{sido_name}{_sgg_stem(sgg)}교육지원청"


def generate(ctx) -> dict:
    rng = ctx.rng("neis.schools")
    offices = {o["legal_sido_code"]: o for o in table_rows("neis_offices")}
    places = ctx.rows("places")
    by_sgg: dict[str, list[dict]] = {}
    for p in places:
        by_sgg.setdefault(p["lawd_cd"], []).append(p)
    rows: list[dict] = []
    for sido_cd, office in sorted(offices.items(), key=lambda kv: kv[1]["atpt_ofcdc_sc_code"]):
        atpt = office["atpt_ofcdc_sc_code"]
        sggs = sorted(k for k in by_sgg if k.startswith(sido_cd))
        if not sggs:
            continue
        weights = [len(by_sgg[k]) ** 0.6 for k in sggs]
        tot = sum(weights)
        n_els = ELS_PER_SIDO.get(sido_cd, 40)
        used: set[str] = set()
        seq = [10000 + rng.randrange(0, 400)]

        def new_code() -> str:
            seq[0] += rng.randrange(1, 9)
            return CODE_PREFIX[atpt] + f"{seq[0]:05d}"

        plan: list[tuple[str, str]] = []  # (lawd_cd, kind)
        for k, w in zip(sggs, weights):
            e = max(1, round(n_els * w / tot))
            m = max(1, round(e * 0.5))
            h = max(1, round(e * 0.4))
            plan += [(k, "els")] * e + [(k, "mis")] * m + [(k, "his")] * h
        for i in range(2 if sido_cd not in ("36", "50") else 1):
            plan.append((sggs[(i * 7) % len(sggs)], "sps"))
        first_high = True
        seen_sgg_high: set[str] = set()
        specials = ["과학", "외국어"]
        for k, kind in plan:
            p = rng.choice(by_sgg[k])
            sido_short = p["sido_short"]
            girls = False
            hs_sc, busns, spcl, ene = None, None, None, None
            dddep = "일반학과"
            if kind == "els":
                stem = _stem(p["umd_name"]) if rng.random() < 0.75 else rng.choice(POOL)
                name = f"{stem}초등학교"
            elif kind == "mis":
                stem = _stem(p["umd_name"]) if rng.random() < 0.6 else rng.choice(POOL)
                girls = rng.random() < 0.1
                name = f"{stem}{'여자' if girls else ''}중학교"
            elif kind == "his":
                hs_sc, busns, ene = "일반고", "일반계", "후기"
                if first_high:
                    stem, first_high = sido_short, False
                elif k not in seen_sgg_high and p["sgg_name"]:
                    stem = _sgg_stem(p["sgg_name"])
                else:
                    stem = _stem(p["umd_name"]) if rng.random() < 0.5 else rng.choice(POOL)
                seen_sgg_high.add(k)
                r = rng.random()
                if specials and r < 0.04:
                    track = specials.pop(0)
                    name = f"{sido_short}{track}고등학교"
                    hs_sc, spcl, ene = "특목고", f"{track}계열", "전기"
                elif r < 0.18:
                    kindword = rng.choice(["공업", "정보산업", "상업", "디자인", "조리과학", "전자"])
                    name = f"{stem}{kindword}고등학교"
                    hs_sc, busns, ene = "특성화고", "전문계", "전기"
                    dddep = {"공업": "기계과", "정보산업": "정보처리과", "상업": "회계과", "디자인": "디자인과",
                             "조리과학": "조리과", "전자": "전자과"}[kindword]
                else:
                    girls = rng.random() < 0.13
                    name = f"{stem}{'여자' if girls else ''}고등학교"
                    if rng.random() < 0.06:
                        hs_sc = "자율고"
            else:
                stem = rng.choice(SPS)
                name = f"{stem}학교"
            suffix_nm = name[len(stem):]
            tries = 0
            while name in used:
                tries += 1
                stem = _stem(rng.choice(by_sgg[k])["umd_name"]) if tries < 6 else rng.choice(POOL + SPS)
                if tries > 30:
                    stem = f"{stem}{tries}"
                name = f"{stem}{suffix_nm}"
            used.add(name)
            fond_year = rng.randint(1925, 2022) if kind != "sps" else rng.randint(1960, 2015)
            fond = date(fond_year, rng.randint(3, 12), rng.randint(1, 28))
            anniv = date(fond_year, rng.choice([3, 4, 5, 6, 9, 10, 11]), rng.randint(1, 28))
            fond_sc = {"els": rng.choices(["공립", "사립", "국립"], [95, 4, 1])[0],
                       "mis": rng.choices(["공립", "사립"], [80, 20])[0],
                       "his": rng.choices(["공립", "사립"], [60, 40])[0], "sps": rng.choices(["공립", "사립"], [70, 30])[0]}[kind]
            coedu = "여" if girls else ("남" if kind in ("mis", "his") and rng.random() < 0.08 else "남여공학")
            if kind == "els":
                classes = [rng.randint(2, 6)] * 6
                classes = [max(1, c + rng.randint(-1, 1)) for c in classes]
            elif kind == "sps":
                classes = [rng.randint(1, 2) for _ in range(6)]
            elif kind == "mis":
                c = rng.randint(3, 10)
                classes = [max(2, c + rng.randint(-1, 1)) for _ in range(3)]
            else:
                c = rng.randint(4, 12)
                classes = [max(2, c + rng.randint(-1, 1)) for _ in range(3)]
            students = sum(classes) * (rng.randint(20, 26) if kind != "sps" else rng.randint(5, 8))
            zip_lo, zip_hi = ZIP.get(sido_cd, (10, 18))
            road_stem = _stem(p["umd_name"])
            road = f"{road_stem}로" if rng.random() < 0.6 else f"{road_stem}로{rng.randint(1, 60)}길"
            tel = TEL.get(sido_cd, "02")
            rom = romanize(stem)
            kind_en = {"els": "Elementary School", "mis": "Middle School", "his": "High School", "sps": "School"}[kind]
            if girls:
                kind_en = "Girls' " + kind_en
            suffix = {"els": "es", "mis": "ms", "his": "hs", "sps": "sc"}[kind]
            rows.append({
                "ATPT_OFCDC_SC_CODE": atpt, "ATPT_OFCDC_SC_NM": office["atpt_ofcdc_sc_nm"],
                "SD_SCHUL_CODE": new_code(), "SCHUL_NM": name,
                "ENG_SCHUL_NM": f"{romanize_title(stem)} {kind_en}",
                "SCHUL_KND_SC_NM": KIND_NM[kind], "LCTN_SC_NM": p["sido_name"],
                "JU_ORG_NM": _ju_org(sido_cd, p["sido_name"], p["sgg_name"], office["atpt_ofcdc_sc_nm"]),
                "FOND_SC_NM": fond_sc, "ORG_RDNZC": f"{rng.randint(zip_lo, zip_hi):02d}{rng.randint(0, 999):03d}",
                "ORG_RDNMA": " ".join(x for x in (p["sido_name"], p["sgg_name"], road, str(rng.randint(1, 320))) if x),
                "ORG_RDNDA": f"({p['umd_name']})",
                "ORG_TELNO": f"{tel}-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}",
                "HMPG_ADRES": f"https://{rom}-{suffix[0]}.{WEB[atpt]}.{suffix}.kr",
                "COEDU_SC_NM": coedu,
                "ORG_FAXNO": f"{tel}-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}",
                "HS_SC_NM": hs_sc, "INDST_SPECL_CCCCL_EXST_YN": "N", "HS_GNRL_BUSNS_SC_NM": busns,
                "SPCLY_PURPS_HS_ORD_NM": spcl, "ENE_BFE_SEHF_SC_NM": ene, "DGHT_SC_NM": "주간",
                "FOND_YMD": fond.strftime("%Y%m%d"), "FOAS_MEMRD": anniv.strftime("%Y%m%d"),
                "LOAD_DTM": "20260315",
                "_kind": kind, "_classes": ",".join(map(str, classes)), "_students": students,
                "_seed": rng.randrange(1, 2**31), "_dddep": dddep, "_lawd_cd": p["lawd_cd"],
                "_umd_name": p["umd_name"], "_lat": p["lat"], "_lon": p["lon"],
            })
    return {"neis_schools": rows}

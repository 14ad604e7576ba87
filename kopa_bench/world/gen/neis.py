"""NEIS (open.neis.go.kr): the ~12,000 real schools of 전국초중등학교위치표준데이터, plus a few generated
특수학교 (the standard data covers 초/중/고 only).

`neis_schools` holds one row per school: the schoolInfo fields plus private columns starting
with `_` (kind, classes, seed ...) from which world/answers/neis.py computes each school's
meals, calendar, classes and timetables per request.

Real per school: name, kind, founding type and date, road address, legal dong, 교육지원청 and
coordinates. The source has no NEIS code, so SD_SCHUL_CODE is derived from the school's id
alone (not the seed): the 3-digit prefix of its office's 7-digit 행정기관코드 (7010000 서울 ->
701....) and a serial in 학교ID order, as real codes are. High-school type, co-education,
phone, fax, zip and homepage follow from the name and region or are generated.
"""

from __future__ import annotations

import hashlib
import re
from datetime import date

from ...refdata import table_rows
from ._romanize_ko import romanize, romanize_title
from .regions import split_name

DEPENDS = ["regions"]

WEB = {"B10": "sen", "C10": "pen", "D10": "dge", "E10": "ice", "F10": "gen", "G10": "dje", "H10": "use",
       "I10": "sje", "J10": "goe", "K10": "gwe", "M10": "cbe", "N10": "cne", "P10": "jbe", "Q10": "jne",
       "R10": "gbe", "S10": "gne", "T10": "jje"}
TEL = {"11": "02", "26": "051", "27": "053", "28": "032", "29": "062", "30": "042", "31": "052", "36": "044",
       "41": "031", "51": "033", "43": "043", "44": "041", "52": "063", "46": "061", "47": "054", "48": "055",
       "50": "064"}
ZIP = {"11": (1, 8), "26": (46, 49), "27": (41, 43), "28": (21, 23), "29": (61, 62), "30": (34, 35),
       "31": (44, 45), "36": (30, 30), "41": (10, 18), "51": (24, 26), "43": (27, 29), "44": (31, 33),
       "52": (54, 56), "46": (57, 59), "47": (36, 40), "48": (50, 53), "50": (63, 63)}
KIND = {"초등학교": "els", "중학교": "mis", "고등학교": "his"}
KIND_NM = {"els": "초등학교", "mis": "중학교", "his": "고등학교", "sps": "특수학교"}
SPS = ["한빛", "새롬", "명혜", "해맑음", "누리", "은광", "다원", "한별", "소망", "하늘빛"]
# 특목고 by the word before 고등학교 (the law's categories); 특성화고 by a vocational word in the name
SPECIAL_TRACK = {"과학": "과학계열", "외국어": "외국어계열", "국제": "국제계열", "예술": "예술계열", "체육": "체육계열",
                 "마이스터": "마이스터고"}
VOCATIONAL = {"공업": "기계과", "기계": "기계과", "전자": "전자과", "전기": "전기과", "정보": "정보처리과", "상업": "회계과",
              "비즈니스": "경영과", "경영": "경영과", "디자인": "디자인과", "조리": "조리과", "관광": "관광과", "농업": "농업과",
              "생명": "생명과학과", "미디어": "미디어과", "보건": "보건간호과", "해양": "해양과", "항공": "항공과",
              "산업": "산업과", "인터넷": "인터넷과", "소프트웨어": "소프트웨어과", "자동차": "자동차과", "애니메이션": "애니메이션과"}


def _hash(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode()).digest()[:8], "big")


def _high_school(name: str) -> tuple[str, str, str | None, str, str]:
    """(HS_SC_NM, HS_GNRL_BUSNS_SC_NM, SPCLY_PURPS_HS_ORD_NM, ENE_BFE_SEHF_SC_NM, 학과) from the name."""
    stem = name.removesuffix("고등학교")
    for word, track in SPECIAL_TRACK.items():
        if stem.endswith(word):
            if word == "마이스터":
                return "특목고", "전문계", track, "전기", "기계과"
            return "특목고", "일반계", track, "전기", "일반학과"
    for word, dept in VOCATIONAL.items():
        if word in stem:
            return "특성화고", "전문계", None, "전기", dept
    return "일반고", "일반계", None, "후기", "일반학과"


def _coedu(name: str, kind: str) -> str:
    if "여자" in name or name.endswith(("여중학교", "여고등학교")):
        return "여"
    if "남자" in name:
        return "남"
    return "남여공학"


def _classes(rng, kind: str, branch: bool) -> list[int]:
    if branch:
        return [1] * (6 if kind in ("els", "sps") else 3)
    if kind == "els":
        c = rng.randint(1, 6)
        return [max(1, c + rng.randint(-1, 1)) for _ in range(6)]
    if kind == "sps":
        return [rng.randint(1, 2) for _ in range(6)]
    c = rng.randint(2, 10) if kind == "mis" else rng.randint(3, 12)
    return [max(1, c + rng.randint(-1, 1)) for _ in range(3)]


def _locate(s: dict, by_name: dict, by_sgg: dict) -> dict:
    """The legal dong (a `places` row) of a school: by its 지번 address, else the nearest dong of
    its district (the two schools whose 면 was renamed)."""
    sido, sgg, umd, _ = split_name(s["jibun_addr"])
    p = by_name.get((sido, sgg, umd))
    if p is not None:
        return p
    cands = by_sgg.get((sido, sgg)) or [q for q in by_name.values() if q["sido_name"] == sido]
    return min(cands, key=lambda q: (q["lat"] - s["lat"]) ** 2 + (q["lon"] - s["lon"]) ** 2)


def _ju_org(sido_cd: str, sido_name: str, sgg: str, office_nm: str) -> str:
    if sido_cd == "36" or not sgg:
        return office_nm
    first = sgg.split()[0]
    s = re.sub(r"(시|군|구)$", "", first)
    return f"{sido_name}{s if len(s) >= 2 else first}교육지원청"


def generate(ctx) -> dict:
    offices = {o["atpt_ofcdc_sc_nm"]: o for o in table_rows("neis_offices")}
    by_name: dict[tuple[str, str, str], dict] = {}
    by_sgg: dict[tuple[str, str], list[dict]] = {}
    for p in ctx.rows("places"):
        by_name.setdefault((p["sido_name"], p["sgg_name"], p["umd_name"]), p)
        by_sgg.setdefault((p["sido_name"], p["sgg_name"]), []).append(p)
    schools = sorted((s for s in table_rows("schools") if s["road_addr"]),  # 12 lack a road address NEIS would show
                     key=lambda s: (s["office_code"], s["school_id"]))
    serial: dict[str, int] = {}
    prefix: dict[str, str] = {}
    rows: list[dict] = []

    def next_code(office_code: str, key: str) -> str:
        serial[office_code] = serial.get(office_code, 0) + 1 + _hash("neis.code", key) % 3
        prefix.setdefault(office_code, office_code[:3])
        return f"{prefix[office_code]}{serial[office_code]:04d}"

    def add(atpt: str, office_nm: str, code: str, name: str, kind: str, p: dict, lat: float, lon: float,
            road_addr: str, fond: date, fond_sc: str, ju_org: str, branch: bool, rng) -> None:
        sido_cd = p["lawd_cd"][:2]
        stem = name.removesuffix(KIND_NM[kind]) if kind != "sps" else name.removesuffix("학교")
        hs_sc = busns = spcl = ene = None
        dddep = "일반학과"
        if kind == "his":
            hs_sc, busns, spcl, ene, dddep = _high_school(name)
        coedu = _coedu(name, kind)
        classes = _classes(rng, kind, branch)
        students = sum(classes) * (rng.randint(18, 26) if kind != "sps" else rng.randint(5, 8))
        zip_lo, zip_hi = ZIP.get(sido_cd, (10, 18))
        tel = TEL.get(sido_cd, "02")
        kind_en = {"els": "Elementary School", "mis": "Middle School", "his": "High School", "sps": "School"}[kind]
        base = stem
        for ko, en in (("여자", "Girls' "), ("남자", "Boys' ")):
            if stem.endswith(ko):
                base, kind_en = stem[: -len(ko)], en + kind_en
        suffix = {"els": "es", "mis": "ms", "his": "hs", "sps": "sc"}[kind]
        anniv = fond  # the founding day is the school's anniversary
        rows.append({
            "ATPT_OFCDC_SC_CODE": atpt, "ATPT_OFCDC_SC_NM": office_nm,
            "SD_SCHUL_CODE": code, "SCHUL_NM": name,
            "ENG_SCHUL_NM": f"{romanize_title(base or stem)} {kind_en}",
            "SCHUL_KND_SC_NM": KIND_NM[kind], "LCTN_SC_NM": p["sido_name"], "JU_ORG_NM": ju_org,
            "FOND_SC_NM": fond_sc, "ORG_RDNZC": f"{rng.randint(zip_lo, zip_hi):02d}{rng.randint(0, 999):03d}",
            "ORG_RDNMA": road_addr, "ORG_RDNDA": f"({p['umd_name']})",
            "ORG_TELNO": f"{tel}-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}",
            "HMPG_ADRES": f"https://{romanize(base or stem)}-{suffix[0]}.{WEB[atpt]}.{suffix}.kr",
            "COEDU_SC_NM": coedu,
            "ORG_FAXNO": f"{tel}-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}",
            "HS_SC_NM": hs_sc, "INDST_SPECL_CCCCL_EXST_YN": "N", "HS_GNRL_BUSNS_SC_NM": busns,
            "SPCLY_PURPS_HS_ORD_NM": spcl, "ENE_BFE_SEHF_SC_NM": ene, "DGHT_SC_NM": "주간",
            "FOND_YMD": fond.strftime("%Y%m%d"), "FOAS_MEMRD": anniv.strftime("%Y%m%d"),
            "LOAD_DTM": "20260315",
            "_kind": kind, "_classes": ",".join(map(str, classes)), "_students": students,
            "_seed": rng.randrange(1, 2**31), "_dddep": dddep, "_lawd_cd": p["lawd_cd"],
            "_umd_name": p["umd_name"], "_lat": lat, "_lon": lon,
        })

    for s in schools:
        office = offices[s["office_name"]]
        p = _locate(s, by_name, by_sgg)
        rng = ctx.rng(f"neis.school.{s['school_id']}")
        add(office["atpt_ofcdc_sc_code"], office["atpt_ofcdc_sc_nm"], next_code(s["office_code"], s["school_id"]),
            s["name"], KIND[s["kind"]], p, s["lat"], s["lon"], s["road_addr"], date.fromisoformat(s["fond_date"]),
            s["fond_type"], s["ju_name"] or office["atpt_ofcdc_sc_nm"], s["branch"] == "분교", rng)

    # generated 특수학교 (the standard data has none), so spsTimetable answers: two per office
    # (one in 세종/제주) in a district with schools, named like real ones ("<시도 약칭><이름>학교")
    rng = ctx.rng("neis.sps")
    office_code_of = {}
    for s in schools:
        office_code_of.setdefault(s["office_name"], s["office_code"])
    taken = {r["SCHUL_NM"] for r in rows}
    place_at = {(p["lawd_cd"], p["umd_name"]): p for p in reversed(ctx.rows("places"))}  # first of equal keys wins
    real_rows = list(rows)
    for office in sorted(offices.values(), key=lambda o: o["atpt_ofcdc_sc_code"]):
        nm = office["atpt_ofcdc_sc_nm"]
        mine = [r for r in real_rows if r["ATPT_OFCDC_SC_NM"] == nm]
        for i in range(1 if office["legal_sido_code"] in ("36", "50") else 2):
            host = mine[(i * 997) % len(mine)]
            p = place_at[(host["_lawd_cd"], host["_umd_name"])]
            short = p["sido_short"]
            name = next(f"{short}{st}학교" for st in SPS[i * 3:] + SPS if f"{short}{st}학교" not in taken)
            taken.add(name)
            code = next_code(office_code_of[nm], f"sps.{name}")
            road = host["ORG_RDNMA"].rsplit(" ", 1)[0] + f" {rng.randint(300, 400)}"
            add(office["atpt_ofcdc_sc_code"], nm, code, name, "sps", p, host["_lat"] + rng.uniform(-0.004, 0.004),
                host["_lon"] + rng.uniform(-0.005, 0.005), road, date(rng.randint(1960, 2015), rng.randint(3, 12), rng.randint(1, 28)),
                rng.choices(["공립", "사립"], [70, 30])[0], host["JU_ORG_NM"], False, rng)
    return {"neis_schools": rows}


"""NEIS (open.neis.go.kr): ~2,300 schools in every 시도교육청, and their AY-2026 life.

`neis_schools` is stored (one row per school, the schoolInfo fields plus a few private
columns starting with `_`). Everything that depends on (school, date) -- meals, the academic
calendar, class lists and timetables -- is computed on demand by the handlers below from the
school's row, deterministically, so the world stays small while any school returned by
schoolInfo has meals, a calendar, classes and a timetable:

- calendar (SchoolSchedule, AY 2026 = 2026-03-01..2027-02-28): 토요휴업일, public holidays
  (refdata holidays), 개교기념일, 재량휴업일, exams, 여름방학, 대학수학능력시험, 방학식, 겨울방학...
- school days = weekdays from the 입학식 to the 방학식 that are not 휴업일/공휴일 in the calendar;
- meals (mealServiceDietInfo): every school day (중식; 석식/조식 at some high schools);
- timetables (els/mis/his/spsTimetable): school days of the 2nd semester (개학식..방학식),
  a weekly pattern per class; each timetable dataset only has schools of its kind.
"""

from __future__ import annotations

import functools
import hashlib
import random
import re
import weakref
from collections.abc import Sequence
from datetime import date, timedelta

from ..refdata import table_rows
from ._romanize_ko import romanize, romanize_title

DEPENDS = ["regions"]

AY = 2026
AY_START, AY_END = date(2026, 3, 1), date(2027, 2, 28)

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
DAY_NAMES = "월화수목금토일"


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


# ---- on-demand data (handlers: fn(world, params) -> rows) ------------------------------------

@functools.lru_cache(maxsize=1)
def _holidays() -> dict[date, str]:
    out = {}
    for h in table_rows("holidays"):
        if h["is_holiday"] == "Y" and AY_START <= h["date"] <= AY_END:
            out[h["date"]] = h["kasi_date_name"] if not h["kasi_date_name"].startswith("대체") else h["name"]
    return out


_SCHOOL_SQL = "SELECT * FROM neis_schools WHERE ATPT_OFCDC_SC_CODE = $a AND SD_SCHUL_CODE = $c"
# per world, as vworld's geocoder index: (office, school code) -> the school's row
_SCHOOL_INDEX: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _school(world, params, use_index: bool = True) -> dict | None:
    """The school an (office, school code) pair names. Every NEIS handler starts here, with a
    different school per EDGE probe: one lookup in a per-world index of the 2,295-row table
    instead of a DuckDB query each (1.2 ms). `use_index=False` is the query, the reference the
    index is tested against (tests/test_handler_index.py)."""
    atpt, code = params.get("ATPT_OFCDC_SC_CODE"), params.get("SD_SCHUL_CODE")
    if not use_index:
        rows = world.sql(_SCHOOL_SQL, {"a": str(atpt), "c": str(code)})
        return rows[0] if rows else None
    index = _SCHOOL_INDEX.get(world)
    if index is None:
        index = {}
        for r in world.sql("SELECT * FROM neis_schools"):  # table order: the first of equal keys wins, as rows[0] did
            index.setdefault((str(r["ATPT_OFCDC_SC_CODE"]), str(r["SD_SCHUL_CODE"])), r)
        _SCHOOL_INDEX[world] = index
    return index.get((str(atpt), str(code)))


def _rng(school: dict, what: str) -> random.Random:
    h = hashlib.sha256(f"{school['_seed']}:{what}".encode()).digest()
    return random.Random(int.from_bytes(h[:8], "big"))


def _weekday_near(d: date, rng: random.Random, spread: int = 3) -> date:
    d = d + timedelta(days=rng.randint(0, spread))
    while d.weekday() >= 5 or d in _holidays():
        d += timedelta(days=1)
    return d


def _school_days_between(a: date, b: date, off: set[date]) -> list[date]:
    out, d = [], a
    while d <= b:
        if d.weekday() < 5 and d not in off:
            out.append(d)
        d += timedelta(days=1)
    return out


@functools.lru_cache(maxsize=4096)
def _calendar(seed: int, kind: str, foas: str) -> tuple[list[tuple[date, str, str, tuple[int, ...]]], set[date], date, date, date]:
    """(events [(date, EVENT_NM, SBTR_DD_SC_NM, grades)], days off, first day, 2nd-sem start, last day)."""
    rng = random.Random(seed)
    hol = _holidays()
    all_g = (1, 2, 3, 4, 5, 6) if kind in ("els", "sps") else (1, 2, 3)
    ev: list[tuple[date, str, str, tuple[int, ...]]] = []
    off: set[date] = set(hol)
    for d, nm in hol.items():
        ev.append((d, nm, "공휴일", all_g))
    first = _weekday_near(date(2026, 3, 2), rng, 0)
    ev.append((first, "입학식", "해당없음", (1,)))
    ev.append((first, "시업식", "해당없음", all_g))
    # 재량휴업일
    for d0 in (date(2026, 5, 4), date(2026, 10, 2) if rng.random() < 0.5 else date(2026, 10, 8)):
        if d0.weekday() < 5 and d0 not in hol:
            ev.append((d0, "재량휴업일", "휴업일", all_g))
            off.add(d0)
    anniv = date(2026, int(foas[4:6]), int(foas[6:8]))
    if anniv.weekday() < 5 and anniv not in hol and anniv not in off:
        ev.append((anniv, "개교기념일", "휴업일", all_g))
        off.add(anniv)
    if kind in ("mis", "his"):
        for start, nm in ((date(2026, 4, 27), "1학기 중간고사"), (date(2026, 7, 1), "1학기 기말고사"),
                          (date(2026, 10, 12), "2학기 중간고사"),
                          (date(2026, 12, 7) if kind == "his" else date(2026, 12, 14), "2학기 기말고사")):
            d = _weekday_near(start, rng, 2)
            for _ in range(3 if kind == "mis" else 4):
                ev.append((d, nm, "해당없음", all_g))
                d = _weekday_near(d + timedelta(days=1), rng, 0)
    else:
        ev.append((_weekday_near(date(2026, 5, 12), rng, 10), "현장체험학습", "해당없음", all_g))
        ev.append((_weekday_near(date(2026, 11, 9), rng, 14), "학예회", "해당없음", all_g))
    ev.append((_weekday_near(date(2026, 5, 18) if rng.random() < 0.5 else date(2026, 10, 19), rng, 8), "체육대회", "해당없음", all_g))
    ev.append((_weekday_near(date(2026, 9, 14), rng, 10), "학부모 상담주간", "해당없음", all_g))
    summer_end = _weekday_near(date(2026, 7, 17), rng, 6)
    ev.append((summer_end, "여름방학식", "해당없음", all_g))
    back = _weekday_near(date(2026, 8, 13), rng, 8)
    d = summer_end + timedelta(days=1)
    while d < back:
        if d.weekday() < 5 and d not in hol:
            ev.append((d, "여름방학", "휴업일", all_g))
        off.add(d)
        d += timedelta(days=1)
    ev.append((back, "개학식", "해당없음", all_g))
    if kind == "his":
        suneung = date(2026, 11, 19)
        ev.append((suneung, "대학수학능력시험", "휴업일", all_g))
        off.add(suneung)
        ev.append((_weekday_near(date(2026, 12, 21), rng, 3), "학교축제", "해당없음", all_g))
    last = _weekday_near(date(2026, 12, 31) if rng.random() < 0.4 else date(2027, 1, 5), rng, 3)
    together = rng.random() < 0.5
    if together:
        ev.append((last, "졸업식 및 종업식", "해당없음", all_g))
    else:
        ev.append((last, "겨울방학식", "해당없음", all_g))
    d = last + timedelta(days=1)
    feb_open = _weekday_near(date(2027, 2, 3), rng, 3)
    while d <= AY_END:
        if d.weekday() < 5 and d not in hol:
            if together or d < feb_open:
                ev.append((d, "겨울방학" if together or d < feb_open else "", "휴업일", all_g))
        off.add(d)
        d += timedelta(days=1)
    if not together:
        ev.append((feb_open, "개학식", "해당없음", all_g))
        grad = _weekday_near(feb_open + timedelta(days=5), rng, 2)
        ev.append((grad, "졸업식", "해당없음", (all_g[-1],)))
        ev.append((_weekday_near(grad + timedelta(days=1), rng, 0), "종업식", "해당없음", all_g))
        off.discard(feb_open)
        for d2 in _school_days_between(feb_open, grad + timedelta(days=1), set(hol)):
            off.discard(d2)
    # 토요휴업일
    d = AY_START
    while d <= AY_END:
        if d.weekday() == 5 and d not in hol:
            ev.append((d, "토요휴업일", "휴업일", all_g))
        d += timedelta(days=1)
    ev.sort(key=lambda e: (e[0], e[1]))
    return ev, off, first, back, last


def _cal(school: dict):
    return _calendar(int(school["_seed"]), school["_kind"], school["FOAS_MEMRD"])


def _date_filter(params, exact: str, frm: str, to: str):
    ex = params.get(exact)
    lo = params.get(frm)
    hi = params.get(to)

    def ok(ymd: str) -> bool:
        if ex and not ymd.startswith(str(ex)):
            return False
        if lo and ymd < str(lo):
            return False
        if hi and ymd > str(hi):
            return False
        return True

    return ok


def _school_head(s: dict) -> dict:
    return {"ATPT_OFCDC_SC_CODE": s["ATPT_OFCDC_SC_CODE"], "ATPT_OFCDC_SC_NM": s["ATPT_OFCDC_SC_NM"],
            "SD_SCHUL_CODE": s["SD_SCHUL_CODE"], "SCHUL_NM": s["SCHUL_NM"]}


def _course(s: dict) -> str:
    return {"els": "초등학교", "mis": "중학교", "his": "고등학교", "sps": "초등학교"}[s["_kind"]]


def school_schedule(world, params) -> list[dict]:
    s = _school(world, params)
    if s is None:
        return []
    if params.get("DGHT_CRSE_SC_NM") not in (None, "주간"):
        return []
    if params.get("SCHUL_CRSE_SC_NM") not in (None, _course(s)):
        return []
    events, *_ = _cal(s)
    ok = _date_filter(params, "AA_YMD", "AA_FROM_YMD", "AA_TO_YMD")
    head = _school_head(s)
    six = s["_kind"] in ("els", "sps")
    out = []
    for d, nm, sbtr, grades in events:
        ymd = d.strftime("%Y%m%d")
        if not ok(ymd):
            continue
        flags = ["Y" if g in grades else "N" for g in range(1, 7)]
        if not six:
            flags[3:] = ["*", "*", "*"]
        out.append({**head, "AY": str(AY), "DGHT_CRSE_SC_NM": "주간", "SCHUL_CRSE_SC_NM": _course(s),
                    "SBTR_DD_SC_NM": sbtr, "AA_YMD": ymd, "EVENT_NM": nm, "EVENT_CNTNT": "",
                    "ONE_GRADE_EVENT_YN": flags[0], "TW_GRADE_EVENT_YN": flags[1], "THREE_GRADE_EVENT_YN": flags[2],
                    "FR_GRADE_EVENT_YN": flags[3], "FIV_GRADE_EVENT_YN": flags[4], "SIX_GRADE_EVENT_YN": flags[5],
                    "LOAD_DTM": "20260302"})
    return out


# meals ------------------------------------------------------------------------------------
RICE = ["현미밥", "흑미밥", "잡곡밥", "기장밥", "차수수밥", "쌀밥", "보리밥", "귀리밥"]
SOUP = [("된장국", "5.6"), ("미역국", "5.6.16"), ("북어국", "1.5.6"), ("쇠고기무국", "5.6.16"),
        ("순두부찌개", "5.6.9.10.13"), ("김치찌개", "5.6.9.10.13"), ("콩나물국", "5.6"), ("어묵국", "1.5.6"),
        ("감자국", "5.6"), ("육개장", "5.6.16"), ("동태찌개", "5.6"), ("배추된장국", "5.6"),
        ("부대찌개", "2.5.6.10.13.16"), ("떡국", "1.5.6.16"), ("사골우거지국", "5.6.16"), ("닭개장", "5.6.15")]
MAIN = [("돼지불고기", "5.6.10.13"), ("닭갈비", "5.6.13.15"), ("제육볶음", "5.6.10.13"), ("고등어구이", "7"),
        ("돈까스", "1.2.5.6.10.12.13"), ("치킨까스", "1.2.5.6.12.15"), ("소불고기", "5.6.13.16"),
        ("돼지갈비찜", "5.6.10.13"), ("오징어볶음", "5.6.13.17"), ("닭볶음탕", "5.6.13.15"),
        ("함박스테이크", "1.2.5.6.10.12.13.16"), ("생선까스", "1.5.6.12"), ("떡갈비", "5.6.10.13.16"),
        ("찜닭", "5.6.13.15"), ("탕수육", "1.5.6.10.12.13"), ("삼치데리야끼구이", "5.6.13")]
SIDE = [("시금치나물", "5.6"), ("콩나물무침", "5"), ("잡채", "5.6.10.13"), ("계란말이", "1"), ("어묵볶음", "1.5.6"),
        ("감자조림", "5.6"), ("멸치볶음", "5.6"), ("도토리묵무침", "5.6"), ("애호박볶음", "5"),
        ("브로콜리숙회", "5.6"), ("진미채볶음", "5.6.17"), ("두부조림", "5.6"), ("떡볶이", "5.6.13"),
        ("김구이", ""), ("오이무침", "5.6"), ("메추리알장조림", "1.5.6")]
KIMCHI = [("배추김치", "9.13"), ("깍두기", "9.13"), ("총각김치", "9.13"), ("열무김치", "9.13"), ("석박지", "9.13")]
DESSERT = [("우유", "2"), ("요구르트", "2"), ("귤", ""), ("사과", "11"), ("바나나", ""), ("요플레", "2"),
           ("배", ""), ("식혜", ""), ("초코우유", "2"), ("과일샐러드", "1.2.5.11.13")]
ORPLC = ("쌀 : 국내산<br/>김치류 : 국내산<br/>고춧가루(김치류) : 국내산<br/>쇠고기(종류) : 국내산(한우)"
         "<br/>돼지고기 : 국내산<br/>닭고기 : 국내산<br/>오리고기 : 국내산<br/>쇠고기 식육가공품 : 국내산"
         "<br/>돼지고기 식육가공품 : 국내산<br/>낙지 : 국내산<br/>고등어 : 국내산<br/>갈치 : 국내산"
         "<br/>오징어 : 국내산<br/>꽃게 : 국내산<br/>참조기 : 국내산<br/>콩 : 국내산")
MEAL_NM = {"1": "조식", "2": "중식", "3": "석식"}


def _dish(name: str, allergens: str) -> str:
    return f"{name} ({allergens})" if allergens else name


class _LazyRows(Sequence):
    """Rows built only when asked for: one dict per key, by `build(key)`. len() is the number of
    keys, so a request for one page of a semester's meals builds that page alone."""

    def __init__(self, keys: list, build):
        self._keys, self._build = keys, build

    def __len__(self) -> int:
        return len(self._keys)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._build(k) for k in self._keys[index]]
        return self._build(self._keys[index])

    def __iter__(self):
        return (self._build(k) for k in self._keys)


def meals(world, params) -> Sequence[dict]:
    """Every meal of the school's semester the filters keep, built lazily (each row is a pure
    function of (school, day, meal code); tests/test_handler_index.py compares the eager build)."""
    s = _school(world, params)
    if s is None:
        return []
    events, off, first, _, last = _cal(s)
    ok = _date_filter(params, "MLSV_YMD", "MLSV_FROM_YMD", "MLSV_TO_YMD")
    want = params.get("MMEAL_SC_CODE")
    kind = s["_kind"]
    r0 = _rng(s, "meal.kinds")
    codes = ["2"]
    if kind == "his":
        if r0.random() < 0.7:
            codes.append("3")
        if r0.random() < 0.12:
            codes.insert(0, "1")
    base_kcal = {"els": 620, "mis": 760, "his": 850, "sps": 600}[kind]
    head = _school_head(s)
    keys = []
    for d in _school_days_between(first, last, off):
        ymd = d.strftime("%Y%m%d")
        if not ok(ymd):
            continue
        for code in codes:
            if want and str(want) != code:
                continue
            keys.append((d, ymd, code))

    def build(key: tuple) -> dict:
        d, ymd, code = key
        r = random.Random(f"{s['_seed']}:{ymd}:{code}")
        dishes = [r.choice(RICE), _dish(*r.choice(SOUP)), _dish(*r.choice(MAIN)), _dish(*r.choice(SIDE)),
                  _dish(*r.choice(KIMCHI))]
        if r.random() < 0.6:
            dishes.append(_dish(*r.choice(DESSERT)))
        kcal = base_kcal * (0.8 if code == "1" else 1.0) * r.uniform(0.88, 1.12)
        carb, prot, fat = kcal * 0.6 / 4, kcal * 0.16 / 4, kcal * 0.24 / 9
        ntr = (f"탄수화물(g) : {carb:.1f}<br/>단백질(g) : {prot:.1f}<br/>지방(g) : {fat:.1f}"
               f"<br/>비타민A(R.E) : {r.uniform(90, 300):.1f}<br/>티아민(mg) : {r.uniform(0.2, 0.8):.1f}"
               f"<br/>리보플라빈(mg) : {r.uniform(0.2, 0.7):.1f}<br/>비타민C(mg) : {r.uniform(5, 40):.1f}"
               f"<br/>칼슘(mg) : {r.uniform(120, 400):.1f}<br/>철분(mg) : {r.uniform(2, 6):.1f}")
        fgr = int(s["_students"] * {"1": 0.2, "2": 0.97, "3": 0.45}[code])
        load = (d.replace(day=1) - timedelta(days=5)).strftime("%Y%m%d")
        return {**head, "MMEAL_SC_CODE": code, "MMEAL_SC_NM": MEAL_NM[code], "MLSV_YMD": ymd,
                "MLSV_FGR": fgr, "DDISH_NM": "<br/>".join(dishes), "ORPLC_INFO": ORPLC,
                "CAL_INFO": f"{kcal:.1f} Kcal", "NTR_INFO": ntr, "MLSV_FROM_YMD": ymd, "MLSV_TO_YMD": ymd,
                "LOAD_DTM": load}

    return _LazyRows(keys, build)


# classes and timetables -----------------------------------------------------------------------
SUBJECTS = {
    ("els", 1): [("국어", 7), ("수학", 4), ("바른 생활", 2), ("슬기로운 생활", 3), ("즐거운 생활", 5), ("창의적 체험활동", 2)],
    ("els", 3): [("국어", 6), ("수학", 4), ("사회", 3), ("과학", 3), ("영어", 2), ("체육", 3), ("음악", 2), ("미술", 2),
                 ("도덕", 1), ("창의적 체험활동", 2)],
    ("els", 5): [("국어", 6), ("수학", 4), ("사회", 3), ("과학", 3), ("영어", 3), ("체육", 3), ("음악", 2), ("미술", 2),
                 ("도덕", 1), ("실과", 2), ("창의적 체험활동", 2)],
    ("mis", 1): [("국어", 4), ("수학", 4), ("영어", 4), ("사회", 3), ("역사", 2), ("과학", 4), ("기술·가정", 2), ("체육", 3),
                 ("음악", 2), ("미술", 2), ("도덕", 1), ("정보", 1), ("한문", 1), ("진로와 직업", 1), ("스포츠", 1),
                 ("동아리활동", 1), ("자율활동", 1)],
    ("his", 1): [("공통국어2", 4), ("공통수학2", 4), ("공통영어2", 4), ("통합사회2", 3), ("통합과학2", 3), ("한국사2", 3),
                 ("과학탐구실험2", 1), ("체육1", 2), ("음악 연주와 창작", 2), ("정보", 2), ("자율·자치활동", 1),
                 ("동아리활동", 1)],
    ("his", 2): [("문학", 4), ("대수", 4), ("영어Ⅰ", 4), ("세계시민과 지리", 2), ("물리학", 2), ("화학", 2), ("생명과학", 2),
                 ("지구과학", 2), ("사회와 문화", 2), ("운동과 건강", 2), ("미술", 2), ("중국어", 2), ("자율·자치활동", 1)],
    ("his", 3): [("언어와 매체", 4), ("확률과 통계", 3), ("미적분", 3), ("영어 독해와 작문", 4), ("생활과 윤리", 3),
                 ("사회·문화", 3), ("화학Ⅱ", 2), ("생명과학Ⅱ", 2), ("스포츠 생활", 2), ("진로활동", 1)],
    ("sps", 1): [("국어", 4), ("수학", 3), ("생활", 3), ("체육", 2), ("음악", 2), ("미술", 2), ("창의적 체험활동", 2)],
}


def _subjects(kind: str, grade: int):
    if kind == "els":
        return SUBJECTS[("els", 1 if grade <= 2 else 3 if grade <= 4 else 5)]
    if kind == "mis":
        return SUBJECTS[("mis", 1)]
    if kind == "sps":
        return SUBJECTS[("sps", 1)]
    return SUBJECTS[("his", grade)]


def _periods(kind: str, grade: int, wd: int) -> int:
    if kind in ("els", "sps"):
        return (4 if wd in (2, 4) else 5) if grade <= 2 else (5 if wd in (2, 4) else 6)
    return 7 if (kind == "his" or wd in (0, 1, 3)) else 6


def _classes(s: dict) -> list[int]:
    return [int(x) for x in s["_classes"].split(",")]


def class_info(world, params) -> list[dict]:
    s = _school(world, params)
    if s is None or params.get("AY") not in (None, str(AY)):
        return []
    kind = s["_kind"]
    filt = {k: params.get(k) for k in ("GRADE", "DGHT_CRSE_SC_NM", "SCHUL_CRSE_SC_NM", "ORD_SC_NM", "DDDEP_NM")}
    head = _school_head(s)
    out = []
    for g, n in enumerate(_classes(s), start=1):
        for c in range(1, n + 1):
            row = {**head, "AY": str(AY), "GRADE": str(g),
                   "DGHT_CRSE_SC_NM": "주간" if kind in ("mis", "his") else None,
                   "SCHUL_CRSE_SC_NM": _course(s),
                   "ORD_SC_NM": s["HS_GNRL_BUSNS_SC_NM"] if kind == "his" else None,
                   "DDDEP_NM": s["_dddep"] if kind == "his" else None,
                   "CLASS_NM": str(c), "LOAD_DTM": "20260302"}
            if all(v is None or str(row.get(k)) == str(v) for k, v in filt.items()):
                out.append(row)
    return out


@functools.lru_cache(maxsize=8192)
def _week(seed: int, kind: str, grade: int, cls: int) -> tuple[tuple[str, ...], ...]:
    """A class's weekly timetable (subjects per period, Monday to Friday): a pure function of the
    school's seed, so it is drawn once, not again for every request and every page."""
    subj = _subjects(kind, grade)
    names, weights = [x[0] for x in subj], [x[1] for x in subj]
    r = random.Random(f"{seed}:tt:{grade}:{cls}")
    return tuple(tuple(r.choices(names, weights)[0] for _ in range(_periods(kind, grade, wd))) for wd in range(5))


class _TimetableRows(Sequence):
    """The timetable rows of one request, built only for the slice asked for.

    A school's semester is up to ~20,000 rows (classes x school days x periods), but a request
    returns one page of them plus the total. len() is counted from the weekly plans and a
    slice builds only its own dicts, in exactly the order and form a full list would have."""

    def __init__(self, head: dict, extra: dict, days: list[date], blocks: list[tuple[int, int, list[list[tuple[int, str]]]]]):
        self._head, self._extra, self._blocks = head, extra, blocks
        self._days = [(d.weekday(), d.strftime("%Y%m%d")) for d in days]
        per_wd = [0] * 5
        for wd, _ in self._days:
            per_wd[wd] += 1
        # rows per (grade, class) block: its periods on each weekday times the days with that weekday
        self._sizes = [sum(per_wd[wd] * len(plan[wd]) for wd in range(5)) for _, _, plan in blocks]
        self._len = sum(self._sizes)

    def __len__(self) -> int:
        return self._len

    def _row(self, g: int, c: int, ymd: str, p: int, subject: str) -> dict:
        return {**self._head, "AY": str(AY), "SEM": "2", "ALL_TI_YMD": ymd, **self._extra, "GRADE": str(g),
                "CLASS_NM": str(c), "PERIO": str(p), "ITRT_CNTNT": subject, "LOAD_DTM": ymd}

    def _rows(self, start: int, stop: int) -> list[dict]:
        out, pos = [], 0
        for (g, c, plan), size in zip(self._blocks, self._sizes):
            if pos >= stop:
                break
            if pos + size <= start:
                pos += size  # the whole block lies before the slice
                continue
            for wd, ymd in self._days:
                periods = plan[wd]
                if pos >= stop:
                    break
                if pos + len(periods) <= start:
                    pos += len(periods)
                    continue
                for p, subject in periods:
                    if start <= pos < stop:
                        out.append(self._row(g, c, ymd, p, subject))
                    pos += 1
        return out

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(self._len)
            if step != 1:
                return self._rows(0, self._len)[index]
            return self._rows(start, stop) if start < stop else []
        i = index + self._len if index < 0 else index
        if not 0 <= i < self._len:
            raise IndexError("timetable row index out of range")
        return self._rows(i, i + 1)[0]

    def __iter__(self):
        return iter(self._rows(0, self._len))


def _timetable_extra(kind: str, s: dict) -> dict:
    """Columns a timetable row carries beyond the school head, by school kind (els/mis/his/sps)."""
    extra: dict = {}
    if kind in ("mis", "his", "sps"):
        extra["DGHT_CRSE_SC_NM"] = "주간"
    if kind == "his":
        extra.update({"ORD_SC_NM": s["HS_GNRL_BUSNS_SC_NM"], "DDDEP_NM": s["_dddep"], "CLRM_NM": None})
    if kind == "sps":
        extra["SCHUL_CRSE_SC_NM"] = _course(s)
    return extra


def _timetable(world, params, kind: str) -> Sequence[dict]:
    s = _school(world, params)
    if s is None or s["_kind"] != kind:
        return []
    if params.get("AY") not in (None, str(AY)) or params.get("SEM") not in (None, "2"):
        return []
    for k, want in (("DGHT_CRSE_SC_NM", "주간"), ("ORD_SC_NM", s["HS_GNRL_BUSNS_SC_NM"]), ("DDDEP_NM", s["_dddep"])):
        if params.get(k) is not None and params.get(k) != want:
            return []
    if params.get("CLRM_NM") is not None:
        return []
    _, off, _, sem2, last = _cal(s)
    ok = _date_filter(params, "ALL_TI_YMD", "TI_FROM_YMD", "TI_TO_YMD")
    days = [d for d in _school_days_between(sem2, last, off) if ok(d.strftime("%Y%m%d"))]
    if not days:
        return []
    g_want, c_want, p_want = params.get("GRADE"), params.get("CLASS_NM"), params.get("PERIO")
    head = _school_head(s)
    extra = _timetable_extra(kind, s)
    blocks = []
    for g, n in enumerate(_classes(s), start=1):
        if g_want is not None and str(g_want) != str(g):
            continue
        for c in range(1, n + 1):
            if c_want is not None and str(c_want).lstrip("0") != str(c):
                continue
            week = _week(int(s["_seed"]), kind, g, c)
            plan = [[(p, subject) for p, subject in enumerate(week[wd], start=1)
                     if p_want is None or str(p_want) == str(p)] for wd in range(5)]
            blocks.append((g, c, plan))
    rows = _TimetableRows(head, extra, days, blocks)
    return rows if len(rows) else []


def els_timetable(world, params):
    return _timetable(world, params, "els")


def mis_timetable(world, params):
    return _timetable(world, params, "mis")


def his_timetable(world, params):
    return _timetable(world, params, "his")


def sps_timetable(world, params):
    return _timetable(world, params, "sps")

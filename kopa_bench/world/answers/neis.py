"""NEIS answers computed per request from a school's `neis_schools` row, deterministically, so
the world stays small while any school returned by schoolInfo has meals, a calendar, classes
and a timetable:

- calendar (SchoolSchedule): the school's calendar of each academic year from 2020 (neis_calendar.py;
  the current year where a request names no date);
- meals (mealServiceDietInfo): every school day of those years (중식; 석식/조식 at some high schools);
- classes (classInfo) and timetables (neis_timetable.py).
"""

from __future__ import annotations

import hashlib
import random
import weakref
from collections.abc import Sequence
from datetime import timedelta

from .neis_calendar import AY, FIRST_AY, academic_years, school_calendar, school_days_between

_SCHOOL_SQL = "SELECT * FROM neis_schools WHERE ATPT_OFCDC_SC_CODE = $a AND SD_SCHUL_CODE = $c"
# per world: (office, school code) -> the school's row
_SCHOOL_INDEX: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def school_row(world, params, use_index: bool = True) -> dict | None:
    """The school an (office, school code) pair names, from a per-world index of the table, as
    every NEIS answer starts here with a different school per EDGE probe. `use_index=False` is
    the query, the reference the index is tested against (tests/test_handler_index.py)."""
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


def date_filter(params, exact: str, frm: str, to: str):
    """A YYYYMMDD predicate for the request's exact-date prefix and from/to bounds."""
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


def school_head(s: dict) -> dict:
    """The school columns every NEIS row starts with."""
    return {"ATPT_OFCDC_SC_CODE": s["ATPT_OFCDC_SC_CODE"], "ATPT_OFCDC_SC_NM": s["ATPT_OFCDC_SC_NM"],
            "SD_SCHUL_CODE": s["SD_SCHUL_CODE"], "SCHUL_NM": s["SCHUL_NM"]}


def course_name(s: dict) -> str:
    return {"els": "초등학교", "mis": "중학교", "his": "고등학교", "sps": "초등학교"}[s["_kind"]]


def school_schedule(world, params) -> list[dict]:
    s = school_row(world, params)
    if s is None:
        return []
    if params.get("DGHT_CRSE_SC_NM") not in (None, "주간"):
        return []
    if params.get("SCHUL_CRSE_SC_NM") not in (None, course_name(s)):
        return []
    ok = date_filter(params, "AA_YMD", "AA_FROM_YMD", "AA_TO_YMD")
    head = school_head(s)
    six = s["_kind"] in ("els", "sps")
    out = []
    for ay, (d, nm, sbtr, grades) in ((ay, e) for ay in academic_years(
            params.get("AA_YMD"), params.get("AA_FROM_YMD"), params.get("AA_TO_YMD"), params.get("AY"))
            for e in school_calendar(s, ay)[0]):
        ymd = d.strftime("%Y%m%d")
        if not ok(ymd):
            continue
        flags = ["Y" if g in grades else "N" for g in range(1, 7)]
        if not six:
            flags[3:] = ["*", "*", "*"]
        out.append({**head, "AY": str(ay), "DGHT_CRSE_SC_NM": "주간", "SCHUL_CRSE_SC_NM": course_name(s),
                    "SBTR_DD_SC_NM": sbtr, "AA_YMD": ymd, "EVENT_NM": nm, "EVENT_CNTNT": "",
                    "ONE_GRADE_EVENT_YN": flags[0], "TW_GRADE_EVENT_YN": flags[1], "THREE_GRADE_EVENT_YN": flags[2],
                    "FR_GRADE_EVENT_YN": flags[3], "FIV_GRADE_EVENT_YN": flags[4], "SIX_GRADE_EVENT_YN": flags[5],
                    "LOAD_DTM": f"{ay}0302"})
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
    s = school_row(world, params)
    if s is None:
        return []
    ok = date_filter(params, "MLSV_YMD", "MLSV_FROM_YMD", "MLSV_TO_YMD")
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
    head = school_head(s)
    keys = []
    days = []
    for ay in academic_years(params.get("MLSV_YMD"), params.get("MLSV_FROM_YMD"), params.get("MLSV_TO_YMD")):
        _, off, first, _, last = school_calendar(s, ay)
        days += school_days_between(first, last, off)
    for d in days:
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


# classes ---------------------------------------------------------------------------------------
def class_counts(s: dict) -> list[int]:
    return [int(x) for x in s["_classes"].split(",")]


def class_info(world, params) -> list[dict]:
    s = school_row(world, params)
    ay = str(params.get("AY") or AY)
    if s is None or not (ay.isdigit() and FIRST_AY <= int(ay) <= AY):
        return []
    kind = s["_kind"]
    filt = {k: params.get(k) for k in ("GRADE", "DGHT_CRSE_SC_NM", "SCHUL_CRSE_SC_NM", "ORD_SC_NM", "DDDEP_NM")}
    head = school_head(s)
    out = []
    for g, n in enumerate(class_counts(s), start=1):
        for c in range(1, n + 1):
            row = {**head, "AY": ay, "GRADE": str(g),
                   "DGHT_CRSE_SC_NM": "주간" if kind in ("mis", "his") else None,
                   "SCHUL_CRSE_SC_NM": course_name(s),
                   "ORD_SC_NM": s["HS_GNRL_BUSNS_SC_NM"] if kind == "his" else None,
                   "DDDEP_NM": s["_dddep"] if kind == "his" else None,
                   "CLASS_NM": str(c), "LOAD_DTM": f"{ay}0302"}
            if all(v is None or str(row.get(k)) == str(v) for k, v in filt.items()):
                out.append(row)
    return out

"""Value kinds: what a field or parameter holds (a 10-digit 법정동 code, a date, a latitude ...).

Kinds are inferred from three sources, combined by score:
  * the name (camelCase / snake / Korean-romanised API names such as ``LAWD_CD``, ``tmX``),
  * the Korean and English descriptions,
  * real values (sampled outputs, parameter examples and enums) by their format.
Each kind is a string; :data:`KIND_TRANSFORMS` says which transforms of
:mod:`kopa_bench.transforms` turn one kind into another.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable

from kopa_bench.transforms import SIDO

SIDO_FULL = {full for _, full, _, others in SIDO} | {o for *_, others in SIDO for o in others if len(o) > 2}
SIDO_SHORT = {short for _, _, short, _ in SIDO} | {"전국"}
# Kinds that only say *when*.
TEMPORAL_KINDS = frozenset({"date", "yyyymm", "year", "month", "datetime", "hhmm"})

# (kind, name regex, description regex); checked in order, first hits score highest.
_NAME_RULES: list[tuple[str, str]] = [
    # code systems of one platform: a TAGO city code and a TourAPI area/district code are all
    # small integers, so as generic ids they bind into each other by coincidence
    ("tago_city", r"^citycode$"),
    ("tour_area", r"^areacode$"),
    ("tour_sigungu", r"^sigungu_?code$"),
    ("lat", r"(^|_)(lat|latitude|gpslati|mapy|ypos|dmx|wgs84lat)$|lati$"),
    ("lon", r"(^|_)(lon|lng|longitude|gpslong|mapx|xpos|dmy|wgs84lon)$|long$"),
    ("tm_x", r"^tmx$"),
    ("tm_y", r"^tmy$"),
    ("utmk_x", r"^entx$"),
    ("utmk_y", r"^enty$"),
    ("kma_nx", r"^nx$"),
    ("kma_ny", r"^ny$"),
    ("lawd5", r"^lawd_?cd$|signgu_?cd$|sgg_?cd$|sggcd$"),
    ("legal_code", r"region_?cd$|^adm_?cd$|legaldong|bjd_?cd|ldong"),
    ("sido_name", r"^(sido|ctprvn|ctpv)(_?nm|name)?$|sidoname"),
    ("sgg_name", r"^(sgg|signgu|sigungu)(_?nm|name)$"),
    ("dong_name", r"^(umd|emd|emdong)(_?nm|name)$|^umdname$|locallow"),
    ("address", r"addr|address|juso|locatadd|rdnma"),
    ("station_name", r"(station|statn|msrstn|sttn|node)(_?nm|name)$|^stationname$"),
    ("bill_name", r"^bill_?name$"),
    ("person_name", r"^(hg_?nm|proposer|rst_proposer)$"),
    ("constituency", r"^orig_?nm$"),
    ("meta", r"^(total_?count|numofrows|pageno|list_total_count|result_?code|result_?msg|data_?cnt)$"),
    ("yyyymm", r"ymd?$" ),
    ("hhmm", r"(base_?time|fcst_?time|_tm)$"),
    ("date", r"(date|_dt|ymd|basdt|locdate)$"),
    ("datetime", r"(datatime|datetime)$"),
    ("year", r"(year|yy|solyear)$"),
    ("month", r"(month|solmonth|mm)$"),
    ("grade", r"grade"),
    ("measure", r"^(radius|distance|dist)$"),
    ("meta", r"(load_?dtm|modifiedtime|createdtime|rgst_?(dt|date)|reg_?dt|updt|last_?updt)"),
    ("measure", r"(value|val|cnt|count|amount|amt|price|prc|rate|tcnt|qty|temp)$"),
    ("id", r"(id|cd|code|no|sn|seq)$"),
    ("name", r"(nm|name|title)$"),
]
_DESC_RULES: list[tuple[str, str]] = [
    ("lat", r"위도|latitude"),
    ("lon", r"경도|longitude"),
    ("tm_x", r"tm\s*x|tm easting"),
    ("tm_y", r"tm\s*y|tm northing"),
    ("kma_nx", r"예보지점\s*x|격자\s*x|grid x"),
    ("kma_ny", r"예보지점\s*y|격자\s*y|grid y"),
    ("lawd5", r"지역코드|시군구\s*코드|시군구\s*5|lawd"),
    ("legal_code", r"법정동\s*코드|행정(동|구역)\s*코드|region code|legal.?dong code"),
    ("sido_name", r"^시도(명|\s*이름)?|province|시도\s*이름|^시도 "),
    ("sgg_name", r"시군구명|^district$"),
    ("dong_name", r"읍면동(명)?|eup/myeon/dong|^dong$"),
    ("address", r"주소|address"),
    ("station_name", r"측정소명|정류소명|역명|station name"),
    ("bill_name", r"법률안명|의안명"),
    ("law_ref", r"참조조문"),
    ("law_jo", r"조번호"),
    ("law_name", r"법령명"),
    ("person_name", r"의원\s*이름|의원명|제안자|대표발의자$|^이름$"),
    ("constituency", r"^선거구$|^선거구\s*\(|^선거구 "),
    ("yyyymm", r"계약년월|년월|yyyymm"),
    ("date", r"일자|날짜|yyyymmdd|date"),
    ("datetime", r"일시|시각|측정일시|time"),
    ("year", r"연도|년도|year"),
    ("grade", r"등급|grade"),
    ("measure", r"농도|수치|거리|금액|건수|개수|값|concentration|distance|amount|count"),
    ("id", r"코드|번호|아이디|\bid\b|code|number"),
    ("name", r"이름|명칭|\bname\b|title"),
]


def _norm_name(name: str) -> str:
    return re.sub(r"[^a-z0-9_]", "", name.lower())


def kinds_from_text(name: str, desc: str = "") -> Counter:
    """Kind votes from a name and its descriptions."""
    votes: Counter = Counter()
    n = _norm_name(name)
    for rank, (kind, rx) in enumerate(_NAME_RULES):
        if re.search(rx, n):
            votes[kind] += 2.0 - rank * 0.02
            break
    d = (desc or "").lower()
    if re.search(r"[가-힣]", name):
        d = f"{name} {d}"  # Korean field names (law.go.kr) say what they hold
    for rank, (kind, rx) in enumerate(_DESC_RULES):
        if re.search(rx, d):
            votes[kind] += 1.5 - rank * 0.02
            break
    return votes


_DATE8 = re.compile(r"^(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$")
_DATE_DASH = re.compile(r"^(19|20)\d{2}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$")
_YYYYMM = re.compile(r"^(19|20)\d{2}(0[1-9]|1[0-2])$")
_DATETIME = re.compile(r"^(19|20)\d{2}-?\d{2}-?\d{2}[ T]\d{2}:?\d{2}")
_FLOAT = re.compile(r"^-?\d+(\.\d+)?$")
_POINT_XY = re.compile(r"^-?\d+\.\d+\s*,\s*-?\d+\.\d+$")  # decimals both sides: "82,500" is an amount


def kind_of_value(value: Any) -> str | None:
    """The kind a single real value looks like, or None when it says nothing specific."""
    if value is None:
        return None
    text = str(value).strip()
    if not text or text in {"-", "null", "None"}:
        return None
    if text in SIDO_FULL:
        return "sido_name"
    if text in SIDO_SHORT:
        return "sido_short"
    if _DATETIME.match(text):
        return "datetime"
    if _DATE8.match(text) or _DATE_DASH.match(text):
        return "date"
    if _YYYYMM.match(text):
        return "yyyymm"
    if re.fullmatch(r"(19|20)\d{2}", text):
        return "year"
    if re.fullmatch(r"([01]\d|2[0-3])[0-5]\d", text):
        return "hhmm"
    if re.fullmatch(r"\d{10}", text):
        return "legal_code" if text[:2] in {c for c, *_ in SIDO} | {"42", "45"} else "id"
    if _POINT_XY.match(text):
        return "point_xy"
    if _FLOAT.match(text):
        x = float(text)
        if "." in text and 33.0 <= x <= 39.0:
            return "lat"
        if "." in text and 124.0 <= x <= 132.0:
            return "lon"
        if "." in text and 100000 <= x <= 700000:
            return "tm"
        return "number"
    if re.fullmatch(r"[가-힣]+(동|읍|면|가)\d*", text) and len(text) <= 8:
        return "dong_name"
    if len(text.split()) >= 3 and re.search(r"(시|도)\s", text):
        return "address"
    if re.fullmatch(r"[A-Z]?[0-9A-Z_-]{3,}", text):
        return "id"
    return "text"


def kinds_from_values(values: Iterable[Any]) -> Counter:
    """Kind votes from sampled values: the share of values of each kind, scaled."""
    seen = [k for k in (kind_of_value(v) for v in values) if k]
    if not seen:
        return Counter()
    c = Counter(seen)
    return Counter({k: 2.5 * n / len(seen) for k, n in c.items()})


# How value-kinds refine each other: (text kind, value kind) -> final kind.
def infer_kind(name: str, desc: str = "", values: Iterable[Any] = ()) -> str:
    """One kind for a field/parameter from its name, descriptions and real values."""
    votes = kinds_from_text(name, desc)
    vvotes = kinds_from_values(values)
    text_kind = votes.most_common(1)[0][0] if votes else None
    value_kind = vvotes.most_common(1)[0][0] if vvotes else None
    if value_kind in ("sido_short", "point_xy"):
        return value_kind
    if value_kind == "tm":
        return text_kind if text_kind in ("tm_x", "tm_y", "utmk_x", "utmk_y") else "tm_x"
    if text_kind is None:
        return value_kind or "text"
    if value_kind is None:
        return text_kind
    # Values contradict a generic text guess: trust specific value formats.
    specific = {"legal_code", "date", "yyyymm", "datetime", "lat", "lon", "sido_name", "sido_short", "hhmm", "year"}
    if value_kind == "text" and text_kind in {"date", "datetime", "yyyymm", "hhmm", "year", "month", "lat", "lon"}:
        return "text"  # a name like 'dateName' holding words
    if text_kind == "measure" and value_kind in {"year", "hhmm", "yyyymm", "month"}:
        return "measure"  # a radius of 2000 is a distance, not a year
    if text_kind == "id" and value_kind in {"year", "hhmm", "yyyymm", "month"}:
        return "id"  # a 4-digit station code (0222) is not a time of day
    if value_kind in specific and text_kind in {"id", "name", "measure", "text", "address", "month", "year", "datetime", "date", "hhmm"} and value_kind != text_kind:
        if not (value_kind == "date" and text_kind in {"id"}):
            return value_kind
    if text_kind == "yyyymm" and value_kind == "date":
        return "date"
    if text_kind in {"date", "yyyymm"} and value_kind == "datetime":
        return "datetime"
    return text_kind


# from kind -> {to kind: [(transform, transform args, confidence)]}
KIND_TRANSFORMS: dict[str, dict[str, list[tuple[str, dict, float]]]] = {
    "legal_code": {"lawd5": [("lawd_cd", {}, 0.95), ("prefix5", {}, 0.8)], "legal_code": [("identity", {}, 1.0)],
                   "sido_code": [("sido_code", {}, 0.8)]},
    "sido_name": {"sido_short": [("sido_short", {}, 0.95)], "sido_name": [("identity", {}, 1.0)],
                  "neis_office": [("sido_to_neis_office", {}, 0.9)], "tour_area": [("sido_to_tourapi_area", {}, 0.9)]},
    "sido_short": {"sido_name": [("sido_full", {}, 0.9)], "sido_short": [("identity", {}, 1.0)]},
    "address": {"sido_short": [("sido_short", {}, 0.7)],
                # not first_tokens: an address cut to its district names no entity (a juso
                # search on "서울 종로구" returns arbitrary addresses)
                "address": [("identity", {}, 0.8)],
                "dong_name": [("umd_from_address", {}, 0.7)],
                "sido_name": [("first_tokens", {"n": 1}, 0.6)], "sgg_name": [("first_tokens", {"n": 2}, 0.5)]},
    "date": {"yyyymm": [("yyyymm", {}, 0.9)], "date": [("yyyymmdd", {}, 0.9), ("identity", {}, 0.85)],
             "year": [("year", {}, 0.85)], "month": [("month_2d", {}, 0.8)]},
    "datetime": {"date": [("yyyymmdd", {}, 0.8)], "yyyymm": [("yyyymm", {}, 0.75)], "year": [("year", {}, 0.7)]},
    "yyyymm": {"yyyymm": [("identity", {}, 1.0)], "year": [("year", {}, 0.8)], "month": [("month_2d", {}, 0.75)]},
    "hhmm": {"hhmm": [("identity", {}, 0.9)]},
    "lat": {"kma_nx": [("kma_nx", {}, 0.9)], "kma_ny": [("kma_ny", {}, 0.9)], "tm_x": [("wgs84_to_tm_x", {}, 0.8)],
            "tm_y": [("wgs84_to_tm_y", {}, 0.8)], "lat": [("identity", {}, 1.0)]},
    "lon": {"lon": [("identity", {}, 1.0)]},
    "tm_x": {"tm_x": [("identity", {}, 1.0)], "lat": [("tm_to_lat", {}, 0.8)], "lon": [("tm_to_lon", {}, 0.8)]},
    "tm_y": {"tm_y": [("identity", {}, 1.0)]},
    "utmk_x": {"lat": [("utmk_to_lat", {}, 0.8)], "lon": [("utmk_to_lon", {}, 0.8)], "utmk_x": [("identity", {}, 1.0)]},
    "utmk_y": {"utmk_y": [("identity", {}, 1.0)]},
    "station_name": {"station_name": [("identity", {}, 1.0)]},
    "bill_name": {"law_name": [("bill_to_law_name", {}, 0.9)], "bill_name": [("identity", {}, 1.0)]},
    "law_ref": {"law_name": [("cited_law_name", {}, 0.9)], "law_jo": [("law_article_jo", {}, 0.9)]},
    "law_name": {"law_name": [("identity", {}, 1.0)]},
    "person_name": {"person_name": [("identity", {}, 1.0)]},
    "constituency": {"address": [("constituency_district", {}, 0.85)], "constituency": [("identity", {}, 1.0)]},
    "dong_name": {"dong_name": [("identity", {}, 1.0)]},
    "sgg_name": {"sgg_name": [("identity", {}, 1.0)]},
    "id": {"id": [("identity", {}, 0.9)],
           # TourAPI areaCode2 lists its codes in a generic `code` field
           "tour_area": [("identity", {}, 0.9)], "tour_sigungu": [("identity", {}, 0.8)]},
    "tago_city": {"tago_city": [("identity", {}, 1.0)]},
    "tour_area": {"tour_area": [("identity", {}, 1.0)]},
    "tour_sigungu": {"tour_sigungu": [("identity", {}, 1.0)]},
    "name": {"name": [("identity", {}, 0.9)], "station_name": [("identity", {}, 0.5)], "text": [("identity", {}, 0.5)]},
    "year": {"year": [("identity", {}, 1.0)]},
    "month": {"month": [("identity", {}, 1.0)]},
    "kma_nx": {"kma_nx": [("identity", {}, 1.0)]},
    "kma_ny": {"kma_ny": [("identity", {}, 1.0)]},
    "lawd5": {"lawd5": [("identity", {}, 1.0)]},
    "text": {"text": [("identity", {}, 0.6)], "name": [("identity", {}, 0.5)]},
    "measure": {"measure": [("identity", {}, 0.3)]},
    "grade": {"grade": [("identity", {}, 0.5)]},
}

# Transforms that read a whole record (coordinate pairs): the reference is the record itself.
RECORD_TRANSFORMS = {"kma_nx", "kma_ny", "wgs84_to_tm_x", "wgs84_to_tm_y", "tm_to_lat", "tm_to_lon",
                     "utmk_to_lat", "utmk_to_lon"}

# Coordinate systems whose two fields make one "x,y" point (x kind, y kind, the `xy_point` crs, confidence).
POINT_SYSTEMS = (("lon", "lat", "wgs84", 0.95), ("tm_x", "tm_y", "tm", 0.8), ("utmk_x", "utmk_y", "utmk", 0.8))

# Kinds that carry no identity worth chaining on (measurements, grades, free text).
WEAK_FROM_KINDS = {"measure", "grade", "text", "meta"}


def transforms_for(from_kind: str, to_kind: str) -> list[tuple[str, dict, float]]:
    """Transforms turning `from_kind` into `to_kind`, best first (empty: incompatible)."""
    out = KIND_TRANSFORMS.get(from_kind, {}).get(to_kind, [])
    if not out and from_kind == to_kind:
        out = [("identity", {}, 0.7)]
    return sorted(out, key=lambda t: -t[2])

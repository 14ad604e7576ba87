"""시도 names and codes, and the platform codes keyed on them (NEIS, TourAPI, TAGO)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any


from .generic import _text
from .registry import _register


#: (법정동 sido code, current full name, short form, other names seen in APIs)
SIDO: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("11", "서울특별시", "서울", ("서울시",)),
    ("26", "부산광역시", "부산", ("부산시",)),
    ("27", "대구광역시", "대구", ("대구시",)),
    ("28", "인천광역시", "인천", ("인천시",)),
    ("29", "광주광역시", "광주", ()),  # not "광주시": that is a city in 경기
    ("30", "대전광역시", "대전", ("대전시",)),
    ("31", "울산광역시", "울산", ("울산시",)),
    ("36", "세종특별자치시", "세종", ("세종시", "세종특별시")),  # TAGO says 세종특별시
    ("41", "경기도", "경기", ()),
    ("43", "충청북도", "충북", ()),
    ("44", "충청남도", "충남", ()),
    ("46", "전라남도", "전남", ()),
    ("47", "경상북도", "경북", ()),
    ("48", "경상남도", "경남", ()),
    ("50", "제주특별자치도", "제주", ("제주도",)),  # TourAPI/TAGO still say 제주도
    ("51", "강원특별자치도", "강원", ("강원도",)),  # 강원도 (code 42) until 2023-06
    ("52", "전북특별자치도", "전북", ("전라북도",)),  # 전라북도 (code 45) until 2024-01
)
_LEGACY_SIDO_CODES = {"42": "51", "45": "52"}


@lru_cache(maxsize=1)
def _sido_index() -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
    by_code = {code: (full, short) for code, full, short, _ in SIDO}
    by_name: dict[str, str] = {}
    for code, full, short, others in SIDO:
        for name in (full, short, *others):
            by_name[name] = code
    return by_code, by_name


def _sido_code_of(value: Any) -> str:
    """Resolve a 시도 given as a code (any 법정동/행정동 code), full, short or legacy name."""
    text = _text(value, "sido")
    by_code, by_name = _sido_index()
    if text.isdigit():
        code = _LEGACY_SIDO_CODES.get(text[:2], text[:2])
        if len(text) >= 2 and code in by_code:
            return code
        raise ValueError(f"{value!r} does not start with a 시도 code; valid codes: {', '.join(sorted(by_code))}")
    first = text.split()[0] if text else ""
    for candidate in (text, first, first.removesuffix("교육청")):
        if candidate in by_name:
            return by_name[candidate]
    raise ValueError(
        f"{value!r} is not a 시도 name; use a full name (서울특별시), a short name "
        f"({', '.join(s for _, _, s, _ in SIDO)}) or a 2-digit 법정동 code"
    )


@_register(
    "sido_code",
    "2-digit 시도 code: first 2 digits of a 법정동 code (1168010600 -> 11), or the code of a 시도 name.",
    "code",
    "code",
)
def _sido_code(value: Any) -> str:
    return _sido_code_of(value)


@_register(
    "sido_short",
    "AirKorea-style short 시도 name (서울특별시 -> 서울, 강원특별자치도 -> 강원); takes the first token of an address.",
    "text",
    "text",
)
def _sido_short(value: Any) -> str:
    return _sido_index()[0][_sido_code_of(value)][1]


@_register("sido_full", "Current full 시도 name (서울 -> 서울특별시, 강원/강원도 -> 강원특별자치도).", "text", "text")
def _sido_full(value: Any) -> str:
    return _sido_index()[0][_sido_code_of(value)][0]


@lru_cache(maxsize=1)
def _neis_by_sido() -> dict[str, str]:
    from kopa_bench.refdata import table_rows

    return {r["legal_sido_code"]: r["atpt_ofcdc_sc_code"] for r in table_rows("neis_offices")}


@_register("sido_to_neis_office", "NEIS ATPT_OFCDC_SC_CODE of a 시도 (서울 -> B10, 경기도 -> J10).", "text", "code")
def _sido_to_neis_office(value: Any) -> str:
    return _neis_by_sido()[_sido_code_of(value)]


@lru_cache(maxsize=1)
def _tourapi_by_sido() -> dict[str, str]:
    from kopa_bench.refdata import table_rows

    # TourAPI names mix forms (서울, 세종특별자치시, 경기도, 제주도): normalise through the 시도 index.
    return {_sido_code_of(r["name"]): r["area_code"] for r in table_rows("tourapi_area_codes")}


@_register("sido_to_tourapi_area", "TourAPI areaCode of a 시도 (서울 -> 1, 부산광역시 -> 6, 제주 -> 39).", "text", "code")
def _sido_to_tourapi_area(value: Any) -> str:
    return _tourapi_by_sido()[_sido_code_of(value)]


# TAGO city codes: metro codes and the first two digits of 시군 codes use the old province
# numbering, not 법정동 sido codes.
TAGO_PREFIX_TO_SIDO = {
    "12": "36", "21": "26", "22": "27", "23": "28", "24": "29", "25": "30", "26": "31", "39": "50",
    "31": "41", "32": "51", "33": "43", "34": "44", "35": "52", "36": "46", "37": "47", "38": "48",
}  # fmt: skip


@lru_cache(maxsize=1)
def _tago_index() -> tuple[dict[str, list[tuple[str, str]]], dict[str, str]]:
    from kopa_bench.refdata import table_rows

    by_part: dict[str, list[tuple[str, str]]] = {}
    metro: dict[str, str] = {}
    for r in table_rows("tago_city_codes"):
        code, name = r["citycode"], r["cityname"]
        for part in name.split("/"):  # "대전광역시/계룡시", "원주시/횡성군"
            by_part.setdefault(part, []).append((code, name))
        if len(code) == 2:
            metro[TAGO_PREFIX_TO_SIDO[code]] = code
    return by_part, metro


@_register(
    "city_to_tago_code",
    "TAGO cityCode of a city/county or metro name (대전광역시 -> 25, 수원시 -> 31010, '경기도 수원시' -> 31010).",
    "text",
    "code",
    ("sido",),
)
def _city_to_tago_code(value: Any, sido: str | None = None) -> str:
    text = _text(value, "city")
    by_part, metro = _tago_index()
    tokens = text.split()
    want_sido = _sido_code_of(sido) if sido else None
    if want_sido is None and len(tokens) > 1:
        try:
            want_sido = _sido_code_of(tokens[0])
        except ValueError:
            want_sido = None
    for name in [text, *tokens[1:]]:
        cands = by_part.get(name, [])
        if want_sido:
            cands = [c for c in cands if TAGO_PREFIX_TO_SIDO[c[0][:2]] == want_sido]
        exact = [c for c in cands if c[1] == name]  # "계룡시" row beats "대전광역시/계룡시"
        cands = exact or cands
        if len(cands) == 1:
            return cands[0][0]
        if len(cands) > 1:
            raise ValueError(
                f"city {value!r} is ambiguous in TAGO: {cands}; pass sido=... (e.g. sido='강원') to choose"
            )
    try:
        code = _sido_code_of(text)
    except ValueError:
        code = None
    if code == "11":
        raise ValueError("Seoul (서울) city buses are not served by TAGO; use the Seoul bus API instead")
    if code in metro and len(tokens) == 1:
        return metro[code]
    raise ValueError(
        f"{value!r} is not a TAGO city name; use a 시군 name as TAGO lists it (수원시, 원주시, 고성군) "
        "or a metro city (부산, 대전광역시, 세종, 제주)"
    )


_CONSTITUENCY_SUFFIX = ("갑", "을", "병", "정", "무")


@_register(
    "constituency_district",
    "District of an Assembly constituency (ORIG_NM '서울 강남구갑' -> '서울특별시 강남구'; merged '경북 의성군청송군영덕군' -> first district).",
    "text",
    "text",
)
def _constituency_district(value: Any) -> str:
    text = _text(value, "constituency")
    if not text or text == "비례대표":
        raise ValueError(f"{value!r} is not a district constituency (proportional seats have no district)")
    parts = text.split(maxsplit=1)
    if len(parts) == 1:  # '세종특별자치시갑'
        return _sido_full(text.rstrip("".join(_CONSTITUENCY_SUFFIX)))
    sido, rest = _sido_full(parts[0]), parts[1]
    rest = rest.replace(" ", "")
    if rest.endswith(_CONSTITUENCY_SUFFIX) and len(rest) > 1:
        rest = rest[:-1]
    # merged constituencies concatenate districts ('의성군청송군영덕군'): keep the first one
    for i, ch in enumerate(rest):
        if ch in "시군구" and i >= 1:
            rest = rest[: i + 1]
            break
    return f"{sido} {rest}"


_UMD_ENDINGS = ("동", "읍", "면", "가")


@_register(
    "umd_from_address",
    "읍/면/동 token of an address ('서울특별시 강남구 대치동 316' -> '대치동'; '... 계동길 349 (계동)' -> '계동'); a record's addr1+addr2 are read together.",
    "text",
    "text",
)
def _umd_from_address(value: Any) -> str:
    if isinstance(value, dict):
        keys = ("addr1", "addr2", "addr", "roadAddr", "jibunAddr", "ORG_RDNMA", "ORG_RDNDA")
        value = " ".join(str(value[k]) for k in keys if value.get(k))
    text = _text(value, "address")
    # a parenthetical '(계동)' or '(역삼동, 래미안)' names the legal dong of a road address; a few
    # legal dongs are named like roads ('(세종로)', the dong of 경복궁)
    for inner in re.findall(r"\(([^()]*)\)", text):
        first = inner.split(",")[0].strip()
        road_named = first.endswith("로") and not any(c.isdigit() for c in first)
        if (first.endswith(_UMD_ENDINGS) or road_named) and len(first) >= 2:
            return first
    tokens = re.sub(r"\([^()]*\)", " ", text).split()
    for tok in tokens[1:]:
        if tok.endswith(_UMD_ENDINGS) and len(tok) >= 2 and not tok.endswith(("로", "길")) and not tok[0].isdigit():
            return tok
    raise ValueError(f"{value!r} has no 읍/면/동 token (road-name addresses often lack one)")

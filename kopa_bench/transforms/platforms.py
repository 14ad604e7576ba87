"""Platform-specific formats: ECOS cycles, Assembly units, money, laws, subway lines."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any


from .dates import _to_date
from .generic import _text, _to_int
from .registry import _register


_ECOS_CYCLES = ("A", "S", "Q", "M", "SM", "D")


@_register(
    "ecos_period",
    "Bank of Korea ECOS time for a cycle: A=YYYY, S=YYYYS1|S2, Q=YYYYQn, M=YYYYMM, SM=YYYYMMS1|S2, D=YYYYMMDD.",
    "date",
    "text",
    ("cycle",),
)
def _ecos_period(value: Any, cycle: str = "M") -> str:
    d = _to_date(value)
    c = str(cycle).upper()
    if c == "A":
        return f"{d.year:04d}"
    if c == "S":
        return f"{d.year:04d}S{1 if d.month <= 6 else 2}"
    if c == "Q":
        return f"{d.year:04d}Q{(d.month - 1) // 3 + 1}"
    if c == "M":
        return d.strftime("%Y%m")
    if c == "SM":
        return d.strftime("%Y%m") + ("S1" if d.day <= 15 else "S2")
    if c == "D":
        return d.strftime("%Y%m%d")
    raise ValueError(f"ECOS cycle {cycle!r} is unknown; use one of {_ECOS_CYCLES}")


for _c in ("A", "Q", "M", "D"):
    _register(f"ecos_{_c.lower()}", f"ECOS period for cycle {_c}.", "date", "text", defaults={"cycle": _c})(_ecos_period)
del _c


@_register(
    "assembly_unit_cd",
    "National Assembly UNIT_CD of an 대수 ('22', 22 or '제22대' -> '100022'; '1'+zfill(5)).",
    "code",
    "code",
)
def _assembly_unit_cd(value: Any) -> str:
    text = _text(value, "대수")
    if re.fullmatch(r"1\d{5}", text):  # already a UNIT_CD
        return text
    m = re.fullmatch(r"제?\s*(\d{1,3})\s*대?", text)
    if not m or int(m[1]) == 0:
        raise ValueError(f"{value!r} is not an Assembly 대수; expected e.g. 22, '22' or '제22대'")
    return "1" + m[1].zfill(5)


@_register("assembly_age", "Inverse of assembly_unit_cd ('100022' -> '22').", "code", "code")
def _assembly_age(value: Any) -> str:
    text = _text(value, "UNIT_CD")
    if not re.fullmatch(r"1\d{5}", text):
        raise ValueError(f"{value!r} is not an Assembly UNIT_CD; expected 6 digits like '100022'")
    return str(int(text[1:]))


@_register("manwon_to_int", "MOLIT 만원 amount string to int ('   72,000' -> 72000).", "text", "number")
def _manwon_to_int(value: Any) -> int:
    num = _to_int(value)
    if num is None:
        raise ValueError(f"amount {value!r} is empty; expected a 만원 figure such as '72,000'")
    return num


@_register("manwon_to_won", "MOLIT 만원 amount string to KRW ('   72,000' -> 720000000).", "text", "number")
def _manwon_to_won(value: Any) -> int:
    return _manwon_to_int(value) * 10_000


@_register(
    "strip_station_suffix",
    "Seoul realtime subway station name: drop a trailing '역' ('강남역' -> '강남', '서울역' -> '서울').",
    "text",
    "text",
)
def _strip_station_suffix(value: Any) -> str:
    text = _text(value, "station")
    # Keep a lone '역' (no such station, but never return an empty name).
    return text[:-1] if text.endswith("역") and len(text) > 1 else text


@lru_cache(maxsize=1)
def _subway_line_ids() -> dict[str, str]:
    from kopa_bench.refdata import table_rows

    return {r["line_name"]: r["subway_id"] for r in table_rows("seoul_subway_stations")}


@_register("subway_line_to_id", "Seoul realtime subwayId of a line ('02호선'/'2호선' -> '1002', '신분당선' -> '1077').", "text", "code")
def _subway_line_to_id(value: Any) -> str:
    text = _text(value, "line")
    if m := re.fullmatch(r"0?([1-9])\s*호선", text):
        return f"100{m[1]}"  # lines 1-9 are 1000 + n
    ids = _subway_line_ids()
    if text in ids:
        return ids[text]
    raise ValueError(f"subway line {value!r} is unknown; valid names: {', '.join(sorted(ids))}")


@_register("strip_stock_prefix", "KRX short code without the leading 'A' ('A005930' -> '005930').", "code", "code")
def _strip_stock_prefix(value: Any) -> str:
    text = _text(value, "stock code")
    return text[1:] if re.fullmatch(r"A\d{6}", text) else text


@_register("law_article_jo", "law.go.kr JO parameter of an article ('제750조' -> '075000', '제10조의2' -> '001002').", "text", "code")
def _law_article_jo(value: Any) -> str:
    m = re.search(r"제?\s*(\d+)\s*조(?:\s*의\s*(\d+))?", _text(value, "article"))
    if not m:
        raise ValueError(f"{value!r} names no article; expected e.g. '제750조' or '제10조의2'")
    return f"{int(m[1]):04d}{int(m[2] or 0):02d}"


@_register("bill_to_law_name", "Law name of an amendment bill ('도로교통법 일부개정법률안' -> '도로교통법').", "text", "text")
def _bill_to_law_name(value: Any) -> str:
    text = _text(value, "bill name")
    for suffix in ("일부개정법률안", "전부개정법률안", " 법률안"):
        if text.endswith(suffix) and len(text) > len(suffix):
            return text[: -len(suffix)].strip()
    return text  # not an amendment bill: nothing to strip


@_register(
    "cited_law_name",
    "Law name of a cited article ('민법 제750조' -> '민법'; in a list '도로교통법 제44조, 민법 제750조' the first).",
    "text",
    "text",
)
def _cited_law_name(value: Any) -> str:
    text = _text(value, "citation").split(",")[0].strip()
    m = re.match(r"^(.*?)\s*제\s*\d+\s*조", text)
    name = (m[1] if m else text).strip()
    if not name:
        raise ValueError(f"{value!r} names no law before the article; expected e.g. '민법 제750조'")
    return name

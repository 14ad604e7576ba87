"""Generic value transforms: text, numbers, code prefixes, lists."""

from __future__ import annotations

import json
import re
from typing import Any


from .registry import _register


def _text(value: Any, what: str = "value") -> str:
    if value is None or isinstance(value, (dict, list, tuple, set)):
        raise ValueError(f"{what}={value!r} is not a scalar; expected a string or number")
    return str(value).strip()


@_register("identity", "Return the value unchanged.", "any", "any")
def _identity(value: Any) -> Any:
    return value


@_register("to_str", "str(value), trimmed.", "any", "text")
def _to_str(value: Any) -> str:
    return _text(value)


_MISSING = {"", "-", "null", "None"}  # AirKorea uses "-" for a missing measurement


def _number(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError(f"value={value!r} is a bool, not a number")
    if isinstance(value, (int, float)):
        return float(value)
    text = _text(value).replace(",", "")
    if text in _MISSING:
        return None
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"value={value!r} is not a number (commas and spaces are allowed)") from None


@_register("to_int", "Parse an API number string ('  1,234' -> 1234); '-'/'' -> None.", "text", "number")
def _to_int(value: Any) -> int | None:
    num = _number(value)
    if num is None:
        return None
    if num != int(num):
        raise ValueError(f"value={value!r} is not an integer; use to_float")
    return int(num)


@_register("to_float", "Parse an API number string ('37.56' -> 37.56); '-'/'' -> None.", "text", "number")
def _to_float(value: Any) -> float | None:
    return _number(value)


@_register("prefix", "First n characters of a code (prefix(n=5) of 1168010600 -> 11680).", "code", "code", ("n",))
def _prefix(value: Any, n: int = 5) -> str:
    text = _text(value)
    if n <= 0:
        raise ValueError(f"prefix n={n!r} must be positive")
    if len(text) < n:
        raise ValueError(f"code {value!r} is shorter than the {n} characters requested")
    return text[:n]


_register("prefix5", "First 5 characters (시군구 part of a 법정동/행정동 code).", "code", "code", defaults={"n": 5})(_prefix)
_register("prefix2", "First 2 characters (시도 part of a 법정동 code).", "code", "code", defaults={"n": 2})(_prefix)


def _digits(value: Any, what: str) -> str:
    text = _text(value, what)
    if not text.isdigit():
        raise ValueError(f"{what}={value!r} must contain digits only")
    return text


@_register(
    "lawd_cd",
    "MOLIT LAWD_CD: first 5 digits of a 10-digit 법정동 code (1168010600 -> 11680); 5 digits pass through.",
    "code",
    "code",
)
def _lawd_cd(value: Any) -> str:
    text = _digits(value, "법정동 code")
    if len(text) not in (5, 10):
        raise ValueError(f"법정동 code {value!r} has {len(text)} digits; expected 10 (or an already-cut 5)")
    return text[:5]


@_register("strip_hyphens", "Remove '-' (and spaces): '120-81-47521' -> '1208147521'.", "text", "text")
def _strip_hyphens(value: Any) -> str:
    return re.sub(r"[-\s]", "", _text(value))


@_register(
    "to_json_array",
    "Wrap a scalar in a list (lists pass through); as_string=True gives the JSON text.",
    "any",
    "list",
    ("as_string",),
)
def _to_json_array(value: Any, as_string: bool = False) -> list | str:
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    return json.dumps(items, ensure_ascii=False) if as_string else items


@_register(
    "b_no_list",
    "NTS b_no body: strip hyphens, check 10 digits, wrap in a list ('120-81-47521' -> ['1208147521']).",
    "any",
    "list",
)
def _b_no_list(value: Any) -> list[str]:
    raw = list(value) if isinstance(value, (list, tuple)) else [value]
    out = []
    for item in raw:
        b_no = _strip_hyphens(item)
        if not (b_no.isdigit() and len(b_no) == 10):
            raise ValueError(f"business number {item!r} must have 10 digits after removing hyphens")
        out.append(b_no)
    if len(out) > 100:  # the NTS status API accepts at most 100 numbers per call
        raise ValueError(f"{len(out)} business numbers given; NTS accepts at most 100 per call")
    return out


@_register(
    "concat",
    "Join a list of parts into one string (lDongRegnCd '11' + lDongSignguCd '680' -> '11680').",
    "list",
    "text",
    ("sep",),
)
def _concat(value: Any, sep: str = "") -> str:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"concat needs a list of parts, got {value!r}")
    return sep.join(_text(v) for v in value)


@_register("first_tokens", "First n whitespace tokens of an address ('서울특별시 강남구 대치동 1' n=2 -> '서울특별시 강남구').", "text", "text", ("n",))
def _first_tokens(value: Any, n: int = 2) -> str:
    tokens = _text(value).split()
    if len(tokens) < n:
        raise ValueError(f"address {value!r} has fewer than {n} tokens")
    return " ".join(tokens[:n])


@_register(
    "strip_parenthetical",
    "Drop parenthesised parts and tidy spaces ('서울특별시 중구 세종대로 110 (태평로1가)' -> '서울특별시 중구 세종대로 110').",
    "text",
    "text",
)
def _strip_parenthetical(value: Any) -> str:
    text = re.sub(r"\([^()]*\)", " ", _text(value))
    return " ".join(text.split())

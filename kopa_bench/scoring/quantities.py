"""Numbers as a Korean reader reads them: commas, 만/억/조 (and 천/백) multipliers, compounds
("22억 8,110만원"), small counts in words (세 건) and the unit written after a number.

A number written with a unit that converts (원 with its multipliers, km/m/cm/mm, kg/g/톤) is
compared in the fact's unit: "1.2km" states 1,200 m, and "85,000원" does NOT state 85,000 만원.
A number without such a unit (or with one of another kind, e.g. ㎍/㎥, %, 건) is compared as
written, or after the fact unit's own multiplier ("85,000" or "8억 5천만" for 85,000 만원).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

_BIG = {"조": 10**12, "억": 10**8, "천만": 10**7, "백만": 10**6, "십만": 10**5, "만": 10**4, "천": 10**3, "백": 10**2}
# a unit that converts: token -> (dimension, factor to the dimension's base unit)
_CONVERTIBLE = {
    "원": ("money", 1.0),
    "km": ("length", 1000.0), "킬로미터": ("length", 1000.0), "m": ("length", 1.0), "미터": ("length", 1.0),
    "cm": ("length", 0.01), "센티미터": ("length", 0.01), "mm": ("length", 0.001), "밀리미터": ("length", 0.001),
    "kg": ("mass", 1000.0), "킬로그램": ("mass", 1000.0), "g": ("mass", 1.0), "그램": ("mass", 1.0), "톤": ("mass", 1e6),
}
_UNIT_ALT = "|".join(sorted(map(re.escape, _CONVERTIBLE), key=len, reverse=True))
# "m" of "m/s" or "m³" is no length; a Latin unit must end the word
_NUM_RE = re.compile(r"(?<![\d.])([-+]?\d[\d,]*(?:\.\d+)?)\s*(조|억|천만|백만|십만|만|천|백)?"
                     rf"(?:\s*({_UNIT_ALT})(?![A-Za-z/²³0-9]))?")
_UNIT_SCALE = {"만원": 10**4, "천원": 10**3, "억원": 10**8, "백만원": 10**6}
_SMALL = {"한": 1, "하나": 1, "두": 2, "둘": 2, "세": 3, "셋": 3, "석": 3, "네": 4, "넷": 4, "다섯": 5,
          "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9, "열": 10}
_COUNTERS = "건개명곳표회번대석채"
_SMALL_RE = re.compile(r"(하나|다섯|여섯|일곱|여덟|아홉|한|두|둘|세|셋|석|네|넷|열)\s*([" + _COUNTERS + "])")


@dataclass(frozen=True)
class Quantity:
    """One number a reader sees: `values` as written (and times its multiplier), and, when a
    converting unit follows it, `value` in that unit's base (`dimension`)."""

    values: tuple[float, ...]
    value: float
    dimension: str | None = None


def _float(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


@lru_cache(maxsize=4096)
def quantities_in(text: str) -> tuple[Quantity, ...]:
    """Every number of `text` (memoised: an answer is read once for all its facts)."""
    text = unicodedata.normalize("NFKC", text)
    out: list[Quantity] = []
    run: list[tuple[float, int]] = []  # consecutive (value, multiplier) parts of one compound number
    last_end = -1

    def flush(dim: tuple[str, float] | None) -> None:
        if len(run) > 1:
            total = sum(v * u for v, u in run)
            out.append(Quantity((total,), total * (dim[1] if dim else 1.0), dim[0] if dim else None))

    for m in _NUM_RE.finditer(text):
        v = _float(m.group(1))
        if v is None:
            continue
        mult = _BIG.get(m.group(2) or "", 1)
        dim = _CONVERTIBLE.get(m.group(3) or "")
        values = (v, v * mult) if mult > 1 else (v,)
        out.append(Quantity(values, v * mult * (dim[1] if dim else 1.0), dim[0] if dim else None))
        gap = text[last_end:m.start()] if last_end >= 0 else "x"
        if run and gap.strip() == "" and mult < run[-1][1]:
            run.append((v, mult))  # "3억 2,000만" continues: smaller multiplier right after
        else:
            flush(None)
            run = [(v, mult)] if mult > 1 else []
        last_end = m.end()
        if mult == 1 or dim is not None:
            flush(dim)  # a plain number or a unit ends the compound; the unit is the compound's
            run = []
    flush(None)
    for m in _SMALL_RE.finditer(text):
        n = float(_SMALL[m.group(1)])
        out.append(Quantity((n,), n))
    return tuple(out)


def numbers_in(text: str) -> list[float]:
    """Every number a reader would see in `text`: plain, with units, compounds like 3억 2천만."""
    return [v for q in quantities_in(text) for v in q.values]


@lru_cache(maxsize=1024)
def fact_unit(unit: str | None) -> tuple[str, float] | None:
    """(dimension, factor to its base) of a fact's unit that converts ('만원' -> money, 1e4), else None."""
    if not unit:
        return None
    s = unicodedata.normalize("NFKC", unit).strip()
    m = re.fullmatch(r"(조|억|천만|백만|십만|만|천|백)?\s*(" + _UNIT_ALT + ")", s)
    if not m:
        return None
    dim, factor = _CONVERTIBLE[m.group(2)]
    return dim, factor * _BIG.get(m.group(1) or "", 1)


def number_matches(candidate: float, gold: float, tolerance: float | None = None, unit: str | None = None) -> bool:
    """`candidate` states `gold` if within tolerance, or equal after rounding to its shown decimals."""
    scales = [1.0] + ([1.0 / _UNIT_SCALE[unit]] if unit in _UNIT_SCALE else [])
    return any(_close(candidate * s, gold, tolerance) for s in scales)


def _close(c: float, gold: float, tolerance: float | None) -> bool:
    if abs(c - gold) <= max(tolerance or 0.0, 1e-9 * max(1.0, abs(gold))):
        return True
    decimals = _decimals(c)
    return decimals is not None and round(gold, decimals) == round(c, decimals) and decimals < _decimals(gold, 6)


def _decimals(x: float, cap: int = 4) -> int | None:
    text = f"{x:.{cap}f}".rstrip("0")
    return len(text.split(".")[1]) if "." in text else 0


def quantity_matches(q: Quantity, gold: float, tolerance: float | None = None, unit: str | None = None) -> bool:
    """Does the number `q` state `gold` (in `unit`)? In the fact's unit when both units convert
    and are of one kind, else as written (see the module docstring)."""
    target = fact_unit(unit)
    if q.dimension is not None and target is not None and q.dimension == target[0]:
        return _close(q.value / target[1], gold, tolerance)
    return any(number_matches(c, gold, tolerance, unit) for c in q.values)


def number_stated(text: str, gold: float, tolerance: float | None = None, unit: str | None = None) -> bool:
    return any(quantity_matches(q, gold, tolerance, unit) for q in quantities_in(text))

"""Answer normalisation: is a gold fact stated in a free-text Korean answer, or present in records?

Numbers: commas, 만/억/조 units ("3억 2,000만원"), units (원, %, ㎍/㎥, 건 ...), decimals that
round to the gold value, a fact tolerance, small Korean counts (세 건). Dates: 2026-11-30,
2026.11.30, 20261130, 2026년 11월 30일, 11월 30일. Names: spaces, 역 suffix, parentheses and
특별시/광역시/도 long forms. Bools: 예/네/맞아요 vs 아니오/아닙니다/없습니다, near a context word.
"""

from __future__ import annotations

import math
import re
import unicodedata
from bisect import bisect_left
from functools import cached_property, lru_cache
from typing import Any, Iterable
from kopa_bench.transforms.regions import SIDO

_BIG = {"조": 10**12, "억": 10**8, "천만": 10**7, "백만": 10**6, "십만": 10**5, "만": 10**4, "천": 10**3}
_NUM_RE = re.compile(r"(?<![\d.])([-+]?\d[\d,]*(?:\.\d+)?)\s*(조|억|천만|백만|십만|만|천)?")
_UNIT_SCALE = {"만원": 10**4, "천원": 10**3, "억원": 10**8, "백만원": 10**6}
_SMALL = {"한": 1, "하나": 1, "두": 2, "둘": 2, "세": 3, "셋": 3, "석": 3, "네": 4, "넷": 4, "다섯": 5,
          "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9, "열": 10}
_COUNTERS = "건개명곳표회번대석채"
_SMALL_RE = re.compile(r"(하나|다섯|여섯|일곱|여덟|아홉|한|두|둘|세|셋|석|네|넷|열)\s*([" + _COUNTERS + "])")

# long administrative names -> the short form people (and AirKorea's sidoName) use
# (from the one 시도 table in kopa_bench.transforms; of the other names only the former 도
# names, since "서울시" -> "서울" would also rewrite "서울시청")
SIDO_ALIASES = {full: short for _, full, short, _ in SIDO} | {
    o: short for _, _, short, others in SIDO for o in others if o.endswith("도")}
_ALIAS_RE = re.compile("|".join(sorted(SIDO_ALIASES, key=len, reverse=True)))

YES_WORDS = ("예", "네", "맞아", "맞습니다", "맞아요", "그렇습니다", "그래요", "입니다", "이에요", "예요", "이야",
             "있습니다", "있어요", "yes", "true")
NO_WORDS = ("아니오", "아니요", "아닙니다", "아니에요", "아니야", "아녜요", "아니고", "아닌", "없습니다", "없어요", "없음",
            "않습니다", "않아요", "않음", "안 ", "no", "false")


# ---- numbers --------------------------------------------------------------------------------
def _float(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def numbers_in(text: str) -> list[float]:
    """Every number a reader would see in `text`: plain, with units, compounds like 3억 2천만."""
    text = unicodedata.normalize("NFKC", text)
    out: list[float] = []
    run: list[tuple[float, int]] = []  # consecutive (value, unit) parts of one compound number
    last_end = -1

    def flush() -> None:
        if len(run) > 1:
            out.append(sum(v * u for v, u in run))

    for m in _NUM_RE.finditer(text):
        v = _float(m.group(1))
        if v is None:
            continue
        unit = _BIG.get(m.group(2) or "", 1)
        out.append(v)
        if unit > 1:
            out.append(v * unit)
        gap = text[last_end:m.start()] if last_end >= 0 else "x"
        if run and gap.strip() == "" and unit < run[-1][1]:
            run.append((v, unit))  # "3억 2,000만" continues: smaller unit right after
        else:
            flush()
            run = [(v, unit)] if unit > 1 else []
        last_end = m.end()
        if unit == 1:
            flush()
            run = []
    flush()
    for m in _SMALL_RE.finditer(text):
        out.append(float(_SMALL[m.group(1)]))
    return out


def number_matches(candidate: float, gold: float, tolerance: float | None = None, unit: str | None = None) -> bool:
    """`candidate` states `gold` if within tolerance, or equal after rounding to its shown decimals."""
    scales = [1.0] + ([1.0 / _UNIT_SCALE[unit]] if unit in _UNIT_SCALE else [])
    for s in scales:
        c = candidate * s
        if abs(c - gold) <= max(tolerance or 0.0, 1e-9 * max(1.0, abs(gold))):
            return True
        decimals = _decimals(c)
        if decimals is not None and round(gold, decimals) == round(c, decimals) and decimals < _decimals(gold, 6):
            return True
    return False


def _decimals(x: float, cap: int = 4) -> int | None:
    text = f"{x:.{cap}f}".rstrip("0")
    return len(text.split(".")[1]) if "." in text else 0


# ---- dates ----------------------------------------------------------------------------------
_DATE_PATTERNS = [
    re.compile(r"(?<!\d)(\d{4})\s*[-./]\s*(\d{1,2})\s*[-./]\s*(\d{1,2})(?!\d)"),
    re.compile(r"(?<!\d)(\d{4})(\d{2})(\d{2})(?!\d)"),
    re.compile(r"(\d{4})\s*년\s*(\d{1,2})\s*월\s*(\d{1,2})\s*일"),
]
_MONTH_DAY = re.compile(r"(?<!\d)(\d{1,2})\s*월\s*(\d{1,2})\s*일")
_MONTH_PATTERNS = [re.compile(r"(\d{4})\s*년\s*(\d{1,2})\s*월"), re.compile(r"(?<!\d)(\d{4})\s*[-./]\s*(\d{1,2})(?![\d.\-/])"), re.compile(r"(?<!\d)(\d{4})(\d{2})(?!\d)")]


def parse_date(value: Any) -> tuple[int, int, int | None] | None:
    """Gold date value -> (year, month, day or None for a month)."""
    return _parse_date_text(str(value))


@lru_cache(maxsize=65536)
def _parse_date_text(value: str) -> tuple[int, int, int | None] | None:
    # grounding a date fact parses every received text that may hold one: memoised like names
    s = value.strip()
    for pat in _DATE_PATTERNS:
        m = pat.search(s)
        if m:
            return int(m.group(1)), int(m.group(2)), int(m.group(3))
    for pat in _MONTH_PATTERNS:
        m = pat.search(s)
        if m:
            return int(m.group(1)), int(m.group(2)), None
    return None


def dates_in(text: str) -> set[tuple[int | None, int, int | None]]:
    text = unicodedata.normalize("NFKC", text)
    found: set[tuple[int | None, int, int | None]] = set()
    for pat in _DATE_PATTERNS:
        found |= {(int(a), int(b), int(c)) for a, b, c in pat.findall(text)}
    found |= {(None, int(a), int(b)) for a, b in _MONTH_DAY.findall(text)}
    for pat in _MONTH_PATTERNS:
        found |= {(int(a), int(b), None) for a, b in pat.findall(text)}
    return found


def date_matches(gold: Any, text: str) -> bool:
    g = parse_date(gold)
    if g is None:
        return False
    y, m, d = g
    found = dates_in(text)
    # "11월 30일" without a year states the date when the year is the gold's (the answer's context)
    return (y, m, d) in found or (d is not None and (None, m, d) in found)


# ---- names, codes, bools --------------------------------------------------------------------
def normalize_name(value: Any) -> str:
    """'서울특별시 시청역 (1호선)' -> '서울시청': NFKC, no parentheses, short sido, no spaces, no 역 suffix."""
    return _normalize_name(str(value))


@lru_cache(maxsize=65536)
def _normalize_name(value: str) -> str:
    # Grounding compares every fact with every received field value: the same few thousand
    # strings are normalised over and over, so the pure result is memoised.
    s = unicodedata.normalize("NFKC", value).strip()
    if "(" in s:
        s = _PARENS_RE.sub("", s)
    if not s.isascii():  # every alias is Hangul
        s = _ALIAS_RE.sub(_alias, s)
    s = "".join(s.split()).lower()  # str.split() and re's \s agree on what whitespace is
    return s[:-1] if s.endswith("역") and len(s) > 2 else s


_PARENS_RE = re.compile(r"\([^)]*\)")


def _alias(m: re.Match) -> str:
    return SIDO_ALIASES[m.group(0)]


def normalize_text(text: str) -> str:
    s = unicodedata.normalize("NFKC", text)
    s = _ALIAS_RE.sub(lambda m: SIDO_ALIASES[m.group(0)], s)
    return re.sub(r"\s+", "", s).lower()


def normalize_code(value: Any) -> str:
    return _normalize_code(str(value))


_CODE_SEP_RE = re.compile(r"[\s\-_]")


@lru_cache(maxsize=65536)
def _normalize_code(value: str) -> str:
    return _CODE_SEP_RE.sub("", unicodedata.normalize("NFKC", value)).upper()


def bool_stated(gold: bool, text: str, context: str | None = None) -> bool:
    """Whether `text` says yes (gold True) or no (gold False), within clauses mentioning `context`."""
    clauses = [c for c in re.split(r"[.!?\n。]|(?<=[요다])\s", text) if c.strip()]
    if context:
        clauses = [c for c in clauses if context in c] or []
    scope = " ".join(clauses).lower() + " "
    neg = any(w in scope for w in NO_WORDS)
    pos = any(w in scope for w in YES_WORDS)
    return neg if gold is False else (pos and not neg)


def parse_bool(value: Any) -> bool | None:
    s = str(value).strip().lower()
    if s in ("true", "y", "yes", "1", "예", "네"):
        return True
    if s in ("false", "n", "no", "0", "아니오", "아니요"):
        return False
    return None


# ---- entry points ---------------------------------------------------------------------------
def _get(fact: Any, name: str, default: Any = None) -> Any:
    return fact.get(name, default) if isinstance(fact, dict) else getattr(fact, name, default)


def fact_in_text(fact: Any, text: str) -> bool:
    """Is `fact` (a ResolvedFact or dict with kind/value/...) stated in `text`?"""
    kind, value = _get(fact, "kind", "text"), _get(fact, "value")
    if not text:
        return False
    if kind == "number":
        gold = float(value)
        return any(number_matches(c, gold, _get(fact, "tolerance"), _get(fact, "unit")) for c in numbers_in(text))
    if kind == "date":
        return date_matches(value, text)
    if kind == "bool":
        gold = value if isinstance(value, bool) else parse_bool(value)
        return gold is not None and bool_stated(gold, text, _get(fact, "context"))
    if kind == "code":
        code = normalize_code(value)
        if not code:
            return False
        # Separators may appear *inside* a stated code (1208-14-7521) but must not glue it to
        # the next token ("006400\n- LG"), so search the text itself with optional separators.
        pattern = r"[\s\-_]?".join(re.escape(ch) for ch in code)
        hay = unicodedata.normalize("NFKC", str(text)).upper()
        return re.search(rf"(?<![0-9A-Z]){pattern}(?![0-9A-Z])", hay) is not None
    forms = [value, *(_get(fact, "aliases") or [])]
    hay = normalize_text(text)
    return any((n := normalize_name(f)) and n in hay for f in forms)


def _values(records: Iterable[dict[str, Any]]) -> Iterable[Any]:
    for rec in records:
        for v in rec.values():
            if isinstance(v, dict):
                yield from _values([v])
            elif isinstance(v, list):
                yield from _values([x for x in v if isinstance(x, dict)])
                yield from (x for x in v if not isinstance(x, dict))
            else:
                yield v


def _fact_kind(value: Any) -> tuple[str, Any]:
    """(kind, gold value) of a fact, a fact dict or a bare value (the rules value_in_records uses)."""
    kind = _get(value, "kind", None) if not isinstance(value, (str, int, float, bool)) else None
    gold = _get(value, "value") if kind else value
    return kind or ("number" if isinstance(gold, (int, float)) and not isinstance(gold, bool) else "text"), gold


_SCALARS = frozenset({str, int, float, bool, type(None)})
_NUMBER_START = frozenset("0123456789+-.iInN")


def _flat_values(records: Iterable[dict[str, Any]]) -> list[Any]:
    """The non-None values `_values` yields, with flat records taken whole (C-level)."""
    out: list[Any] = []
    for rec in records:
        vals = rec.values()
        if set(map(type, vals)) <= _SCALARS:
            out.extend(vals)
        else:
            out.extend(_values([rec]))
    return [v for v in out if v is not None]


@lru_cache(maxsize=1 << 17)
def _text_number(value: str) -> float | None:
    """`_float(value.replace(" ", ""))`, memoised, without raising on the many values that are text;
    None for NaN too (no NaN is within any tolerance of a gold number)."""
    text = value.replace(" ", "").replace(",", "").lstrip()
    # float() needs a digit, sign, point, inf or nan first (after whitespace); most values are names
    if not text or not (text[0] in _NUMBER_START or text[0].isdecimal()):
        return None
    try:
        n = float(text)
    except ValueError:
        return None
    return n if n == n else None


class RecordValues:
    """Every field value of some records, walked once and indexed lazily per kind, so that
    many facts can be looked up without normalising every value again for every fact.

    `contains(fact)` answers exactly what `value_in_records(fact, records)` answers: a number
    within tolerance, the same date, code or bool, or a name equal to / containing the gold."""

    def __init__(self, records: Iterable[dict[str, Any]]):
        self._records = records
        self._numbers: list[float] | None = None
        self._codes: set[str] | None = None
        self._bools: set[bool] | None = None
        self._names: set[str] | None = None
        self._names_blob = ""

    @cached_property
    def _texts(self) -> list[str]:
        """Every distinct non-None value as text, walked on the first lookup (a scorer may look
        none up). str(v) is what every normaliser starts from; the memoised normalisers then run
        at C speed, once per distinct text (records repeat a bill, a date, a district many times;
        every lookup's answer is independent of order and repeats)."""
        return list(set(map(str, _flat_values(self._records))))

    def _has_number(self, gold: float, tol: float) -> bool:
        if self._numbers is None:
            # sorted for bisection (_text_number gives no NaN, which would break the order)
            self._numbers = sorted([n for n in map(_text_number, self._texts) if n is not None])
        if not (math.isfinite(gold) and math.isfinite(tol)):
            return any(abs(n - gold) <= tol for n in self._numbers)
        # |n - gold| only grows away from gold on either side, so the nearest value below and the
        # nearest at or above it decide (exactly, with the same float arithmetic as the scan)
        i = bisect_left(self._numbers, gold)
        return any(abs(self._numbers[j] - gold) <= tol for j in (i - 1, i) if 0 <= j < len(self._numbers))

    def _has_date(self, gold: tuple[int, int, int | None]) -> bool:
        # every date pattern starts with the 4-digit year, so an ASCII value without the
        # year's digits cannot parse to the gold date
        year = str(gold[0])
        return any(parse_date(t) == gold for t in self._texts if year in t or not t.isascii())

    def contains(self, value: Any) -> bool:
        kind, gold = _fact_kind(value)
        if not self._texts:
            return False
        if kind == "number":
            tol = max(_get(value, "tolerance") or 0.0, 1e-9 * max(1.0, abs(float(gold))))
            return self._has_number(float(gold), tol)
        if kind == "date":
            g = parse_date(gold)
            return g is not None and self._has_date(g)
        if kind == "code":
            if self._codes is None:
                self._codes = set(map(_normalize_code, self._texts))
            return normalize_code(gold) in self._codes
        if kind == "bool":
            if self._bools is None:
                self._bools = {b for b in map(parse_bool, self._texts) if b is not None}
            g = gold if isinstance(gold, bool) else parse_bool(gold)
            return g is not None and g in self._bools
        if self._names is None:
            self._names = set(map(_normalize_name, self._texts))
            # normalised names hold no whitespace, so a newline cannot join two of them into a match
            self._names_blob = "\n".join(self._names)
        g = normalize_name(gold)
        if not g:
            return g in self._names
        return g in self._names_blob


def value_in_records(value: Any, records: Iterable[dict[str, Any]]) -> bool:
    """Does a fact (or a bare value) appear as some field value of `records`?
    (To look up many facts in the same records, build one RecordValues.)"""
    return RecordValues(records).contains(value)

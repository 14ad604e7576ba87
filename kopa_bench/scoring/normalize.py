"""Answer normalisation: is a gold fact stated in a free-text Korean answer, or present in records?

One normaliser (`canon`: NFKC, one middle dot and dash, short 시도 names, no whitespace, lower
case) is applied to the fact's text and to the answer alike; a text fact is stated when one of
its forms occurs in the answer: the value itself (a NEIS dish with its allergen numbers
"돼지불고기(10.13)"), without parentheses (돼지불고기), without a trailing 역, or without a
number prefix ("3943. 염곡동 주민센터 앞" -> 염곡동 주민센터 앞, unless the answer gives another
number). Numbers: see quantities.py (만/억/조, commas, units). Dates: 2026-11-30, 2026.11.30,
20261130, 2026년 11월 30일, 11월 30일. Bools: see yesno.py. Codes: the code itself, or a label
the catalog gives it (AirKorea grade 2 -> 보통). Lists: each item by its kind; all, any or k of
n items, in any order unless the fact is ordered.
"""

from __future__ import annotations

import math
import re
import unicodedata
from bisect import bisect_left
from functools import cached_property, lru_cache
from typing import Any, Iterable

from kopa_bench.scoring.quantities import number_matches, number_stated, numbers_in  # noqa: F401 (public here)
from kopa_bench.scoring.yesno import NO_WORDS, YES_WORDS, bool_stated, clauses, parse_bool, says_no  # noqa: F401
from kopa_bench.transforms.regions import SIDO

# long administrative names -> the short form people (and AirKorea's sidoName) use
# (from the one 시도 table in kopa_bench.transforms; of the other names only the former 도
# names, since "서울시" -> "서울" would also rewrite "서울시청")
SIDO_ALIASES = {full: short for _, full, short, _ in SIDO} | {
    o: short for _, _, short, others in SIDO for o in others if o.endswith("도")}
_ALIAS_RE = re.compile("|".join(sorted(SIDO_ALIASES, key=len, reverse=True)))


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


# ---- names and codes -------------------------------------------------------------------------
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


# the middle dots and dashes a writer picks among (기술ㆍ가정 / 기술·가정), one of each
# (NFKC turns ㆍ into the jamo U+119E)
_PUNCT = str.maketrans({"ㆍ": "·", "\u119e": "·", "‧": "·", "・": "·", "•": "·", "∙": "·",
                        "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "―": "-", "−": "-", "～": "~"})


@lru_cache(maxsize=65536)
def canon(text: str) -> str:
    """The one normaliser of answer and fact text: NFKC, one middle dot and dash, short 시도
    names, no whitespace, lower case."""
    s = unicodedata.normalize("NFKC", text).translate(_PUNCT)
    if not s.isascii():  # every alias is Hangul
        s = _ALIAS_RE.sub(_alias, s)
    return "".join(s.split()).lower()


def normalize_text(text: str) -> str:
    return canon(text)


_PREFIX_RE = re.compile(r"^\s*(\d+)\s*[.)]\s*(?=\S)")


@lru_cache(maxsize=65536)
def text_forms(value: str) -> tuple[tuple[str, str | None], ...]:
    """(form, number prefix it dropped or None) of a gold text, each through `canon`: the text,
    without parentheses and a trailing 역, and without a number prefix ("3943. ")."""
    forms: dict[str, str | None] = {}

    def add(text: str, prefix: str | None) -> None:
        full = canon(text)
        bare = canon(_PARENS_RE.sub("", unicodedata.normalize("NFKC", text)))
        if bare.endswith("역") and len(bare) > 2:
            bare = bare[:-1]
        for f in (full, bare):
            if f and f not in forms:
                forms[f] = prefix

    add(value, None)
    m = _PREFIX_RE.match(unicodedata.normalize("NFKC", value))
    if m:
        add(unicodedata.normalize("NFKC", value)[m.end():], m.group(1))
    return tuple(forms.items())


_NUMBER_BEFORE = re.compile(r"(\d+)[.)]?$")


def _text_positions(value: Any, hay: str, start: int = 0) -> Iterable[int]:
    """Where a form of `value` occurs in `hay` (canonical answer text), from `start`. A number at
    either end of a form is a whole number there ("7. 망원역" is not in "17. 망원역", "39" not in
    "139"), and a form that dropped a number prefix does not count right after another number
    ("3944. 염곡동 ...")."""
    for form, prefix in text_forms(str(value)):
        digit_start, digit_end = form[0].isdigit(), form[-1].isdigit()
        i = hay.find(form, start)
        while i >= 0:
            j = i + len(form)
            whole = not (digit_start and _digit_before(hay, i)) and not (digit_end and _digit_after(hay, j))
            before = _NUMBER_BEFORE.search(hay, max(0, i - 12), i) if prefix and whole else None
            if whole and (before is None or before.group(1) == prefix):
                yield i
            i = hay.find(form, i + 1)


def _digit_before(hay: str, i: int) -> bool:
    """A digit, or a decimal point after one, right before position i (39 is not in 1.39)."""
    return i > 0 and (hay[i - 1].isdigit() or (hay[i - 1] == "." and i > 1 and hay[i - 2].isdigit()))


def _digit_after(hay: str, j: int) -> bool:
    """A digit, or a decimal point before one, at position j (39 is not in 39.5; commas are
    left alone: with spaces gone, "39, 40" reads 39,40)."""
    return j < len(hay) and (hay[j].isdigit() or (hay[j] == "." and j + 1 < len(hay) and hay[j + 1].isdigit()))


def _text_at(value: Any, aliases: Iterable[str], hay: str, start: int = 0) -> int | None:
    """The first position from `start` where `value` (or an alias) is stated in `hay`, or None."""
    hits = [next(iter(_text_positions(f, hay, start)), None) for f in (value, *aliases)]
    hits = [h for h in hits if h is not None]
    return min(hits) if hits else None


def normalize_code(value: Any) -> str:
    return _normalize_code(str(value))


_CODE_SEP_RE = re.compile(r"[\s\-_]")


@lru_cache(maxsize=65536)
def _normalize_code(value: str) -> str:
    return _CODE_SEP_RE.sub("", unicodedata.normalize("NFKC", value)).upper()


@lru_cache(maxsize=8192)
def _code_re(code: str) -> re.Pattern:
    # Separators may appear *inside* a stated code (1208-14-7521) but must not glue it to
    # the next token ("006400\n- LG"), so the text itself is searched with optional separators.
    pattern = r"[\s\-_]?".join(re.escape(ch) for ch in code)
    return re.compile(rf"(?<![0-9A-Z]){pattern}(?![0-9A-Z])")


@lru_cache(maxsize=4096)
def _upper(text: str) -> str:
    return unicodedata.normalize("NFKC", text).upper()


def _code_at(value: Any, text: str, start: int = 0) -> int | None:
    code = normalize_code(value)
    if not code:
        return None
    m = _code_re(code).search(_upper(text), start)
    return m.start() if m else None


# ---- code labels ------------------------------------------------------------------------------
_HANGUL = "가-힣"
# what may follow a label that ends a word: a particle or copula (보통이에요, 비가, 눈으로), not more
# of a word (비용, 눈앞)
_PARTICLES = ("이에요|예요|입니다|이었|였|이고|이며|이나|이라|이야|으로|이다|이|가|은|는|을|를|와|과|도|만|로|에|의"
              "|고|며|나|라|다|야|요|인|임")


@lru_cache(maxsize=256)
def _label_spans_re(labels: tuple[str, ...]) -> re.Pattern:
    """One pattern finding any of `labels` as a word (spaces inside a label optional), longest first."""
    alts = []
    for label in sorted(labels, key=lambda x: len(canon(x)), reverse=True):
        chars = [re.escape(ch) for ch in canon(label)]
        alts.append(r"\s*".join(chars))
    return re.compile(rf"(?<![{_HANGUL}A-Za-z0-9])(?:{'|'.join(alts)})(?![A-Za-z0-9])(?=$|[^{_HANGUL}]|(?:{_PARTICLES}))",
                      re.IGNORECASE)


def label_stated(code: Any, table: dict[str, list[str]], text: str) -> bool:
    """Does `text` name `code` by one of its labels in `table` (code -> labels)? A label counts as
    a word of its own (비 in 비가, not in 준비 or 비용; 매우 나쁨 is not 나쁨) in a clause that does
    not negate it (비는 오지 않습니다 names no rain)."""
    labels = table.get(str(code).strip())
    if not labels:
        return False
    by_label = {canon(lb): c for c, lbs in table.items() for lb in lbs}
    pattern = _label_spans_re(tuple(sorted(by_label)))
    mine = {canon(lb) for lb in labels}
    for clause in clauses(unicodedata.normalize("NFKC", text).translate(_PUNCT)):
        for m in pattern.finditer(clause):
            if canon(m.group(0)) in mine and not says_no(clause[:m.start()] + " " + clause[m.end():]):
                return True
    return False


# ---- entry points ---------------------------------------------------------------------------
def _get(fact: Any, name: str, default: Any = None) -> Any:
    return fact.get(name, default) if isinstance(fact, dict) else getattr(fact, name, default)


def _needed(fact: Any, n: int) -> int:
    need = _get(fact, "need", "all")
    return n if need == "all" else 1 if need == "any" else min(int(need), n)


def _one_stated(kind: str, value: Any, fact: Any, text: str) -> bool:
    if kind == "number":
        return number_stated(text, float(value), _get(fact, "tolerance"), _get(fact, "unit"))
    if kind == "date":
        return date_matches(value, text)
    if kind == "bool":
        gold = value if isinstance(value, bool) else parse_bool(value)
        return gold is not None and bool_stated(gold, text, _get(fact, "context"))
    codes = _get(fact, "codes") or {}
    if kind == "code":
        return _code_at(value, text) is not None or (bool(codes) and label_stated(value, codes, text))
    if codes and label_stated(value, codes, text):
        return True
    return _text_at(value, _get(fact, "aliases") or (), canon(text)) is not None


def items_stated(fact: Any, text: str) -> list[Any]:
    """The items of a list fact that `text` states (for an ordered fact: those stated in order,
    each after the one before)."""
    items, kind = list(_get(fact, "value") or []), _get(fact, "item_kind", "text")
    if not text:
        return []
    if not _get(fact, "ordered", False):
        # each item on its own: the list's aliases name the list, not any one item
        each = {"tolerance": _get(fact, "tolerance"), "unit": _get(fact, "unit"), "codes": _get(fact, "codes")}
        return [item for item in items if _one_stated(kind, item, each, text)]
    hay = canon(text) if kind == "text" else text
    out, pos = [], 0
    for item in items:
        at = _text_at(item, (), hay, pos) if kind == "text" else _code_at(item, hay, pos)
        if at is not None:
            out.append(item)
            pos = at + 1
    return out


def fact_in_text(fact: Any, text: str) -> bool:
    """Is `fact` (a ResolvedFact or dict with kind/value/...) stated in `text`?"""
    kind, value = _get(fact, "kind", "text"), _get(fact, "value")
    if not text:
        return False
    if kind == "list" or (kind == "text" and isinstance(value, list)):
        items = list(value or [])
        return bool(items) and len(items_stated(fact, text)) >= _needed(fact, len(items))
    return _one_stated(kind, value, fact, text)


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
        if kind == "list":  # every item, each by the list's item kind
            item_kind = _get(value, "item_kind", "text")
            return all(self.contains({"kind": item_kind, "value": v, "tolerance": _get(value, "tolerance")}) for v in gold)
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

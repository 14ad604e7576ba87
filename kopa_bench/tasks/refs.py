"""Reference syntax of gold programs and its resolution against step outputs.

Forms an argument (or fact, or condition) may take:
  "$s2.items[0].stationName"      one value           "$s2.items[*].pm25Value"  a list
  "$s2.total_count" / "$s2.count"  counts              "$s1.picked.tmX"         the picked record
  "{$s1.picked.sggName} 아파트"     template (string with embedded references)
  {"$ref": "$s1.items[0].region_cd", "transform": "lawd_cd", "args": {...}}
  {"$clock": "this_month", "transform": "shift_month", "args": {"months": -1}}
  {"$value": [37.5663, 126.9779], "transform": "kma_nx"}   a literal through a transform
  "$s1.picks.t1h.obsrValue"       one of the step's named picks (several records read from one call)
  "$s2.runs[1].total_count"        one expansion of a for_each / paged step (facts, picks, conditions)
  "$each.BILL_ID"                  the current element, inside the args of a for_each step
Roots after the step id: items, picked, picks, runs, total_count, count, args, ok, result_code, ran.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Callable, Iterator

_REF_RE = re.compile(r"^\$([A-Za-z][A-Za-z0-9_]*)((?:\.[^.\[\]{}\s]+|\[(?:\d+|-\d+|\*)\])*)$")
_SEG_RE = re.compile(r"\.([^.\[\]{}\s]+)|\[(\d+|-\d+|\*)\]")
_TEMPLATE_RE = re.compile(r"\{(\$[^{}\s]+)\}")
ROOTS = {"items", "picked", "picks", "runs", "total_count", "count", "args", "ok", "result_code", "ran"}
WILD = "*"
EACH = "each"  # the pseudo-step naming the current element of a for_each


class RefError(ValueError):
    """A reference is malformed or cannot be resolved; the message names it."""


class SkippedStepError(RefError):
    """The reference points at a step that did not run (its condition was false)."""


@dataclass(frozen=True)
class Ref:
    """A parsed `$step.path` reference."""

    step: str
    path: tuple[str | int, ...]
    raw: str


@dataclass
class Source:
    """Where a resolved value came from: a record (index) or a step-level field."""

    step: str
    index: int | None = None
    field: str | None = None


@dataclass
class Use:
    """One reference used while resolving an expression (the raw material of data-flow edges)."""

    ref: Ref
    value: Any
    transform: str | None = None
    transform_args: dict[str, Any] = field(default_factory=dict)
    template: bool = False


def parse_ref(text: str) -> Ref:
    """Parse `$s2.items[0].stationName` into a Ref, or raise RefError saying what is wrong."""
    m = _REF_RE.match(text.strip())
    if not m:
        raise RefError(f"malformed reference {text!r}; expected e.g. '$s2.items[0].stationName' or '$s1.picked.tmX'")
    path: list[str | int] = []
    for name, idx in _SEG_RE.findall(m.group(2)):
        path.append(name if name else (WILD if idx == WILD else int(idx)))
    if path and path[0] not in ROOTS and m.group(1) != EACH:
        raise RefError(f"reference {text!r} starts with {path[0]!r}; valid roots after the step id are {sorted(ROOTS)}")
    return Ref(m.group(1), tuple(path), text.strip())


def render_path(path: tuple[str | int, ...]) -> str:
    """The text of a reference path: ('items', 3, 'x') -> '.items[3].x'."""
    return "".join(f"[{seg}]" if isinstance(seg, int) or seg == WILD else f".{seg}" for seg in path)


def is_ref(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("$") and not value.startswith("$$")


def iter_refs(expr: Any) -> Iterator[Ref]:
    """Every reference inside an expression (strings, templates, transform dicts, compute specs)."""
    if isinstance(expr, str):
        if is_ref(expr):
            yield parse_ref(expr)
        else:
            for inner in _TEMPLATE_RE.findall(expr):
                yield parse_ref(inner)
    elif isinstance(expr, dict):
        if "$ref" in expr:
            yield parse_ref(expr["$ref"])
        for key, val in expr.items():
            if key not in ("$ref", "$clock", "transform"):
                yield from iter_refs(val)
    elif isinstance(expr, (list, tuple)):
        for val in expr:
            yield from iter_refs(val)


def to_number(value: Any) -> float | None:
    """API strings to numbers: ' 85,000' -> 85000.0; '-', '', None -> None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        return None
    s = value.replace(",", "").replace(" ", "").strip()
    try:
        return float(s)
    except ValueError:
        return None


# ---- transforms -----------------------------------------------------------------------------
def apply_transform(name: str, value: Any, **args: Any) -> Any:
    """Apply a transform of kopa_bench.transforms (imported on first use, so reading task files stays light)."""
    from kopa_bench.transforms import apply_transform as library_apply

    return library_apply(name, value, **args)


# ---- clock ----------------------------------------------------------------------------------
_KMA_VILAGE_HOURS = (2, 5, 8, 11, 14, 17, 20, 23)  # village forecast issue hours, out at HH:10


def clock_now(clock: Any) -> datetime:
    """A WorldClock (anything with .now()), a datetime, or an ISO string -> datetime."""
    if clock is None:
        raise RefError("a {'$clock': ...} value needs a clock; pass clock=WorldClock(...) to execute_program")
    if isinstance(clock, datetime):
        return clock
    if isinstance(clock, str):
        return datetime.fromisoformat(clock)
    return clock.now()


def _kma_base(now: datetime) -> datetime:
    for hour in reversed(_KMA_VILAGE_HOURS):
        issued = now.replace(hour=hour, minute=10, second=0, microsecond=0)
        if now >= issued:
            return issued.replace(minute=0)
    prev = now - timedelta(days=1)
    return prev.replace(hour=23, minute=0, second=0, microsecond=0)


def _month_shift(d: date, months: int) -> str:
    y, m = divmod(d.year * 12 + d.month - 1 + months, 12)
    return f"{y:04d}{m + 1:02d}"


CLOCK_VALUES: dict[str, Callable[[datetime], Any]] = {
    "now": lambda n: n.isoformat(),
    "today": lambda n: n.strftime("%Y-%m-%d"),
    "yyyymmdd": lambda n: n.strftime("%Y%m%d"),
    "yesterday_yyyymmdd": lambda n: (n - timedelta(days=1)).strftime("%Y%m%d"),
    "tomorrow": lambda n: (n + timedelta(days=1)).strftime("%Y-%m-%d"),
    "tomorrow_yyyymmdd": lambda n: (n + timedelta(days=1)).strftime("%Y%m%d"),
    "this_month": lambda n: n.strftime("%Y%m"),
    "last_month": lambda n: _month_shift(n.date(), -1),
    "next_month": lambda n: _month_shift(n.date(), 1),
    "this_year": lambda n: n.strftime("%Y"),
    "month": lambda n: n.strftime("%m"),
    "hhmm": lambda n: n.strftime("%H%M"),
    "now_kma_base_date": lambda n: _kma_base(n).strftime("%Y%m%d"),
    "now_kma_base_time": lambda n: _kma_base(n).strftime("%H%M"),
}


def clock_value(name: str, clock: Any) -> Any:
    if name not in CLOCK_VALUES:
        raise RefError(f"unknown clock value {name!r}; valid names are {sorted(CLOCK_VALUES)}")
    return CLOCK_VALUES[name](clock_now(clock))

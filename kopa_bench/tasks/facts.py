"""Evaluate a task's answer spec (Facts) on a GoldRun.

A list fact's value becomes its items (a list reference, or one string cut at `split`); a text
fact whose value is a list becomes a list fact needing every item. A code or text fact read
directly from a catalog field with `codes` carries that field's code -> labels table, so an
answer may name the code by its label (AirKorea grade 2 -> 보통).

A fact value is a reference ("$s1.picked.stationName"), a transform dict, a literal, or a
compute spec: {"compute": op, ...} with op in
  count (of, where?) | sum | mean | max | min (of, skip_values?) | diff | ratio (a, b, abs?)
  argmax | argmin (of: records, by, return) | coalesce (of: [exprs]) | test (of, op, value)
  ran (step)
and an optional "round": digits. Every fact also carries its *sources* (records or counts of
the gold run it was computed from), which the scorer uses for grounding and STATE.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from kopa_bench.tasks.task_schema import Fact, ItemKind, Task
from kopa_bench.tasks.picks import _matches, compare
from kopa_bench.tasks.program import GoldRun
from kopa_bench.tasks.refs import RefError, Source, is_ref, parse_ref, to_number
from kopa_bench.tasks.resolve import Resolver

COMPUTE_OPS = ("count", "sum", "mean", "max", "min", "diff", "ratio", "argmax", "argmin", "coalesce", "test", "ran")


class FactError(RuntimeError):
    """A fact cannot be computed from the gold outputs; the message names task, fact and path."""


class FactSource(BaseModel):
    step: str
    index: int | None = Field(default=None, description="record index in the step's result, None for a count")
    field: str | None = Field(default=None, description="'total_count' or 'count' for step-level values")


class ResolvedFact(BaseModel):
    """A fact with its gold value and provenance."""

    id: str
    description: str
    kind: Literal["number", "text", "date", "code", "bool", "list"]
    value: Any = Field(description="the gold value; for a list fact, the list of items")
    tolerance: float | None = None
    unit: str | None = None
    aliases: list[str] = Field(default_factory=list)
    context: str | None = None
    direct: bool = Field(default=False, description="value copied from one record field (grounding checks the value itself)")
    sources: list[FactSource] = Field(default_factory=list)
    item_kind: ItemKind = Field(default="text", description="list facts: how each item is matched")
    need: Literal["all", "any"] | int = Field(default="all", description="list facts: items the answer must state")
    ordered: bool = Field(default=False, description="list facts: items stated in this order")
    codes: dict[str, list[str]] = Field(default_factory=dict, description=(
        "code -> labels of the catalog field the value was read from (a reader may say 보통 for grade 2)"))

    @property
    def needed(self) -> int:
        """How many items of a list fact the answer must state (1 for any other fact)."""
        if self.kind != "list":
            return 1
        n = len(self.value)
        return n if self.need == "all" else 1 if self.need == "any" else min(int(self.need), n)


def _num(v: Any, what: str) -> float:
    n = to_number(v)
    if n is None:
        raise RefError(f"{what}: {v!r} is not a number")
    return n


def _numbers(values: Any, skip: set[str], what: str) -> list[float]:
    if not isinstance(values, list):
        raise RefError(f"{what}: expected a list (use items[*].field), got {values!r}")
    return [_num(v, what) for v in values if str(v).strip() not in skip]


def _tidy(x: Any) -> Any:
    return int(x) if isinstance(x, float) and x.is_integer() else x


def _compute(spec: dict, r: Resolver, sources: list[Source]) -> Any:
    op = spec.get("compute")
    if op not in COMPUTE_OPS:
        raise RefError(f"unknown compute {op!r}; valid ops are {list(COMPUTE_OPS)}")
    ev = lambda e: _eval(e, r, sources)  # noqa: E731
    skip = {str(s).strip() for s in spec.get("skip_values", ["-", "", "null", "None"])}
    if op == "ran":
        run = r.steps.get(spec["step"])
        return run is not None and not run.skipped
    if op == "coalesce":
        for expr in spec["of"]:
            try:
                return ev(expr)
            except RefError:
                continue  # a skipped branch or empty result: try the next expression
        raise RefError(f"coalesce: none of {spec['of']} has a value")
    if op == "test":
        return compare(ev(spec["of"]), spec["op"], ev(spec.get("value")))
    if op in ("diff", "ratio"):
        a, b = _num(ev(spec["a"]), f"{op}.a"), _num(ev(spec["b"]), f"{op}.b")
        if op == "ratio" and b == 0:
            raise RefError("ratio: b is 0")
        out = a - b if op == "diff" else a / b
        return abs(out) if spec.get("abs") else out
    of = ev(spec["of"])
    if op == "count":
        if not isinstance(of, list):
            raise RefError(f"count: expected a list, got {of!r}")
        where = spec.get("where", {})
        return sum(1 for x in of if all(isinstance(x, dict) and k in x and _matches(x[k], v) for k, v in where.items()))
    if op in ("argmax", "argmin"):
        by, ret = spec["by"], spec.get("return", spec["by"])
        rows = [x for x in of if isinstance(x, dict) and str(x.get(by, "")).strip() not in skip]
        if not rows:
            raise RefError(f"{op}: no record has a value for {by!r}")
        best = (max if op == "argmax" else min)(rows, key=lambda x: _num(x[by], f"{op}.by"))
        return best[ret]
    nums = _numbers(of, skip, op)
    if not nums:
        raise RefError(f"{op}: no numeric values in {of!r}")
    return {"sum": sum(nums), "mean": sum(nums) / len(nums), "max": max(nums), "min": min(nums)}[op]


def _eval(expr: Any, r: Resolver, sources: list[Source]) -> Any:
    if isinstance(expr, dict) and "compute" in expr:
        out = _compute(expr, r, sources)
        if "round" in expr and isinstance(out, (int, float)) and not isinstance(out, bool):
            out = round(out, int(expr["round"]))
        return _tidy(out)
    return r.value(expr, sources=sources)


def _list_items(fact: Fact, value: Any, what: str) -> list[Any]:
    """The items of a list fact: a list value, or one string cut at `split`; blanks dropped."""
    if isinstance(value, str) and fact.split is not None:
        value = value.split(fact.split)
    if not isinstance(value, list):
        raise FactError(f"{what}: a list fact needs a list (items[*].field) or a string with `split`, got {value!r}")
    items = [v.strip() if isinstance(v, str) else v for v in value]
    items = [v for v in items if v is not None and v != ""]
    if fact.item_kind == "number":
        items = [_tidy(_num(v, what)) for v in items]
    if isinstance(fact.need, int) and not isinstance(fact.need, bool) and fact.need > len(items):
        raise FactError(f"{what}: need={fact.need} but the list has {len(items)} items {items!r}; lower `need`")
    return items


def _code_table(fact: Fact, gold: GoldRun, sources: list[Source]) -> dict[str, list[str]]:
    """code -> labels from the catalog field a direct fact reads (`$s1.picked.pm10Grade`), {} when
    the field declares no codes."""
    if not is_ref(fact.value) or len(sources) != 1 or sources[0].index is None:
        return {}
    ref = parse_ref(fact.value)
    names = [seg for seg in ref.path[1:] if isinstance(seg, str)]
    if len(names) != 1:
        return {}
    from kopa_bench.catalog import get_catalog

    run = gold.step(sources[0].step)
    catalog = get_catalog()
    if run.tool not in catalog:
        return {}
    field = next((f for f in catalog.get(run.tool).op.fields if f.name == names[0]), None)
    if field is None or not field.codes:
        return {}
    return field.code_table(run.records[sources[0].index])


def compute_answer(task: Task, gold: GoldRun, clock: Any = None) -> list[ResolvedFact]:
    """Evaluate every fact of `task` on `gold`; raise FactError naming the fact and path."""
    facts = []
    if clock is None:
        from kopa_bench.clock import WorldClock

        clock = WorldClock()
    resolver = gold.resolver(clock=clock)
    for fact in task.answer:
        sources: list[Source] = []
        try:
            value = _eval(fact.value, resolver, sources)
        except (RefError, KeyError, TypeError) as exc:
            raise FactError(f"task {task.id} fact {fact.id} ({fact.description}): {exc}") from exc
        what = f"task {task.id} fact {fact.id}"
        kind, options = fact.kind, {}
        if isinstance(value, list) and fact.kind == "text":
            kind = "list"  # a text fact over several records is a list fact: every item, any order
        if value is None or (isinstance(value, list) and kind not in ("list", "text")):
            raise FactError(f"{what}: value {value!r} is not a single {fact.kind}; use a compute spec")
        if kind == "list":
            value = _list_items(fact, value, what)
            options = dict(item_kind=fact.item_kind, need=fact.need, ordered=fact.ordered)
        elif fact.kind == "number":
            value = _tidy(_num(value, what))
        uniq = {(s.step, s.index, s.field): s for s in sources}
        facts.append(
            ResolvedFact(
                id=fact.id, description=fact.description, kind=kind, value=value,
                tolerance=fact.tolerance, unit=fact.unit, aliases=fact.aliases, context=fact.context,
                direct=is_ref(fact.value),
                sources=[FactSource(step=s.step, index=s.index, field=s.field) for s in uniq.values()],
                codes=_code_table(fact, gold, list(uniq.values())) if kind in ("code", "text") else {},
                **options,
            )
        )
    return facts

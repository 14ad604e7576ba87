"""Resolve reference expressions against the outputs of steps that have already run.

The resolver is shared by the gold program executor (arguments, picks, conditions), the
answer computation (facts) and the scorer (re-resolving a data-flow edge against the
*agent's* own upstream result). It records which references were used (for data-flow edges)
and which records a value came from (for STATE and grounding).
"""

from __future__ import annotations

from typing import Any, Mapping

from kopa_bench.tasks.refs import (
    EACH,
    WILD,
    Ref,
    RefError,
    SkippedStepError,
    Source,
    Use,
    _TEMPLATE_RE,
    apply_transform,
    clock_value,
    is_ref,
    parse_ref,
    render_path,
)


class Each:
    """The current element of a for_each: its value and, when it came from a step's result, the
    concrete reference it stands for (e.g. '$s1.items[3]'), so `$each.x` is traced as '$s1.items[3].x'."""

    def __init__(self, value: Any, source: str | None = None):
        self.value, self.source = value, source

    def bind(self, ref: Ref) -> Ref:
        """`$each.x` -> the concrete reference, when the element has one."""
        if ref.step != EACH or self.source is None:
            return ref
        return parse_ref(self.source + render_path(ref.path))


class StepView:
    """The minimal view of a step output the resolver needs (StepRun satisfies it)."""

    step_id: str
    skipped: bool
    records: list[dict[str, Any]]
    total_count: int | None
    picked: dict[str, Any] | None
    picked_index: int | None
    picked_by_name: dict[str, dict[str, Any] | None]  # named picks (Step.picks); optional
    picked_index_by_name: dict[str, int | None]
    expansions: list[str]  # ids of a for_each / paged step's calls; optional
    args: dict[str, Any]
    ok: bool
    result_code: str


class Resolver:
    """Evaluates expressions; `steps` maps step id -> an object shaped like StepView."""

    def __init__(self, steps: Mapping[str, Any], clock: Any = None, where: str = "", each: Each | None = None):
        self.steps = steps
        self.clock = clock
        self.where = where  # prefix for error messages, e.g. "task kopa-test-001 step s3"
        self.each = each  # the current element inside a for_each step's args

    # -- public ---------------------------------------------------------------------------------
    def value(self, expr: Any, uses: list[Use] | None = None, sources: list[Source] | None = None) -> Any:
        """Resolve an expression; append used references to `uses`, record sources to `sources`."""
        uses = uses if uses is not None else []
        sources = sources if sources is not None else []
        if isinstance(expr, str):
            if expr.startswith("$$"):
                return expr[1:]  # escaped literal dollar
            if is_ref(expr):
                ref = self._bind(parse_ref(expr))
                val = self.path(ref, sources)
                uses.append(Use(ref, val))
                return val
            if _TEMPLATE_RE.search(expr):
                return self._template(expr, uses, sources)
            return expr
        if isinstance(expr, dict):
            if "$ref" in expr or "$clock" in expr or "$value" in expr:
                return self._special(expr, uses, sources)
            return {k: self.value(v, uses, sources) for k, v in expr.items()}
        if isinstance(expr, list):
            return [self.value(v, uses, sources) for v in expr]
        return expr

    def path(self, ref: Ref, sources: list[Source] | None = None) -> Any:
        """The value at `ref` (no transform)."""
        sources = sources if sources is not None else []
        if ref.step == EACH:
            if self.each is None:
                raise RefError(f"{self._at()}{ref.raw}: $each is defined only in the args of a for_each step")
            ref = self._bind(ref)
            if ref.step == EACH:  # an element of a written list: its value, no source
                return self._descend(self.each.value, ref.path, ref)
        run = self.steps.get(ref.step)
        if run is None:
            raise RefError(f"{self._at()}{ref.raw}: step {ref.step!r} has not run (known: {sorted(self.steps)})")
        if run.skipped:
            raise SkippedStepError(f"{self._at()}{ref.raw}: step {ref.step!r} was skipped (its condition was false)")
        root, rest = (ref.path[0], ref.path[1:]) if ref.path else ("items", ())
        if root in ("total_count", "count", "ok", "result_code", "ran"):
            if rest:
                raise RefError(f"{self._at()}{ref.raw}: {root} has no fields")
            if root == "total_count":
                sources.append(Source(ref.step, None, "total_count"))
                return run.total_count if run.total_count is not None else len(run.records)
            if root == "count":
                sources.append(Source(ref.step, None, "count"))
                return len(run.records)
            return {"ok": run.ok, "result_code": run.result_code, "ran": True}[root]
        if root == "args":
            return self._descend(run.args, rest, ref)
        if root == "picks":
            return self._named_pick(run, rest, ref, sources)
        if root == "runs":
            return self._expansion(run, rest, ref, sources)
        if root == "picked":
            if run.picked is None:
                raise RefError(f"{self._at()}{ref.raw}: step {ref.step!r} picked no record (no pick, or no record passed it; {len(run.records)} records)")
            sources.append(Source(ref.step, run.picked_index))
            return self._descend(run.picked, rest, ref)
        return self._items(run, rest, ref, sources)

    # -- internals ------------------------------------------------------------------------------
    def _at(self) -> str:
        return f"{self.where}: " if self.where else ""

    def _bind(self, ref: Ref) -> Ref:
        return self.each.bind(ref) if self.each is not None else ref

    def _named_pick(self, run: Any, rest: tuple, ref: Ref, sources: list[Source]) -> Any:
        named = getattr(run, "picked_by_name", None) or {}
        if not rest or rest[0] not in named:
            raise RefError(f"{self._at()}{ref.raw}: step {ref.step!r} has no pick named {rest[0] if rest else None!r} "
                           f"(its picks: {sorted(named) or 'none'}); write $%s.picks.<name>.<field>" % ref.step)
        record = named[rest[0]]
        if record is None:
            raise RefError(f"{self._at()}{ref.raw}: pick {rest[0]!r} of step {ref.step!r} matched no record ({len(run.records)} records)")
        sources.append(Source(ref.step, run.picked_index_by_name[rest[0]]))
        return self._descend(record, rest[1:], ref)

    def _expansion(self, run: Any, rest: tuple, ref: Ref, sources: list[Source]) -> Any:
        ids = getattr(run, "expansions", None) or []
        if not rest or not isinstance(rest[0], int) or not -len(ids) <= rest[0] < len(ids):
            raise RefError(f"{self._at()}{ref.raw}: step {ref.step!r} ran as {len(ids)} calls; write runs[k] with 0 <= k < {len(ids)}")
        return self.path(Ref(ids[rest[0]], tuple(rest[1:]), ref.raw), sources)

    def _items(self, run: Any, rest: tuple, ref: Ref, sources: list[Source]) -> Any:
        records = run.records
        if not rest:
            sources.extend(Source(ref.step, i) for i in range(len(records)))
            return records
        sel, tail = rest[0], rest[1:]
        if sel == WILD:
            out = []
            for i, rec in enumerate(records):
                try:
                    out.append(self._descend(rec, tail, ref))
                except RefError:
                    continue  # APIs omit empty fields in some rows; a list reference skips them
                sources.append(Source(ref.step, i))
            return out
        if isinstance(sel, int):
            if not -len(records) <= sel < len(records):
                raise RefError(f"{self._at()}{ref.raw}: step {ref.step!r} returned {len(records)} records; index {sel} is out of range")
            idx = sel % len(records)
            sources.append(Source(ref.step, idx))
            return self._descend(records[idx], tail, ref)
        raise RefError(f"{self._at()}{ref.raw}: write items[0].{sel} (one record) or items[*].{sel} (all records)")

    def _descend(self, obj: Any, path: tuple, ref: Ref) -> Any:
        for seg in path:
            if isinstance(obj, dict) and not isinstance(seg, int):
                if seg not in obj:
                    raise RefError(f"{self._at()}{ref.raw}: field {seg!r} missing; the record has {sorted(obj)[:15]}")
                obj = obj[seg]
            elif isinstance(obj, list) and isinstance(seg, int):
                if not -len(obj) <= seg < len(obj):
                    raise RefError(f"{self._at()}{ref.raw}: index {seg} out of range for a list of {len(obj)}")
                obj = obj[seg]
            else:
                raise RefError(f"{self._at()}{ref.raw}: cannot take {seg!r} of {type(obj).__name__}")
        return obj

    def _template(self, text: str, uses: list[Use], sources: list[Source]) -> str:
        def sub(m: Any) -> str:
            ref = self._bind(parse_ref(m.group(1)))
            val = self.path(ref, sources)
            uses.append(Use(ref, val, template=True))
            return "" if val is None else str(val)

        return _TEMPLATE_RE.sub(sub, text)

    def _special(self, expr: dict, uses: list[Use], sources: list[Source]) -> Any:
        name = expr.get("transform")
        targs = self.value(expr.get("args", {}), uses, sources)
        if "$ref" in expr:
            ref = self._bind(parse_ref(expr["$ref"]))
            raw = self.path(ref, sources)
        elif "$clock" in expr:
            ref, raw = None, clock_value(expr["$clock"], self.clock)
        else:
            ref, raw = None, self.value(expr["$value"], uses, sources)
        out = raw if not name else self.transform(name, raw, targs)
        if ref is not None:
            uses.append(Use(ref, out, transform=name, transform_args=dict(targs)))
        return out

    def transform(self, name: str, value: Any, targs: dict[str, Any]) -> Any:
        try:
            return apply_transform(name, value, **targs)
        except RefError:
            raise
        except Exception as exc:  # a transform's own error: name the value so the author can fix it
            raise RefError(f"{self._at()}transform {name!r} failed on {value!r} with args {targs}: {exc}") from exc

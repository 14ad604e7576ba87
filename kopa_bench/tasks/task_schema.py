"""Task, Step, Pick, Condition and Fact: the pydantic shape of a KOPA-Bench task file.

A task is data: a Korean request, the tools offered, a gold *program* (tool calls whose
arguments may reference earlier outputs) and an *answer spec* (facts computed from the gold
outputs). Validation here catches authoring mistakes (a reference to a later step, a gold
tool that is not offered) when the file is loaded, not when a run fails an hour later.
"""

from __future__ import annotations

import json
from enum import Enum
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_serializer, model_validator

from kopa_bench.tasks.refs import EACH, WILD, RefError, is_ref, iter_refs, parse_ref

MIN_TOOLS_OFFERED = 5
NAME_PATTERN = r"^[A-Za-z][A-Za-z0-9_]*$"


class TaskDomain(str, Enum):
    """The benchmark domain a task belongs to: six of the catalog's operation domains."""

    traffic = "traffic"
    finance = "finance"
    education = "education"
    law = "law"
    politics = "politics"
    district = "district"


class Shape(str, Enum):
    sequential = "sequential"
    fan_out = "fan-out"
    reduction = "reduction"
    parallel = "parallel"
    comparison = "comparison"
    conditional = "conditional"


class Difficulty(str, Enum):
    easy = "easy"
    medium = "medium"
    hard = "hard"


class _Strict(BaseModel):
    # Typos in task files (e.g. "argmx") must fail loudly rather than be ignored.
    model_config = ConfigDict(extra="forbid", use_enum_values=True)


class Near(_Strict):
    """The record nearest a point (WGS84): a client-side filter such as 'the bike station nearest
    this address'. `lat`/`lon` are literals or references (with a transform for TM/UTM-K points)."""

    lat: Any = Field(description="latitude of the point: a number or a reference such as '$s1.items[0].y'")
    lon: Any = Field(description="longitude of the point")
    lat_field: str = Field(description="the records' latitude field, e.g. 'stationLatitude'")
    lon_field: str = Field(description="the records' longitude field, e.g. 'stationLongitude'")
    max_km: float | None = Field(default=None, description="nothing is picked when the nearest record is farther")


class Pick(_Strict):
    """Selects one record of a step's result; later steps read it as `$sN.picked.<field>`.

    Applied in this order: where -> contains -> skip_values -> argmax/argmin or sort -> index.
    """

    where: dict[str, Any] = Field(default_factory=dict, description="field -> required value (a literal, a list of allowed values, or a reference); compared as stripped strings")
    contains: dict[str, Any] = Field(default_factory=dict, description="field -> substring the field must contain (e.g. ORIG_NM contains '마포구을'; a literal or a reference)")
    near: Near | None = Field(default=None, description="keep the record nearest a point (after where/contains)")
    argmax: str | None = Field(default=None, description="keep the record with the largest value of this field")
    argmin: str | None = Field(default=None, description="keep the record with the smallest value of this field")
    sort: str | None = Field(default=None, description="sort by this field before taking `index` (ignored when argmax/argmin is set)")
    descending: bool = Field(default=False, description="sort direction for `sort`")
    numeric: bool | None = Field(default=None, description="compare argmax/argmin/sort values as numbers; None = numbers when every value parses, else strings")
    skip_values: list[str] = Field(default_factory=lambda: ["-", "", "null", "None"], description="values of the argmax/argmin/sort field that mean 'no measurement' and are dropped")
    index: int = Field(default=0, description="which record to take after filtering/sorting (0 = first)")

    @model_validator(mode="after")
    def _one_extreme(self) -> "Pick":
        if self.argmax and self.argmin:
            raise ValueError(f"pick sets both argmax={self.argmax!r} and argmin={self.argmin!r}; keep one")
        return self


class ForEach(_Strict):
    """Run the step once for every element of a list from an earlier step ("the detail of every
    search hit"); the step's arguments read the current element as `$each` / `$each.<field>`.

    Expanded when the gold program runs: one gold call per element, `<step>[0]`, `<step>[1]`, ...
    Later references to the step see all expansions' records concatenated (`$s2.items[*].x`),
    or one expansion's result as `$s2.runs[k]...`."""

    of: Any = Field(description="the list: '$s1.items' (records), '$s1.items[*].BILL_ID' (values) or a list of references/literals")
    where: dict[str, Any] = Field(default_factory=dict, description="keep only record elements whose fields equal these values (as in pick.where)")
    limit: int | None = Field(default=None, ge=1, description="take only the first `limit` elements (the request asks for 'the first three')")
    max: int = Field(default=20, ge=1, le=100, description="bound: more elements than this is an error (raise it, or narrow `of` / set `limit`)")


class Pages(_Strict):
    """Fetch every page of a paged operation: picks and references of the step see all pages
    ("the nearest of 2,122 bike stations over 3 pages"). Each page is a gold call (`<step>[0]`,
    `<step>[1]`, ...); an agent's call covers a page when it received all of that page's records.

    Two styles: a page number and size (`page`="pageNo", `size`="numOfRows"), or a row range
    (`start`="START_INDEX", `end`="END_INDEX"). The step's args give the first page and the size.
    Pages are fetched until one comes back short (fewer rows than the size) or the total count
    is reached."""

    page: str | None = Field(default=None, description="page-number parameter, e.g. 'pageNo' or 'pIndex' (first page = its value in args, else 1)")
    size: str | None = Field(default=None, description="page-size parameter, e.g. 'numOfRows' or 'pSize'; its value in args is the page size")
    start: str | None = Field(default=None, description="first-row parameter of a row-range API, e.g. 'START_INDEX'")
    end: str | None = Field(default=None, description="last-row parameter of a row-range API, e.g. 'END_INDEX'")
    max_pages: int = Field(default=10, ge=2, le=50, description="bound: needing more pages than this is an error")

    @model_validator(mode="after")
    def _one_style(self) -> "Pages":
        number, rows = (self.page, self.size), (self.start, self.end)
        if all(number) and not any(rows) or all(rows) and not any(number):
            return self
        raise ValueError(f"pages needs either page+size (e.g. page='pageNo', size='numOfRows') or start+end "
                         f"(e.g. start='START_INDEX', end='END_INDEX'), got page={self.page!r} size={self.size!r} "
                         f"start={self.start!r} end={self.end!r}")

    @property
    def params(self) -> list[str]:
        """The arguments that change from page to page (never compared when matching calls)."""
        return [p for p in (self.page, self.size, self.start, self.end) if p]


class Condition(_Strict):
    """Guards a step: it runs only when `ref <op> value` holds (conditional shape)."""

    ref: Any = Field(description="reference (or literal) on the left, e.g. '$s3.items[0].pm10Grade'")
    op: Literal[">=", "<=", "==", "!=", ">", "<", "in", "not_in"] = Field(description="comparison; numbers are compared numerically when both sides parse")
    value: Any = Field(description="right-hand side: a literal, a list (for in/not_in) or a reference")


class Step(_Strict):
    """One gold tool call."""

    id: str = Field(description="step id used in references, e.g. 's1'", pattern=r"^[A-Za-z][A-Za-z0-9_]*$")
    tool: str = Field(description="model-facing tool name, e.g. 'airkorea_getNearbyMsrstnList'")
    args: dict[str, Any] = Field(default_factory=dict, description="argument -> literal, '$ref', '{$ref}' template, {'$ref','transform','args'} or {'$clock'}")
    group: int = Field(default=0, description="steps sharing a group are independent and may run in parallel; groups never decrease along the program")
    pick: Pick | None = Field(default=None, description="selector that sets `picked` for later references")
    picks: dict[str, Pick] = Field(default_factory=dict, description="named selectors: several records read from one call, referenced as `$sN.picks.<name>.<field>`")
    for_each: ForEach | None = Field(default=None, description="run this step once per element of an earlier result (expanded at gold execution)")
    pages: Pages | None = Field(default=None, description="fetch every page of this paged call; picks and references see all pages")
    condition: Condition | None = Field(default=None, description="the step runs only if this holds; otherwise it is skipped")
    match_ignore: list[str] = Field(default_factory=list, description="arguments not compared when matching agent calls (presentation or free-choice arguments)")
    alternatives: dict[str, list[Any]] = Field(default_factory=dict, description="argument -> other values an agent may give instead of args[argument] (literals or references; the gold call sends args[argument])")
    optional: list[str] = Field(default_factory=list, description="arguments of `args` an agent may leave out; when given, they must match like any other")
    after: list[str] = Field(default_factory=list, description="earlier steps whose calls must come before this one although no value flows between them (state: `cd` before `mkdir`)")
    note: str = Field(default="", description="what the step is for (documentation only)")

    @model_validator(mode="after")
    def _check_constructs(self) -> "Step":
        import re

        if self.id == EACH:
            raise ValueError(f"step id {EACH!r} is reserved for the current element of a for_each; rename the step")
        bad = [n for n in self.picks if not re.match(NAME_PATTERN, n)]
        if bad:
            raise ValueError(f"step {self.id!r} picks: names {bad} are not identifiers; use letters, digits and _ (e.g. 't1h')")
        if self.for_each is not None:
            _check_each_of(self.id, self.for_each.of)
        if self.for_each is not None and self.pages is not None:
            raise ValueError(f"step {self.id!r} sets both for_each and pages; a step is either run per element or paged")
        if self.pages is not None:
            for p in (self.pages.size, self.pages.start, self.pages.end):
                if p is not None and not isinstance(self.args.get(p), int):
                    raise ValueError(f"step {self.id!r} pages: args.{p} must be a literal integer (the page window), got {self.args.get(p)!r}")
            if self.pages.start and self.args[self.pages.end] < self.args[self.pages.start]:
                raise ValueError(f"step {self.id!r} pages: args.{self.pages.end} < args.{self.pages.start}")
        return self

    @property
    def expands(self) -> bool:
        """The step runs as several gold calls (for_each or pages)."""
        return self.for_each is not None or self.pages is not None


FactKind = Literal["number", "text", "date", "code", "bool", "list"]
ItemKind = Literal["number", "text", "date", "code"]


class Fact(_Strict):
    """One checkable piece of the answer."""

    id: str = Field(description="fact id, e.g. 'f1'")
    description: str = Field(description="what the fact is, in words (ko or en)")
    value: Any = Field(description="reference expression, {'compute': ...} spec, or a literal")
    kind: FactKind = Field(default="text", description="how the fact is normalised and matched ('list': several items, see `need`)")
    tolerance: float | None = Field(default=None, description="absolute tolerance for numbers (in the fact's unit)")
    unit: str | None = Field(default=None, description="unit of the value as computed, e.g. '만원', '㎍/㎥', '건'")
    aliases: list[str] = Field(default_factory=list, description="extra accepted surface forms for text facts")
    context: str | None = Field(default=None, description="for bool facts: a word near which the yes/no is stated (e.g. '공휴일')")
    item_kind: ItemKind = Field(default="text", description="list facts: how each item is matched")
    need: Literal["all", "any"] | int = Field(default="all", description="list facts: how many items the answer must state: 'all', 'any' or a number k (k of n)")
    ordered: bool = Field(default=False, description="list facts: the items must be stated in this order (text and code items)")
    split: str | None = Field(default=None, description="list facts whose value is one string: the separator between items (NEIS menus: '<br/>')")

    @model_validator(mode="after")
    def _list_options(self) -> "Fact":
        if self.kind != "list":
            used = [name for name, default in (("item_kind", "text"), ("need", "all"), ("ordered", False), ("split", None))
                    if getattr(self, name) != default]
            if used:
                raise ValueError(f"fact {self.id!r}: {used} apply to list facts only; set kind='list' or drop them")
        if isinstance(self.need, int) and (isinstance(self.need, bool) or self.need < 1):
            raise ValueError(f"fact {self.id!r}: need={self.need!r}; give 'all', 'any' or a whole number >= 1")
        if self.ordered and self.item_kind not in ("text", "code"):
            raise ValueError(f"fact {self.id!r}: ordered lists need text or code items, not {self.item_kind!r}")
        if self.split is not None and not self.split:
            raise ValueError(f"fact {self.id!r}: split is empty; give the separator, e.g. '<br/>'")
        return self

    @model_serializer(mode="wrap")
    def _without_unused_list_options(self, handler: Any) -> Any:
        # other facts serialise as before the list options existed (task hashes, dataset rows, run folders)
        data = handler(self)
        if self.kind != "list" and isinstance(data, dict):
            for name in _LIST_OPTIONS:
                data.pop(name, None)
        return data


_LIST_OPTIONS = ("item_kind", "need", "ordered", "split")


class Task(_Strict):
    """A KOPA-Bench task: request, offered tools, gold program and answer spec."""

    id: str = Field(description="task id, kopa-<split>-<domain>-<nnn>, e.g. 'kopa-test-district-001'")
    version: str = Field(default="1.0.0", description="task version; bump when the gold changes")
    split: Literal["test", "dev"] = Field(description="dataset split")
    query: str = Field(description="the request in Korean, as a person would type it")
    gloss: str = Field(default="", description="English gloss of the query")
    domain: TaskDomain = Field(description="primary domain")
    tags: list[str] = Field(default_factory=list, description="secondary tags (weather, air, tourism, ...)")
    platforms: list[str] = Field(description="platforms the gold program uses")
    shape: Shape = Field(description="trajectory shape")
    difficulty: Difficulty = Field(description="author's difficulty estimate")
    held_out_platform: str | None = Field(default=None, description="platform withheld from synthesis for this task, if any")
    tools: list[str] = Field(description="tools offered to the model: gold tools plus same-domain distractors")
    program: list[Step] = Field(min_length=1, description="gold program")
    answer: list[Fact] = Field(min_length=1, description="answer spec")

    @model_validator(mode="after")
    def _check_program(self) -> "Task":
        seen: dict[str, int] = {}  # step id -> group
        steps: dict[str, Step] = {}
        last_group = None
        for step in self.program:
            if step.id in seen:
                raise ValueError(f"step id {step.id!r} is used twice; step ids must be unique")
            if last_group is not None and step.group < last_group:
                raise ValueError(f"step {step.id!r} has group {step.group} after group {last_group}; groups must not decrease")
            for where, expr in _step_exprs(step):
                for src in _sources(expr, where):
                    if src not in seen:
                        raise ValueError(f"step {step.id!r} {where} references {src!r}, which is not an earlier step")
                    if seen[src] == step.group:
                        raise ValueError(f"step {step.id!r} {where} references {src!r} in the same group {step.group}; move it to a later group")
                sent = where in ("args", "alternatives")  # values the call sends: traced like args
                _check_refs(expr, f"step {step.id!r} {where}", steps, each_ok=sent and step.for_each is not None,
                            runs_ok=not sent)
            if step.for_each is not None and not any(r.step == EACH for r in iter_refs(step.args)):
                raise ValueError(f"step {step.id!r} has a for_each but its args never read $each; every expansion would be the same call")
            _check_call_options(step, seen)
            seen[step.id] = step.group
            steps[step.id] = step
            last_group = step.group
        missing = [t for t in dict.fromkeys(s.tool for s in self.program) if t not in self.tools]
        if missing:
            raise ValueError(f"gold tools {missing} are not in `tools`; add them to the offered tools")
        if len(set(self.tools)) < MIN_TOOLS_OFFERED:
            raise ValueError(f"only {len(set(self.tools))} tools offered; offer at least {MIN_TOOLS_OFFERED} (gold + same-domain distractors)")
        fact_ids = [f.id for f in self.answer]
        if len(set(fact_ids)) != len(fact_ids):
            raise ValueError(f"fact ids must be unique, got {fact_ids}")
        for fact in self.answer:
            for src in _sources(fact.value, f"fact {fact.id!r}"):
                if src not in seen:
                    raise ValueError(f"fact {fact.id!r} references {src!r}, which is not a step of the program")
            _check_refs(fact.value, f"fact {fact.id!r}", steps, each_ok=False, runs_ok=True)
        return self

    @property
    def gold_tools(self) -> list[str]:
        """Distinct tools the gold program calls, in program order."""
        return list(dict.fromkeys(s.tool for s in self.program))

    @property
    def parallel_groups(self) -> list[list[Step]]:
        """Groups with two or more steps (the calls that may run concurrently)."""
        groups: dict[int, list[Step]] = {}
        for s in self.program:
            groups.setdefault(s.group, []).append(s)
        return [g for g in groups.values() if len(g) > 1]

    @property
    def n_calls(self) -> int:
        """Number of gold steps (both branches of a conditional count; a for_each or paged step
        counts once, its number of calls being known only when it runs)."""
        return len(self.program)

    @property
    def has_parallel(self) -> bool:
        return bool(self.parallel_groups)

    def step(self, step_id: str) -> Step:
        """The step by id; an expansion's id (`s2[3]`, a for_each element or a page) gives its step."""
        step_id = step_id.split("[", 1)[0]
        for s in self.program:
            if s.id == step_id:
                return s
        raise KeyError(f"task {self.id} has no step {step_id!r}; steps are {[s.id for s in self.program]}")


def _pick_exprs(label: str, pick: Pick):
    yield f"{label}.where", pick.where
    yield f"{label}.contains", pick.contains
    if pick.near is not None:
        yield f"{label}.near", [pick.near.lat, pick.near.lon]


def _check_call_options(step: Step, seen: dict[str, int]) -> None:
    """`alternatives` and `optional` name arguments of `args`; `after` names steps of earlier groups."""
    for name in [*step.alternatives, *step.optional]:
        if name not in step.args:
            raise ValueError(f"step {step.id!r} lists {name!r} in alternatives/optional but `args` has no {name!r}; give its gold value in args")
    for name, alts in step.alternatives.items():
        if not isinstance(alts, list) or not alts:
            raise ValueError(f"step {step.id!r} alternatives[{name!r}] must be a non-empty list of accepted values, got {alts!r}")
    for before in step.after:
        if before not in seen:
            raise ValueError(f"step {step.id!r} must come after {before!r}, which is not an earlier step")
        if seen[before] == step.group:
            raise ValueError(f"step {step.id!r} must come after {before!r} in the same group {step.group}; ordered steps belong to different groups")


def _step_exprs(step: Step):
    yield "args", step.args
    if step.alternatives:
        yield "alternatives", step.alternatives
    if step.pick is not None:
        yield from _pick_exprs("pick", step.pick)
    for name, pick in step.picks.items():
        yield from _pick_exprs(f"picks.{name}", pick)
    if step.for_each is not None:
        yield "for_each.of", step.for_each.of
        yield "for_each.where", step.for_each.where
    if step.condition is not None:
        yield "condition", [step.condition.ref, step.condition.value]


def _sources(expr: Any, where: str) -> set[str]:
    try:
        return {ref.step for ref in iter_refs(expr) if ref.step != EACH}
    except RefError as exc:
        raise ValueError(f"{where}: {exc}") from exc


def _check_each_of(step_id: str, of: Any) -> None:
    """`for_each.of` must name a list: all records, one field of all records, or a written list."""
    if isinstance(of, list):
        return
    hint = "write '$s1.items' (every record), '$s1.items[*].FIELD' (a field of every record) or a list of references"
    if not is_ref(of):
        raise ValueError(f"step {step_id!r} for_each.of is {of!r}, not a list; {hint}")
    try:
        ref = parse_ref(of)
    except RefError as exc:
        raise ValueError(f"step {step_id!r} for_each.of: {exc}") from exc
    if ref.step == EACH or not (ref.path in ((), ("items",)) or ref.path[:2] == ("items", WILD)):
        raise ValueError(f"step {step_id!r} for_each.of is {of!r}, which is one value, not a list; {hint}")


def _check_refs(expr: Any, where: str, steps: dict[str, Step], *, each_ok: bool, runs_ok: bool) -> None:
    """References that name a pick, an expansion or the current element must make sense here."""
    for ref in iter_refs(expr):
        if ref.step == EACH:
            if not each_ok:
                raise ValueError(f"{where} reads {ref.raw!r}, but $each exists only in the args of a step with a for_each; "
                                 f"add a for_each to the step or reference a step id")
            continue
        step = steps.get(ref.step)
        if step is None or not ref.path:
            continue
        if ref.path[0] == "picks":
            name = ref.path[1] if len(ref.path) > 1 else None
            if name not in step.picks:
                have = sorted(step.picks) or "none"
                raise ValueError(f"{where} reads {ref.raw!r}, but step {ref.step!r} has no pick named {name!r} (its picks: {have}); "
                                 f"add it to {ref.step}.picks or fix the name")
        elif ref.path[0] == "runs":
            if not step.expands:
                raise ValueError(f"{where} reads {ref.raw!r}, but step {ref.step!r} has neither for_each nor pages; "
                                 f"use $%s.items... for a single call" % ref.step)
            if not runs_ok:
                raise ValueError(f"{where} reads {ref.raw!r}: an argument may not read one expansion (runs[k]), its data flow "
                                 f"could not be traced; read the whole step ($%s.items[...]) or a pick of it" % ref.step)
            if len(ref.path) < 2 or not isinstance(ref.path[1], int):
                raise ValueError(f"{where} reads {ref.raw!r}; write $%s.runs[k]... with k the expansion's index" % ref.step)


class TaskFileError(ValueError):
    """A task file could not be parsed or validated; the message names the file."""


def parse_tasks(data: Any, source: str = "<data>") -> list[Task]:
    """Validate a JSON value (one task or a list of tasks) into Tasks."""
    items = data if isinstance(data, list) else [data]
    tasks = []
    for i, item in enumerate(items):
        try:
            tasks.append(Task.model_validate(item))
        except ValidationError as exc:
            tid = item.get("id", f"#{i}") if isinstance(item, dict) else f"#{i}"
            raise TaskFileError(f"{source}: task {tid} is invalid:\n{exc}") from None
    return tasks


def splits() -> list[str]:
    """The task splits shipped with the package (folders of `kopa_bench/tasks/data/`)."""
    root = resources.files("kopa_bench.tasks") / "data"
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


def check_split(split: str) -> None:
    """Raise TaskFileError naming the valid splits when `split` is not one."""
    valid = splits()
    if split not in valid:
        raise TaskFileError(f"unknown split {split!r}; valid splits: {', '.join(valid)}")


def load_tasks(split: str) -> list[Task]:
    """Load every task of a split from `kopa_bench/tasks/data/<split>/*.json`, sorted by id."""
    check_split(split)
    root = resources.files("kopa_bench.tasks") / "data" / split
    tasks: list[Task] = []
    for entry in sorted(root.iterdir(), key=lambda p: p.name):
        if not entry.name.endswith(".json"):
            continue
        try:
            data = json.loads(entry.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise TaskFileError(f"{split}/{entry.name}: not valid JSON ({exc})") from None
        tasks.extend(parse_tasks(data, f"{split}/{entry.name}"))
    ids = [t.id for t in tasks]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise TaskFileError(f"split {split!r}: duplicate task ids {dupes}")
    return sorted(tasks, key=lambda t: t.id)

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

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from kopa_bench.tasks.refs import RefError, iter_refs

MIN_TOOLS_OFFERED = 5


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
    condition: Condition | None = Field(default=None, description="the step runs only if this holds; otherwise it is skipped")
    match_ignore: list[str] = Field(default_factory=list, description="arguments not compared when matching agent calls (presentation or free-choice arguments)")
    alternatives: dict[str, list[Any]] = Field(default_factory=dict, description="argument -> other values an agent may give instead of args[argument] (literals or references; the gold call sends args[argument])")
    optional: list[str] = Field(default_factory=list, description="arguments of `args` an agent may leave out; when given, they must match like any other")
    after: list[str] = Field(default_factory=list, description="earlier steps whose calls must come before this one although no value flows between them (state: `cd` before `mkdir`)")
    note: str = Field(default="", description="what the step is for (documentation only)")


class Fact(_Strict):
    """One checkable piece of the answer."""

    id: str = Field(description="fact id, e.g. 'f1'")
    description: str = Field(description="what the fact is, in words (ko or en)")
    value: Any = Field(description="reference expression, {'compute': ...} spec, or a literal")
    kind: Literal["number", "text", "date", "code", "bool"] = Field(default="text", description="how the fact is normalised and matched")
    tolerance: float | None = Field(default=None, description="absolute tolerance for numbers (in the fact's unit)")
    unit: str | None = Field(default=None, description="unit of the value as computed, e.g. '만원', '㎍/㎥', '건'")
    aliases: list[str] = Field(default_factory=list, description="extra accepted surface forms for text facts")
    context: str | None = Field(default=None, description="for bool facts: a word near which the yes/no is stated (e.g. '공휴일')")


class Task(_Strict):
    """A KOPA-Bench task: request, offered tools, gold program and answer spec."""

    id: str = Field(description="task id, e.g. 'kopa-test-001'")
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
            _check_call_options(step, seen)
            seen[step.id] = step.group
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
        """Number of gold steps (both branches of a conditional count)."""
        return len(self.program)

    @property
    def has_parallel(self) -> bool:
        return bool(self.parallel_groups)

    def step(self, step_id: str) -> Step:
        for s in self.program:
            if s.id == step_id:
                return s
        raise KeyError(f"task {self.id} has no step {step_id!r}; steps are {[s.id for s in self.program]}")


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
        yield "pick.where", step.pick.where
        yield "pick.contains", step.pick.contains
        if step.pick.near is not None:
            yield "pick.near", [step.pick.near.lat, step.pick.near.lon]
    if step.condition is not None:
        yield "condition", [step.condition.ref, step.condition.value]


def _sources(expr: Any, where: str) -> set[str]:
    try:
        return {ref.step for ref in iter_refs(expr)}
    except RefError as exc:
        raise ValueError(f"{where}: {exc}") from exc


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


def load_tasks(split: str) -> list[Task]:
    """Load every task of a split from `kopa_bench/tasks/data/<split>/*.json`, sorted by id."""
    root = resources.files("kopa_bench.tasks") / "data" / split
    if not root.is_dir():
        raise TaskFileError(f"no task folder for split {split!r} at {root}; valid splits are 'test' and 'dev'")
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

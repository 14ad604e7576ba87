"""Gold program executor: run a task's steps against a client and record everything scoring needs.

Steps run group by group; the steps of one group run concurrently (asyncio.gather), which is
also how a parallel-capable agent would issue them. For every step the GoldRun keeps the tool,
the resolved arguments, the ToolResult, the picked records, whether it was skipped, and the
data-flow edges actually used (argument <- source step, path, transform).

A step with `for_each` or `pages` runs as several gold calls, its *expansions* (`s2[0]`,
`s2[1]`, ...: one per element, or one per page), each a StepRun of its own that scoring matches
like any step; the step's own StepRun is then an *aggregate* (no call of its own) whose records
are the expansions' records concatenated, which its picks and later references read.
"""

from __future__ import annotations

import asyncio
from itertools import groupby
from typing import Any, Protocol

from pydantic import BaseModel, Field

from kopa_bench.client.result import ToolResult
from kopa_bench.tasks.task_schema import Step, Task
from kopa_bench.tasks.expand import each_elements, next_page
from kopa_bench.tasks.picks import apply_pick, eval_condition
from kopa_bench.tasks.refs import EACH, RefError, SkippedStepError, Use, clock_now
from kopa_bench.tasks.resolve import Each, Resolver

# Roots whose values come from a tool *result*; `args` refs copy the gold's own input, not data flow.
_FLOW_ROOTS = {"items", "picked", "picks", "total_count", "count"}


class ToolExecutor(Protocol):
    """Runs one tool call and never raises for a tool-level problem (it comes back as the
    result's `error`): KopaClient, testing.FakeClient, the Space's instrumented client."""

    async def call(self, tool: str, arguments: dict[str, Any]) -> ToolResult: ...


class ProgramError(RuntimeError):
    """The gold program cannot run: the message names task, step and the failing path or call."""

    def __init__(self, message: str, run: "StepRun | None" = None):
        super().__init__(message)
        self.run = run  # the failed call's step run (its error result), when a call failed


class Edge(BaseModel):
    """A data dependency the gold program used: `step.arg` <- `source_step.path` (+ transform)."""

    step: str = Field(description="consuming step id")
    arg: str = Field(description="argument name of the consuming step ('a.b' for nested)")
    source_step: str = Field(description="producing step id")
    path: str = Field(description="reference as written, e.g. '$s1.picked.stationName'")
    transform: str | None = Field(default=None, description="transform applied to the source value")
    transform_args: dict[str, Any] = Field(default_factory=dict, description="resolved transform arguments")
    value: Any = Field(default=None, description="the value the gold program passed (after transform)")
    template: bool = Field(default=False, description="the value is embedded in a longer string")
    at: list[str | int] = Field(default_factory=list, description="where inside the argument the value sits (list index or object key; [] = the whole argument)")
    expr: Any = Field(default=None, description="the gold expression that computes the value at `at` (a reference, a template, or a transform of references)")


class StepRun(BaseModel):
    """What happened to one gold step."""

    step_id: str
    tool: str
    group: int
    args: dict[str, Any] = Field(default_factory=dict, description="resolved arguments (JSON-able)")
    result: ToolResult | None = None
    picked: dict[str, Any] | None = None
    picked_index: int | None = None
    picked_by_name: dict[str, dict[str, Any] | None] = Field(default_factory=dict, description="named picks (Step.picks) -> record")
    picked_index_by_name: dict[str, int | None] = Field(default_factory=dict, description="named picks -> record index")
    skipped: bool = False
    skip_reason: str = ""
    edges: list[Edge] = Field(default_factory=list)
    alternatives: dict[str, list[Any]] = Field(default_factory=dict, description="argument -> other accepted values, resolved")
    aggregate: bool = Field(default=False, description="a for_each / paged step's own run: no call, its expansions' records concatenated")
    expansions: list[str] = Field(default_factory=list, description="ids of the aggregate's calls, in order")
    expansion_of: str | None = Field(default=None, description="for an expansion: the step it expands")
    each_source: str | None = Field(default=None, description="for a for_each expansion: the element's reference, e.g. '$s1.items[3]'")
    page: int | None = Field(default=None, description="for a page of a paged step: its index (0 = the first page)")
    page_params: list[str] = Field(default_factory=list, description="for a page: the arguments that change from page to page")

    @property
    def expansion_index(self) -> int | None:
        """k of an expansion `s2[k]` (the element or page index); None for any other run."""
        return int(self.step_id.rsplit("[", 1)[1].rstrip("]")) if self.expansion_of is not None else None

    # the StepView interface used by Resolver
    @property
    def records(self) -> list[dict[str, Any]]:
        return self.result.records if self.result is not None else []

    @property
    def total_count(self) -> int | None:
        return self.result.total_count if self.result is not None else None

    @property
    def ok(self) -> bool:
        return self.result is not None and self.result.ok

    @property
    def result_code(self) -> str:
        return self.result.result_code if self.result is not None else ""


class GoldRun(BaseModel):
    """All step runs of one execution of a task's gold program."""

    task_id: str
    clock: str | None = Field(default=None, description="world time the program ran at (ISO)")
    steps: list[StepRun] = Field(default_factory=list)
    stopped: str | None = Field(default=None, description="partial runs only: why execution stopped early "
                                                          "(the failed call is the last step run)")

    def step(self, step_id: str) -> StepRun:
        for s in self.steps:
            if s.step_id == step_id:
                return s
        raise KeyError(f"gold run of {self.task_id} has no step {step_id!r}")

    @property
    def by_id(self) -> dict[str, StepRun]:
        return {s.step_id: s for s in self.steps}

    @property
    def executed(self) -> list[StepRun]:
        """The gold calls: steps that ran, with a for_each / paged step counted as its expansions."""
        return [s for s in self.steps if not s.skipped and not s.aggregate]

    @property
    def ran(self) -> list[StepRun]:
        """Every step run that was not skipped, aggregates included (what picks were applied to)."""
        return [s for s in self.steps if not s.skipped]

    @property
    def edges(self) -> list[Edge]:
        return [e for s in self.executed for e in s.edges]

    def resolver(self, clock: Any = None, where: str = "") -> Resolver:
        return Resolver(self.by_id, clock=clock, where=where or f"task {self.task_id}")


_SPECIAL = ("$ref", "$clock", "$value")


def _value_nodes(expr: Any, at: tuple = ()):
    """(position, expression) of each value an argument is built from: a list or a plain object
    is walked into; a reference, a template or a transform is one value (however nested)."""
    if isinstance(expr, dict) and not any(k in expr for k in _SPECIAL):
        for key, val in expr.items():
            yield from _value_nodes(val, (*at, key))
    elif isinstance(expr, list):
        for i, val in enumerate(expr):
            yield from _value_nodes(val, (*at, i))
    else:
        yield at, expr


def _edges(step_id: str, arg: str, expr: Any, resolver: Resolver) -> list[Edge]:
    """One edge per value of the argument and step it reads from (a template: per reference)."""
    out: list[Edge] = []
    for at, node in _value_nodes(expr):
        uses: list[Use] = []
        value = resolver.value(node, uses)
        seen: set[str] = set()
        for u in uses:
            root = u.ref.path[0] if u.ref.path else "items"
            if root not in _FLOW_ROOTS or u.ref.step == EACH:  # an element of a written list is a literal
                continue
            key = u.ref.raw if u.template else u.ref.step
            if key in seen:  # a pair of fields of one record feeding one value is one flow
                continue
            seen.add(key)
            out.append(Edge(step=step_id, arg=arg, source_step=u.ref.step, path=u.ref.raw, transform=u.transform,
                            transform_args=u.transform_args, value=u.value if u.template else value,
                            template=u.template, at=list(at), expr=node))
    return out
    return out


def _apply_picks(task: Task, step: Step, run: StepRun, resolver: Resolver) -> None:
    try:
        if step.pick is not None:
            run.picked_index, run.picked = apply_pick(step.pick, run.records, resolver)
        for name, pick in step.picks.items():
            run.picked_index_by_name[name], run.picked_by_name[name] = apply_pick(pick, run.records, resolver)
    except RefError as exc:
        raise ProgramError(f"task {task.id} step {step.id} pick: {exc}") from exc


async def _call(task: Task, run: StepRun, client: ToolExecutor) -> None:
    result = await client.call(run.tool, run.args)
    run.result = result
    if not result.ok or result.error is not None:
        msg = result.error.message if result.error else result.result_msg
        raise ProgramError(f"task {task.id} step {run.step_id}: gold call {run.tool}({run.args}) failed: {msg} "
                           f"(code {result.result_code or getattr(result.error, 'code', '')})", run=run)


def _resolve_args(step: Step, run: StepRun, resolver: Resolver) -> None:
    for arg, expr in step.args.items():
        uses: list[Use] = []
        run.args[arg] = resolver.value(expr, uses)
        if uses:
            run.edges.extend(_edges(run.step_id, arg, expr, resolver))
    for arg, alts in step.alternatives.items():
        run.alternatives[arg] = [resolver.value(a) for a in alts]


def _aggregate(step: Step, parts: list[StepRun], total: int | None) -> StepRun:
    records = [r for p in parts for r in p.records]
    result = ToolResult(tool=step.tool, arguments={}, ok=True, result_code="00", result_msg="aggregate",
                        total_count=total if total is not None else len(records), records=records)
    return StepRun(step_id=step.id, tool=step.tool, group=step.group, result=result, aggregate=True,
                   expansions=[p.step_id for p in parts])


async def _run_for_each(task: Task, step: Step, runs: dict[str, StepRun], client: ToolExecutor, clock: Any, resolver: Resolver) -> list[StepRun]:
    where = f"task {task.id} step {step.id} for_each"
    try:
        elements = each_elements(step.for_each, resolver, where)
    except SkippedStepError:
        raise
    except RefError as exc:
        raise ProgramError(str(exc)) from exc
    parts = []
    for i, (value, source) in enumerate(elements):
        part = StepRun(step_id=f"{step.id}[{i}]", tool=step.tool, group=step.group, expansion_of=step.id, each_source=source)
        inner = Resolver(runs, clock=clock, where=f"task {task.id} step {part.step_id}", each=Each(value, source))
        try:
            _resolve_args(step, part, inner)
        except SkippedStepError:
            raise
        except RefError as exc:
            raise ProgramError(str(exc)) from exc
        parts.append(part)
    await asyncio.gather(*(_call(task, p, client) for p in parts))
    total = sum(p.total_count if p.total_count is not None else len(p.records) for p in parts)
    return [*parts, _aggregate(step, parts, total)]


async def _run_pages(task: Task, step: Step, run: StepRun, client: ToolExecutor) -> list[StepRun]:
    """Fetch page after page (each needs the last one's length) until a short page or the total."""
    pages = step.pages
    parts: list[StepRun] = []
    args = dict(run.args)
    while True:
        part = StepRun(step_id=f"{step.id}[{len(parts)}]", tool=step.tool, group=step.group, args=dict(args),
                       edges=[e.model_copy(update={"step": f"{step.id}[{len(parts)}]"}) for e in run.edges],
                       alternatives=run.alternatives,
                       expansion_of=step.id, page=len(parts), page_params=pages.params)
        await _call(task, part, client)
        parts.append(part)
        args = next_page(pages, args, parts)
        if args is None:
            break
        if len(parts) == pages.max_pages:
            raise ProgramError(f"task {task.id} step {step.id} pages: {pages.max_pages} pages fetched and the last was full; "
                               f"raise pages.max_pages or the page size (args.{pages.size or pages.end})")
    first = parts[0]
    whole = first.total_count is not None and first.total_count > len(first.records)  # a total of all rows, not of one page
    return [*parts, _aggregate(step, parts, first.total_count if whole else None)]


async def _run_step(task: Task, step: Step, runs: dict[str, StepRun], client: ToolExecutor, clock: Any) -> list[StepRun]:
    """The step's run(s): one StepRun, or a for_each / paged step's expansions and then its aggregate."""
    run = StepRun(step_id=step.id, tool=step.tool, group=step.group)
    resolver = Resolver(runs, clock=clock, where=f"task {task.id} step {step.id}")
    try:
        if step.condition is not None and not eval_condition(step.condition, resolver):
            run.skipped, run.skip_reason = True, f"condition {step.condition.ref} {step.condition.op} {step.condition.value!r} is false"
            return [run]
        if step.for_each is not None:
            out = await _run_for_each(task, step, runs, client, clock, resolver)
        else:
            _resolve_args(step, run, resolver)
            out = None
    except SkippedStepError as exc:
        # A step that depends on a skipped branch belongs to that branch: skip it too.
        run.skipped, run.skip_reason = True, str(exc)
        run.args, run.edges, run.alternatives = {}, [], {}
        return [run]
    except RefError as exc:
        raise ProgramError(str(exc)) from exc
    if out is None:
        if step.pages is not None:
            out = await _run_pages(task, step, run, client)
        else:
            await _call(task, run, client)
            out = [run]
    _apply_picks(task, step, out[-1], resolver)
    return out


async def execute_program(task: Task, client: ToolExecutor, clock: Any = None, *, partial: bool = False) -> GoldRun:
    """Run the gold program of `task` with `client`.

    Without an explicit clock the world clock is used (2026-11-30 09:00 KST unless
    KOPA_WORLD_NOW says otherwise), so `$clock` values resolve exactly as the sandbox does.
    `partial=True` returns what ran up to the first failure instead of raising (`GoldRun.stopped`
    says why; a failed call is kept with its error result): EDGE's unverified-graph ablation keeps
    such trajectories as they come."""
    if clock is None:
        from kopa_bench.clock import WorldClock

        clock = WorldClock()
    runs: dict[str, StepRun] = {}
    try:
        now = clock_now(clock).isoformat()
    except Exception:  # the clock is informative here; a broken one fails where it is used
        now = None
    for _, group in groupby(task.program, key=lambda s: s.group):
        steps = list(group)
        # snapshot so steps of one group cannot see each other (they are independent by contract)
        snapshot = dict(runs)
        # every step of the group finishes before a failure is reported, so the failure reported is the
        # first in program order (not whichever call came back first) and a partial run keeps its siblings
        done = await asyncio.gather(*(_run_step(task, s, snapshot, client, clock) for s in steps),
                                    return_exceptions=True)
        failed = next((out for out in done if isinstance(out, BaseException)), None)
        if failed is not None and (not partial or not isinstance(failed, ProgramError)):
            raise failed
        for out in done:
            if not isinstance(out, BaseException):
                for run in out:
                    runs[run.step_id] = run
        if failed is not None:
            if failed.run is not None:
                runs[failed.run.step_id] = failed.run
            return GoldRun(task_id=task.id, clock=now, steps=list(runs.values()), stopped=str(failed))
    order = [r for s in task.program for r in ([runs[e] for e in runs[s.id].expansions] + [runs[s.id]])]
    return GoldRun(task_id=task.id, clock=now, steps=order)


def each_of(task: Task, gold: GoldRun, step_id: str) -> Each | None:
    """The current element of the for_each expansion `step_id` (None for any other step run), so
    its gold expressions (`$each.x`) can be evaluated again on other results (an agent's): bound
    to the same record of the source step, or the element's value for a written list."""
    run = gold.by_id.get(step_id)
    if run is None or run.expansion_of is None or run.page is not None:
        return None
    if run.each_source is not None:
        return Each(None, run.each_source)
    step = task.step(run.expansion_of)
    elements = each_elements(step.for_each, gold.resolver(), f"task {task.id} step {step.id} for_each")
    k = run.expansion_index
    return Each(elements[k][0], None)


def execute_program_sync(task: Task, client: ToolExecutor, clock: Any = None) -> GoldRun:
    """Synchronous wrapper (for scripts and notebooks without a running loop)."""
    return asyncio.run(execute_program(task, client, clock))

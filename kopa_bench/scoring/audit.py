"""The scorer's mutation audit: perturb the oracle's trajectory of every task and score each variant.

A real error must score lower on the axis it breaks; a harmless variant must change no axis.
Real errors: a wrong value per argument, an extra argument, a type change (a scalar sent as a
list, a number as a boolean), a dropped leading zero, a value from another record of the source
step (swapped source), a dropped call, an extra call. Harmless: parallel calls reordered, case /
space / punctuation variants of free text, the same value in another JSON type that reaches the
platform unchanged, another page size, and the pages of a paged step fetched by one bigger call
(which changes only `efficiency`, the call count, so that axis is not compared for it).

Format 2.0 steps are mutated like any other: each for_each expansion and each page is a call of
the oracle's trajectory (its arguments mutated, the call dropped); a swapped source of a for_each
expansion reads another record than the element's, one through a named pick another record than
the pick's.

The oracle's trajectory is the gold run's own calls and results with an answer stating every fact
(`answer`, e.g. the oracle agent's answer text). Mutated calls keep the results the gold calls got:
the audit judges how calls are read, not what the platform would answer to them.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from itertools import groupby
from typing import Any, Callable, Iterator

from pydantic import BaseModel, Field

from kopa_bench.catalog.registry import get_catalog
from kopa_bench.episodes import CallRecord, Episode
from kopa_bench.scoring.episode_score import EpisodeScore, score_episode
from kopa_bench.scoring.values import text_form, tool_kinds, wire
from kopa_bench.tasks.facts import ResolvedFact, compute_answer
from kopa_bench.tasks.program import Edge, GoldRun, StepRun, ToolExecutor, each_of, execute_program
from kopa_bench.tasks.refs import RefError, parse_ref
from kopa_bench.tasks.resolve import Resolver
from kopa_bench.tasks.task_schema import Task

AXES = ("success", "response", "grounded", "action_precision", "action_recall", "data_flow", "state", "efficiency")

# kind -> (real error?, the axis a real error must lower)
KINDS: dict[str, tuple[bool, str | None]] = {
    "wrong_value": (True, "action_recall"),
    "extra_argument": (True, "action_recall"),
    "type_change": (True, "action_recall"),
    "dropped_leading_zero": (True, "action_recall"),
    "swapped_source": (True, "data_flow"),
    "dropped_call": (True, "action_recall"),
    "extra_call": (True, "action_precision"),
    "echoed_results": (True, "response"),
    "reordered_parallel": (False, None),
    "text_case": (False, None),
    "text_space": (False, None),
    "text_punctuation": (False, None),
    "same_wire_value": (False, None),
    "paging": (False, None),
    "merged_pages": (False, None),
}

# axes a harmless kind may change: fetching all pages in one call is leaner, the verdicts stay
SPARED: dict[str, tuple[str, ...]] = {"merged_pages": ("efficiency",)}

_LEADING_ZERO = re.compile(r"0+\d+")


@dataclass
class Mutant:
    kind: str
    where: str
    calls: list[CallRecord]
    format2: bool = False
    final: str | None = None  # a replaced final answer (None: the oracle's)


class MutationResult(BaseModel):
    task_id: str
    kind: str
    where: str = Field(description="what was changed, e.g. 's2.LAWD_CD'")
    real: bool
    axis: str | None = None
    changed: list[str] = Field(default_factory=list, description="axes whose value differs from the oracle's")
    caught: bool = Field(description="real: the axis is lower; harmless: no axis changed")
    format2: bool = Field(default=False, description="the mutated call is a for_each expansion or a page, or reads a named pick or an aggregate")


class KindRow(BaseModel):
    kind: str
    real: bool
    axis: str | None
    n: int
    caught: int
    n_format2: int = Field(default=0, description="of n, mutants of a for_each expansion, a page, or a value read through a named pick or an aggregate")
    rate: float = Field(description="real: kill rate (lower on its axis); harmless: change rate (any axis changed)")


class AuditReport(BaseModel):
    n_tasks: int
    n_mutations: int
    kinds: list[KindRow]
    real_error_kill_rate: float
    harmless_change_rate: float
    seconds: float = Field(description="wall-clock seconds (gold runs included)")
    cpu_seconds: float = Field(description="CPU seconds of this process")
    oracle_not_perfect: list[str] = Field(default_factory=list, description="tasks whose unmutated oracle is below 1.0 somewhere")
    failures: list[MutationResult] = Field(default_factory=list, description="real errors not caught and harmless variants that changed a score")
    gold_errors: dict[str, str] = Field(default_factory=dict)


# -- building mutants -------------------------------------------------------------------------

def oracle_calls(gold: GoldRun) -> list[CallRecord]:
    """The gold run's calls as an agent's, one turn per parallel group."""
    calls = []
    for turn, (_, group) in enumerate(groupby(gold.executed, key=lambda s: s.group)):
        for run in group:
            calls.append(CallRecord(id=f"call_{run.step_id}", turn=turn, tool=run.tool, arguments=dict(run.args),
                                    result=run.result))
    return calls


def _with_args(calls: list[CallRecord], i: int, args: dict[str, Any]) -> list[CallRecord]:
    out = list(calls)
    out[i] = calls[i].model_copy(update={"arguments": args})
    return out


def _wrong(value: Any, kind: str | None) -> Any:
    """A value of the same JSON type that makes a different request."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 1.5
    if isinstance(value, list):
        return [_wrong(value[0], kind), *value[1:]] if value else ["x"]
    if isinstance(value, dict):
        return {k: _wrong(v, kind) for k, v in value.items()}
    s = wire(value)
    n = _number(s)
    if kind == "number" and n is not None:
        return str(int(n) + 1) if n.is_integer() else str(n + 1.5)
    if s and s[-1].isdigit():
        return s[:-1] + str((int(s[-1]) + 1) % 10)
    return s + "X" if kind == "code" else s + " 외"


def _number(s: str) -> float | None:
    try:
        return float(s)
    except ValueError:
        return None


def _set_at(value: Any, at: list, new: Any) -> Any:
    if not at:
        return new
    head, rest = at[0], at[1:]
    if isinstance(value, list):
        out = list(value)
        out[head] = _set_at(value[head], rest, new)
        return out
    out = dict(value)
    out[head] = _set_at(value[head], rest, new)
    return out


def _step_args(task: Task, gold: GoldRun, calls: list[CallRecord]) -> Iterator[tuple[int, StepRun, str, Any, str | None]]:
    """(call index, gold run, argument, gold value, kind) of every compared argument of the oracle's
    calls (a page's paging arguments are the agent's to choose, so not compared)."""
    index = {c.id: i for i, c in enumerate(calls)}
    for run in gold.executed:
        step, kinds = task.step(run.step_id), tool_kinds(run.tool)
        for arg, value in run.args.items():
            if arg in step.match_ignore or kinds.ignored(arg) or arg in run.page_params:
                continue
            yield index[f"call_{run.step_id}"], run, arg, value, kinds.kind(arg)


def _format2(task: Task, gold: GoldRun, step_id: str) -> bool:
    """Is the gold run `step_id` an expansion, or does it read a named pick or an aggregate?"""
    run = gold.step(step_id)
    return run.expansion_of is not None or any(
        ".picks." in e.path or gold.step(e.source_step).aggregate for e in run.edges)


def _text_variants(value: str) -> dict[str, str]:
    out = {}
    upper = value.upper() if value != value.upper() else value.lower()
    if upper != value:
        out["text_case"] = upper
    if re.search(r"\s", value):
        out["text_space"] = re.sub(r"\s+", "", value)
        out["text_punctuation"] = re.sub(r"\s+", ", ", value, count=1)
    else:
        out["text_punctuation"] = value + "."
    return out


def _swapped(task: Task, gold: GoldRun, edge: Edge) -> Any:
    """The edge's value read from another record of the source step (None when none differs)."""
    src = gold.step(edge.source_step)
    if edge.expr is None or not src.records or "[*]" in edge.path:
        return None
    target = edge.value
    ref = parse_ref(edge.path)
    # the record the edge reads now: its named pick's, else the step's pick
    own = src.picked_index_by_name.get(ref.path[1]) if ref.path[:1] == ("picks",) and len(ref.path) > 1 else src.picked_index
    for j, record in enumerate(src.records):
        if j == own:
            continue
        view = src.model_copy(update={"picked": record, "picked_index": j,
                                      "picked_by_name": {n: record for n in src.picked_by_name},
                                      "picked_index_by_name": {n: j for n in src.picked_index_by_name},
                                      "result": src.result.model_copy(update={"records": [record] * len(src.records)})})
        try:
            steps = {**gold.by_id, edge.source_step: view}
            r = Resolver(steps, clock=gold.clock, each=each_of(task, gold, edge.step))
            value = r.path(parse_ref(edge.path)) if edge.template else r.value(edge.expr)
        except (RefError, KeyError, IndexError, TypeError, ValueError):
            continue
        if text_form(wire(value)) != text_form(wire(target)) and value not in (None, "", []):
            return value
    return None


def mutants(task: Task, gold: GoldRun) -> Iterator[Mutant]:
    """Every mutation of the oracle's trajectory of `task`, each flagged when it touches a
    format 2.0 construct (a for_each expansion, a page, a named pick, an aggregate)."""
    for m in _mutants(task, gold):
        step_id = m.where.split(" ", 1)[0].split(".", 1)[0]
        m.format2 = m.format2 or step_id in gold.by_id and _format2(task, gold, step_id)
        yield m


def _merged_pages(task: Task, gold: GoldRun, calls: list[CallRecord]) -> Iterator[Mutant]:
    """Each paged step's page calls replaced by one call with a page as big as all of them."""
    index = {c.id: i for i, c in enumerate(calls)}
    for run in gold.ran:
        step = task.step(run.step_id)
        if not run.aggregate or step.pages is None or len(run.expansions) < 2:
            continue
        pages = [gold.step(e) for e in run.expansions]
        first = index[f"call_{pages[0].step_id}"]
        args = dict(calls[first].arguments or {})
        if step.pages.size:
            args[step.pages.size] = int(args[step.pages.size]) * len(pages)
        else:
            args[step.pages.end] = pages[-1].args[step.pages.end]
        records = [r for p in pages for r in p.records]
        result = pages[0].result.model_copy(update={"records": records, "arguments": args})
        merged = calls[first].model_copy(update={"id": f"call_{run.step_id}_all", "arguments": args, "result": result})
        drop = {index[f"call_{p.step_id}"] for p in pages}
        out = [merged if j == first else c for j, c in enumerate(calls) if j == first or j not in drop]
        yield Mutant("merged_pages", f"{pages[0].step_id} ({len(pages)} pages in one call)", out)


def _echo(calls: list[CallRecord]) -> str | None:
    """The final answer of a model that pastes its tool results instead of answering."""
    return "\n".join(c.result.for_model() for c in calls if c.records) or None


def _mutants(task: Task, gold: GoldRun) -> Iterator[Mutant]:
    calls = oracle_calls(gold)
    echo = _echo(calls)
    if echo is not None:
        yield Mutant("echoed_results", "final answer", calls, final=echo)
    catalog = get_catalog()
    index = {c.id: i for i, c in enumerate(calls)}
    for i, run, arg, value, kind in _step_args(task, gold, calls):
        args = calls[i].arguments or {}
        where = f"{run.step_id}.{arg}"
        yield Mutant("wrong_value", where, _with_args(calls, i, {**args, arg: _wrong(value, kind)}))
        if not isinstance(value, (list, dict)):
            yield Mutant("type_change", where, _with_args(calls, i, {**args, arg: [value]}))
        if kind == "number" or (kind is None and isinstance(value, (int, float)) and not isinstance(value, bool)):
            yield Mutant("type_change", f"{where} (boolean)", _with_args(calls, i, {**args, arg: True}))
        if isinstance(value, str) and kind in ("code", None) and _LEADING_ZERO.fullmatch(value):
            yield Mutant("dropped_leading_zero", where, _with_args(calls, i, {**args, arg: int(value)}))
        if isinstance(value, str) and kind in ("text", None):
            for k, variant in _text_variants(value).items():
                yield Mutant(k, where, _with_args(calls, i, {**args, arg: variant}))
        if kind == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
            yield Mutant("same_wire_value", where, _with_args(calls, i, {**args, arg: wire(value)}))
        if kind == "code" and isinstance(value, str) and re.fullmatch(r"[1-9]\d{0,15}", value):
            yield Mutant("same_wire_value", where, _with_args(calls, i, {**args, arg: int(value)}))
    for run in gold.executed:
        i, kinds = index[f"call_{run.step_id}"], tool_kinds(run.tool)
        args = calls[i].arguments or {}
        ref = catalog.get(run.tool) if run.tool in catalog else None
        extra, skip = None, set(task.step(run.step_id).match_ignore)  # free choices of the gold's
        if ref is not None:
            for p in ref.op.model_params:
                if (p.name not in args and p.name not in skip and p.match_kind != "ignore"
                        and p.example not in (None, "") and p.example != p.default):
                    extra = (p.name, p.example)
                    break
        yield Mutant("extra_argument", f"{run.step_id}.{(extra or ('zz_extra',))[0]}",
                     _with_args(calls, i, {**args, **dict([extra or ("zz_extra", "1")])}))
        if ref is not None:
            paging = {p.name: (p.example if p.example is not None else 2) for p in ref.op.model_params
                      if p.match_kind == "ignore" and p.type == "integer"}
            if paging:
                yield Mutant("paging", run.step_id, _with_args(calls, i, {**args, **{k: int(v) + 1 for k, v in paging.items()}}))
        yield Mutant("dropped_call", run.step_id, calls[:i] + calls[i + 1:])
    distractors = [t for t in task.tools if t not in task.gold_tools and t in catalog]
    if distractors:
        op = catalog.get(distractors[0]).op
        dargs = {p.name: p.example for p in op.model_params if p.required and p.example is not None}
        extra = CallRecord(id="call_extra", turn=calls[-1].turn if calls else 0, tool=op.tool, arguments=dargs)
    elif calls:
        extra = calls[-1].model_copy(update={"id": "call_extra"})
    else:
        extra = None
    if extra is not None:
        yield Mutant("extra_call", extra.tool, [*calls, extra])
    for _, group in groupby(range(len(calls)), key=lambda j: calls[j].turn):
        idx = list(group)
        if len(idx) > 1:
            out = list(calls)
            out[idx[0]:idx[-1] + 1] = [calls[j] for j in reversed(idx)]
            steps = [calls[j].id.removeprefix("call_") for j in idx]
            yield Mutant("reordered_parallel", f"turn {calls[idx[0]].turn}", out,
                         format2=any(_format2(task, gold, s) for s in steps if s in gold.by_id))
    yield from _merged_pages(task, gold, calls)
    for edge in gold.edges:
        new = _swapped(task, gold, edge)
        if new is None:
            continue
        i = index[f"call_{edge.step}"]
        args = dict(calls[i].arguments or {})
        if edge.arg not in args:
            continue
        if edge.template:
            old = wire(edge.value)
            if not old or old not in wire(args[edge.arg]):
                continue
            args[edge.arg] = wire(args[edge.arg]).replace(old, wire(new))
        else:
            try:
                args[edge.arg] = _set_at(args[edge.arg], edge.at, new)
            except (KeyError, IndexError, TypeError):
                continue
        yield Mutant("swapped_source", f"{edge.step}.{edge.arg} <- {edge.path}", _with_args(calls, i, args))


# -- scoring them -----------------------------------------------------------------------------

def _axes(s: EpisodeScore) -> dict[str, Any]:
    return {a: getattr(s, a) for a in AXES}


def audit_task(task: Task, gold: GoldRun, facts: list[ResolvedFact], answer: Callable[[list[ResolvedFact]], str]) -> tuple[dict[str, Any], list[MutationResult]]:
    """(the oracle's axes, one result per mutant) for one task."""
    final = answer(facts)

    def score(calls: list[CallRecord], answer_text: str | None = None) -> EpisodeScore:
        ep = Episode(task_id=task.id, model="oracle-mutant", final_answer=final if answer_text is None else answer_text, calls=calls)
        return score_episode(task, gold, ep, facts)

    base = _axes(score(oracle_calls(gold)))
    out = []
    for m in mutants(task, gold):
        real, axis = KINDS[m.kind]
        got = _axes(score(m.calls, m.final))
        changed = [a for a in AXES if got[a] != base[a]]
        if real:
            caught = base[axis] is not None and got[axis] is not None and got[axis] < base[axis]
        else:
            caught = not [a for a in changed if a not in SPARED.get(m.kind, ())]
        out.append(MutationResult(task_id=task.id, kind=m.kind, where=m.where, real=real, axis=axis,
                                  changed=changed, caught=caught, format2=m.format2))
    return base, out


def summarise(results: list[MutationResult], n_tasks: int, seconds: float, cpu_seconds: float,
              oracle_not_perfect: list[str], gold_errors: dict[str, str]) -> AuditReport:
    rows = []
    for kind, (real, axis) in KINDS.items():
        rs = [r for r in results if r.kind == kind]
        hit = sum(r.caught for r in rs) if real else sum(not r.caught for r in rs)
        rows.append(KindRow(kind=kind, real=real, axis=axis, n=len(rs), caught=hit, rate=hit / len(rs) if rs else 0.0,
                            n_format2=sum(r.format2 for r in rs)))
    real_rs = [r for r in results if r.real]
    harmless = [r for r in results if not r.real]
    return AuditReport(
        n_tasks=n_tasks, n_mutations=len(results), kinds=rows,
        real_error_kill_rate=sum(r.caught for r in real_rs) / len(real_rs) if real_rs else 1.0,
        harmless_change_rate=sum(not r.caught for r in harmless) / len(harmless) if harmless else 0.0,
        seconds=round(seconds, 2), cpu_seconds=round(cpu_seconds, 2), oracle_not_perfect=oracle_not_perfect,
        failures=[r for r in results if not r.caught], gold_errors=gold_errors)


async def audit_tasks(tasks: list[Task], client: ToolExecutor, answer: Callable[[list[ResolvedFact]], str],
                      clock: Any = None) -> AuditReport:
    """Run every task's gold program on `client`, mutate its oracle trajectory and score each mutant."""
    t0, c0 = time.perf_counter(), time.process_time()
    results: list[MutationResult] = []
    imperfect: list[str] = []
    errors: dict[str, str] = {}
    for task in tasks:
        try:
            gold = await execute_program(task, client, clock)
            facts = compute_answer(task, gold, clock)
        except Exception as exc:  # reported, the other tasks still audited
            errors[task.id] = f"{type(exc).__name__}: {exc}"
            continue
        base, rs = audit_task(task, gold, facts, answer)
        if any(v is not None and v != 1.0 for a, v in base.items() if a not in ("efficiency",)) or base["success"] is not True:
            imperfect.append(task.id)
        results.extend(rs)
    return summarise(results, len(tasks) - len(errors), time.perf_counter() - t0, time.process_time() - c0,
                     imperfect, errors)


def audit_tasks_sync(tasks: list[Task], client: ToolExecutor, answer: Callable[[list[ResolvedFact]], str],
                     clock: Any = None) -> AuditReport:
    return asyncio.run(audit_tasks(tasks, client, answer, clock))

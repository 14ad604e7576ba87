"""Match agent calls to gold steps (the ACTION axis) and find each step's corresponding call.

A gold step is matched by an agent call to the same tool that would make the same request: every
gold argument given with an equal value (kopa_bench.scoring.values: by the parameter's kind in the
catalog, or one of the step's `alternatives`), none left out unless the step marks it `optional`,
and no argument the gold does not give (parameters of kind `ignore` and the step's `match_ignore`
aside; a parameter set to the value the client sends anyway is no change). A call the platform
never received (a parse, unknown-tool or argument error) matches nothing.

Order is free except where data flows or the step says `after`: a step's call must come after the
calls of the steps it reads from or must follow, so parallel-group order never matters. Each
agent call matches at most one gold step, except that one call may cover several pages of a
paged step (an agent that asked for bigger pages fetched them all at once).

The expansions of a for_each step are gold steps like any other. A page of a paged step is
matched by a call with the step's arguments (the paging ones aside, whatever the agent gives
for them) that received every record of that page.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from kopa_bench.episodes import CallRecord
from kopa_bench.scoring.normalize import _SCALARS
from kopa_bench.scoring.values import ToolKinds, blank, tool_kinds, values_equal
from kopa_bench.tasks.program import GoldRun, StepRun
from kopa_bench.tasks.refs import to_number
from kopa_bench.tasks.task_schema import Step, Task

# error kinds of a call the platform never received: such a call cannot be a gold step
REJECTED = frozenset({"parse", "unknown_tool", "argument"})


def norm_text(v: Any) -> str:
    """Text form for substring checks (a value embedded in a templated argument): no number
    parsing, so '807' stays '807' and is found in '태평로1가 807'."""
    return "" if v is None else " ".join(unicodedata.normalize("NFKC", str(v)).split()).lower()


def norm_value(v: Any) -> Any:
    """A loose canonical form (numbers as floats, strings NFKC/trimmed/lower), for callers that
    compare values without a parameter's kind."""
    if isinstance(v, list):
        return [norm_value(x) for x in v]
    if isinstance(v, dict):
        return {k: norm_value(x) for k, x in v.items()}
    if type(v) in _SCALARS:
        return _norm_scalar(v)
    return _norm_scalar.__wrapped__(v)


@lru_cache(maxsize=1 << 16, typed=True)  # typed: 1, 1.0 and True normalise differently
def _norm_scalar(v: Any) -> Any:
    n = to_number(v)
    if n is not None and not isinstance(v, bool):
        return n
    if v is None:
        return ""
    return " ".join(unicodedata.normalize("NFKC", str(v)).split()).lower()


def rejected(call: CallRecord) -> bool:
    """Did the call come back with a parse, unknown-tool or argument error (never sent on)?"""
    if call.error_kind in REJECTED:
        return True
    err = call.result.error if call.result is not None else None
    return err is not None and err.type in REJECTED


def arg_mismatches(run: StepRun, step: Step | None, agent_args: dict[str, Any] | None,
                   kinds: ToolKinds | None = None) -> list[str]:
    """Human-readable differences between a gold step's call and an agent's ([] = same request)."""
    if agent_args is None:
        return ["arguments unparsable"]
    kinds = kinds or tool_kinds(run.tool)
    # a page's paging arguments are the agent's to choose (bigger pages cover several gold pages)
    ignore = {*(step.match_ignore if step is not None else ()), *run.page_params}
    optional = step.optional if step is not None else ()
    out = []
    for k, g in run.args.items():
        if k in ignore or kinds.ignored(k):
            continue
        if k not in agent_args or blank(agent_args[k]):
            if not (k in optional or blank(g) or kinds.is_default(k, g)):
                out.append(f"{k} missing (gold {g!r})")
            continue
        a, kind = agent_args[k], kinds.kind(k)
        if values_equal(kind, g, a) or any(values_equal(kind, alt, a) for alt in run.alternatives.get(k, ())):
            continue
        out.append(f"{k}={a!r} (gold {g!r})")
    for k, a in agent_args.items():
        if k in run.args or k in ignore:
            continue
        if not kinds.is_param(k):
            out.append(f"unknown argument {k}={a!r} ({run.tool} has no parameter {k!r})")
        elif not (kinds.ignored(k) or blank(a) or kinds.is_default(k, a)):
            out.append(f"extra argument {k}={a!r} (the gold call leaves it out)")
    return out


@dataclass
class Matching:
    matched: dict[str, int] = field(default_factory=dict)  # step id -> agent call index
    corresponding: dict[str, int] = field(default_factory=dict)  # matched, or the closest same-tool call
    near_misses: dict[str, list[str]] = field(default_factory=dict)  # step id -> argument differences


def _must_follow(run: StepRun, step: Step | None) -> set[str]:
    """Steps whose calls must come before this step's: the ones it reads from, and its `after`."""
    out = {e.source_step for e in run.edges}
    if step is not None:
        out.update(step.after)
    return out


def _task_step(task: Task, step_id: str) -> Step | None:
    try:
        return task.step(step_id)
    except KeyError:  # a gold run of another version of the task
        return None


def _matched_at(m: Matching, gold: GoldRun, step_id: str) -> int:
    """The agent call index a step was matched at; for a for_each / paged step, its last expansion's."""
    if step_id in m.matched:
        return m.matched[step_id]
    run = gold.by_id.get(step_id)
    return max((m.matched[e] for e in (run.expansions if run else ()) if e in m.matched), default=-1)


class _Covers:
    """Did an agent call receive every record of a gold page? (records as canonical JSON, per call once)"""

    def __init__(self, calls: list[CallRecord]):
        self.calls, self._seen = calls, {}

    def __call__(self, i: int, run: StepRun) -> bool:
        if i not in self._seen:
            self._seen[i] = {json.dumps(r, ensure_ascii=False, sort_keys=True) for r in self.calls[i].records}
        return all(json.dumps(r, ensure_ascii=False, sort_keys=True) in self._seen[i] for r in run.records)


def match_calls(task: Task, gold: GoldRun, calls: list[CallRecord]) -> Matching:
    m = Matching()
    used: set[int] = set()
    pages_of: dict[int, str] = {}  # agent call -> the paged step whose pages it covers
    covers = _Covers(calls)
    live = [not rejected(c) for c in calls]
    steps = {run.step_id: _task_step(task, run.step_id) for run in gold.executed}
    for run in gold.executed:
        step = steps[run.step_id]
        after = max((_matched_at(m, gold, s) for s in _must_follow(run, step)), default=-1)
        kinds = tool_kinds(run.tool)
        if run.page is not None:
            hits = [i for i, c in enumerate(calls) if live[i] and (i not in used or pages_of.get(i) == run.expansion_of) and i > after
                    and c.tool == run.tool and c.ok and not arg_mismatches(run, step, c.arguments, kinds) and covers(i, run)]
            if hits:
                best = next((i for i in hits if i not in used), hits[0])
                m.matched[run.step_id] = m.corresponding[run.step_id] = best
                used.add(best)
                pages_of[best] = run.expansion_of
            continue
        hits = [i for i, c in enumerate(calls) if live[i] and i not in used and i > after and c.tool == run.tool
                and not arg_mismatches(run, step, c.arguments, kinds)]
        if hits:
            # a retried call: credit the attempt that succeeded
            best = next((i for i in hits if calls[i].ok), hits[0])
            m.matched[run.step_id] = m.corresponding[run.step_id] = best
            used.add(best)
    for run in gold.executed:
        if run.step_id in m.matched:
            continue
        step, kinds = steps[run.step_id], tool_kinds(run.tool)
        same = [i for i, c in enumerate(calls) if (i not in used or pages_of.get(i, "") == run.expansion_of) and c.tool == run.tool]
        if not same:
            m.near_misses[run.step_id] = [f"no call to {run.tool}"]
            continue
        diffs = {i: arg_mismatches(run, step, calls[i].arguments, kinds) for i in same}
        best = min(same, key=lambda i: (len(diffs[i]), not calls[i].ok, i))
        m.corresponding[run.step_id] = best
        why = list(diffs[best])
        if rejected(calls[best]):
            why.append(f"call #{best} was rejected ({calls[best].error_kind or calls[best].result.error.type} error)")
        elif not why and run.page is not None and not (calls[best].ok and covers(best, run)):
            why.append(f"page {run.page + 1} of {run.expansion_of}: its {len(run.records)} records were never received")
        elif not why:
            why.append(f"call #{best} comes before a call it must follow")
        m.near_misses[run.step_id] = why
    return m

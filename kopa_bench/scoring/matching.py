"""Match agent calls to gold steps (the ACTION axis) and find each step's corresponding call.

A gold step is matched by an agent call with the same tool whose arguments equal the gold's
resolved arguments after normalisation. Order is free except where data flows: a step's
call must come after the calls of the steps it reads from, so parallel-group order never
matters. Each agent call matches at most one gold step, except that one call may cover several
pages of a paged step (an agent that asked for bigger pages fetched them all at once).

The expansions of a for_each step are gold steps like any other. A page of a paged step is
matched by a call with the step's arguments (the paging ones aside) that received every record
of that page.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from kopa_bench.episodes import CallRecord
from kopa_bench.tasks.task_schema import Task
from kopa_bench.tasks.program import GoldRun, StepRun
from kopa_bench.scoring.normalize import _SCALARS
from kopa_bench.tasks.refs import to_number

# Paging / format arguments: an agent choosing numOfRows=100 instead of 10 did the same call.
IGNORED_ARGS = frozenset({
    "pageNo", "numOfRows", "returnType", "dataType", "_type", "type", "Type", "pIndex", "pSize",
    "resultType", "MobileOS", "MobileApp", "ver", "serviceKey", "KEY", "key", "apiKey", "crtfc_key",
    "startIndex", "endIndex", "START_INDEX", "END_INDEX",
})


def norm_text(v: Any) -> str:
    """Text form for substring checks (a value embedded in a templated argument): no number
    parsing, so '807' stays '807' and is found in '태평로1가 807'."""
    return "" if v is None else " ".join(unicodedata.normalize("NFKC", str(v)).split()).lower()


def norm_value(v: Any) -> Any:
    """Canonical form for comparing argument values: numbers as floats, strings NFKC/trimmed/lower."""
    if isinstance(v, list):
        return [norm_value(x) for x in v]
    if isinstance(v, dict):
        return {k: norm_value(x) for k, x in v.items()}
    if type(v) in _SCALARS:
        return _norm_scalar(v)
    return _norm_scalar.__wrapped__(v)



@lru_cache(maxsize=1 << 16, typed=True)  # typed: 1, 1.0 and True normalise differently
def _norm_scalar(v: Any) -> Any:
    """norm_value of one scalar; scoring asks for the same gold and agent arguments many times."""
    n = to_number(v)
    if n is not None and not isinstance(v, bool):
        return n
    if v is None:
        return ""
    return " ".join(unicodedata.normalize("NFKC", str(v)).split()).lower()


def values_equal(a: Any, b: Any) -> bool:
    return norm_value(a) == norm_value(b)


def arg_mismatches(gold_args: dict[str, Any], agent_args: dict[str, Any] | None, ignore: set[str]) -> list[str]:
    """Human-readable differences between gold and agent arguments ([] = the call matches)."""
    if agent_args is None:
        return ["arguments unparsable"]
    out = []
    for k, g in gold_args.items():
        if k in ignore:
            continue
        if k not in agent_args:
            out.append(f"{k} missing (gold {g!r})")
        elif not values_equal(agent_args[k], g):
            out.append(f"{k}={agent_args[k]!r} (gold {g!r})")
    return out


@dataclass
class Matching:
    matched: dict[str, int] = field(default_factory=dict)  # step id -> agent call index
    corresponding: dict[str, int] = field(default_factory=dict)  # matched, or the closest same-tool call
    near_misses: dict[str, list[str]] = field(default_factory=dict)  # step id -> argument differences


def _ignore(task: Task, run: StepRun) -> set[str]:
    return set(IGNORED_ARGS) | set(task.step(run.step_id).match_ignore) | set(run.page_params)


def _sources(run: StepRun) -> set[str]:
    return {e.source_step for e in run.edges}


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
    for run in gold.executed:
        after = max((_matched_at(m, gold, s) for s in _sources(run)), default=-1)
        ignore = _ignore(task, run)
        if run.page is not None:
            hits = [i for i, c in enumerate(calls) if (i not in used or pages_of.get(i) == run.expansion_of) and i > after
                    and c.tool == run.tool and c.ok and not arg_mismatches(run.args, c.arguments, ignore) and covers(i, run)]
            if hits:
                best = next((i for i in hits if i not in used), hits[0])
                m.matched[run.step_id] = m.corresponding[run.step_id] = best
                used.add(best)
                pages_of[best] = run.expansion_of
            continue
        hits = [i for i, c in enumerate(calls) if i not in used and i > after and c.tool == run.tool and not arg_mismatches(run.args, c.arguments, ignore)]
        if hits:
            # a retried call: credit the attempt that succeeded
            best = next((i for i in hits if calls[i].ok), hits[0])
            m.matched[run.step_id] = m.corresponding[run.step_id] = best
            used.add(best)
    for run in gold.executed:
        if run.step_id in m.matched:
            continue
        ignore = _ignore(task, run)
        same = [i for i, c in enumerate(calls) if (i not in used or pages_of.get(i, "") == run.expansion_of) and c.tool == run.tool]
        if not same:
            m.near_misses[run.step_id] = [f"no call to {run.tool}"]
            continue
        best = min(same, key=lambda i: (len(arg_mismatches(run.args, calls[i].arguments, ignore)), not calls[i].ok, i))
        m.corresponding[run.step_id] = best
        diffs = arg_mismatches(run.args, calls[best].arguments, ignore)
        if run.page is not None and not diffs:
            diffs = [f"page {run.page + 1} of {run.expansion_of}: its {len(run.records)} records were never received"]
        m.near_misses[run.step_id] = diffs
    return m

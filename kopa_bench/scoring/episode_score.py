"""Score one Episode against a task's GoldRun on every axis, with a short diagnosis.

RESPONSE  each fact stated in the final answer (after normalisation; a list fact: `need` of its items)
GROUNDED  each stated fact was in a result the agent itself received (guesses do not count)
success   every fact stated AND grounded
ACTION    precision / recall of gold calls matched by agent calls (see matching.py)
DATA FLOW per gold edge: the agent's argument (at the edge's place in it) equals what its OWN
          call for the upstream step returned, through the same record, field and transforms
STATE     share of the records the gold needed (picked + fact sources) the agent received
"""

from __future__ import annotations

import json
import math
from collections import ChainMap, Counter, OrderedDict
from typing import Any, Callable

from pydantic import BaseModel, Field

from kopa_bench.episodes import CallRecord, Episode
from kopa_bench.scoring.answer_text import read_answer
from kopa_bench.scoring.matching import Matching, match_calls, norm_text
from kopa_bench.scoring.values import text_form, tool_kinds, values_equal, wire
from kopa_bench.scoring.normalize import RecordValues, fact_in_text, items_stated
from kopa_bench.tasks.facts import ResolvedFact, compute_answer
from kopa_bench.tasks.task_schema import Task
from kopa_bench.tasks.picks import apply_pick
from kopa_bench.tasks.program import Edge, GoldRun, each_of
from kopa_bench.tasks.refs import RefError, parse_ref
from kopa_bench.tasks.resolve import Resolver


class FactScore(BaseModel):
    id: str
    value: Any
    stated: bool
    grounded: bool


class EdgeScore(BaseModel):
    step: str
    arg: str
    source_step: str
    path: str
    satisfied: bool
    detail: str = ""


class EpisodeScore(BaseModel):
    """All axes for one episode, plus the task metadata aggregates break down by."""

    task_id: str
    seed: int = 0
    model: str = ""
    domain: str = ""
    shape: str = ""
    difficulty: str = ""
    platforms: list[str] = Field(default_factory=list)
    held_out_platform: str | None = None
    success: bool = Field(description="every fact stated and grounded")
    response: float = Field(description="share of facts stated in the final answer")
    grounded: float = Field(description="share of facts stated AND found in results the agent received")
    action_precision: float = Field(description="matched agent calls / agent calls")
    action_recall: float = Field(description="matched gold calls / gold calls")
    data_flow: float | None = Field(default=None, description="share of gold edges the agent satisfied; None when the gold has no edges")
    state: float | None = Field(default=None, description="share of needed gold records the agent received; None when none are needed")
    efficiency: float = Field(description="agent calls / gold calls (1.0 = as many as the gold, lower is leaner)")
    n_calls: int
    n_gold_calls: int
    errors: dict[str, int] = Field(default_factory=dict)
    facts: list[FactScore] = Field(default_factory=list)
    edges: list[EdgeScore] = Field(default_factory=list)
    matched: dict[str, int] = Field(default_factory=dict, description="gold step id -> agent call index")
    diagnosis: list[str] = Field(default_factory=list)


def _canon(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, sort_keys=True)


def _same_json_types(a: Any, b: Any) -> bool:
    """For `a == b` without NaN: do they also serialise to the same JSON? They do unless a value
    differs in type (1 / 1.0 / True) or in the sign of a zero float."""
    t = type(a)
    if t is not type(b):
        return False
    if t is dict:
        for k, v in a.items():  # flat records decided inline, without a call per value
            w, tv = b[k], type(v)
            if tv is not type(w):
                return False
            if tv is float:
                if math.copysign(1.0, v) != math.copysign(1.0, w):
                    return False
            elif (tv is dict or tv is list) and not _same_json_types(v, w):
                return False
        return True
    if t is list:
        return all(map(_same_json_types, a, b))
    if t is float:
        return math.copysign(1.0, a) == math.copysign(1.0, b)
    return True


def _has_nan(value: Any) -> bool:
    t = type(value)
    if t is str or value is None or t is int or t is bool:
        return False
    if isinstance(value, float):
        return value != value
    if isinstance(value, dict):
        return any(map(_has_nan, value.values()))
    if isinstance(value, (list, tuple)):
        return any(map(_has_nan, value))
    return False


def _memo_by_identity(fn: Callable[[Any], Any], size: int = 8192) -> Callable[[Any], Any]:
    """`fn` of a gold object (a record, a step's records), memoised by identity: a gold run is
    scored against many episodes. Each entry holds its object, so the id stays its own."""
    memo: "OrderedDict[int, tuple[Any, Any]]" = OrderedDict()

    def cached(obj: Any) -> Any:
        hit = memo.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        value = fn(obj)
        memo[id(obj)] = (obj, value)
        if len(memo) > size:
            memo.popitem(last=False)
        return value

    return cached


@_memo_by_identity
def _target(record: dict[str, Any]) -> tuple[str, bool]:
    """(canonical JSON, has NaN) of a gold record."""
    return _canon(record), _has_nan(record)


@_memo_by_identity
def _selective_key(records: list[dict[str, Any]]) -> str | None:
    """The field of a gold step's records with the most distinct values (the first on a tie):
    has_record finds a gold record's candidates among the received records by it. (The first
    field can be shared by all of them: 300 votes on one bill, a forecast's base date.)"""
    best, best_n = None, 0
    for k in records[0] if records else ():
        try:
            n = len({r.get(k) for r in records})
        except TypeError:  # an unhashable value
            continue
        if n > best_n:
            best, best_n = k, n
    return best


class _Received:
    """Everything the agent received: records (as shown) and counts per tool."""

    def __init__(self, calls: list[CallRecord], visible_records: int | None):
        self.records: list[dict[str, Any]] = []
        self.counts: set[tuple[str, str, int]] = set()
        for c in calls:
            if not c.ok:
                continue
            shown = c.records if visible_records is None else c.records[:visible_records]
            self.records.extend(shown)
            total = c.result.total_count if c.result.total_count is not None else len(c.records)
            self.counts.add((c.tool, "total_count", total))
            self.counts.add((c.tool, "count", len(shown)))
        # totalCount is shown to the model too, so a count read from it is grounded
        self.with_counts = self.records + [{"totalCount": n} for _, f, n in self.counts if f == "total_count"]
        self.values = RecordValues(self.with_counts)  # every field value, normalised once per kind
        self._canon_set: set[str] | None = None
        self._buckets: dict[str, tuple[dict[Any, list[dict]], list[dict]]] = {}
        self._seen: dict[int, tuple[dict, bool]] = {}

    def _bucket(self, key: str) -> tuple[dict[Any, list[dict]], list[dict]]:
        """Received records by their value of `key` (unhashable values kept aside)."""
        hit = self._buckets.get(key)
        if hit is None:
            by: dict[Any, list[dict]] = {}
            odd: list[dict] = []
            for r in self.records:
                try:
                    by.setdefault(r.get(key), []).append(r)
                except TypeError:
                    odd.append(r)
            hit = self._buckets[key] = (by, odd)
        return hit

    def has_record(self, record: dict[str, Any], key: str | None = None) -> bool:
        """Was `record` received, equal as canonical JSON? Canonical-JSON equality is `==` plus
        the same JSON types throughout (1, 1.0 and True are `==`) when no NaN is involved.
        `key` (one of the record's fields) picks the candidates: the received records with the
        same value there; a field whose values differ between records keeps that list short."""
        seen = self._seen.get(id(record))  # the gold's own record objects; each entry holds its record
        if seen is not None and seen[0] is record:
            return seen[1]
        target, nan = _target(record)
        if nan:
            if self._canon_set is None:
                self._canon_set = {_canon(r) for r in self.records}
            hit = target in self._canon_set
        else:
            if record:
                key = key if key in record else next(iter(record))
                by, odd = self._bucket(key)
                try:
                    cands = by.get(record[key], [])
                except TypeError:
                    cands = [r for rs in by.values() for r in rs]
                if odd:
                    cands = [*cands, *odd]
            else:
                cands = self.records
            # list.index compares with == in C; only the == hits have their JSON types compared
            hit, i = False, 0
            while not hit:
                try:
                    i = cands.index(record, i) + 1
                except ValueError:
                    break
                hit = _same_json_types(cands[i - 1], record)
        self._seen[id(record)] = (record, hit)
        return hit

    def has_source(self, gold: GoldRun, step: str, index: int | None, field: str | None) -> bool:
        run = gold.step(step)
        if index is not None:
            return self.has_record(run.records[index], _selective_key(run.records))
        n = run.total_count if field == "total_count" and run.total_count is not None else len(run.records)
        if (run.tool, field or "count", n) in self.counts:
            return True
        # a for_each / paged step's count is known only to an agent that received every record
        key = _selective_key(run.records)
        return run.aggregate and all(self.has_record(r, key) for r in run.records)


_RECEIVED: "OrderedDict[tuple, tuple[list, _Received]]" = OrderedDict()
_STATED: "OrderedDict[tuple[int, str], tuple[ResolvedFact, bool]]" = OrderedDict()
_MEMO_SIZE = 64


def _received(calls: list[CallRecord], visible_records: int | None) -> _Received:
    """_Received of these results, shared by episodes that received the very same result objects
    (variants of one trajectory, as the scorer audit makes); each entry holds its results."""
    results = [c.result for c in calls]
    key = (visible_records, *((id(r), c.ok, c.tool) for r, c in zip(results, calls)))
    hit = _RECEIVED.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], results)):
        _RECEIVED.move_to_end(key)
        return hit[1]
    recv = _Received(calls, visible_records)
    _RECEIVED[key] = (results, recv)
    if len(_RECEIVED) > _MEMO_SIZE:
        _RECEIVED.popitem(last=False)
    return recv


def _stated(f: ResolvedFact, text: str) -> bool:
    """fact_in_text, memoised for one fact object and answer text."""
    key = (id(f), text)
    hit = _STATED.get(key)
    if hit is not None and hit[0] is f:
        return hit[1]
    out = fact_in_text(f, text)
    _STATED[key] = (f, out)
    if len(_STATED) > 8 * _MEMO_SIZE:
        _STATED.popitem(last=False)
    return out


def _arg_at(args: dict[str, Any] | None, name: str, at: list[str | int]) -> Any:
    """The agent's value of argument `name` ('a.b' for nested) at position `at` inside it."""
    cur: Any = args or {}
    for part in name.split("."):
        if not isinstance(cur, dict) or part not in cur:
            raise KeyError(name)
        cur = cur[part]
    for seg in at:
        if isinstance(seg, int) and isinstance(cur, list) and -len(cur) <= seg < len(cur):
            cur = cur[seg]
        elif isinstance(seg, str) and isinstance(cur, dict) and seg in cur:
            cur = cur[seg]
        else:
            raise KeyError(name)
    return cur


class _View:
    """A StepView over an agent's result (one call, or the calls of a for_each / paged step's
    expansions, concatenated), with the gold step's picks re-applied to it."""

    def __init__(self, step_id: str, records: list[dict[str, Any]], total_count: int | None, args: dict[str, Any] | None,
                 result_code: str, picked: "_Picked"):
        self.step_id, self.skipped = step_id, False
        self.records, self.total_count = records, total_count
        self.picked_index, self.picked = picked.one
        self.picked_by_name = {n: rec for n, (_, rec) in picked.named.items()}
        self.picked_index_by_name = {n: i for n, (i, _) in picked.named.items()}
        self.args, self.ok, self.result_code = args or {}, True, result_code


class _Picked:
    """The gold step's pick and named picks applied to an agent's records."""

    def __init__(self, step, records: list[dict[str, Any]], resolver: Resolver):
        none: tuple[int | None, dict | None] = (None, None)
        self.one = apply_pick(step.pick, records, resolver) if step.pick else none
        self.named = {name: apply_pick(p, records, resolver) for name, p in step.picks.items()}


def _picked(picks: dict, gold: GoldRun, src_step, key: Any, records: list[dict[str, Any]]) -> _Picked:
    """`key` names the records (a call index, or the call indices of an aggregate) for the memo."""
    hit = picks.get(key)
    if hit is None:
        resolver = picks.get(None)
        if resolver is None:
            resolver = picks[None] = gold.resolver()
        try:
            hit = _Picked(src_step, records, resolver)
        except RefError as exc:
            hit = exc
        picks[key] = hit
    if isinstance(hit, RefError):
        raise hit
    return hit


def _aggregate_calls(gold: GoldRun, source: str, calls: list[CallRecord], m: Matching, before: int) -> list[int] | str:
    """The agent calls matched to a for_each / paged step's expansions, in order (a call covering
    several pages once), or why there are none: a value read over all of them needs all of them."""
    out: list[int] = []
    for e in gold.step(source).expansions:
        i = m.matched.get(e)
        if i is None:
            return f"no earlier successful call matched {e}"
        if i >= before or not calls[i].ok:
            why = "comes after" if i >= before else "failed, before"
            return f"no earlier successful call matched {e} (its call #{i} {why} call #{before})"
        if i not in out:
            out.append(i)
    return out


def _edge_expr(edge: Edge) -> Any:
    """The gold expression of the edge's value (rebuilt for edges recorded without one)."""
    if edge.expr is not None:
        return edge.expr
    if edge.transform:
        return {"$ref": edge.path, "transform": edge.transform, "args": edge.transform_args}
    return edge.path


def _upstream(task: Task, gold: GoldRun, edge: Edge, calls: list[CallRecord], m: Matching, ci: int) -> tuple[int, ...] | str:
    """The agent's own call(s) for the edge's source step, or why there are none: the call that
    corresponds to it (matched, or the closest same-tool call), or for a for_each / paged step
    the calls matched to all of its expansions. They must have succeeded before call `ci`."""
    src_run = gold.step(edge.source_step)
    if src_run.aggregate:
        parts = _aggregate_calls(gold, edge.source_step, calls, m, ci)
        return parts if isinstance(parts, str) else tuple(parts)
    src = m.corresponding.get(edge.source_step)
    if src is None:
        return f"no earlier successful call to {src_run.tool} (step {edge.source_step})"
    if src >= ci:
        return f"its {src_run.tool} call #{src} comes after call #{ci}"
    if not calls[src].ok:
        return f"its {src_run.tool} call #{src} failed"
    return (src,)


def _edge_score(task: Task, gold: GoldRun, edge: Edge, calls: list[CallRecord], m: Matching,
                picks: dict | None = None) -> EdgeScore:
    """Is the agent's value at the edge's place what the gold's expression gives when its source
    step is read from the agent's OWN call for that step (the matched call, or the closest one;
    for a for_each / paged step, the calls matched to all its expansions, read together)?
    Other steps the expression reads keep their gold values, so each source is judged alone.
    `picks` (per episode): (source step, call indices) -> the gold's picks re-applied to them."""
    base = dict(step=edge.step, arg=edge.arg, source_step=edge.source_step, path=edge.path)
    ci = m.corresponding.get(edge.step)
    if ci is None:
        return EdgeScore(**base, satisfied=False, detail=f"no call to {gold.step(edge.step).tool}")
    try:
        typed = _arg_at(calls[ci].arguments, edge.arg, edge.at)
    except KeyError:
        where = edge.arg + "".join(f"[{s!r}]" for s in edge.at)
        return EdgeScore(**base, satisfied=False, detail=f"call #{ci} has no argument {where}")
    src_tool = gold.step(edge.source_step).tool
    src = _upstream(task, gold, edge, calls, m, ci)
    if isinstance(src, str):
        return EdgeScore(**base, satisfied=False, detail=src)
    where = f"call #{src[0]}" if len(src) == 1 else f"calls {list(src)}"
    picks = {} if picks is None else picks
    expected = _expected(task, gold, edge, calls, src, picks)
    if isinstance(expected, RefError):
        return EdgeScore(**base, satisfied=False, detail=f"the gold's path does not resolve on {where}: {expected}")
    kind = tool_kinds(gold.step(edge.step).tool).kind(edge.arg)
    if edge.template:  # the value is part of a longer text: found in it, read like the parameter
        fold = norm_text if kind in ("code", "number") else _text
        ok = fold(expected) in fold(typed)
    else:
        ok = values_equal(kind, expected, typed)
    if ok:
        return EdgeScore(**base, satisfied=True, detail=f"from {where}")
    return EdgeScore(**base, satisfied=False, detail=f"{typed!r} is not what its own {src_tool} {where} returned")


_EXPECTED: "OrderedDict[tuple, tuple[Edge, tuple, Any]]" = OrderedDict()


def _source_view(task: Task, gold: GoldRun, edge: Edge, calls: list[CallRecord], src: tuple[int, ...], picks: dict) -> _View:
    """The agent's call(s) for the edge's source step as that step's output, its picks re-applied."""
    step = task.step(edge.source_step)
    if not gold.step(edge.source_step).aggregate:
        call = calls[src[0]]
        records, total, args, code = call.records, call.result.total_count, call.arguments, call.result.result_code
    else:
        parts = [calls[i] for i in src]
        records = [r for c in parts for r in c.records]
        if step.pages is not None:  # as the gold reads pages: the first page's total when it counts all rows
            first = parts[0]
            whole = first.result.total_count is not None and first.result.total_count > len(first.records)
            total = first.result.total_count if whole else None
        else:
            total = sum(c.result.total_count if c.result.total_count is not None else len(c.records) for c in parts)
        args, code = {}, "00"
    picked = _picked(picks, gold, step, (edge.source_step, src), records)
    return _View(edge.source_step, records, total, args, code, picked)


def _expected(task: Task, gold: GoldRun, edge: Edge, calls: list[CallRecord], src: tuple[int, ...], picks: dict) -> Any:
    """The edge's value read from the call(s) `src` (a RefError when the gold's path does not
    resolve there), memoised for the same edge, results and arguments objects across episodes."""
    held = tuple(o for i in src for o in (calls[i].result, calls[i].arguments))
    key = (id(edge), *map(id, held))
    hit = _EXPECTED.get(key)
    if hit is not None and hit[0] is edge and all(a is b for a, b in zip(hit[1], held)):
        return hit[2]
    try:
        view = _source_view(task, gold, edge, calls, src, picks)
        steps = ChainMap({edge.source_step: view}, _gold_steps(picks, gold))
        r = Resolver(steps, clock=gold.clock, each=each_of(task, gold, edge.step))
        value = r.path(parse_ref(edge.path)) if edge.template else r.value(_edge_expr(edge))
    except RefError as exc:
        value = exc
    _EXPECTED[key] = (edge, held, value)
    if len(_EXPECTED) > 64 * _MEMO_SIZE:
        _EXPECTED.popitem(last=False)
    return value


def _text(v: Any) -> str:
    return text_form(wire(v))


def _gold_steps(picks: dict, gold: GoldRun) -> dict[str, Any]:
    """The gold's steps by id, built once per episode (kept in `picks`)."""
    hit = picks.get("gold_steps")
    if hit is None:
        hit = picks["gold_steps"] = gold.by_id
    return hit


def _list_fact(f: ResolvedFact, answer: str, recv: _Received, gold: GoldRun) -> tuple[bool, bool, str]:
    """(stated, grounded, what is missing) of a list fact: at least `needed` items stated; the
    stated items grounded in what the agent received (each item itself for a direct fact)."""
    said = items_stated(f, answer)
    stated = bool(f.value) and len(said) >= f.needed
    if f.direct:
        grounded = sum(recv.values.contains({"kind": f.item_kind, "value": v, "tolerance": f.tolerance}) for v in said) >= f.needed
    else:
        grounded = all(recv.has_source(gold, s.step, s.index, s.field) for s in f.sources)
    missing = [v for v in f.value if v not in said]
    order = " in order" if f.ordered else ""
    why = f"{len(said)} of {len(f.value)} items stated{order}, need {f.needed}; missing {missing[:5]!r}"
    return stated, grounded, why


def score_episode(task: Task, gold: GoldRun, episode: Episode, facts: list[ResolvedFact] | None = None, *, visible_records: int | None = None) -> EpisodeScore:
    """Score `episode` on `task`. `visible_records` caps how many records per call count as seen."""
    if episode.task_id != task.id:
        raise ValueError(f"episode is for task {episode.task_id!r} but the task is {task.id!r}")
    facts = facts if facts is not None else compute_answer(task, gold)
    calls = episode.calls
    recv = _received(calls, visible_records)
    diag: list[str] = []
    answer = read_answer(episode.final_answer)
    if answer.echoed:
        diag.append(f"final answer echoes {answer.echoed} JSON block(s) (tool output): not read as an answer")

    fact_scores = []
    for f in facts:
        if f.kind == "list":
            stated, grounded, why = _list_fact(f, answer.prose, recv, gold)
        else:
            stated = _stated(f, answer.prose)
            if f.direct and f.kind != "bool":
                # the count of a for_each / paged step is in no single result: the agent had to receive it all
                grounded = recv.values.contains(f) or bool(f.sources) and all(
                    s.field is not None and gold.step(s.step).aggregate and recv.has_source(gold, s.step, s.index, s.field)
                    for s in f.sources)
            else:
                grounded = all(recv.has_source(gold, s.step, s.index, s.field) for s in f.sources)
            why = f"gold {f.value!r}{' ' + f.unit if f.unit else ''}"
        fact_scores.append(FactScore(id=f.id, value=f.value, stated=stated, grounded=stated and grounded))
        if not stated:
            diag.append(f"{f.id} not stated ({why})")
        elif not grounded:
            diag.append(f"{f.id} stated but never retrieved: {f.value!r} is in no result the agent received")

    m = match_calls(task, gold, calls)
    executed = gold.executed
    for sid, diffs in m.near_misses.items():
        diag.append(f"{sid} {gold.step(sid).tool}: unmatched ({'; '.join(diffs) or 'order'})")
    extra = len(calls) - len(set(m.matched.values()))
    if extra > 0:
        diag.append(f"{extra} call(s) matched no gold step")

    picks: dict = {}
    edges = [_edge_score(task, gold, e, calls, m, picks) for e in gold.edges]
    diag += [f"edge {e.step}.{e.arg} <- {e.path}: {e.detail}" for e in edges if not e.satisfied]

    needed: list[tuple[str, int | None, str | None]] = [
        (r.step_id, i, None) for r in gold.ran for i in (r.picked_index, *r.picked_index_by_name.values()) if i is not None]
    needed += [(s.step, s.index, s.field) for f in facts for s in f.sources]
    needed = list(dict.fromkeys(needed))
    state_hits = sum(recv.has_source(gold, *n) for n in needed)

    errors = Counter(c.error_kind or (c.result.error.type if c.result and c.result.error else None) for c in calls)
    errors.pop(None, None)
    if errors:
        diag.append("errors: " + ", ".join(f"{n} {k}" for k, n in sorted(errors.items())))

    n_facts = max(len(facts), 1)
    return EpisodeScore(
        task_id=task.id, seed=episode.seed, model=episode.model, domain=str(task.domain), shape=str(task.shape),
        difficulty=str(task.difficulty), platforms=list(task.platforms), held_out_platform=task.held_out_platform,
        success=bool(facts) and all(f.stated and f.grounded for f in fact_scores),
        response=sum(f.stated for f in fact_scores) / n_facts,
        grounded=sum(f.grounded for f in fact_scores) / n_facts,
        action_precision=len(set(m.matched.values())) / len(calls) if calls else 0.0,
        action_recall=len(m.matched) / len(executed) if executed else 1.0,
        data_flow=sum(e.satisfied for e in edges) / len(edges) if edges else None,
        state=state_hits / len(needed) if needed else None,
        efficiency=len(calls) / max(len(executed), 1),
        n_calls=len(calls), n_gold_calls=len(executed), errors=dict(errors),
        facts=fact_scores, edges=edges, matched=dict(m.matched), diagnosis=diag,
    )

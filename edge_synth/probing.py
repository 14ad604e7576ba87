"""One probe of a link A -> B (:func:`probe_link`): run A, bind B's parameters from a real record
of A through the binding transforms, fill B's other required parameters, run B, classify."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any, Mapping

from kopa_bench.client.result import ToolResult

from .bindings import Binding
from .formats import learn_format
from .record_order import RetryOrder
from .seeds import SeedSampler, value_fits

STRUCTURAL = {"argument", "platform", "no_service", "unknown_tool", "parse", "transform", "empty", "unbound"}
ENVIRONMENTAL = {"transient", "quota", "auth", "upstream_env"}
COVERAGE_KM = 10.0


def classify(result) -> str:
    """success | empty | argument | platform | no_service | transient | quota | auth | ..."""
    if result.ok:
        return "success" if result.records else "empty"
    return result.error.type if result.error else "platform"


def executes(outcomes: list[str]) -> bool | None:
    """Did the link execute in most probes that say anything about it? (None: none did)."""
    informative = [o for o in outcomes if o not in ENVIRONMENTAL and not o.startswith("upstream")
                   and o != "empty_uninformative"]
    if not informative:
        return None
    return 2 * sum(o == "success" for o in informative) >= len(informative)


@dataclass(frozen=True)
class ProbeOptions:
    """How a probe binds B and judges its answer."""

    split: str = "train"  # the seed-input partition A and B's other parameters draw from
    baseline: Mapping[str, bool] | None = None  # tool -> it answered its own example inputs
    # re-run a success with the tested parameter fed another value (from another record of A, else
    # from another execution's value of the field): does B's answer change? (`sensitive`)
    sensitivity: bool = False
    # verification: a companion that cannot be bound is left out, and one the sampler can fill
    # is left out half of the time, so a wrong companion does not sink the binding under test
    soft_companions: bool = False
    # B's parameters always bound from the same record (the rest of a composite key, a coordinate pair)
    mandatory: frozenset[str] = frozenset()
    keep: frozenset[str] = frozenset()  # companions never left out when they bind (CYCLE with its periods)
    record_tries: int = 1  # records of A's answer tried before an empty B answer stands
    # an uninformative outcome (B empty for reasons the binding does not decide) says nothing:
    # when the probe drew A's input itself, up to this many other inputs of A are drawn
    seed_redraws: int = 2
    # an empty B answer with an optional tested parameter is checked by a control call of B
    # without it: empty too, the context (not the bound value) emptied B's answer
    control: bool = True
    # record tries left when every record of A's answer was tried go to another input of A (when
    # the probe drew A's input itself): a one-record answer (a folder row of a table list) gets
    # the tries a longer list gets, and no more
    other_answers: bool = True
    # an empty B answer with companions bound from A's record that the sampler could fill is
    # checked by a control call with them refilled: answering, a companion emptied B's answer
    companion_control: bool = True


@dataclass
class LinkProbe:
    src: str
    dst: str
    bindings: list[Binding]
    outcome: str = ""
    a_args: dict = field(default_factory=dict)
    b_args: dict = field(default_factory=dict)
    b_records: list[dict] = field(default_factory=list)
    detail: str = ""
    sensitive: bool | None = None  # None: not tested / untestable
    echoed: bool = False
    passthrough: bool = False  # the bound value is one of A's own arguments (nothing A returned)
    records_tried: int = 0  # records of A's answers bound into B (record_tries)
    redraws: int = 0  # other inputs of A drawn after uninformative outcomes (seed_redraws)
    controls: int = 0  # control calls of B without the tested parameter (or with companions refilled)
    answers: int = 1  # answers of A whose records were tried (other_answers)
    exhausted: bool = False  # B stayed empty for every record of A's answer (tries were left)


async def run_seed(executor, sampler: SeedSampler, tool: str, split: str, rng: random.Random):
    """(args, result) of `tool` on a seed input; (None, None) when its inputs cannot be filled."""
    args = sampler.seed_args(tool, split, rng)
    if args is None:
        return None, None
    res = await executor.call(tool, args)
    if res.ok and res.records:
        sampler.add_context(tool, args)
    return args, res


def norm_value(v: Any) -> str:
    """A value as compared across tools: digit strings without leading zeros (a month "05"
    handed back to a calendar that was asked for solMonth=5 is the same month)."""
    t = str(v).strip()
    return (t.lstrip("0") or "0") if t.isdigit() else t


def _records_key(records: list[dict]) -> str:
    return json.dumps(records[:50], sort_keys=True, ensure_ascii=False, default=str)


def _echoes(value: Any, records: list[dict]) -> bool:
    """Does B's output carry the bound value (the value was used, not ignored)?"""
    text = str(value).strip()
    if len(text) < 2:
        return False
    for r in records[:50]:
        for v in r.values():
            if v is not None and not isinstance(v, (dict, list)) and str(v).strip() == text:
                return True
    return False


def inherited_args(sampler: SeedSampler, dst: str, a_args: dict[str, Any], bound: dict[str, Any]) -> dict[str, Any]:
    """B's required parameters that A was called with under the same name (TAGO cityCode, NEIS
    ATPT_OFCDC_SC_CODE): the shared context of both calls, passed through unchanged."""
    if not a_args:
        return {}
    by_lower = {k.lower(): v for k, v in a_args.items()}
    out = {}
    op = sampler.catalog.get(dst).op
    for name in sampler.required(dst):
        if name in bound or name.lower() not in by_lower:
            continue
        v = by_lower[name.lower()]
        p = op.param(name)
        if v is not None and not isinstance(v, (dict, list)) and (p is None or value_fits(p, v)):
            out[name] = v
    return out


def outside_coverage(sampler: SeedSampler, dst: str, args: dict[str, Any], tested: str, km: float = COVERAGE_KM) -> bool:
    """Is the point bound into B's coordinate parameters farther than `km` from every point B
    answered before (its remembered working inputs)? A city bus service lists stops in the cities
    it covers: a tourist spot elsewhere gets an empty answer that says nothing about the binding
    (TourAPI mapx/mapy -> TAGO gpsLong/gpsLati). Needs 3 known points; False when unsure."""
    from kopa_bench.geo import haversine_km

    lat_p = [p for p in args if sampler.param_kind.get((dst, p)) == "lat"]
    lon_p = [p for p in args if sampler.param_kind.get((dst, p)) == "lon"]
    if not lat_p or not lon_p or tested not in (lat_p[0], lon_p[0]):
        return False
    pts = []
    for c in sampler.contexts.get(dst, []):
        try:
            pts.append((float(c[lat_p[0]]), float(c[lon_p[0]])))
        except (KeyError, TypeError, ValueError):
            continue
    if len(pts) < 3:
        return False
    try:
        lat, lon = float(args[lat_p[0]]), float(args[lon_p[0]])
    except (TypeError, ValueError):
        return False
    return min(haversine_km(lat, lon, a, b) for a, b in pts) > km


def _month(value: Any, kind: str) -> int | None:
    """A date-like value as yyyymm (a year as its January), None when it is not one."""
    digits = "".join(ch for ch in str(value) if ch.isdigit())
    if kind == "year":
        return int(digits) * 100 + 1 if len(digits) == 4 else None
    return int(digits[:6]) if len(digits) >= 6 else None


def outside_time_coverage(sampler: SeedSampler, dst: str, args: dict[str, Any], tested: str) -> bool:
    """Is the date bound into B's tested parameter before or after every date B answered before
    (its remembered working inputs)? Services keep different years (school meals from 2020, lease
    reports from 2011): a holiday of 2003 gets an empty answer that says nothing about the date
    binding, as a point outside a bus service's cities says nothing about a coordinate one.
    Needs 3 known dates; False when unsure."""
    kind = sampler.param_kind.get((dst, tested))
    if kind not in ("date", "yyyymm", "year") or tested not in args:
        return False
    known = [m for c in sampler.contexts.get(dst, []) if tested in c and (m := _month(c[tested], kind)) is not None]
    if len(known) < 3:
        return False
    got = _month(args[tested], kind)
    return got is not None and not min(known) <= got <= max(known)


async def probe_link(executor, sampler: SeedSampler, src: str, dst: str, bindings: list[Binding],
                     rng: random.Random, opts: ProbeOptions = ProbeOptions(),
                     upstream: tuple[dict | None, ToolResult] | None = None) -> LinkProbe:
    """Execute A (unless `upstream` gives its arguments and answer), bind, execute B; classify.

    `bindings[0]` is the binding under test; the others are companions bound from the same record
    (e.g. the second half of a composite key). B's required parameters that A was called with
    under the same name pass through; B's other required parameters come from a remembered
    working input of B that agrees most with the bound values, else from the sampler. An empty B
    answer is retried with up to `opts.record_tries` records of A's answer whose tested value
    differs; the first non-empty outcome stands. When the probe drew A's input itself and every
    record of A's answer was tried with tries left (`opts.other_answers`), the rest go to the
    records of other inputs of A: at most `opts.record_tries` distinct values in all. An
    uninformative outcome (a point outside B's coverage, a context B has no data for) is retried
    with up to `opts.seed_redraws` other inputs of A when the probe drew A's input itself: such
    an input says nothing about the link."""
    redraws = opts.seed_redraws if upstream is None else 0
    controls = k = 0
    tried: set[str] = set()  # tested values bound so far, over every answer of A
    budget = max(1, opts.record_tries)
    failed: LinkProbe | None = None  # the last empty outcome, while other answers are tried
    answers = 0
    while True:
        pr = await _probe_once(executor, sampler, src, dst, bindings, rng, opts, upstream, tried, budget)
        controls += pr.controls
        if failed is None and pr.outcome == "empty_uninformative" and k < redraws:
            k += 1
            tried = set()  # a fresh probe: that input said nothing
            continue
        answers += 1
        if failed is not None and (pr.outcome.startswith("upstream") or pr.outcome in ("empty", "empty_uninformative")
                                   or (pr.outcome == "transform" and not pr.records_tried)):
            # another input of A that adds no informative outcome: the earlier empty answer stands
            pr = failed if pr.outcome != "empty" else pr
        more = (pr.outcome == "empty" and pr.exhausted and upstream is None and opts.other_answers
                and opts.record_tries > 1 and len(tried) < budget and answers <= budget)
        if not more:
            break
        failed = pr
    pr.redraws, pr.controls, pr.answers, pr.records_tried = k, controls, answers, max(pr.records_tried, len(tried))
    return pr


async def _probe_once(executor, sampler: SeedSampler, src: str, dst: str, bindings: list[Binding],
                      rng: random.Random, opts: ProbeOptions,
                      upstream: tuple[dict | None, ToolResult] | None,
                      tried: set[str] | None = None, budget: int | None = None) -> LinkProbe:
    """One answer of A in :func:`probe_link`: its records tried until B answers, `budget`
    distinct tested values are bound (with the ones in `tried`, shared across answers of A), or
    no record of the answer is left (`exhausted`)."""
    pr = LinkProbe(src, dst, bindings)
    tried = set() if tried is None else tried
    budget = max(1, opts.record_tries) if budget is None else budget
    if upstream is None:
        a_args, a_result = await run_seed(executor, sampler, src, opts.split, rng)
        if a_result is None:
            pr.outcome, pr.detail = "upstream_unfillable", "no inputs for A"
            return pr
    else:
        a_args, a_result = upstream
    pr.a_args = a_args or {}
    a_kind = classify(a_result)
    if a_kind in ENVIRONMENTAL:
        pr.outcome = "upstream_env"
        return pr
    if a_kind != "success":
        pr.outcome, pr.detail = "upstream_" + a_kind, ""
        return pr
    need = [b for i, b in enumerate(bindings) if i == 0 or not opts.soft_companions or b.to_param in opts.mandatory]
    recs = [r for r in a_result.records if all(b.has_source(r) for b in need)]
    if not recs:
        pr.outcome, pr.detail = "transform", "no record carries the source fields"
        return pr
    call = _BoundCall(executor, sampler, pr, recs, rng, opts)
    rec = recs[0] if rng.random() < 0.5 else rng.choice(recs)
    here = 0  # values bound from this answer
    used: list[dict] = []
    order: RetryOrder | None = None  # built on the first retry
    while rec is not None and len(tried) < budget:
        used.append(rec)
        try:
            value = bindings[0].value(rec)
        except (ValueError, KeyError, TypeError) as exc:
            if not here:
                pr.outcome, pr.detail = "transform", str(exc)[:200]
                return pr
            value = None
        if value is not None and str(value) not in tried:  # the same value again: the same B call
            tried.add(str(value))
            here += 1
            await call.run(rec, value)
            if pr.outcome != "empty":
                break
        # an empty answer for one record of a mixed list does not show the link is wrong: the
        # record of the same answer most unlike the ones tried so far is tried next
        if opts.record_tries > 1 and order is None:
            # every record carries the source fields (the usual case): recs is the answer itself
            same = len(recs) == len(a_result.records)
            order = RetryOrder(recs, cats=sampler.categories_of(a_result.records) if same else None)
        rec = order.next(used, rng) if opts.record_tries > 1 else None
    if not here:
        # every value of this answer was bound before (another answer of A): nothing new was asked
        pr.outcome = pr.outcome or ("upstream_repeat" if tried else "")
    pr.records_tried = here
    pr.exhausted = pr.outcome == "empty" and rec is None and len(tried) < budget
    return pr


class _BoundCall:
    """B called with its parameters bound from one record of A's answer, the outcome in `pr`."""

    def __init__(self, executor, sampler: SeedSampler, pr: LinkProbe, recs: list[dict], rng: random.Random,
                 opts: ProbeOptions):
        self.ex, self.sampler, self.pr, self.recs, self.rng, self.opts = executor, sampler, pr, recs, rng, opts

    async def run(self, rec: dict, value: Any) -> None:
        """Bind B's parameters from `rec` (the tested value already computed), fill the rest,
        execute B and classify into `pr`."""
        pr, sampler, opts, rng, dst = self.pr, self.sampler, self.opts, self.rng, self.pr.dst
        main = pr.bindings[0]
        pr.b_args, pr.b_records, pr.sensitive, pr.echoed, pr.passthrough, pr.detail = {}, [], None, False, False, ""
        args: dict[str, Any] = {main.to_param: value}
        inherited = inherited_args(sampler, dst, pr.a_args, args)
        soft: set[str] = set()  # companions bound from `rec` that the sampler could fill instead
        for b in pr.bindings[1:]:
            if b.to_param in inherited and b.from_field.lower() != b.to_param.lower():
                continue  # A's own argument of that name beats a differently named field
            must = b.to_param in opts.mandatory
            fillable = opts.soft_companions and not must and b.to_param not in opts.keep \
                and bool(sampler.pool(dst, b.to_param, "any"))
            if fillable and rng.random() < 0.5:
                continue
            try:
                v = b.value(rec)
            except (ValueError, KeyError, TypeError) as exc:
                if not opts.soft_companions or must:
                    pr.outcome, pr.detail = "transform", str(exc)[:200]
                    return
                continue
            if b.to_param in sampler.format_params(dst) and not sampler.shape_known(dst, b.to_param, v) \
                    and not await learn_format(self.ex, sampler, dst, {**args, b.to_param: v}, rng) \
                    and opts.soft_companions and not must:
                # a format-group member (ECOS CYCLE 'A') in a shape no working input of B had, and
                # no period format found for it: its partners (the periods) could only come in
                # another shape; the group is left to one consistent working input instead
                continue
            args[b.to_param] = v
            if fillable:
                soft.add(b.to_param)
        args.update({k: v for k, v in inherited.items() if k not in args})
        tested = main.to_param
        if tested in sampler.format_params(dst) and not sampler.shape_known(dst, tested, args[tested]):
            await learn_format(self.ex, sampler, dst, args, rng)  # the tested value itself: a cycle never seen
        half = sorted(m for m in opts.mandatory if m not in args)
        if half:
            # the rest of the key would come from unrelated context: not this record's entity
            pr.outcome, pr.detail = "unbound", f"composite key members {half} not bound from A's record"
            return
        filled = sampler.sample_args(dst, opts.split if opts.split != "holdout" else "any", rng, fixed=args)
        if filled is None:
            pr.outcome, pr.detail = "unbound", "a required parameter of B cannot be filled"
            return
        pr.b_args = filled
        res = await self.ex.call(dst, filled)
        kind = classify(res)
        if kind == "success":
            pr.b_records = res.records
            sampler.add_context(dst, filled)
            pr.echoed = _echoes(args[tested], res.records)
            pr.passthrough = norm_value(args[tested]) in {norm_value(v) for v in pr.a_args.values()}
            if opts.sensitivity:
                pr.sensitive = await self.sensitivity(rec, args, filled, res)
        elif kind == "empty" and opts.baseline is not None and not opts.baseline.get(dst, True) \
                and not sampler.contexts.get(dst):
            # B returned nothing on its own examples and on every input tried so far: the empty
            # answer says nothing about this binding. Once B has answered some input, it does.
            kind = "empty_uninformative"
        elif kind == "empty" and (outside_coverage(sampler, dst, filled, tested)
                                  or outside_time_coverage(sampler, dst, filled, tested)):
            kind = "empty_uninformative"
        elif kind == "empty" and opts.companion_control and soft and await self.companions_emptied(args, soft, filled):
            kind = "empty_uninformative"
        elif kind == "empty" and opts.control and await self.context_empty(filled, tested):
            kind = "empty_uninformative"
        pr.outcome = kind
        pr.detail = (res.error.message[:200] if res.error else "")

    async def companions_emptied(self, args: dict, soft: set[str], filled: dict) -> bool:
        """Control call: B with the companions in `soft` (bound from A's record only to complete
        B's input, each one the sampler can fill) filled as the other half of the probes fill them,
        from a working input of B; the tested value and everything else kept. B answering shows a
        companion emptied the first answer (a legal dong's creation date as a lease month before
        leases were reported), not the tested value: only the tested binding is judged by a probe."""
        pr, opts = self.pr, self.opts
        fixed = {k: v for k, v in args.items() if k not in soft}
        alt = self.sampler.sample_args(pr.dst, opts.split if opts.split != "holdout" else "any", self.rng, fixed=fixed)
        if alt is None or all(str(alt.get(k)) == str(filled.get(k)) for k in soft):
            return False
        pr.controls += 1
        res = await self.ex.call(pr.dst, alt)
        return classify(res) == "success"

    async def context_empty(self, filled: dict, tested: str) -> bool:
        """Control call: B with the same input less the tested optional parameter, the other
        members of its coordinate pair or key, and every other optional value bound from A's
        record, so that only the context is left (the parameters every call fills, bound, passed
        through or sampled). Empty too, the context emptied B's answer (the classes of a primary
        school asked of the high-school timetable), not the bound values; False when the tested
        parameter is one every call fills (no control is possible)."""
        dst, sampler = self.pr.dst, self.sampler
        fill = set(sampler.fill_params(dst))
        drop = {tested} | {m for grp in sampler.groups.get(dst, []) if grp.joint and tested in grp.members
                           for m in grp.members}
        if drop & fill:
            return False
        drop |= {b.to_param for b in self.pr.bindings if b.to_param not in fill}
        self.pr.controls += 1
        res = await self.ex.call(dst, {k: v for k, v in filled.items() if k not in drop})
        return classify(res) == "empty"

    async def sensitivity(self, rec: dict, args: dict, filled: dict, first) -> bool | None:
        """Counterfactual: bind the tested parameter from another record with a different value;
        when A returned a single record (a detail lookup), from the same field of another A
        execution. None when there is no other value or B failed for its environment."""
        main, rng = self.pr.bindings[0], self.rng
        p = main.to_param
        others = []
        for r in self.recs:
            if r is rec:
                continue
            try:
                v = main.value(r)
            except (ValueError, KeyError, TypeError):
                continue
            if str(v) != str(args[p]):
                others.append(v)
        if not others and not main.record_ref:
            for raw in self.sampler.by_field.get(main.from_field.lower(), [])[:50]:
                try:
                    v = main.value({main.from_field: raw})
                except (ValueError, KeyError, TypeError):
                    continue
                if str(v) != str(args[p]):
                    others.append(v)
        if not others:
            return None
        alt = dict(filled)
        alt[p] = others[0] if rng.random() < 0.5 else rng.choice(others)
        res2 = await self.ex.call(self.pr.dst, alt)
        k2 = classify(res2)
        if k2 in ENVIRONMENTAL:
            return None
        if k2 != "success":
            return True  # the value decides whether B answers at all
        # the same first page with another total (a date lower bound: festivals from the 1st vs
        # from the 25th, sorted by title) still shows the value filtered B's answer
        if first.total_count is not None and res2.total_count is not None and first.total_count != res2.total_count:
            return True
        return _records_key(res2.records) != _records_key(first.records)

"""Period formats: statistics APIs write periods in the format of the cycle asked for (ECOS
START_TIME "in the cycle's format"), learned for a cycle no working input had (:func:`learn_format`)."""

from __future__ import annotations

import random
import re
from typing import Any

from .seeds import SeedSampler


PERIOD_KINDS = frozenset({"date", "yyyymm", "year", "month"})
_START_RE = re.compile(r"start|begin|from|시작", re.I)


def period_shapes(start: Any, end: Any) -> list[tuple[str, str]]:
    """The years of a (start, end) period written in the formats statistics APIs use for a cycle:
    year, half, quarter, month, day (ECOS: A 2024, S 2024S1, Q 2024Q1, M 202401, D 20240101)."""
    y0, y1 = str(start)[:4], str(end)[:4]
    if not (y0.isdigit() and y1.isdigit()):
        return []
    return [(y0, y1), (y0 + "S1", y1 + "S2"), (y0 + "Q1", y1 + "Q4"), (y0 + "01", y1 + "12"), (y0 + "0101", y1 + "1231")]


async def learn_format(executor, sampler: SeedSampler, dst: str, args: dict[str, Any], rng: random.Random) -> bool:
    """B's format anchor (ECOS CYCLE 'D') is given a value no working input of B had, so no
    remembered input has periods in its format: try the periods in each format of
    :func:`period_shapes` (at most five calls, memoised) until B answers; the working input
    becomes a context, so later calls with that anchor get consistent periods. True if found."""
    for grp in sampler.groups.get(dst, []):
        if grp.kind != "format":
            continue
        periods = sorted(m for m in grp.members if sampler.param_kind.get((dst, m)) in PERIOD_KINDS)
        anchors = [m for m in grp.members if m not in periods]
        starts = [m for m in periods if _START_RE.search(m)]
        ends = [m for m in periods if m not in starts]
        if len(starts) != 1 or len(ends) != 1 or not any(a in args for a in anchors):
            continue
        base = sampler.sample_args(dst, "any", rng, fixed={k: v for k, v in args.items() if k not in periods})
        if base is None:
            return False
        for s0, e0 in period_shapes(base.get(starts[0]), base.get(ends[0])):
            trial = {**base, starts[0]: s0, ends[0]: e0}
            res = await executor.call(dst, trial)
            if res.ok and res.records:
                sampler.add_context(dst, trial, first=True)
                return True
    return False

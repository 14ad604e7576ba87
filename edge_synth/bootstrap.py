"""Bootstrap: the first executions of every tool, before any candidate link exists.

Each tool runs on sampled inputs a few rounds (its records seed the value pools); a tool that
never answered runs its documented example call, which also reveals the optional parameters its
platform cannot do without; a tool that answered runs once more per optional filter at its
documented example, so seeds cover other slices of its data than the default first page.
"""

from __future__ import annotations

import asyncio
import random

from .control_params import is_control
from .seeds import SeedSampler


async def bootstrap_samples(executor, sampler: SeedSampler, catalog, rounds: int = 3, per_tool: int = 6,
                            seed: int = 0, field_kinds: dict[str, dict[str, str]] | None = None) -> dict[str, list[dict]]:
    """Run every tool on sampled inputs a few rounds, harvesting values; returns tool -> records."""
    rng = random.Random(seed)
    samples: dict[str, list[dict]] = {}
    for _ in range(rounds):
        jobs = []
        for ref in catalog:
            for _ in range(per_tool):
                jobs.append((ref.op.tool, sampler.sample_args(ref.op.tool, "train", rng)))
        jobs = [(t, a) for t, a in jobs if a is not None]
        results = await asyncio.gather(*(executor.call(t, a) for t, a in jobs))
        for (t, a), res in zip(jobs, results):
            if res.ok and res.records:
                sampler.add_context(t, a)
                samples.setdefault(t, []).extend(res.records[:50])
                sampler.harvest(t, res.records, (field_kinds or {}).get(t))
    for discover in (discover_co_required, example_slices):
        for t, recs in (await discover(executor, sampler, catalog)).items():
            samples.setdefault(t, []).extend(recs)
            sampler.harvest(t, recs, (field_kinds or {}).get(t))
    return samples


async def example_slices(executor, sampler: SeedSampler, catalog,
                         per_tool: int = 8) -> dict[str, list[dict]]:
    """Once per tool with required parameters: a working input narrowed by one optional filter at
    its documented example (a bill list filtered to PROC_RESULT=원안가결). Inputs that answer are
    remembered as contexts, so seeds of A cover other slices of its data than the default first
    page (the newest bills, all without a plenary vote). Returns tool -> records."""
    out: dict[str, list[dict]] = {}
    jobs = []
    for ref in catalog:
        t = ref.op.tool
        if t in sampler.sliced or not sampler.required(t) or not sampler.contexts.get(t):
            continue
        sampler.sliced.add(t)
        base = sampler.contexts[t][0]
        opts = [p for p in ref.op.model_params if not is_control(p) and p.example is not None and p.name not in base
                and p.name not in sampler.fill_params(t)]
        for p in opts[:per_tool]:
            jobs.append((t, {**base, p.name: p.example}))
    results = await asyncio.gather(*(executor.call(t, a) for t, a in jobs))
    for (t, a), res in zip(jobs, results):
        if res.ok and res.records:
            sampler.add_context(t, a)
            out.setdefault(t, []).extend(res.records[:50])
    return out


async def discover_co_required(executor, sampler: SeedSampler, catalog) -> dict[str, list[dict]]:
    """Tools that never answered a sampled call (required parameters only) are run once with
    their documented example request (optional parameters included); when that answers, the
    optional parameters it cannot do without (dropped one at a time) become `co_required`, so
    every later call fills them too. KOSIS marks its period optional yet rejects a call without
    one (code 20): without this no probe into it could ever succeed. Returns tool -> records."""
    out: dict[str, list[dict]] = {}
    for ref in catalog:
        t = ref.op.tool
        if sampler.contexts.get(t) or t in sampler.co_required:
            continue
        args = sampler.example_call(t)
        req = set(sampler.required(t))
        if not args or set(args) <= req:
            continue
        res = await executor.call(t, args)
        if not (res.ok and res.records):
            continue
        for p in sorted(set(args) - req):  # keep only the optional parameters the call needs
            trial = {k: v for k, v in args.items() if k != p}
            r2 = await executor.call(t, trial)
            if r2.ok and r2.records:
                args, res = trial, r2
        sampler.co_required[t] = sorted(set(args) - req)
        sampler.add_context(t, args)
        out[t] = res.records[:50]
    return out

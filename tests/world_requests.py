"""World requests for the query-plan tests: every SQL operation's example variants, the recorded
EDGE probe queries (tests/data/query_plan_calls.json) and the gold programs' requests."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from pathlib import Path

import pytest

CALLS = json.loads((Path(__file__).parent / "data" / "query_plan_calls.json").read_text(encoding="utf-8"))["calls"]
PAGES = [(0, 3), (2, 3), (0, None), (10_000, 10), (0, 0), (5, 0), (1, 100)]


def example_param_variants(catalog) -> dict[str, list[dict]]:
    """For every SQL operation (tool -> validated params): its example call, then each optional
    parameter in turn unbound, and each optional parameter bound alone on top of the required ones."""
    from kopa_bench.protocols.base import validate_params

    out: dict[str, list[dict]] = {}
    for ref in catalog:
        op = ref.op
        if not op.query:
            continue
        args = {p.name: p.example for p in op.model_params if p.example is not None}
        params, problem = validate_params(op, args)
        if problem is not None:
            continue
        required = {p.name for p in op.model_params if p.required}
        variants = out.setdefault(op.tool, [params])
        for name, value in params.items():
            if value is None or name in required:
                continue
            variants.append({**params, name: None})
            variants.append({k: (v if k in required or k == name else None) for k, v in params.items()})
    return out


@pytest.fixture(scope="module")
def gold_requests(world, catalog):
    """Every world request the gold programs of the test tasks make, recorded on the way."""
    from kopa_bench.client import KopaClient
    from kopa_bench.tasks.task_schema import load_tasks
    from kopa_bench.tasks.program import execute_program

    seen: list[tuple] = []
    inner = world.rows_for

    def recording(op, params, offset=0, limit=None):
        seen.append((op.tool, dict(params), offset, limit))
        return inner(op, params, offset, limit)

    async def go():
        client = KopaClient(catalog=catalog, world=world, max_retries=0, backoff_s=0.0)
        # apps on one world share rendered answers (sandbox/app.py): an earlier module's gold
        # runs would otherwise answer these without reaching rows_for
        client.app.state.answers.clear()
        for task in load_tasks("test"):
            await execute_program(task, client)
        await client.aclose()

    world.rows_for = recording
    try:
        world.clear_memo()
        asyncio.run(go())
    finally:
        del world.rows_for
    return seen


def requests_by_op(catalog, gold_requests) -> dict[str, list[tuple]]:
    """tool -> [(params, offset, limit)] over all three sources, each at several pages."""
    by_op: dict[str, list[tuple]] = defaultdict(list)
    for tool, params in ((t, p) for t, ps in example_param_variants(catalog).items() for p in ps):
        by_op[tool].extend((params, o, lim) for o, lim in PAGES)
    for c in CALLS:
        by_op[c["tool"]].extend((dict(c["params"]), o, lim) for o, lim in [(c["offset"], c["limit"])] + PAGES)
    for tool, params, offset, limit in gold_requests:
        if catalog.get(tool).op.query:
            by_op[tool].extend((params, o, lim) for o, lim in [(offset, limit)] + PAGES[:3])
    return by_op

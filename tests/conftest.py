"""Shared fixtures: the default world (built once into a per-session cache) and a client."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

# EDGE computes world answers ahead in worker processes by default (kopa_bench.speedups); the suite
# runs them in-process, except tests/test_world_workers.py, which starts its own and checks the
# answers and EDGE's graph are the same either way. Subprocesses started by tests inherit this.
os.environ.setdefault("KOPA_WORLD_WORKERS", "0")


@pytest.fixture(scope="session")
def world():
    from kopa_bench.world.store import get_world

    return get_world()


@pytest.fixture(scope="session")
def catalog():
    from kopa_bench.catalog import get_catalog

    return get_catalog()


@pytest.fixture(scope="session")
def sandbox_app(world, catalog):
    from kopa_bench.sandbox import create_app

    return create_app(world=world, catalog=catalog)


@pytest.fixture()
def client(world, catalog, sandbox_app):
    from kopa_bench.client import KopaClient

    return KopaClient(catalog=catalog, world=world, app=sandbox_app)


@pytest.fixture()
def call(client):
    """Synchronous helper: call(tool, **args) -> ToolResult, on the in-process sandbox."""

    def _call(tool, **args):
        return client.call_sync(tool, args)

    return _call


@pytest.fixture()
def raw_get(sandbox_app):
    """Synchronous raw HTTP GET against the in-process sandbox: raw_get(path, params) -> httpx.Response."""
    import httpx

    def _get(path, params=None, method="GET", **kw):
        async def go():
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=sandbox_app), base_url="http://sandbox") as c:
                return await c.request(method, path, params=params, **kw)

        return asyncio.run(go())

    return _get

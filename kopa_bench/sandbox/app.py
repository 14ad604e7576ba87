"""The sandbox: one ASGI app replaying every platform's protocol over the DuckDB world."""

from __future__ import annotations

import json
import os
import threading

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from ..catalog.registry import Catalog, get_catalog
from ..protocols import get_protocol
from ..world.store import World, get_world
from .context import SandboxContext, make_context
from .faults import FaultConfig
from .memo import AnswerStore, ResponseMemo


def sandbox_urls(catalog: Catalog, base: str = "http://127.0.0.1:8000") -> dict[str, str]:
    """Real host -> the sandbox base URL that replaces it."""
    return {p.live_base_url: f"{base}{p.sandbox_prefix}" for p in catalog.platforms.values()}


_answer_stores: dict[tuple, tuple[World, Catalog, AnswerStore]] = {}
_answer_lock = threading.Lock()


def _shared_answers(world: World, catalog: Catalog, keys) -> AnswerStore:
    """One memo of rendered answers per (world, catalog, accepted keys) in the process: apps
    built on the same world answer alike, so a benchmark's gold client, agent client and
    scorer share what was rendered. (The entry holds world and catalog, so their ids stay theirs.)"""
    if isinstance(keys, dict):
        kk: tuple = tuple(sorted((k, tuple(sorted(v))) for k, v in keys.items()))
    else:
        kk = ("*", tuple(sorted(keys)))
    key = (id(world), id(catalog), kk)
    with _answer_lock:
        hit = _answer_stores.get(key)
        if hit is None or hit[0] is not world or hit[1] is not catalog:
            hit = _answer_stores[key] = (world, catalog, AnswerStore())
        return hit[2]


def forget_answers(world: World) -> None:
    """Clear the rendered answers every app on `world` shares (what `World.clear_memo` does for the
    world's own memo): for tests and benchmarks that need requests to reach the world again."""
    with _answer_lock:
        stores = [store for w, _, store in _answer_stores.values() if w is world]
    for store in stores:
        store.clear()


def create_app(world: World | None = None, catalog: Catalog | None = None, keys=None,
               faults: FaultConfig | None = None) -> Starlette:
    catalog = catalog or get_catalog()
    world = world or get_world()
    ctx: SandboxContext = make_context(world, catalog, keys=keys, faults=faults)
    routes: list = []
    for platform in catalog.platforms.values():
        routes.extend(get_protocol(platform.protocol).routes(platform, ctx))

    async def health(request: Request):
        return JSONResponse({"status": "ok", "tools": len(catalog), "world": world.content_hash})

    async def not_found(request: Request, exc):
        # Real gateways answer unknown paths with a plain 404 page, never a redirect.
        return PlainTextResponse("Not Found", status_code=404)

    routes.append(Route("/__kopa/health", health))
    # Without fault injection every answer is a pure function of the request (the world is
    # read-only), so rendered answers are memoised; with faults, each request draws its fault.
    answers = _shared_answers(world, catalog, ctx.keys) if ctx.faults is None else None
    middleware = [Middleware(ResponseMemo, store=answers)] if answers is not None else []
    app = Starlette(routes=routes, exception_handlers={404: not_found}, middleware=middleware)
    app.state.answers = answers
    # Starlette would redirect /path/ <-> /path; the real APIs never redirect.
    app.router.redirect_slashes = False
    app.state.ctx = ctx
    return app


# `kopa sandbox serve --workers N` runs N uvicorn worker processes; each builds its app with this
# factory from the settings the parent put in the environment (uvicorn forks by import string).
SERVE_ENV = "KOPA_SANDBOX_SERVE"


def app_from_env() -> Starlette:
    from ..world.build import DEFAULT_SEED
    from .faults import FaultConfig

    cfg = json.loads(os.environ.get(SERVE_ENV) or "{}")
    keys = set(cfg["keys"]) if cfg.get("keys") else None
    seed = cfg.get("seed")
    return create_app(world=get_world(seed if seed is not None else DEFAULT_SEED), keys=keys,
                      faults=FaultConfig.parse(cfg.get("faults")))

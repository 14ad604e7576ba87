"""The sandbox: one ASGI app replaying every platform's protocol over the DuckDB world."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from ..catalog.registry import Catalog, get_catalog
from ..protocols.base import get_protocol
from ..world.store import World, get_world
from .context import SandboxContext, make_context
from .faults import FaultConfig


def sandbox_urls(catalog: Catalog, base: str = "http://127.0.0.1:8000") -> dict[str, str]:
    """Real host -> the sandbox base URL that replaces it."""
    return {p.live_base_url: f"{base}{p.sandbox_prefix}" for p in catalog.platforms.values()}


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
    app = Starlette(routes=routes, exception_handlers={404: not_found})
    # Starlette would redirect /path/ <-> /path; the real APIs never redirect.
    app.router.redirect_slashes = False
    app.state.ctx = ctx
    return app

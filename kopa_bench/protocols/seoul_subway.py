"""swopenapi.seoul.go.kr realtime subway: same path layout as Seoul 8088, its own envelopes
(`errorMessage` wrapper on success, flat error object); implemented in seoul.py."""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from ..catalog.registry import ToolRef
from .base import RequestSpec
from .seoul import build_request as seoul_build_request
from .seoul import fault_response, make_router, parse_realtime  # noqa: F401 (re-exported: every protocol offers fault_response)

parse_response = parse_realtime


def routes(platform, ctx) -> list[Route]:
    return [Route(f"{platform.sandbox_prefix}/{{rest:path}}", make_router(platform, ctx, realtime=True),
                  methods=["GET", "POST"])]


def build_request(ref: ToolRef, args: dict[str, Any], key: str | None, base_url: str) -> RequestSpec:
    return seoul_build_request(ref, args, key, base_url, trailing_slash=False)

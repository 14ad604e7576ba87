"""What every protocol family shares: parameter validation, the server context, results.

A protocol module (one per envelope family) provides the functions of `ProtocolFamily`, and
may add `fault_response(kind, ref)` (a quota or key fault in the platform's own words), so the
real wire format is described once, next to both of its readers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import xmltodict

from ..catalog.models import Operation

ProblemKind = Literal["missing", "invalid"]
XML_CT = "application/xml;charset=UTF-8"
JSON_CT = "application/json;charset=UTF-8"


@dataclass
class ParamProblem:
    """A request the platform must refuse with its own parameter error code."""

    kind: ProblemKind
    name: str
    detail: str


@dataclass
class RequestSpec:
    method: str
    url: str
    params: dict[str, Any] = field(default_factory=dict)
    json: Any = None


@dataclass
class Parsed:
    """A platform payload reduced to the fields every consumer needs."""

    ok: bool
    code: str
    msg: str
    records: list[dict[str, Any]] = field(default_factory=list)
    total: int | None = None
    error_type: str | None = None  # ErrorType of client.result when not ok
    retryable: bool = False


class ProtocolFamily(Protocol):
    """An envelope family module (kopa_bench.protocols.PROTOCOLS)."""

    def routes(self, platform, ctx) -> list:
        """The sandbox's replica of the platform: starlette routes."""

    def build_request(self, ref, args: dict[str, Any], key: str | None, base_url: str) -> RequestSpec:
        """What the client sends for one tool call."""

    def parse_response(self, ref, status: int, headers: dict[str, str], body: bytes) -> Parsed:
        """What the client reads back."""


def validate_params(op: Operation, raw: dict[str, Any], skip: set[str] = frozenset()) -> tuple[dict[str, Any], ParamProblem | None]:
    """Coerce and check the declared params of `op`; unknown extra params are ignored,
    as the real services ignore them."""
    out: dict[str, Any] = {}
    for p in op.params:
        if p.name in skip:
            continue
        value = raw.get(p.name)
        if isinstance(value, str) and value.strip() == "":
            value = None
        if value is None:
            if p.default is not None:
                value = p.default
            elif p.required:
                return out, ParamProblem("missing", p.name, f"required parameter {p.name} is missing")
            else:
                out[p.name] = None
                continue
        try:
            value = p.coerce(value)
        except ValueError as exc:
            return out, ParamProblem("invalid", p.name, str(exc))
        problem = p.check(value)
        if problem:
            return out, ParamProblem("invalid", p.name, problem)
        if p.cap is not None and isinstance(value, int) and value > p.cap:
            value = p.cap
        out[p.name] = p.canonical(value)
    return out, None


def decode_payload(body: bytes, *, hint: str = "", **xml_kwargs: Any) -> tuple[Any, Parsed | None]:
    """Bytes -> JSON or XML document, or the transient failure every platform shares:
    an empty body or a truncated / malformed payload (worth a retry)."""
    text = body.decode("utf-8", errors="replace").strip()
    if not text:
        return None, Parsed(False, "EMPTY", "empty response body", error_type="transient", retryable=True)
    try:
        return (json.loads(text) if text[0] in "{[" else xmltodict.parse(text, **xml_kwargs)), None
    except Exception as exc:  # truncated or malformed payloads do happen on the real hosts
        return None, Parsed(False, "MALFORMED", f"unparseable payload{hint}: {exc}", error_type="transient", retryable=True)


def path_segments(request, prefix: str) -> list[str]:
    """The URL path after `prefix`, split on '/' *before* percent-decoding, each segment decoded.

    ECOS and Seoul carry the service key as a path segment; a key with '/' (data.go.kr-style
    keys often have '/', '+' and '=') travels as %2F, and splitting the decoded path would cut
    the key in two. Falls back to the decoded `{rest}` when the server gives no raw_path."""
    from urllib.parse import unquote

    raw = request.scope.get("raw_path")
    head = (prefix.rstrip("/") + "/").encode("ascii")
    if raw and raw.startswith(head):
        return [unquote(s) for s in raw[len(head):].split(b"?")[0].decode("latin-1").split("/")]
    return request.path_params["rest"].split("/")


def unexpected(what: str = "unexpected payload") -> Parsed:
    return Parsed(False, "MALFORMED", what, error_type="transient", retryable=True)


def ops_by_path(platform, ctx, key) -> dict[str, dict[str, Any]]:
    """Operations sharing one path (law.go.kr's `target`, VWorld's `request`): path -> {key(ref): ref}."""
    by_path: dict[str, dict[str, Any]] = {}
    for svc in platform.services:
        for op in svc.operations:
            ref = ctx.catalog.get(op.tool)
            by_path.setdefault(f"{platform.sandbox_prefix}{svc.path}{op.path}", {})[key(ref)] = ref
    return by_path


def op_routes(platform, ctx, make_endpoint, *, services=None, methods=("GET", "POST")) -> list:
    """One route per operation at `<sandbox prefix><service path><op path>`; `methods=None`
    serves each operation's own method only."""
    from starlette.routing import Route

    out = []
    for svc in services if services is not None else platform.services:
        for op in svc.operations:
            ref = ctx.catalog.get(op.tool)
            out.append(Route(f"{platform.sandbox_prefix}{svc.path}{op.path}", make_endpoint(ref, ctx),
                             methods=list(methods) if methods else [op.method]))
    return out


def as_text(value: Any) -> str:
    """How the real services print values in XML (and usually in JSON): as text."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value) if not value.is_integer() else str(int(value)) if abs(value) < 1e15 else repr(value)
    return str(value)


def wants_json(value: str | None, json_value: str = "json") -> bool:
    """Format switches are case-insensitive on every platform (json, JSON, Json)."""
    return value is not None and value.strip().lower() == json_value.lower()

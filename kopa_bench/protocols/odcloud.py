"""odcloud (api.odcloud.kr): JSON-only gateway; NTS business status is a POST with a JSON body.

Wire facts reproduced here:
- the key travels as `serviceKey` in the query string (odcloud also takes the header
  `Authorization: Infuser <key>`); a missing or unknown key gets HTTP 401 with the gateway's
  own JSON `{"code": -4, "msg": "등록되지 않은 인증키 입니다."}`;
- success: HTTP 200 `{"request_cnt": N, "match_cnt": M, "status_code": "OK", "data": [...]}` where
  every requested number has a row (unregistered ones with empty b_stt_cd and the message in
  tax_type) and match_cnt counts the registered ones;
- a body that is not JSON / has no b_no list: HTTP 400 `{"status_code": "BAD_JSON_REQUEST"}`;
  an empty list: HTTP 411 REQUEST_DATA_MALFORMED; more than 100 numbers: HTTP 413 TOO_LARGE_REQUEST.
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..catalog.registry import ToolRef
from .base import JSON_CT, Parsed, RequestSpec, decode_payload, op_routes, unexpected

MAX_B_NO = 100


def _json(payload: Any, status: int = 200) -> Response:
    return Response(json.dumps(payload, ensure_ascii=False), status_code=status, headers={"Content-Type": JSON_CT})


def gateway_error(kind: str = "key") -> Response:
    if kind == "key":
        return _json({"code": -4, "msg": "등록되지 않은 인증키 입니다."}, 401)
    # quota: odcloud answers 429 with its own JSON (code observed as -10; low confidence)
    return _json({"code": -10, "msg": "API 호출 한도를 초과하였습니다."}, 429)


def fault_response(kind: str, ref) -> Response:
    return gateway_error("key" if kind == "key" else "quota")


def _key(request: Request, ref: ToolRef) -> str | None:
    key = request.query_params.get(ref.service.auth_param) or request.query_params.get("ServiceKey")
    if key:
        return key
    auth = request.headers.get("authorization", "")
    return auth[len("Infuser "):].strip() if auth.startswith("Infuser ") else None


def make_endpoint(ref: ToolRef, ctx):
    async def endpoint(request: Request) -> Response:
        fault = await ctx.fault_for(ref, request)
        if fault is not None:
            return fault
        if not ctx.key_ok(ref.platform.id, _key(request, ref)):
            return gateway_error("key")
        try:
            body = json.loads((await request.body()).decode("utf-8") or "null")
        except (UnicodeDecodeError, json.JSONDecodeError):
            return _json({"status_code": "BAD_JSON_REQUEST"}, 400)
        numbers = body.get("b_no") if isinstance(body, dict) else None
        if not isinstance(numbers, list) or not all(isinstance(x, (str, int)) for x in numbers):
            return _json({"status_code": "BAD_JSON_REQUEST"}, 400)
        if not numbers:
            return _json({"status_code": "REQUEST_DATA_MALFORMED"}, 411)
        if len(numbers) > MAX_B_NO:
            return _json({"status_code": "TOO_LARGE_REQUEST"}, 413)
        cleaned = [re.sub(r"\D", "", str(x)) or "0" for x in numbers]
        rows, _ = ctx.world.rows_for(ref.op, {"b_no": ",".join(cleaned)}, offset=0, limit=None)
        match = sum(1 for r in rows if r.get("b_stt_cd"))
        return _json({"request_cnt": len(cleaned), "match_cnt": match, "status_code": "OK", "data": rows})

    return endpoint


def routes(platform, ctx) -> list[Route]:
    return op_routes(platform, ctx, make_endpoint, methods=None)


# ---- client side -----------------------------------------------------------------------

def build_request(ref: ToolRef, args: dict[str, Any], key: str | None, base_url: str) -> RequestSpec:
    params: dict[str, Any] = {}
    body: dict[str, Any] = {}
    for p in ref.op.params:
        value = args.get(p.name)
        if value is None:
            continue
        if p.location == "body":
            if p.name == "b_no":
                items = value if isinstance(value, list) else str(value).split(",")
                value = [re.sub(r"[\s-]", "", str(x)) for x in items if str(x).strip()]
            body[p.name] = value
        else:
            params[p.name] = value
    if key is not None:
        params[ref.service.auth_param] = key
    return RequestSpec(ref.op.method, f"{base_url}{ref.service.path}{ref.op.path}", params, json=body)


def parse_response(ref: ToolRef, status: int, headers: dict[str, str], body: bytes) -> Parsed:
    doc, fail = decode_payload(body)
    if fail is not None:
        return fail
    if not isinstance(doc, dict):
        return unexpected()
    if "code" in doc and "status_code" not in doc:  # gateway error
        code = str(doc.get("code"))
        kind = "quota" if status == 429 else "auth" if status in (401, 403) or code == "-4" else "platform"
        return Parsed(False, code, str(doc.get("msg", "")), error_type=kind, retryable=status == 429)
    code = str(doc.get("status_code", ""))
    if code != "OK":
        return Parsed(False, code, code, error_type="transient" if code == "INTERNAL_ERROR" else "platform",
                      retryable=code == "INTERNAL_ERROR")
    data = doc.get("data") or []
    return Parsed(True, "OK", f"match_cnt={doc.get('match_cnt')}", [dict(r) for r in data], int(doc.get("request_cnt", len(data))))

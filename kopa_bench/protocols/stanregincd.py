"""MOIS StanReginCd (법정동코드, apis.data.go.kr/1741000/StanReginCd): its own envelope on data.go.kr.

Wire facts reproduced here:
- the data.go.kr gateway still answers key problems first, as XML OpenAPI_ServiceResponse
  (returnReasonCode 30), whatever format was asked for;
- `ServiceKey` (spec spelling) and `serviceKey` are both accepted; `type=json` switches to JSON
  (case-insensitive), XML by default;
- success: `StanReginCd -> [head, row]`; JSON
  `{"StanReginCd":[{"head":[{"totalCount":N},{"numOfRows":"10","pageNo":"1","type":"JSON"},
  {"RESULT":{"resultCode":"INFO-0","resultMsg":"NOMAL SERVICE"}}]},{"row":[...]}]}` (sic: NOMAL);
  XML `<StanReginCd><head><totalCount/><numOfRows/><pageNo/><type/><RESULT>..</RESULT></head><row>..</row>..`;
- errors and no data use the Seoul-style RESULT codes: INFO-200 해당하는 데이터가 없습니다,
  ERROR-300 (missing value), ERROR-333 (bad pageNo/numOfRows type), ERROR-336 (> 1000 rows),
  answered as a bare `{"RESULT": {"resultCode", "resultMsg"}}` / `<RESULT>..</RESULT>`.
"""

from __future__ import annotations

import json
from typing import Any

import xmltodict
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..catalog.registry import ToolRef
from .base import JSON_CT, XML_CT, Parsed, RequestSpec, as_text, decode_payload, op_routes, unexpected, validate_params, wants_json
from .data_go_kr_gateway import gateway_error_xml

ROOT = "StanReginCd"
MESSAGES = {
    "INFO-0": "NOMAL SERVICE",
    "INFO-200": "해당하는 데이터가 없습니다.",
    "ERROR-300": "필수 값이 누락되어 있습니다. 요청인자를 참고 하십시오.",
    "ERROR-333": "요청위치 값의 타입이 유효하지 않습니다.요청위치 값은 정수를 입력하세요.",
    "ERROR-336": "데이터요청은 한번에 최대 1000건을 넘을 수 없습니다.",
}
NAME = "stanregincd"


def _mine(svc) -> bool:
    return (svc.extra or {}).get("protocol") == NAME


def _key(request: Request, ref: ToolRef) -> str | None:
    for n in (ref.service.auth_param, *ref.service.auth_aliases, "ServiceKey", "serviceKey"):
        v = request.query_params.get(n)
        if v:
            return v
    return None


def _result(code: str, as_json: bool) -> Response:
    result = {"resultCode": code, "resultMsg": MESSAGES[code]}
    if as_json:
        return Response(json.dumps({"RESULT": result}, ensure_ascii=False), headers={"Content-Type": JSON_CT})
    return Response(xmltodict.unparse({"RESULT": result}, full_document=True, encoding="UTF-8"), headers={"Content-Type": XML_CT})


def _render(rows: list[dict], total: int, n_rows: int, page: int, as_json: bool) -> Response:
    result = {"resultCode": "INFO-0", "resultMsg": MESSAGES["INFO-0"]}
    text_rows = [{k: as_text(v) for k, v in r.items()} for r in rows]
    if as_json:
        doc = {ROOT: [{"head": [{"totalCount": total}, {"numOfRows": str(n_rows), "pageNo": str(page), "type": "JSON"},
                                {"RESULT": result}]}, {"row": text_rows}]}
        return Response(json.dumps(doc, ensure_ascii=False), headers={"Content-Type": JSON_CT})
    doc = {ROOT: {"head": {"totalCount": str(total), "numOfRows": str(n_rows), "pageNo": str(page), "type": "XML", "RESULT": result},
                  "row": text_rows}}
    return Response(xmltodict.unparse(doc, full_document=True, encoding="UTF-8", short_empty_elements=True),
                    headers={"Content-Type": XML_CT})


def make_endpoint(ref: ToolRef, ctx):
    async def endpoint(request: Request) -> Response:
        as_json = wants_json(request.query_params.get(ref.service.format_param or "type"), ref.service.format_json)
        fault = await ctx.fault_for(ref, request)
        if fault is not None:
            return fault
        if not ctx.key_ok(ref.platform.id, _key(request, ref)):
            return gateway_error_xml("30")
        params, problem = validate_params(ref.op, dict(request.query_params))
        if problem is not None:
            if problem.kind == "missing":
                return _result("ERROR-300", as_json)
            if problem.name == "numOfRows" and "above the maximum" in problem.detail:
                return _result("ERROR-336", as_json)
            return _result("ERROR-333" if problem.name in ("numOfRows", "pageNo") else "ERROR-300", as_json)
        n_rows = params.get("numOfRows") or 10
        page = params.get("pageNo") or 1
        rows, total = ctx.world.rows_for(ref.op, params, offset=(page - 1) * n_rows, limit=n_rows)
        if total == 0 or not rows:
            return _result("INFO-200", as_json)
        return _render(rows, total, n_rows, page, as_json)

    return endpoint


def routes(platform, ctx) -> list[Route]:
    """Routes of the services on `platform` that name this protocol in `extra.protocol`."""
    return op_routes(platform, ctx, make_endpoint, services=[s for s in platform.services if _mine(s)])


# ---- client side -----------------------------------------------------------------------

def build_request(ref: ToolRef, args: dict[str, Any], key: str | None, base_url: str) -> RequestSpec:
    params = {k: v for k, v in args.items() if v is not None}
    if key is not None:
        params[ref.service.auth_param] = key
    params[ref.service.format_param or "type"] = "json"
    return RequestSpec(ref.op.method, f"{base_url}{ref.service.path}{ref.op.path}", params)


def parse_response(ref: ToolRef, status: int, headers: dict[str, str], body: bytes) -> Parsed:
    # The gateway's key/quota XML was already handled by data_go_kr.parse_response.
    doc, fail = decode_payload(body, force_list=("row",))
    if fail is not None:
        return fail
    if not isinstance(doc, dict):
        return unexpected()
    if "RESULT" in doc:
        res = doc["RESULT"] or {}
        code, msg = str(res.get("resultCode", "")), str(res.get("resultMsg", ""))
        if code == "INFO-200":
            return Parsed(True, code, msg, [], 0)
        kind = "argument" if code in ("ERROR-300", "ERROR-333", "ERROR-336") else "platform"
        if code in ("ERROR-290", "INFO-300"):
            kind = "auth"
        if code in ("ERROR-337",):
            kind = "quota"
        if code in ("ERROR-500", "ERROR-600", "ERROR-601"):
            return Parsed(False, code, msg, error_type="transient", retryable=True)
        return Parsed(False, code, msg, error_type="platform" if kind == "argument" else kind)
    body_ = doc.get(ROOT)
    if isinstance(body_, list):  # JSON: [ {head: [...]}, {row: [...]} ]
        head, rows = {}, []
        for part in body_:
            if "head" in part:
                for h in part["head"]:
                    head.update(h)
            if "row" in part:
                rows = part["row"] or []
    elif isinstance(body_, dict):  # XML
        head = body_.get("head") or {}
        rows = body_.get("row") or []
    else:
        return Parsed(False, "MALFORMED", f"no `{ROOT}` envelope", error_type="transient", retryable=True)
    result = head.get("RESULT") or {}
    code, msg = str(result.get("resultCode", "")), str(result.get("resultMsg", ""))
    if code != "INFO-0":
        return Parsed(False, code, msg, error_type="platform")
    try:
        total = int(head.get("totalCount"))
    except (TypeError, ValueError):
        total = len(rows)
    return Parsed(True, code, msg, [{k: ("" if v is None else v) for k, v in dict(r).items()} for r in rows], total)

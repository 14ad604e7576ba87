"""data.go.kr (apis.data.go.kr): the `response/header/body` envelope and its gateway.

Wire facts reproduced here (see kopa_bench/catalog/specs/*data_go_kr*.yaml for the services):
- key problems are answered by the gateway before the service, always as XML
  `OpenAPI_ServiceResponse` with returnReasonCode 30, even when JSON was asked for;
- `serviceKey` and `ServiceKey` are both accepted;
- XML by default; each provider has its own JSON switch (returnType, dataType, _type, type);
- numbers are strings, counts are numbers in JSON; AirKorea puts the records directly
  under `items`, most others under `items.item`, and converted-XML services (TourAPI, KASI,
  TAGO) give an object, not a list, when exactly one record matches, and `""` for none;
- parameter errors come back from the service as resultCode 10/11 in the asked format.
"""

from __future__ import annotations

import json
from typing import Any

import xmltodict
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..catalog.registry import ToolRef
from . import stanregincd
from .base import JSON_CT, XML_CT, Parsed, RequestSpec, as_text, decode_payload, op_routes, unexpected, validate_params, wants_json
from .data_go_kr_gateway import gateway_error_xml


SERVICE_MSGS = {
    "01": "APPLICATION_ERROR", "02": "DB_ERROR", "03": "NODATA_ERROR", "04": "HTTP_ERROR",
    "05": "SERVICETIME_OUT", "10": "INVALID_REQUEST_PARAMETER_ERROR",
    "11": "NO_MANDATORY_REQUEST_PARAMETERS_ERROR", "99": "UNKNOWN_ERROR",
}
AUTH_CODES = {"20", "21", "30", "31", "32", "33"}
QUOTA_CODES = {"22", "23"}
TRANSIENT_CODES = {"01", "02", "04", "05", "99"}


def _find_key(request: Request, ref: ToolRef) -> str | None:
    names = [ref.service.auth_param, *ref.service.auth_aliases, "serviceKey", "ServiceKey"]
    for n in names:
        v = request.query_params.get(n)
        if v:
            return v
    return None


def _accepts_json(request: Request) -> bool:
    """The Accept header prefers JSON: application/json listed before any XML type."""
    accept = request.headers.get("accept", "").lower()
    json_at = accept.find("application/json")
    xml_at = min((i for i in (accept.find("application/xml"), accept.find("text/xml")) if i >= 0), default=-1)
    return json_at >= 0 and (xml_at < 0 or json_at < xml_at)


def _is_json(request: Request, ref: ToolRef) -> bool:
    svc = ref.service
    if not svc.json_supported or not svc.format_param:
        return svc.format_default == "json"
    # the switch's name is case-sensitive on some services, its value never is
    value = request.query_params.get(svc.format_param)
    if value is None:
        # services behind a content-negotiating gateway honour the Accept header instead
        return svc.format_default == "json" or (svc.accept_header_json and _accepts_json(request))
    return wants_json(value, svc.format_json)


def _render(ref: ToolRef, as_json: bool, code: str, msg: str, rows: list[dict] | None,
            page: dict[str, int] | None) -> Response:
    header = {"resultCode": code, "resultMsg": msg}
    svc_extra = {**ref.service.extra, **ref.op.extra}
    if rows is None:  # service-level error: header only
        envelope = {"response": {"header": header}}
    else:
        body: dict[str, Any] = {}
        single_quirk = ref.op.single_item_object or svc_extra.get("single_item_object", False)
        if as_json:
            rows_json = rows
            if svc_extra.get("items_direct_array"):
                items: Any = rows_json
            elif not rows_json:
                items = "" if single_quirk else {"item": []}
            elif len(rows_json) == 1 and single_quirk:
                items = {"item": rows_json[0]}
            else:
                items = {"item": rows_json}
            if svc_extra.get("json_body_type"):
                body["dataType"] = "JSON"
            body.update({"items": items, "numOfRows": page["numOfRows"], "pageNo": page["pageNo"],
                         "totalCount": page["totalCount"]})
        else:
            body = {"items": {"item": [{k: as_text(v) for k, v in r.items()} for r in rows]} if rows else None,
                    "numOfRows": page["numOfRows"], "pageNo": page["pageNo"], "totalCount": page["totalCount"]}
        envelope = {"response": {"header": header, "body": body}}
    if as_json:
        return Response(json.dumps(envelope, ensure_ascii=False, default=str), headers={"Content-Type": JSON_CT})
    xml = xmltodict.unparse(envelope, full_document=True, encoding="UTF-8", short_empty_elements=True)
    return Response(xml, headers={"Content-Type": XML_CT})


def make_endpoint(ref: ToolRef, ctx):
    paging_rows = ref.service.extra.get("rows_param", "numOfRows")
    paging_page = ref.service.extra.get("page_param", "pageNo")
    nodata_code = ref.service.extra.get("nodata_code")  # KMA answers 03 instead of an empty 00

    async def endpoint(request: Request) -> Response:
        as_json = _is_json(request, ref)
        fault = await ctx.fault_for(ref, request)
        if fault is not None:
            return fault
        key = _find_key(request, ref)
        if not ctx.key_ok(ref.platform.id, key):
            return gateway_error_xml("30")
        raw = dict(request.query_params)
        params, problem = validate_params(ref.op, raw)
        if problem is not None:
            code = "11" if problem.kind == "missing" else "10"
            return _render(ref, as_json, code, SERVICE_MSGS[code], None, None)
        n_rows = params.get(paging_rows) or 10
        page_no = params.get(paging_page) or 1
        rows, total = ctx.world.rows_for(ref.op, params, offset=(page_no - 1) * n_rows, limit=n_rows)
        if total == 0 and nodata_code:
            return _render(ref, as_json, nodata_code, "NO_DATA", None, None)
        page = {"numOfRows": n_rows, "pageNo": page_no, "totalCount": total}
        return _render(ref, as_json, ref.service.success_code, ref.service.success_msg, rows, page)

    return endpoint


# Services on data.go.kr with their own envelope name its module in `extra.protocol`.
DELEGATES = {"stanregincd": stanregincd}


def _delegate(service):
    """The envelope module of a service with its own (MOIS StanReginCd), or None; the gateway in
    front of it is still data.go.kr's."""
    name = service.extra.get("protocol")
    if not name:
        return None
    try:
        return DELEGATES[name]
    except KeyError:
        raise KeyError(f"service {service.id} names envelope {name!r}; data.go.kr delegates to {sorted(DELEGATES)}") from None


def routes(platform, ctx) -> list[Route]:
    own, delegated = [], {}
    for svc in platform.services:
        other = _delegate(svc)
        if other is None:
            own.append(svc)
        else:  # that module serves every service naming it
            delegated[other.__name__] = other
    out = op_routes(platform, ctx, make_endpoint, services=own)
    for module in delegated.values():
        out.extend(module.routes(platform, ctx))
    return out


# ---- client side -----------------------------------------------------------------------

def build_request(ref: ToolRef, args: dict[str, Any], key: str | None, base_url: str) -> RequestSpec:
    other = _delegate(ref.service)
    if other is not None:
        return other.build_request(ref, args, key, base_url)
    params = {k: v for k, v in args.items() if v is not None}
    if key is not None:
        params[ref.service.auth_param] = key
    if ref.service.json_supported and ref.service.format_param:
        params[ref.service.format_param] = ref.service.format_json
    return RequestSpec(ref.op.method, f"{base_url}{ref.service.path}{ref.op.path}", params)


def _classify(code: str) -> tuple[str | None, bool]:
    if code in AUTH_CODES:
        return "auth", False
    if code in QUOTA_CODES:
        return "quota", code == "23"
    if code == "12":
        return "no_service", False
    if code in TRANSIENT_CODES:
        return "transient", True
    return "platform", False


def _as_list(items: Any) -> list[dict]:
    if items in (None, ""):
        return []
    if isinstance(items, dict):
        inner = items.get("item", items if "item" not in items else None)
        if inner is None or inner == "":
            return []
        return inner if isinstance(inner, list) else [inner]
    if isinstance(items, list):
        return items
    return []


def gateway_error(body: bytes) -> Parsed | None:
    """The gateway's own XML (key 30, quota 22/23, ...) in front of EVERY data.go.kr service,
    whatever envelope the service itself uses."""
    head = body[:300].decode("utf-8", errors="replace")
    if "OpenAPI_ServiceResponse" not in head:
        return None
    doc, fail = decode_payload(body)
    if fail is not None:
        return fail
    hdr = ((doc or {}).get("OpenAPI_ServiceResponse") or {}).get("cmmMsgHeader") or {}
    code = str(hdr.get("returnReasonCode", "99"))
    kind, retry = _classify(code)
    return Parsed(False, code, str(hdr.get("returnAuthMsg") or hdr.get("errMsg") or ""), error_type=kind, retryable=retry)


def parse_response(ref: ToolRef, status: int, headers: dict[str, str], body: bytes) -> Parsed:
    gateway = gateway_error(body)
    if gateway is not None:
        return gateway
    other = _delegate(ref.service)
    if other is not None:
        return other.parse_response(ref, status, headers, body)
    # whitespace kept: MOLIT's dealAmount really is "   72,000"
    doc, fail = decode_payload(body, strip_whitespace=False)
    if fail is not None:
        return fail
    resp = doc.get("response") if isinstance(doc, dict) else None
    if not isinstance(resp, dict):
        return unexpected("no `response` envelope")
    header = resp.get("header") or {}
    code = str(header.get("resultCode", ""))
    msg = str(header.get("resultMsg", ""))
    if code == "03":  # NODATA is an answer, not a failure
        return Parsed(True, code, msg, [], 0)
    if code != ref.service.success_code and code not in {"00", "000", "0000", "INFO-000"}:
        kind, retry = _classify(code)
        return Parsed(False, code, msg, error_type=kind, retryable=retry)
    body_ = resp.get("body") or {}
    records = _as_list(body_.get("items"))
    total = body_.get("totalCount")
    try:
        total = int(total) if total is not None else len(records)
    except (TypeError, ValueError):
        total = len(records)
    return Parsed(True, code, msg, [dict(r) for r in records], total)

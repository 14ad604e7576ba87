"""NEIS (open.neis.go.kr/hub/<dataset>) and 열린국회정보 (open.assembly.go.kr/portal/openapi/<dataset>).

One envelope family, the dataset name is the last path segment:
- success: `{"<dataset>":[{"head":[{"list_total_count":N},{"RESULT":{"CODE":"INFO-000","MESSAGE":"정상
  처리되었습니다."}}]},{"row":[...]}]}` (XML: `<dataset><head><list_total_count/><RESULT>..</RESULT>
  </head><row>..</row>...</dataset>`); list_total_count is a number in JSON;
- every error and "no data" is a top-level `{"RESULT":{"CODE":..,"MESSAGE":..}}` (XML `<RESULT>`),
  HTTP 200 always; XML unless `Type=json` (value case-insensitive; `type` also accepted);
- auth `KEY`: an unknown key -> ERROR-290; no KEY (or the literal `sample`) behaves as the sample
  key: at most 5 rows, pIndex/pSize ignored;
- pIndex/pSize default 1/100; not an integer (or < 1) -> ERROR-333; pSize > 1000 -> ERROR-336;
- a missing required parameter -> ERROR-300 (the message does not name it); an unknown dataset
  -> ERROR-310; values that match nothing (or are malformed) -> INFO-200.
"""

from __future__ import annotations

import json
import re
from typing import Any

import xmltodict
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..catalog.registry import ToolRef
from .base import JSON_CT, Parsed, RequestSpec, as_text, decode_payload, unexpected, validate_params, wants_json

XML_CT = "text/xml;charset=UTF-8"
SAMPLE_KEY = "sample"

MSGS = {
    "INFO-000": "정상 처리되었습니다.",
    "INFO-100": "해당 자료는 단순 참고용으로만 활용하시기 바랍니다.",
    "INFO-200": "해당하는 데이터가 없습니다.",
    "INFO-300": "관리자에 의해 인증키 사용이 제한되었습니다.",
    "ERROR-290": "인증키가 유효하지 않습니다. 인증키가 없는 경우, 홈페이지에서 인증키를 신청하십시오.",
    "ERROR-300": "필수 값이 누락되어 있습니다. 요청인자를 참고 하십시오.",
    "ERROR-310": "해당하는 서비스를 찾을 수 없습니다. 요청인자 중 SERVICE를 확인하십시오.",
    "ERROR-333": "요청위치 값의 타입이 유효하지 않습니다.요청위치 값은 정수를 입력하세요.",
    "ERROR-336": "데이터요청은 한번에 최대 1,000건을 넘을 수 없습니다.",
    "ERROR-337": "일별 트래픽 제한을 넘은 호출입니다. 오늘은 더이상 호출할 수 없습니다.",
    "ERROR-500": "서버 오류입니다. 지속적으로 발생시 홈페이지로 문의(Q&A) 바랍니다.",
    "ERROR-600": "데이터베이스 연결 오류입니다. 지속적으로 발생시 홈페이지로 문의(Q&A) 바랍니다.",
    "ERROR-601": "SQL 문장 오류 입니다. 지속적으로 발생시 홈페이지로 문의(Q&A) 바랍니다.",
}
PAGING = ("pIndex", "pSize")


def _is_json(request: Request) -> bool:
    for name in ("Type", "type", "TYPE"):
        v = request.query_params.get(name)
        if v is not None:
            return wants_json(v)
    return False


def result_only(code: str, as_json: bool) -> Response:
    body = {"RESULT": {"CODE": code, "MESSAGE": MSGS.get(code, "")}}
    if as_json:
        return Response(json.dumps(body, ensure_ascii=False), headers={"Content-Type": JSON_CT})
    return Response(xmltodict.unparse(body, full_document=True, encoding="UTF-8"), headers={"Content-Type": XML_CT})


def fault_response(kind: str, ref) -> Response:
    return result_only({"quota": "ERROR-337", "per_second": "ERROR-337", "key": "ERROR-290"}.get(kind, "ERROR-500"), True)


def _render(name: str, as_json: bool, rows: list[dict], total: int) -> Response:
    head = [{"list_total_count": total}, {"RESULT": {"CODE": "INFO-000", "MESSAGE": MSGS["INFO-000"]}}]
    if as_json:
        body = {name: [{"head": head}, {"row": rows}]}
        return Response(json.dumps(body, ensure_ascii=False, default=str), headers={"Content-Type": JSON_CT})
    doc = {name: {"head": {"list_total_count": str(total),
                           "RESULT": {"CODE": "INFO-000", "MESSAGE": MSGS["INFO-000"]}},
                  "row": [{k: as_text(v) for k, v in r.items()} for r in rows]}}
    return Response(xmltodict.unparse(doc, full_document=True, encoding="UTF-8", short_empty_elements=True),
                    headers={"Content-Type": XML_CT})


def _find_key(request: Request, ref: ToolRef) -> str | None:
    for n in (ref.service.auth_param, *ref.service.auth_aliases, "KEY", "Key", "key"):
        v = request.query_params.get(n)
        if v:
            return v
    return None


def _int(value: str | None, default: int) -> int | None:
    if value is None or value.strip() == "":
        return default
    if not re.fullmatch(r"\s*\+?\d{1,9}\s*", value):
        return None
    n = int(value)
    return n if n >= 1 else None


def make_endpoint(ref: ToolRef, ctx):
    name = ref.op.list_key or ref.op.name

    async def endpoint(request: Request) -> Response:
        as_json = _is_json(request)
        fault = await ctx.fault_for(ref, request)
        if fault is not None:
            return fault
        key = _find_key(request, ref)
        sample = key is None or key == SAMPLE_KEY
        if not sample and not ctx.key_ok(ref.platform.id, key):
            return result_only("ERROR-290", as_json)
        p_index = _int(request.query_params.get("pIndex"), 1)
        p_size = _int(request.query_params.get("pSize"), 100)
        if p_index is None or p_size is None:
            return result_only("ERROR-333", as_json)
        if p_size > 1000:
            return result_only("ERROR-336", as_json)
        if sample:
            p_index, p_size = 1, 5
        params, problem = validate_params(ref.op, dict(request.query_params), skip=set(PAGING))
        if problem is not None:
            return result_only("ERROR-300" if problem.kind == "missing" else "INFO-200", as_json)
        try:
            rows, total = ctx.world.rows_for(ref.op, params, offset=(p_index - 1) * p_size, limit=p_size)
        except Exception:  # a value the SQL cannot use (e.g. a bad date) is "no data" on the real portal
            return result_only("INFO-200", as_json)
        if total == 0 or not rows:
            return result_only("INFO-200", as_json)
        return _render(name, as_json, rows, total)

    return endpoint


def routes(platform, ctx) -> list[Route]:
    out = []
    prefixes = set()
    for svc in platform.services:
        prefixes.add(f"{platform.sandbox_prefix}{svc.path}")
        for op in svc.operations:
            ref = ctx.catalog.get(op.tool)
            path = f"{platform.sandbox_prefix}{svc.path}{op.path or '/' + op.name}"
            out.append(Route(path, make_endpoint(ref, ctx), methods=["GET", "POST"]))

    async def unknown(request: Request) -> Response:
        return result_only("ERROR-310", _is_json(request))

    for prefix in sorted(prefixes):
        out.append(Route(prefix + "/{dataset}", unknown, methods=["GET", "POST"]))
    return out


# ---- client side -----------------------------------------------------------------------

def build_request(ref: ToolRef, args: dict[str, Any], key: str | None, base_url: str) -> RequestSpec:
    params: dict[str, Any] = {}
    if key is not None:
        params[ref.service.auth_param or "KEY"] = key
    params[ref.service.format_param or "Type"] = ref.service.format_json or "json"
    params.update({k: v for k, v in args.items() if v is not None})
    params.setdefault("pIndex", 1)
    params.setdefault("pSize", 100)
    return RequestSpec(ref.op.method, f"{base_url}{ref.service.path}{ref.op.path or '/' + ref.op.name}", params)


def _classify(code: str) -> tuple[str, bool]:
    if code in ("ERROR-290", "INFO-300"):
        return "auth", False
    if code == "ERROR-337":
        return "quota", False
    if code == "ERROR-310":
        return "no_service", False
    if code in ("ERROR-500", "ERROR-600", "ERROR-601"):
        return "transient", True
    return "platform", False


def _result(code: str, msg: str, records=None, total=None) -> Parsed:
    if code in ("INFO-000", "INFO-100"):
        return Parsed(True, code, msg, records or [], total if total is not None else len(records or []))
    if code == "INFO-200":
        return Parsed(True, code, msg, [], 0)
    kind, retry = _classify(code)
    return Parsed(False, code, msg, error_type=kind, retryable=retry)


def parse_response(ref: ToolRef, status: int, headers: dict[str, str], body: bytes) -> Parsed:
    doc, fail = decode_payload(body)
    if fail is not None:
        return fail
    if not isinstance(doc, dict):
        return unexpected()
    if "RESULT" in doc:
        res = doc["RESULT"] or {}
        return _result(str(res.get("CODE", "")), str(res.get("MESSAGE", "")))
    name = ref.op.list_key or ref.op.name
    data = doc.get(name)
    if data is None and len(doc) == 1:
        data = next(iter(doc.values()))
    if isinstance(data, list):  # JSON: [{"head": [...]}, {"row": [...]}]
        head, rows = [], []
        for part in data:
            if isinstance(part, dict) and "head" in part:
                head = part["head"] or []
            elif isinstance(part, dict) and "row" in part:
                rows = part["row"] or []
        total, code, msg = None, "INFO-000", ""
        for h in head:
            if "list_total_count" in h:
                total = h["list_total_count"]
            if "RESULT" in h:
                code, msg = str(h["RESULT"].get("CODE", "")), str(h["RESULT"].get("MESSAGE", ""))
    elif isinstance(data, dict):  # XML
        h = data.get("head") or {}
        res = h.get("RESULT") or {}
        code, msg = str(res.get("CODE", "INFO-000")), str(res.get("MESSAGE", ""))
        total = h.get("list_total_count")
        rows = data.get("row") or []
        if isinstance(rows, dict):
            rows = [rows]
    else:
        return Parsed(False, "MALFORMED", f"no `{name}` envelope", error_type="transient", retryable=True)
    try:
        total = int(total) if total is not None else len(rows)
    except (TypeError, ValueError):
        total = len(rows)
    return _result(code, msg, [dict(r) for r in rows], total)

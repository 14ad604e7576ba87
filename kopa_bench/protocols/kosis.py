"""KOSIS 공유서비스 (`/openapi/Param/statisticsParameterData.do`).

Success is a bare JSON array of cells; failure an object `{"err":"30","errMsg":"..."}`, both
HTTP 200. `format=json` without `jsonVD=Y` gives a JavaScript object literal with unquoted
keys (the real quirk). itmId/objL1 accept '+'-joined lists (trailing '+' allowed) and ALL.
Period by startPrdDe/endPrdDe or newEstPrdCnt (latest N). More than 40,000 cells: err 31.
Choices: `format=xml` answers a simple `<Data><Row>..</Row></Data>` document (the real XML
layout is not documented in our sources); only DT_1B040A3 (orgId 101) exists in this world,
other tables answer err 30; an unknown prdSe answers err 21.
"""

from __future__ import annotations

import json
import re
from typing import Any

import xmltodict
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..refdata.platform_facts import KOSIS_MAX_CELLS
from .base import JSON_CT, XML_CT, Parsed, RequestSpec, decode_payload, op_routes, validate_params

ERRS = {
    "10": "인증키 누락", "11": "인증키 기간만료", "20": "필수요청변수 누락", "21": "잘못된 요청변수",
    "30": "조회결과가 없습니다.", "31": "조회결과 초과", "40": "호출가능건수 제한", "41": "호출가능ROW수 제한",
    "42": "사용자별 이용 제한", "50": "서버오류",
}


def _err(code: str) -> Response:
    return Response(json.dumps({"err": code, "errMsg": ERRS[code]}, ensure_ascii=False), headers={"Content-Type": JSON_CT})


def fault_response(kind: str, ref) -> Response:
    return _err("40" if kind in ("quota", "per_second") else "10")


def _js_literal(rows: list[dict]) -> str:
    return "[" + ",".join("{" + ",".join(f"{k}:{json.dumps(v, ensure_ascii=False)}" for k, v in r.items()) + "}" for r in rows) + "]"


def make_endpoint(ref, ctx):
    async def endpoint(request: Request) -> Response:
        raw = dict(request.query_params)
        fault = await ctx.fault_for(ref, request)
        if fault is not None:
            return fault
        key = raw.get("apiKey")
        if not key:
            return _err("10")
        if not ctx.key_ok(ref.platform.id, key):
            return _err("11")
        if (raw.get("method") or "") != "getList":
            return _err("20")
        params, problem = validate_params(ref.op, raw, skip={"method", "jsonVD"})
        if problem is not None:
            return _err("20" if problem.kind == "missing" else "21")
        if params.get("objL2"):
            return _err("21")  # DT_1B040A3 has one classification axis in this world
        if not params.get("newEstPrdCnt") and not (params.get("startPrdDe") and params.get("endPrdDe")):
            return _err("20")
        for k in ("startPrdDe", "endPrdDe"):
            if params.get(k) and not re.fullmatch(r"\d{6}", params[k]):
                return _err("21")
        rows, total = ctx.world.rows_for(ref.op, params)
        if total > KOSIS_MAX_CELLS:
            return _err("31")
        if not rows:
            return _err("30")
        fmt = (raw.get("format") or "json").lower()
        if fmt == "xml":
            doc = {"Data": {"Row": rows}}
            return Response(xmltodict.unparse(doc, encoding="UTF-8"), headers={"Content-Type": XML_CT})
        if (raw.get("jsonVD") or "").upper() != "Y":
            return Response(_js_literal(rows), headers={"Content-Type": "text/html;charset=UTF-8"})
        return Response(json.dumps(rows, ensure_ascii=False), headers={"Content-Type": JSON_CT})

    return endpoint


def routes(platform, ctx) -> list[Route]:
    return op_routes(platform, ctx, make_endpoint)


def build_request(ref, args: dict[str, Any], key: str | None, base_url: str) -> RequestSpec:
    params = {k: v for k, v in args.items() if v is not None}
    if key is not None:
        params["apiKey"] = key
    params["format"] = "json"
    params["jsonVD"] = "Y"
    return RequestSpec("GET", f"{base_url}{ref.service.path}{ref.op.path}", params)


def parse_response(ref, status: int, headers: dict[str, str], body: bytes) -> Parsed:
    doc, fail = decode_payload(body, hint=" (jsonVD=Y missing?)")
    if fail is not None:
        return fail
    if isinstance(doc, list):
        return Parsed(True, "0", "정상", [dict(r) for r in doc], len(doc))
    if isinstance(doc, dict) and "err" in doc:
        code, msg = str(doc.get("err")), str(doc.get("errMsg", ""))
        if code == "30":
            return Parsed(True, code, msg, [], 0)
        kind = ("auth" if code in ("10", "11") else "quota" if code in ("40", "41", "42") else "transient" if code == "50" else "platform")
        return Parsed(False, code, msg, error_type=kind, retryable=kind == "transient")
    if isinstance(doc, dict) and "Data" in doc:
        rows = (doc["Data"] or {}).get("Row") or []
        rows = [rows] if isinstance(rows, dict) else rows
        return Parsed(True, "0", "정상", [dict(r) for r in rows], len(rows))
    return Parsed(False, "MALFORMED", "unexpected payload", error_type="transient", retryable=True)

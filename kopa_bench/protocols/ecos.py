"""Bank of Korea ECOS: everything is a path segment.

  /{Service}/{KEY}/{TYPE}/{LANG}/{START}/{END}/{op path params...}
Success `{"<Service>":{"list_total_count":N,"row":[...]}}` (XML `<Service><list_total_count/>
<row>..</row>...</Service>`); info/errors replace the whole body with a top-level
`{"RESULT":{"CODE":"INFO-200","MESSAGE":"..."}}` (XML `<RESULT><CODE/><MESSAGE/></RESULT>`),
always HTTP 200. Codes are ECOS's own numbering (ERROR-300 = row count missing here,
ERROR-500 = unknown service). Optional item codes may be omitted from the tail or given as '?'.
Choice: END < START is answered ERROR-301 (ECOS has no dedicated code we know of); windows
larger than 100,000 rows are capped.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

import xmltodict
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .base import JSON_CT, XML_CT, Parsed, RequestSpec, as_text, decode_payload, path_segments, unexpected, validate_params

MSGS = {
    "INFO-100": "인증키가 유효하지 않습니다. 인증키를 확인하십시오! 인증키가 없는 경우 인증키를 신청하십시오!",
    "INFO-200": "해당하는 데이터가 없습니다.",
    "ERROR-100": "필수 값이 누락되어 있습니다. 필수 값을 확인하십시오! 필수 값이 누락되어 있으면 오류를 발생합니다. 요청 변수를 참고 하십시오!",
    "ERROR-101": "주기와 다른 형식의 날짜 형식입니다.",
    "ERROR-200": "파일타입 값이 누락 혹은 유효하지 않습니다. 파일타입 값을 확인하십시오! 파일타입 값이 누락 혹은 유효하지 않으면 오류를 발생합니다. 요청 변수를 참고 하십시오!",
    "ERROR-300": "조회건수 값이 누락되어 있습니다. 조회시작건수/조회종료건수 값을 확인하십시오! 요청 변수를 참고 하십시오!",
    "ERROR-301": "조회건수 값의 타입이 유효하지 않습니다. 조회건수 값을 확인하십시오! 조회건수 값의 타입이 유효하지 않으면 오류를 발생합니다. 정수를 입력하세요.",
    "ERROR-400": "검색범위가 적정범위를 초과하여 60초 TIMEOUT이 발생하였습니다. 요청 변수 조정 후 다시 요청하시기 바랍니다.",
    "ERROR-500": "서버 오류입니다. OpenAPI 호출시 서버에서 오류가 발생하였습니다. 해당 서비스를 찾을 수 없습니다.",
    "ERROR-600": "DB Connection 오류입니다. OpenAPI 호출시 서버에서 DB접속 오류가 발생했습니다.",
    "ERROR-601": "SQL 오류입니다. OpenAPI 호출시 서버에서 SQL 오류가 발생했습니다.",
    "ERROR-602": "과도한 OpenAPI호출로 이용이 제한되었습니다. 잠시후 이용해주시기 바랍니다.",
}
CYCLE_RE = {"A": r"\d{4}", "S": r"\d{4}S[12]", "Q": r"\d{4}Q[1-4]", "M": r"\d{4}(0[1-9]|1[0-2])",
            "SM": r"\d{4}(0[1-9]|1[0-2])S[12]", "D": r"\d{4}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])"}
MAX_WINDOW = 100000


def _result(code: str, as_json: bool) -> Response:
    doc = {"RESULT": {"CODE": code, "MESSAGE": MSGS.get(code, "")}}
    if as_json:
        return Response(json.dumps(doc, ensure_ascii=False), headers={"Content-Type": JSON_CT})
    return Response(xmltodict.unparse(doc, encoding="UTF-8"), headers={"Content-Type": XML_CT})


def fault_response(kind: str, ref) -> Response:
    return _result("ERROR-602" if kind in ("quota", "per_second") else "INFO-100", True)


def _render(service: str, rows: list[dict], total: int, as_json: bool) -> Response:
    if as_json:
        doc = {service: {"list_total_count": total, "row": rows}}
        return Response(json.dumps(doc, ensure_ascii=False, default=str), headers={"Content-Type": JSON_CT})
    doc = {service: {"list_total_count": str(total), "row": [{k: as_text(v) for k, v in r.items()} for r in rows]}}
    return Response(xmltodict.unparse(doc, encoding="UTF-8", short_empty_elements=True), headers={"Content-Type": XML_CT})


def routes(platform, ctx) -> list[Route]:
    ops = {}
    for svc in platform.services:
        for op in svc.operations:
            ops[op.name] = ctx.catalog.get(op.tool)

    async def endpoint(request: Request) -> Response:
        segs = path_segments(request, platform.sandbox_prefix)
        while segs and segs[-1] == "":
            segs.pop()
        service = segs[0] if segs else ""
        fmt = segs[2].lower() if len(segs) > 2 else ""
        as_json = fmt == "json"
        ref = ops.get(service)
        if ref is None:
            return _result("ERROR-500", as_json)
        fault = await ctx.fault_for(ref, request)
        if fault is not None:
            return fault
        key = segs[1] if len(segs) > 1 else None
        if not ctx.key_ok(ref.platform.id, key):
            return _result("INFO-100", as_json)
        if fmt not in ("json", "xml"):
            return _result("ERROR-200", False)
        path_params = [p for p in ref.op.params if p.location == "path"]
        raw: dict[str, Any] = {}
        for p, value in zip(path_params, segs[3:]):
            raw[p.name] = None if value in ("", "?") and p.name.startswith("ITEM_CODE") else value
        if len(segs) < 6:
            return _result("ERROR-300", as_json)
        for name in ("START", "END"):
            if not re.fullmatch(r"\d{1,9}", str(raw.get(name, ""))):
                return _result("ERROR-301", as_json)
        params, problem = validate_params(ref.op, raw)
        if problem is not None:
            return _result("ERROR-100" if problem.kind == "missing" else "ERROR-101" if "TIME" in problem.name else "ERROR-100", as_json)
        start, end = params["START"], params["END"]
        if start < 1 or end < start:
            return _result("ERROR-301", as_json)
        if "CYCLE" in params:
            pat = CYCLE_RE[params["CYCLE"]]
            if not (re.fullmatch(pat, params["START_TIME"]) and re.fullmatch(pat, params["END_TIME"])):
                return _result("ERROR-101", as_json)
        rows, total = ctx.world.rows_for(ref.op, params, offset=start - 1, limit=min(end - start + 1, MAX_WINDOW))
        if total == 0 or not rows:
            return _result("INFO-200", as_json)
        return _render(service, rows, total, as_json)

    return [Route(f"{platform.sandbox_prefix}/{{rest:path}}", endpoint, methods=["GET", "POST"])]


# ---- client side -----------------------------------------------------------------------

def build_request(ref, args: dict[str, Any], key: str | None, base_url: str) -> RequestSpec:
    segs = [ref.op.name, key or "", ref.service.format_json]
    tail = []
    for p in ref.op.params:
        if p.location != "path":
            continue
        v = args.get(p.name)
        if v is None:
            v = p.default
        tail.append("?" if v is None or v == "" else str(v))
    while tail and tail[-1] == "?":
        tail.pop()
    # '?' stays literal in the item-code tail (ECOS's "any" placeholder); the key is encoded
    # whole, so a key with '/', '+', '=', '%' or '?' arrives as one segment
    parts = [quote(ref.op.name, safe="?"), quote(key or "", safe="")] + [quote(s, safe="?") for s in segs[2:] + tail]
    return RequestSpec("GET", f"{base_url}/" + "/".join(parts))


def parse_response(ref, status: int, headers: dict[str, str], body: bytes) -> Parsed:
    doc, fail = decode_payload(body)
    if fail is not None:
        return fail
    if not isinstance(doc, dict):
        return unexpected()
    res = doc.get("RESULT")
    if isinstance(res, dict):
        code, msg = str(res.get("CODE", "")), str(res.get("MESSAGE", ""))
        if code == "INFO-200":
            return Parsed(True, code, msg, [], 0)
        kind = ("auth" if code == "INFO-100" else "quota" if code == "ERROR-602" else "no_service" if code == "ERROR-500"
                else "transient" if code in ("ERROR-400", "ERROR-600", "ERROR-601") else "platform")
        return Parsed(False, code, msg, error_type=kind, retryable=kind == "transient")
    body_ = doc.get(ref.op.name)
    if not isinstance(body_, dict):
        return Parsed(False, "MALFORMED", f"no `{ref.op.name}` envelope", error_type="transient", retryable=True)
    rows = body_.get("row") or []
    if isinstance(rows, dict):
        rows = [rows]
    try:
        total = int(body_.get("list_total_count"))
    except (TypeError, ValueError):
        total = len(rows)
    return Parsed(True, "INFO-000", "정상 처리되었습니다.", [dict(r) for r in rows], total)

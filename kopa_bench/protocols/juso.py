"""juso.go.kr 도로명주소 API: `results.common` + `results.juso[]`.

Wire facts reproduced: XML by default, `resultType=json` (case-insensitive) for JSON; every
value a string (totalCount too); errors in `common.errorCode` with HTTP 200 and `juso` null;
addrLinkApi and addrCoordApi number their errors differently (E0005/E0006 = empty/too-vague
keyword in the search API, missing buldMnnm/buldSlno in the coordinate API); GET or POST form.
Deviation: one sandbox key serves both APIs (the real service issues separate keys).
"""

from __future__ import annotations

import json
import re
from typing import Any

import xmltodict
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..refdata.platform_facts import JUSO_MAX_RESULTS, JUSO_SIDO_FULL
from .base import JSON_CT, XML_CT, Parsed, RequestSpec, as_text, decode_payload, op_routes, validate_params, wants_json

LINK_MSGS = {
    "0": "정상", "-999": "시스템에러", "E0001": "승인되지 않은 KEY 입니다.", "E0005": "검색어가 입력되지 않았습니다.",
    "E0006": "주소를 상세히 입력해 주시기 바랍니다.", "E0008": "검색어는 두글자 이상 입력되어야 합니다.",
    "E0009": "검색어는 문자와 숫자 같이 입력되어야 합니다.", "E0010": "검색어가 너무 깁니다.(한글40자, 영문,숫자 80자 이하)",
    "E0011": "검색어에 너무 긴 숫자가 포함되어 있습니다.(숫자10자 이하)", "E0012": "특수문자+숫자만으로는 검색이 불가능 합니다.",
    "E0013": "SQL 예약어 또는 특수문자( %,=,>,<,[,] )는 검색이 불가능 합니다.",
    "E0014": "개발승인키 기간이 만료되어 서비스를 이용하실 수 없습니다.", "E0015": "검색 범위를 초과하였습니다.",
}
COORD_MSGS = {
    "0": "정상", "-999": "시스템에러", "E0001": "승인되지 않은 KEY 입니다.",
    "E0002": "행정구역코드(admCd)의 요청항목이 없습니다.", "E0003": "도로명코드(rnMgtSn)의 요청항목이 없습니다.",
    "E0004": "지하여부(udrtYn)의 요청항목이 없습니다.", "E0005": "건물본번(buldMnnm)의 요청항목이 없습니다.",
    "E0006": "건물부번(buldSlno)의 요청항목이 없습니다.",
    "E0007": "짧은 시간동안 다량의 주소검색 요청이 있습니다. 잠시 후 이용하시길 바랍니다.",
}
COORD_MISSING = {"admCd": "E0002", "rnMgtSn": "E0003", "udrtYn": "E0004", "buldMnnm": "E0005", "buldSlno": "E0006"}
SIDO_NAMES = set(JUSO_SIDO_FULL) | set(JUSO_SIDO_FULL.values())


def keyword_problem(keyword: str | None) -> str | None:
    """The real addrLinkApi keyword checks, in their order."""
    kw = (keyword or "").strip()
    if not kw:
        return "E0005"
    if re.search(r"[%=><\[\]]", kw) or re.search(r"\b(select|insert|delete|update|drop|union)\b", kw, re.I):
        return "E0013"
    if len(kw) > 80 or (re.search(r"[가-힣]", kw) and len(kw) > 40):
        return "E0010"
    if re.search(r"\d{11,}", kw):
        return "E0011"
    if re.fullmatch(r"[\d\W_]+", kw) and re.search(r"[^\d\s]", kw):
        return "E0012"
    if len(kw.replace(" ", "")) < 2:
        return "E0008"
    if all(t in SIDO_NAMES for t in kw.split()):
        return "E0006"
    return None


def _render(as_json: bool, code: str, msgs: dict, rows: list[dict] | None, page: dict | None) -> Response:
    common = {"errorMessage": msgs.get(code, ""), "countPerPage": "", "totalCount": "", "errorCode": code, "currentPage": ""}
    if page:
        common.update({k: str(v) for k, v in page.items()})
    if as_json:
        doc = {"results": {"common": common, "juso": [{k: as_text(v) for k, v in r.items()} for r in rows] if rows is not None else None}}
        return Response(json.dumps(doc, ensure_ascii=False), headers={"Content-Type": JSON_CT})
    inner: dict[str, Any] = {"common": common}
    if rows:
        inner["juso"] = [{k: as_text(v) for k, v in r.items()} for r in rows]
    return Response(xmltodict.unparse({"results": inner}, encoding="UTF-8", short_empty_elements=True), headers={"Content-Type": XML_CT})


def fault_response(kind: str, ref) -> Response:
    if ref.op.name == "addrCoordApi" and kind in ("quota", "per_second"):
        return _render(True, "E0007", COORD_MSGS, None, None)
    if kind == "key":
        return _render(True, "E0001", LINK_MSGS, None, None)
    return _render(True, "-999", LINK_MSGS, None, None)


def make_endpoint(ref, ctx):
    is_coord = ref.op.name == "addrCoordApi"
    msgs = COORD_MSGS if is_coord else LINK_MSGS

    async def endpoint(request: Request) -> Response:
        raw = dict(request.query_params)
        if request.method == "POST":
            try:
                form = await request.form()
                raw.update({k: v for k, v in form.items() if isinstance(v, str)})
            except Exception:
                pass
        as_json = wants_json(raw.get("resultType"), "json")
        fault = await ctx.fault_for(ref, request)
        if fault is not None:
            return fault
        if not ctx.key_ok(ref.platform.id, raw.get("confmKey")):
            return _render(as_json, "E0001", msgs, None, None)
        if is_coord:
            params, problem = validate_params(ref.op, raw)
            if problem is not None:
                return _render(as_json, COORD_MISSING.get(problem.name, "-999"), msgs, None, None)
            rows, total = ctx.world.rows_for(ref.op, params)
            return _render(as_json, "0", msgs, rows, {"totalCount": total})
        bad = keyword_problem(raw.get("keyword"))
        if bad:
            return _render(as_json, bad, msgs, None, None)
        params, problem = validate_params(ref.op, raw)
        if problem is not None:  # non-numeric paging: the real service falls back to its system error
            return _render(as_json, "-999", msgs, None, None)
        per, page_no = params["countPerPage"], params["currentPage"]
        rows, total = ctx.world.rows_for(ref.op, params, offset=(page_no - 1) * per, limit=per)
        if total > JUSO_MAX_RESULTS:
            return _render(as_json, "E0015", msgs, None, None)
        return _render(as_json, "0", msgs, rows, {"totalCount": total, "currentPage": page_no, "countPerPage": per})

    return endpoint


def routes(platform, ctx) -> list[Route]:
    return op_routes(platform, ctx, make_endpoint)


def build_request(ref, args: dict[str, Any], key: str | None, base_url: str) -> RequestSpec:
    params = {k: v for k, v in args.items() if v is not None}
    if key is not None:
        params["confmKey"] = key
    params["resultType"] = "json"
    return RequestSpec("GET", f"{base_url}{ref.service.path}{ref.op.path}", params)


def parse_response(ref, status: int, headers: dict[str, str], body: bytes) -> Parsed:
    doc, fail = decode_payload(body)
    if fail is not None:
        return fail
    res = doc.get("results") if isinstance(doc, dict) else None
    if not isinstance(res, dict):
        return Parsed(False, "MALFORMED", "no `results` envelope", error_type="transient", retryable=True)
    common = res.get("common") or {}
    code, msg = str(common.get("errorCode", "")), str(common.get("errorMessage", ""))
    if code != "0":
        kind = ("auth" if code in ("E0001", "E0014") else "transient" if code == "-999"
                else "quota" if code == "E0007" and ref.op.name == "addrCoordApi" else "platform")
        return Parsed(False, code, msg, error_type=kind, retryable=kind in ("transient", "quota"))
    rows = res.get("juso") or []
    if isinstance(rows, dict):
        rows = [rows]
    try:
        total = int(common.get("totalCount"))
    except (TypeError, ValueError):
        total = len(rows)
    return Parsed(True, code, msg, [dict(r) for r in rows], total)

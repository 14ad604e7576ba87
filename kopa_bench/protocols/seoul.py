"""서울 열린데이터광장: openapi.seoul.go.kr:8088 and the realtime subway host swopenapi.seoul.go.kr.

Everything is a PATH segment: `/{KEY}/{TYPE}/{SERVICE}/{START_INDEX}/{END_INDEX}/{params...}`
(optional intermediate params are sent as a single space; a trailing slash is tolerated).

8088 (platform protocol `seoul`):
- success `{"<SERVICE or alias>":{"list_total_count":N,"RESULT":{"CODE":"INFO-000","MESSAGE":"정상 처리되었습니다"},
  "row":[...]}}` (bikeList answers under `rentBikeStatus`, and its list_total_count is the number
  of rows on the page, as reported by clients); XML `<SERVICE><list_total_count/><RESULT/><row/>...`;
- errors / no data: top-level `{"RESULT":{"CODE":..,"MESSAGE":..}}`, HTTP 200;
- INFO-100 bad key, ERROR-301 bad TYPE, ERROR-310 unknown service, ERROR-333 non-integer
  START/END, ERROR-331/332 START/END < 1, ERROR-334 START > END, ERROR-335 the `sample` key past
  row 5, ERROR-336 more than 1000 rows, ERROR-300 a missing required path parameter.
realtime (platform protocol `seoul_subway`, see seoul_subway.py):
- success `{"errorMessage":{"status":200,"code":"INFO-000","message":"정상 처리되었습니다.","link":"",
  "developerMessage":"","total":N},"realtimeArrivalList":[...]}`; errors are flat
  `{"status":500,"code":"INFO-200","message":..,"link":"","developerMessage":"","total":0}`;
  a key valid for 8088 but not for realtime gets ERROR-338; START_INDEX may be 0.
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

from ..catalog.registry import ToolRef
from .base import JSON_CT, Parsed, RequestSpec, as_text, decode_payload, path_segments, validate_params

XML_CT = "text/xml;charset=UTF-8"
SAMPLE_KEY = "sample"
PAGING = ("START_INDEX", "END_INDEX")

MSGS = {
    "INFO-000": "정상 처리되었습니다",
    "INFO-100": "인증키가 유효하지 않습니다. 인증키가 없는 경우, 열린 데이터 광장 홈페이지에서 인증키를 신청하십시오.",
    "INFO-200": "해당하는 데이터가 없습니다.",
    "ERROR-300": "필수 값이 누락되어 있습니다. 요청인자를 참고 하십시오.",
    "ERROR-301": "파일타입 값이 누락 혹은 유효하지 않습니다. 요청인자 중 TYPE을 확인하십시오.",
    "ERROR-310": "해당하는 서비스를 찾을 수 없습니다. 요청인자 중 SERVICE를 확인하십시오",
    "ERROR-331": "요청시작위치 값을 확인하십시오. 요청인자 중 START_INDEX를 확인하십시오.",
    "ERROR-332": "요청종료위치 값을 확인하십시오. 요청인자 중 END_INDEX를 확인하십시오.",
    "ERROR-333": "요청위치 값의 타입이 유효하지 않습니다.요청위치 값은 정수를 입력하세요.",
    "ERROR-334": "요청종료위치 보다 요청시작위치가 더 큽니다. 요청시작조회건수는 정수를 입력하세요.",
    "ERROR-335": "샘플데이터(샘플키:sample) 는 한번에 최대 5건을 넘을 수 없습니다. 요청시작위치와 요청종료위치 값은 1 ~ 5 사이만 가능합니다.",
    "ERROR-336": "데이터요청은 한번에 최대 1000건을 넘을 수 없습니다.",
    "ERROR-337": "데이터요청은 일일 호출건수 최대 1000건을 넘을 수 없습니다.",
    "ERROR-338": "해당 인증키로는 실시간 서비스를 사용할 수 없습니다.",
    "ERROR-500": "서버 오류입니다. 지속적으로 발생시 열린 데이터 광장으로 문의(Q&A) 바랍니다.",
    "ERROR-600": "데이터베이스 연결 오류입니다. 지속적으로 발생시 열린 데이터 광장으로 문의(Q&A) 바랍니다.",
    "ERROR-601": "SQL 문장 오류 입니다. 지속적으로 발생시 열린 데이터 광장으로 문의(Q&A) 바랍니다.",
}


class _Fail(Exception):
    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


# ---- rendering -------------------------------------------------------------------------------

def _resp(body: Any, as_json: bool, root: str | None = None) -> Response:
    if as_json:
        return Response(json.dumps(body, ensure_ascii=False, default=str), headers={"Content-Type": JSON_CT})
    return Response(xmltodict.unparse(body, full_document=True, encoding="UTF-8", short_empty_elements=True),
                    headers={"Content-Type": XML_CT})


def error_8088(code: str, as_json: bool) -> Response:
    return _resp({"RESULT": {"CODE": code, "MESSAGE": MSGS.get(code, "")}}, as_json)


def error_rt(code: str, as_json: bool) -> Response:
    msg = MSGS["INFO-000"] + "." if code == "INFO-000" else MSGS.get(code, "")
    flat = {"status": 500, "code": code, "message": msg, "link": "", "developerMessage": "", "total": 0}
    return _resp(flat if as_json else {"RESULT": flat}, as_json)


def _rows_text(rows):
    return [{k: as_text(v) for k, v in r.items()} for r in rows]


def success_8088(name: str, rows: list[dict], total: int, as_json: bool) -> Response:
    res = {"CODE": "INFO-000", "MESSAGE": MSGS["INFO-000"]}
    if as_json:
        return _resp({name: {"list_total_count": total, "RESULT": res, "row": rows}}, True)
    return _resp({name: {"list_total_count": str(total), "RESULT": res, "row": _rows_text(rows)}}, False)


def success_rt(rows: list[dict], total: int, as_json: bool) -> Response:
    head = {"status": 200, "code": "INFO-000", "message": "정상 처리되었습니다.", "link": "", "developerMessage": "",
            "total": total}
    if as_json:
        return _resp({"errorMessage": head, "realtimeArrivalList": rows}, True)
    return _resp({"realtimeStationArrival": {"RESULT": head, "row": _rows_text(rows)}}, False)


def fault_response(kind: str, ref) -> Response:
    code = {"quota": "ERROR-337", "per_second": "ERROR-337", "key": "INFO-100"}.get(kind, "ERROR-500")
    return (error_rt if ref.platform.protocol == "seoul_subway" else error_8088)(code, True)


# ---- server ----------------------------------------------------------------------------------

def _path_params(op) -> list:
    return [p for p in op.params if p.location == "path" and p.name not in PAGING]


def _int(text: str | None) -> int:
    if text is None or text.strip() == "":
        raise _Fail("ERROR-300")
    if not re.fullmatch(r"\s*[+-]?\d{1,9}\s*", text):
        raise _Fail("ERROR-333")
    return int(text)


def make_router(platform, ctx, realtime: bool):
    ops = {}
    for svc in platform.services:
        for op in svc.operations:
            ops[op.name] = ctx.catalog.get(op.tool)
    err = error_rt if realtime else error_8088

    async def endpoint(request: Request) -> Response:
        segs = path_segments(request, platform.sandbox_prefix)
        while segs and segs[-1] == "":
            segs.pop()
        key = segs[0] if segs else ""
        type_ = segs[1] if len(segs) > 1 else ""
        as_json = type_.strip().lower() == "json"
        sample = key == SAMPLE_KEY
        if not sample and not ctx.key_ok(platform.id, key):
            if realtime and ctx.key_ok("seoul", key):
                return err("ERROR-338", as_json)
            return err("INFO-100", as_json)
        if type_.strip().lower() not in ("json", "xml"):
            return err("ERROR-301", False)
        service = segs[2] if len(segs) > 2 else ""
        ref = ops.get(service)
        if ref is None:
            return err("ERROR-310", as_json)
        fault = await ctx.fault_for(ref, request)
        if fault is not None:
            return fault
        try:
            start = _int(segs[3] if len(segs) > 3 else None)
            end = _int(segs[4] if len(segs) > 4 else None)
            if realtime and start == 0:
                start = 1
            if start < 1:
                raise _Fail("ERROR-331")
            if end < 1:
                raise _Fail("ERROR-332")
            if start > end:
                raise _Fail("ERROR-334")
            if sample and end > 5:
                raise _Fail("ERROR-335")
            if end - start + 1 > 1000:
                raise _Fail("ERROR-336")
        except _Fail as f:
            return err(f.code, as_json)
        raw = {}
        for p, value in zip(_path_params(ref.op), segs[5:]):
            raw[p.name] = value.strip() or None
        params, problem = validate_params(ref.op, raw, skip=set(PAGING))
        if problem is not None:
            return err("ERROR-300" if problem.kind == "missing" else "INFO-200", as_json)
        try:
            rows, total = ctx.world.rows_for(ref.op, params, offset=start - 1, limit=end - start + 1)
        except Exception:
            return err("INFO-200", as_json)
        if not rows:
            return err("INFO-200", as_json)
        if realtime:
            return success_rt(rows, total, as_json)
        if ref.op.extra.get("total_is_page_count"):
            total = len(rows)
        return success_8088(ref.op.list_key or ref.op.name, rows, total, as_json)

    return endpoint


def routes(platform, ctx) -> list[Route]:
    return [Route(f"{platform.sandbox_prefix}/{{rest:path}}", make_router(platform, ctx, realtime=False),
                  methods=["GET", "POST"])]


# ---- client ----------------------------------------------------------------------------------

def _segment(value: Any) -> str:
    return quote(str(value), safe="")


def build_request(ref: ToolRef, args: dict[str, Any], key: str | None, base_url: str, trailing_slash: bool = True) -> RequestSpec:
    op = ref.op
    start = args.get("START_INDEX") or (op.param("START_INDEX").default if op.param("START_INDEX") else 1) or 1
    end = args.get("END_INDEX") or (op.param("END_INDEX").default if op.param("END_INDEX") else 5) or 5
    parts = [_segment(key or ""), "json", op.name, _segment(start), _segment(end)]
    tail = [args.get(p.name) for p in _path_params(op)]
    while tail and tail[-1] is None:
        tail.pop()
    parts += [_segment(" " if v is None else v) for v in tail]
    url = f"{base_url}/" + "/".join(parts) + ("/" if trailing_slash else "")
    query = {k: v for k, v in args.items() if v is not None and op.param(k) is not None and op.param(k).location == "query"}
    return RequestSpec(op.method, url, query)


def _classify(code: str) -> tuple[str, bool]:
    if code in ("INFO-100", "ERROR-338"):
        return "auth", False
    if code == "ERROR-337":
        return "quota", False
    if code == "ERROR-310":
        return "no_service", False
    if code in ("ERROR-500", "ERROR-600", "ERROR-601"):
        return "transient", True
    return "platform", False


def _done(code: str, msg: str, rows=None, total=None) -> Parsed:
    if code == "INFO-000":
        rows = rows or []
        try:
            total = int(total) if total is not None else len(rows)
        except (TypeError, ValueError):
            total = len(rows)
        return Parsed(True, code, msg, [dict(r) for r in rows], total)
    if code == "INFO-200":
        return Parsed(True, code, msg, [], 0)
    kind, retry = _classify(code)
    return Parsed(False, code, msg, error_type=kind, retryable=retry)


def _as_list(rows) -> list:
    if rows in (None, ""):
        return []
    return rows if isinstance(rows, list) else [rows]


def parse_response(ref: ToolRef, status: int, headers: dict[str, str], body: bytes) -> Parsed:
    doc, fail = decode_payload(body)
    if fail:
        return fail
    if not isinstance(doc, dict):
        return Parsed(False, "MALFORMED", "unexpected payload", error_type="transient", retryable=True)
    if "RESULT" in doc and len(doc) == 1:
        res = doc["RESULT"] or {}
        return _done(str(res.get("CODE", "")), str(res.get("MESSAGE", "")))
    if "CODE" in doc:  # flat variant seen by one client
        return _done(str(doc["CODE"]), str(doc.get("MESSAGE", "")))
    name = ref.op.list_key or ref.op.name
    data = doc.get(name) if name in doc else next(iter(doc.values()), None)
    if not isinstance(data, dict):
        return Parsed(False, "MALFORMED", f"no `{name}` envelope", error_type="transient", retryable=True)
    res = data.get("RESULT") or {}
    return _done(str(res.get("CODE", "INFO-000")), str(res.get("MESSAGE", "")), _as_list(data.get("row")),
                 data.get("list_total_count"))


def parse_realtime(ref: ToolRef, status: int, headers: dict[str, str], body: bytes) -> Parsed:
    doc, fail = decode_payload(body)
    if fail:
        return fail
    if not isinstance(doc, dict):
        return Parsed(False, "MALFORMED", "unexpected payload", error_type="transient", retryable=True)
    if "errorMessage" in doc:
        head = doc["errorMessage"] or {}
        return _done(str(head.get("code", "")), str(head.get("message", "")), _as_list(doc.get("realtimeArrivalList")),
                     head.get("total"))
    if "code" in doc:
        return _done(str(doc["code"]), str(doc.get("message", "")))
    if "RESULT" in doc and len(doc) == 1:
        res = doc["RESULT"] or {}
        return _done(str(res.get("code", res.get("CODE", ""))), str(res.get("message", res.get("MESSAGE", ""))))
    data = next(iter(doc.values()), None)
    if isinstance(data, dict) and "RESULT" in data:
        res = data["RESULT"] or {}
        return _done(str(res.get("code", "")), str(res.get("message", "")), _as_list(data.get("row")), res.get("total"))
    return Parsed(False, "MALFORMED", "no realtime envelope", error_type="transient", retryable=True)

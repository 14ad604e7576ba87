"""법제처 국가법령정보 DRF (`/DRF/lawSearch.do`, `/DRF/lawService.do`), routed by `target`.

Wire facts reproduced: auth `OC`; a missing/unknown OC gets HTTP 200
`{"result":"사용자 정보 검증에 실패하였습니다.","msg":"..."}` (JSON whatever `type` says);
XML by default, `type=JSON` (case-insensitive) for JSON; Korean-keyed envelopes:
`LawSearch{target,키워드,section,totalCnt,page,law[]}` (XML `<law id="1">`),
`PrecSearch{...,prec[]}`, `법령{기본정보{법령명_한글,...},조문{조문단위[]}}`,
`PrecService{...}`; counts are strings; one match -> `law`/`prec`/`조문단위` is an object, not
a list, and a single 항 is an object; unknown MST/ID -> `{"Law":"일치하는 법령이 없습니다..."}`.
Choice: `type=HTML` is answered with the XML document (no HTML rendering in the sandbox); an
unknown target answers the `<Law><result>실패</result>...` failure shape.
"""

from __future__ import annotations

import json
from typing import Any

import xmltodict
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .base import JSON_CT, XML_CT, Parsed, RequestSpec, as_text, decode_payload, ops_by_path, unexpected, validate_params

AUTH_FAIL = {"result": "사용자 정보 검증에 실패하였습니다.",
             "msg": "OPEN API 호출 시 사용자 검증을 위하여 정확한 서버장비의 IP주소 및 도메인주소를 등록해 주세요."}
NO_LAW = "일치하는 법령이 없습니다.  법령명을 확인하여 주십시오."
NO_PREC = "일치하는 판례가 없습니다.  판례명을 확인하여 주십시오."


def _out(doc: Any, as_json: bool) -> Response:
    if as_json:
        return Response(json.dumps(doc, ensure_ascii=False, default=str), headers={"Content-Type": JSON_CT})
    return Response(xmltodict.unparse(doc, encoding="UTF-8", short_empty_elements=True), headers={"Content-Type": XML_CT})


def _auth_fail() -> Response:
    return Response(json.dumps(AUTH_FAIL, ensure_ascii=False), headers={"Content-Type": JSON_CT})


def fault_response(kind: str, ref) -> Response:
    if kind == "key":
        return _auth_fail()
    return Response("<html><body>429 Too Many Requests</body></html>", status_code=429, media_type="text/html")


def _failure(msg: str, as_json: bool) -> Response:
    return _out({"Law": {"result": "실패", "msg": msg}}, as_json)


def _one_or_list(items: list) -> Any:
    return items[0] if len(items) == 1 else items


def _text(r: dict) -> dict:
    return {k: as_text(v) for k, v in r.items()}


def _search(ref, params, rows, total, as_json):
    target = ref.op.name == "lawSearch" and "law" or "prec"
    root = "LawSearch" if target == "law" else "PrecSearch"
    body: dict[str, Any] = {"target": target, "키워드": params.get("query") or "*",
                            "section": "lawNm" if target == "law" else "evtNm",
                            "totalCnt": str(total), "page": str(params.get("page") or 1)}
    start = ((params.get("page") or 1) - 1) * (params.get("display") or 20)
    recs = []
    for i, r in enumerate(rows, start=1):
        rec = {"@id": str(start + i)} if not as_json else {"id": str(start + i)}
        rec.update(_text(r))
        recs.append(rec)
    if recs:
        body[target] = _one_or_list(recs) if as_json else recs
    return _out({root: body}, as_json)


def _law_body(rows, as_json, single_article):
    first = rows[0]
    basic = {"법령ID": first["법령ID"], "공포일자": first["공포일자"], "공포번호": first["공포번호"], "언어": "한글",
             "법종구분": {"법종구분코드": first["법령구분코드"], "content": first["법령구분명"]} if as_json else first["법령구분명"],
             "법령명_한글": first["법령명한글"], "법령명약칭": first["법령약칭명"], "시행일자": first["시행일자"],
             "제개정구분": first["제개정구분명"], "소관부처": {"소관부처코드": first["소관부처코드"], "content": first["소관부처명"]} if as_json else first["소관부처명"],
             "전화번호": first["전화번호"], "편장절관": "", "공포법령여부": "Y", "한글법령여부": "Y"}
    units = []
    for r in rows:
        u = {"조문번호": r["조문번호"], "조문가지번호": r["조문가지번호"] or None, "조문여부": r["조문여부"], "조문제목": r["조문제목"],
             "조문시행일자": r["조문시행일자"], "조문변경여부": "N", "조문키": r["조문키"], "조문내용": r["조문내용"]}
        if u["조문가지번호"] is None:
            del u["조문가지번호"]
        hang = json.loads(r["항"] or "[]")
        if hang:
            u["항"] = _one_or_list(hang)
        units.append(u)
    return {"법령": {"법령키": first["법령일련번호"] + first["공포일자"], "기본정보": basic,
                   "조문": {"조문단위": units[0] if (single_article and len(units) == 1) else units}}}


def make_endpoint(refs: dict, ctx, path: str):
    async def endpoint(request: Request) -> Response:
        raw = dict(request.query_params)
        as_json = (raw.get("type") or "").strip().upper() == "JSON"
        target = (raw.get("target") or "").strip()
        ref = refs.get(target)
        if ref is None:
            any_ref = next(iter(refs.values()))
            if not ctx.key_ok(any_ref.platform.id, raw.get("OC")):
                return _auth_fail()
            return _failure("검색대상(target) 값이 올바르지 않습니다.", as_json)
        fault = await ctx.fault_for(ref, request)
        if fault is not None:
            return fault
        if not ctx.key_ok(ref.platform.id, raw.get("OC")):
            return _auth_fail()
        params, problem = validate_params(ref.op, raw)
        if problem is not None:
            return _failure(f"요청 변수를 확인하여 주십시오. ({problem.name})", as_json)
        name = ref.op.name
        if name in ("lawSearch", "precSearch"):
            display, page = params.get("display") or 20, params.get("page") or 1
            rows, total = ctx.world.rows_for(ref.op, params, offset=(page - 1) * display, limit=display)
            params["display"], params["page"] = display, page
            return _search(ref, params, rows, total, as_json)
        if name == "lawService":
            if not params.get("MST") and not params.get("ID") and not params.get("LM"):
                return _failure("MST 또는 ID 값이 필요합니다.", as_json)
            rows, _ = ctx.world.rows_for(ref.op, params)
            if not rows:
                return _out({"Law": NO_LAW}, as_json)
            return _out(_law_body(rows, as_json, bool(params.get("JO"))), as_json)
        rows, _ = ctx.world.rows_for(ref.op, params)
        if not rows:
            return _out({"Law": NO_PREC}, as_json)
        return _out({"PrecService": _text(rows[0])}, as_json)

    return endpoint


def routes(platform, ctx) -> list[Route]:
    by_path = ops_by_path(platform, ctx, lambda ref: ref.op.param("target").default if ref.op.param("target") else "law")
    return [Route(path, make_endpoint(refs, ctx, path), methods=["GET", "POST"]) for path, refs in by_path.items()]


def build_request(ref, args: dict[str, Any], key: str | None, base_url: str) -> RequestSpec:
    params = {k: v for k, v in args.items() if v is not None}
    if key is not None:
        params["OC"] = key
    params["type"] = "JSON"
    return RequestSpec("GET", f"{base_url}{ref.service.path}{ref.op.path}", params)


def _listify(v: Any) -> list:
    if v in (None, ""):
        return []
    return v if isinstance(v, list) else [v]


def parse_response(ref, status: int, headers: dict[str, str], body: bytes) -> Parsed:
    if status == 404 or status == 429 or status >= 500:
        return Parsed(False, f"HTTP{status}", f"HTTP {status}", error_type="transient", retryable=True)
    doc, fail = decode_payload(body)
    if fail is not None:
        return fail
    if not isinstance(doc, dict):
        return unexpected()
    if "result" in doc and "msg" in doc:
        return Parsed(False, "AUTH_FAILED", str(doc["result"]), error_type="auth")
    if "Law" in doc:
        law = doc["Law"]
        if isinstance(law, str):
            return Parsed(True, "NO_DATA", law, [], 0)
        return Parsed(False, "FAILED", str((law or {}).get("msg", "실패")), error_type="platform")
    name = ref.op.name
    if name in ("lawSearch", "precSearch"):
        root = doc.get("LawSearch" if name == "lawSearch" else "PrecSearch") or {}
        recs = [{k: v for k, v in r.items() if k not in ("id", "@id")} for r in _listify(root.get("law" if name == "lawSearch" else "prec"))]
        try:
            total = int(root.get("totalCnt"))
        except (TypeError, ValueError):
            total = len(recs)
        return Parsed(True, "00", "", recs, total)
    if name == "lawService":
        law = doc.get("법령") or {}
        basic = law.get("기본정보") or {}
        extra = {"법령명_한글": basic.get("법령명_한글"), "법령ID": basic.get("법령ID"), "시행일자": basic.get("시행일자"),
                 "공포일자": basic.get("공포일자")}
        units = _listify((law.get("조문") or {}).get("조문단위"))
        recs = [{**extra, **u, "항": _listify(u.get("항"))} for u in units]
        return Parsed(True, "00", "", recs, len(recs))
    prec = doc.get("PrecService")
    if not isinstance(prec, dict):
        return Parsed(True, "NO_DATA", "no PrecService", [], 0)
    return Parsed(True, "00", "", [dict(prec)], 1)

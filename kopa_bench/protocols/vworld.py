"""VWorld geocoder 2.0 (`/req/address?service=address&request=getcoord`).

Envelope `{"response":{"service":{...},"status":"OK","input":{...},"refined":{"text",
"structure":{level0..level5,detail}},"result":{"crs","point":{"x","y"}}}}`; NOT_FOUND is
`{"response":{"service":..,"status":"NOT_FOUND"}}`; errors `status: ERROR` with
`error{level,code,text}` (INVALID_KEY, PARAM_REQUIRED, INVALID_TYPE, ...). XML by default,
`format=json` (case-insensitive). x = longitude, y = latitude (strings). Addresses come from
the juso buildings (same table), so juso roadAddr/jibunAddr geocode.
getAddress (`request=getAddress&point=x,y&type=both|road|parcel`, the reverse geocoder on the same
path, routed by `request` case-insensitively) answers `"input":{"point":{"x","y"},"crs","type"}` and
`"result":[{"zipcode","type","text","structure":{...}}]` (both: parcel, then road), or NOT_FOUND.
Deviations: level4AC carries the legal-dong code (the world has no 행정동 codes); crs
epsg:5179 and epsg:3857 are supported, other CRS get INVALID_RANGE; getAddress answers the nearest
building within the spec's radius (the world has no parcel polygons).
"""

from __future__ import annotations

import json
from typing import Any

import xmltodict
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..geo import utmk_to_wgs84, webmercator_to_wgs84, wgs84_to_webmercator
from .base import JSON_CT, XML_CT, Parsed, RequestSpec, decode_payload, ops_by_path, validate_params, wants_json

ERR_TEXT = {
    "INVALID_KEY": "등록되지 않은 인증키입니다.", "INCORRECT_KEY": "인증키 정보가 올바르지 않습니다.",
    "UNAVAILABLE_KEY": "일시적으로 사용할 수 없는 인증키입니다.", "OVER_REQUEST_LIMIT": "서비스 사용량이 일일 제한량을 초과하여 더 이상 서비스를 사용할 수 없습니다.",
    "PARAM_REQUIRED": "필수 파라미터인 <%s>가 없어서 요청을 처리할수 없습니다.", "INVALID_TYPE": "<%s> 파라미터 타입이 유효하지 않습니다.",
    "INVALID_RANGE": "<%s> 파라미터의 값이 유효한 범위를 넘었습니다.", "UNKNOWN_ERROR": "알 수 없는 오류입니다.",
}


def _service(op: str = "getcoord") -> dict:
    return {"name": "address", "version": "2.0", "operation": op, "time": "12(ms)"}


def _respond(doc: dict, as_json: bool) -> Response:
    if as_json:
        return Response(json.dumps(doc, ensure_ascii=False), headers={"Content-Type": JSON_CT})
    return Response(xmltodict.unparse(doc, encoding="UTF-8", short_empty_elements=True), headers={"Content-Type": XML_CT})


def _error(code: str, as_json: bool, arg: str = "", level: str = "1", op: str = "getcoord") -> Response:
    text = ERR_TEXT.get(code, ERR_TEXT["UNKNOWN_ERROR"])
    if "%s" in text:
        text = text % arg
    return _respond({"response": {"service": _service(op), "status": "ERROR",
                                  "error": {"level": level, "code": code, "text": text}}}, as_json)


def fault_response(kind: str, ref) -> Response:
    return _error("OVER_REQUEST_LIMIT" if kind in ("quota", "per_second") else "INVALID_KEY", True)


CRS = {"epsg:4326", "epsg:5179", "epsg:3857"}


def _lonlat(x: float, y: float, crs: str) -> tuple[float, float]:
    """WGS84 (lon, lat) of a point given in `crs` (one of CRS)."""
    if crs == "epsg:5179":
        lat, lon = utmk_to_wgs84(x, y)
        return lon, lat
    if crs == "epsg:3857":
        lat, lon = webmercator_to_wgs84(x, y)
        return lon, lat
    return x, y


def _geocode(ref, ctx, params: dict, as_json: bool) -> Response:
    kind = params["type"].upper()
    if kind not in ("ROAD", "PARCEL"):
        return _error("INVALID_RANGE", as_json, "type")
    crs = (params.get("crs") or "epsg:4326").lower()
    if crs not in CRS:
        return _error("INVALID_RANGE", as_json, "crs")
    params["type"] = kind
    rows, _ = ctx.world.rows_for(ref.op, params)
    if not rows:
        return _respond({"response": {"service": _service(), "status": "NOT_FOUND",
                                      "record": {"total": "0", "current": "0"}}}, as_json)
    r = rows[0]
    if crs == "epsg:4326":
        x, y = f"{r['lon']:.9f}", f"{r['lat']:.9f}"
    elif crs == "epsg:5179":
        x, y = r["entX"], r["entY"]
    else:
        mx, my = wgs84_to_webmercator(r["lat"], r["lon"])
        x, y = f"{mx:.6f}", f"{my:.6f}"
    refine = (params.get("refine") or "true").lower() != "false"
    simple = (params.get("simple") or "false").lower() == "true"
    resp: dict[str, Any] = {"service": _service(), "status": "OK",
                            "input": {"type": kind.lower(), "address": params["address"]}}
    if refine and not simple:
        resp["refined"] = {"text": r["text"], "structure": r["structure"]}
    resp["result"] = {"crs": crs.upper(), "point": {"x": x, "y": y}}
    return _respond({"response": resp}, as_json)


STRUCTURE = ("level0", "level1", "level2", "level3", "level4L", "level4LC", "level4A", "level4AC", "level5", "detail")


def _reverse(ref, ctx, params: dict, as_json: bool) -> Response:
    op = "getAddress"
    crs = (params.get("crs") or "epsg:4326").lower()
    if crs not in CRS:
        return _error("INVALID_RANGE", as_json, "crs", op=op)
    try:
        x, y = (float(v) for v in params["point"].split(","))
    except ValueError:
        return _error("INVALID_TYPE", as_json, "point", op=op)
    lon, lat = _lonlat(x, y, crs)
    # the world answers in WGS84: the point goes to the query as "lon,lat"
    q = {**params, "point": f"{lon:.7f},{lat:.7f}"}
    rows, _ = ctx.world.rows_for(ref.op, q)
    kind = (params.get("type") or "both").lower()
    given = {"point": {"x": params["point"].split(",")[0].strip(), "y": params["point"].split(",")[1].strip()},
             "crs": crs.upper(), "type": kind}
    if not rows:
        return _respond({"response": {"service": _service(op), "status": "NOT_FOUND", "input": given}}, as_json)
    zipcode = (params.get("zipcode") or "true").lower() != "false"
    simple = (params.get("simple") or "false").lower() == "true"
    items = []
    for r in rows:
        item: dict[str, Any] = {"zipcode": r["zipcode"]} if zipcode else {}
        item.update({"type": r["type"], "text": r["text"]})
        if not simple:
            item["structure"] = {k: r[k] or "" for k in STRUCTURE}
        items.append(item)
    return _respond({"response": {"service": _service(op), "status": "OK", "input": given, "result": items}}, as_json)


def make_endpoint(refs: dict, ctx):
    """One endpoint for the /address path: `request` (case-insensitive) picks the operation."""
    async def endpoint(request: Request) -> Response:
        raw = dict(request.query_params)
        as_json = wants_json(raw.get("format"), "json")
        asked = (raw.get("request") or "").lower()
        ref = refs.get(asked) or next(iter(refs.values()))
        fault = await ctx.fault_for(ref, request)
        if fault is not None:
            return fault
        if not ctx.key_ok(ref.platform.id, raw.get("key")):
            return _error("INVALID_KEY", as_json)
        if (raw.get("service") or "").lower() != "address":
            return _error("PARAM_REQUIRED" if not raw.get("service") else "INVALID_RANGE", as_json, "service")
        if asked not in refs:
            return _error("PARAM_REQUIRED" if not raw.get("request") else "INVALID_RANGE", as_json, "request")
        op = ref.op.param("request").default
        params, problem = validate_params(ref.op, raw)
        if problem is not None:
            p = ref.op.param(problem.name)
            code = "PARAM_REQUIRED" if problem.kind == "missing" else "INVALID_RANGE" if p is not None and p.enum else "INVALID_TYPE"
            return _error(code, as_json, problem.name, op=op)
        if asked == "getaddress":
            return _reverse(ref, ctx, params, as_json)
        return _geocode(ref, ctx, params, as_json)

    return endpoint


def routes(platform, ctx) -> list[Route]:
    by_path = ops_by_path(platform, ctx, lambda ref: ref.op.param("request").default.lower())
    return [Route(path, make_endpoint(refs, ctx), methods=["GET", "POST"]) for path, refs in by_path.items()]


def build_request(ref, args: dict[str, Any], key: str | None, base_url: str) -> RequestSpec:
    params = {k: v for k, v in args.items() if v is not None}
    if key is not None:
        params["key"] = key
    params["format"] = "json"
    return RequestSpec("GET", f"{base_url}{ref.service.path}{ref.op.path}", params)


def parse_response(ref, status: int, headers: dict[str, str], body: bytes) -> Parsed:
    if status >= 500 or body.lstrip()[:5].lower() == b"<html":
        return Parsed(False, f"HTTP{status}", "gateway error", error_type="transient", retryable=True)
    doc, fail = decode_payload(body)
    if fail is not None:
        return fail
    resp = doc.get("response") if isinstance(doc, dict) else None
    if not isinstance(resp, dict):
        return Parsed(False, "MALFORMED", "no `response` envelope", error_type="transient", retryable=True)
    status_ = str(resp.get("status", ""))
    if status_ == "NOT_FOUND":
        return Parsed(True, "NOT_FOUND", "NOT_FOUND", [], 0)
    if status_ != "OK":
        err = resp.get("error") or {}
        code = str(err.get("code", "ERROR"))
        kind = ("auth" if code in ("INVALID_KEY", "INCORRECT_KEY", "UNAVAILABLE_KEY") else "quota" if code == "OVER_REQUEST_LIMIT"
                else "transient" if code in ("SYSTEM_ERROR", "UNKNOWN_ERROR") else "platform")
        return Parsed(False, code, str(err.get("text", "")), error_type=kind, retryable=kind == "transient")
    result = resp.get("result") or {}
    if isinstance(result, dict) and isinstance(result.get("item"), (dict, list)):
        result = result["item"]  # XML: <result><item>..</item></result>
    if isinstance(result, list) or "point" not in result:
        # getAddress: one record per address (parcel, road), the structure flattened into it
        items = result if isinstance(result, list) else [result]
        recs = []
        for it in items:
            rec = {k: v for k, v in it.items() if k != "structure"}
            rec.update(it.get("structure") or {})
            recs.append(rec)
        return Parsed(True, "OK", "OK", recs, len(recs))
    point = result.get("point") or {}
    rec: dict[str, Any] = {"x": point.get("x"), "y": point.get("y"), "crs": result.get("crs")}
    refined = resp.get("refined") or {}
    if refined:
        rec["text"] = refined.get("text")
        rec.update(refined.get("structure") or {})
    return Parsed(True, "OK", "OK", [rec], 1)

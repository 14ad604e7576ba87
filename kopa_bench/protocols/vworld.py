"""VWorld geocoder 2.0 (`/req/address?service=address&request=getcoord`).

Envelope `{"response":{"service":{...},"status":"OK","input":{...},"refined":{"text",
"structure":{level0..level5,detail}},"result":{"crs","point":{"x","y"}}}}`; NOT_FOUND is
`{"response":{"service":..,"status":"NOT_FOUND"}}`; errors `status: ERROR` with
`error{level,code,text}` (INVALID_KEY, PARAM_REQUIRED, INVALID_TYPE, ...). XML by default,
`format=json` (case-insensitive). x = longitude, y = latitude (strings). Addresses come from
the juso buildings (same table), so juso roadAddr/jibunAddr geocode.
Deviations: level4AC carries the legal-dong code (the world has no 행정동 codes); crs
epsg:5179 and epsg:3857 are supported, other CRS get INVALID_RANGE.
"""

from __future__ import annotations

import json
import re
import weakref
from typing import Any

import xmltodict
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .base import Parsed, RequestSpec, decode_payload, op_routes, validate_params, wants_json
from .juso import SIDO_FULL

XML_CT = "application/xml;charset=UTF-8"
JSON_CT = "application/json;charset=UTF-8"
ERR_TEXT = {
    "INVALID_KEY": "등록되지 않은 인증키입니다.", "INCORRECT_KEY": "인증키 정보가 올바르지 않습니다.",
    "UNAVAILABLE_KEY": "일시적으로 사용할 수 없는 인증키입니다.", "OVER_REQUEST_LIMIT": "서비스 사용량이 일일 제한량을 초과하여 더 이상 서비스를 사용할 수 없습니다.",
    "PARAM_REQUIRED": "필수 파라미터인 <%s>가 없어서 요청을 처리할수 없습니다.", "INVALID_TYPE": "<%s> 파라미터 타입이 유효하지 않습니다.",
    "INVALID_RANGE": "<%s> 파라미터의 값이 유효한 범위를 넘었습니다.", "UNKNOWN_ERROR": "알 수 없는 오류입니다.",
}


def normalise(addr: str) -> str:
    a = re.sub(r"\(.*?\)", " ", addr or "")
    toks = a.split()
    if toks:
        toks[0] = SIDO_FULL.get(toks[0], toks[0])
    return " ".join(toks)


def _geocode_sql(world, addr: str, kind: str) -> tuple[list[str], list[tuple]]:
    """The reference lookup: (columns, at most one juso_addr row)."""
    col = "roadAddrPart1" if kind == "ROAD" else "regexp_replace(jibunAddr, ' [^ ]*[^0-9 -][^ ]*$', '')"
    full = "roadAddrPart1" if kind == "ROAD" else "jibunAddr"
    sql = (f"SELECT * FROM juso_addr WHERE {col} = ? OR {full} = ? OR replace({col}, ' ', '') = ? ORDER BY bdMgtSn LIMIT 1")
    cur = world.con.execute(sql, [addr, addr, addr.replace(" ", "")])
    cols = [d[0] for d in cur.description]
    found = cur.fetchall()
    if not found and kind == "ROAD" and not re.search(r"\s", addr.split()[0] if addr.split() else ""):
        # Sejong and addresses without the province: match the tail
        cur = world.con.execute("SELECT * FROM juso_addr WHERE roadAddrPart1 LIKE ? ORDER BY bdMgtSn LIMIT 1", [f"% {addr}"])
        found = cur.fetchall()
    return cols, found


class _GeocodeIndex:
    """The reference lookup's answers as dicts, built once per world (32,694 buildings, ~0.2 s).

    Each map sends a key to the smallest bdMgtSn among the rows it matches (the query's
    `ORDER BY bdMgtSn LIMIT 1`); the answer is the smallest over the query's OR-ed conditions.
    The parcel column is computed by DuckDB itself (its regexp_replace). The tail fallback
    `roadAddrPart1 LIKE '% <addr>'` is a suffix that starts right after a space; an address with a
    LIKE wildcard (% or _) goes to the SQL. tests/test_handler_index.py compares both ways."""

    def __init__(self, world):
        rows = world.con.execute(
            "SELECT bdMgtSn, roadAddrPart1, jibunAddr, regexp_replace(jibunAddr, ' [^ ]*[^0-9 -][^ ]*$', '') "
            "FROM juso_addr").fetchall()
        self.road: dict[str, str] = {}
        self.road_ns: dict[str, str] = {}
        self.parcel: dict[str, str] = {}
        self.parcel_ns: dict[str, str] = {}
        self.road_tail: dict[str, str] = {}

        def put(d: dict, key, sn: str) -> None:
            if key is not None and (key not in d or sn < d[key]):
                d[key] = sn

        for sn, road, jibun, jcol in rows:
            put(self.road, road, sn)
            put(self.road_ns, None if road is None else road.replace(" ", ""), sn)
            put(self.parcel, jcol, sn)
            put(self.parcel, jibun, sn)
            put(self.parcel_ns, None if jcol is None else jcol.replace(" ", ""), sn)
            if road is not None:
                for i, c in enumerate(road):
                    if c == " ":
                        put(self.road_tail, road[i + 1:], sn)

    def lookup(self, addr: str, kind: str) -> str | None:
        ns = addr.replace(" ", "")
        if kind == "ROAD":
            hits = [self.road.get(addr), self.road_ns.get(ns)]
        else:
            hits = [self.parcel.get(addr), self.parcel_ns.get(ns)]
        hits = [h for h in hits if h is not None]
        if hits:
            return min(hits)
        return self.road_tail.get(addr) if kind == "ROAD" else None


_GEOCODE_INDEX: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_GEOCODE_CALLS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
# The index costs ~0.16 s to build, ~24 SQL lookups' worth: a benchmark run geocoding a handful of
# addresses (the oracle over 145 tasks: +0.13 s, 4%) is cheaper without it, EDGE (hundreds) with it.
INDEX_AFTER = 24


def _geocode_index(world) -> _GeocodeIndex | None:
    """The world's index once it has answered `INDEX_AFTER` geocodes the slow way, else None."""
    idx = _GEOCODE_INDEX.get(world)
    if idx is None:
        n = _GEOCODE_CALLS.get(world, 0) + 1
        _GEOCODE_CALLS[world] = n
        if n <= INDEX_AFTER:
            return None
        idx = _GEOCODE_INDEX[world] = _GeocodeIndex(world)
    return idx


def geocode_rows(world, params: dict[str, Any], use_index: bool = True) -> list[dict]:
    addr = normalise(params.get("address") or "")
    kind = (params.get("type") or "ROAD").upper()
    if not addr:
        return []
    idx = _geocode_index(world) if use_index and "%" not in addr and "_" not in addr else None
    if idx is not None:
        sn = idx.lookup(addr, "ROAD" if kind == "ROAD" else "PARCEL")
        cur = world.con.execute("SELECT * FROM juso_addr WHERE bdMgtSn = ?", [sn]) if sn is not None else None
        cols = [d[0] for d in cur.description] if cur is not None else []
        found = cur.fetchall() if cur is not None else []
    else:
        cols, found = _geocode_sql(world, addr, kind)
    if not found:
        return []
    r = dict(zip(cols, found[0]))
    road = kind == "ROAD"
    lot = r["lnbrMnnm"] + ("" if r["lnbrSlno"] == "0" else f"-{r['lnbrSlno']}")
    num = r["buldMnnm"] + ("" if r["buldSlno"] == "0" else f"-{r['buldSlno']}")
    sgg = r["sggNm"].split()
    return [{
        "lon": r["lon"], "lat": r["lat"], "entX": r["entX"], "entY": r["entY"],
        "text": r["roadAddrPart1"] if road else f"{r['siNm']} {r['sggNm'] + ' ' if r['sggNm'] else ''}{r['emdNm']} {lot}",
        "zipcode": r["zipNo"],
        "structure": {
            "level0": "대한민국", "level1": r["siNm"], "level2": sgg[0] if sgg else "", "level3": " ".join(sgg[1:]) if road else r["emdNm"],
            "level4L": r["rn"] if road else r["emdNm"], "level4LC": r["rnMgtSn"] if road else r["admCd"],
            "level4A": r["emdNm"], "level4AC": r["admCd"], "level5": num if road else lot, "detail": r["bdNm"] if road else "",
        },
    }]


def _service(op: str = "getcoord") -> dict:
    return {"name": "address", "version": "2.0", "operation": op, "time": "12(ms)"}


def _respond(doc: dict, as_json: bool) -> Response:
    if as_json:
        return Response(json.dumps(doc, ensure_ascii=False), headers={"Content-Type": JSON_CT})
    return Response(xmltodict.unparse(doc, encoding="UTF-8", short_empty_elements=True), headers={"Content-Type": XML_CT})


def _error(code: str, as_json: bool, arg: str = "", level: str = "1") -> Response:
    text = ERR_TEXT.get(code, ERR_TEXT["UNKNOWN_ERROR"])
    if "%s" in text:
        text = text % arg
    return _respond({"response": {"service": _service(), "status": "ERROR",
                                  "error": {"level": level, "code": code, "text": text}}}, as_json)


def fault_response(kind: str, ref) -> Response:
    return _error("OVER_REQUEST_LIMIT" if kind in ("quota", "per_second") else "INVALID_KEY", True)


CRS = {"epsg:4326", "epsg:5179", "epsg:3857"}


def make_endpoint(ref, ctx):
    async def endpoint(request: Request) -> Response:
        raw = dict(request.query_params)
        as_json = wants_json(raw.get("format"), "json")
        fault = await ctx.fault_for(ref, request)
        if fault is not None:
            return fault
        if not ctx.key_ok(ref.platform.id, raw.get("key")):
            return _error("INVALID_KEY", as_json)
        if (raw.get("service") or "").lower() != "address":
            return _error("PARAM_REQUIRED" if not raw.get("service") else "INVALID_RANGE", as_json, "service")
        if (raw.get("request") or "").lower() != "getcoord":
            return _error("PARAM_REQUIRED" if not raw.get("request") else "INVALID_RANGE", as_json, "request")
        params, problem = validate_params(ref.op, raw)
        if problem is not None:
            return _error("PARAM_REQUIRED" if problem.kind == "missing" else "INVALID_TYPE", as_json, problem.name)
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
            import math

            x = f"{r['lon'] * 20037508.34 / 180:.6f}"
            y = f"{math.log(math.tan((90 + r['lat']) * math.pi / 360)) / (math.pi / 180) * 20037508.34 / 180:.6f}"
        refine = (params.get("refine") or "true").lower() != "false"
        simple = (params.get("simple") or "false").lower() == "true"
        resp: dict[str, Any] = {"service": _service(), "status": "OK",
                                "input": {"type": kind.lower(), "address": params["address"]}}
        if refine and not simple:
            resp["refined"] = {"text": r["text"], "structure": r["structure"]}
        resp["result"] = {"crs": crs.upper(), "point": {"x": x, "y": y}}
        return _respond({"response": resp}, as_json)

    return endpoint


def routes(platform, ctx) -> list[Route]:
    return op_routes(platform, ctx, make_endpoint)


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
    point = result.get("point") or {}
    rec: dict[str, Any] = {"x": point.get("x"), "y": point.get("y"), "crs": result.get("crs")}
    refined = resp.get("refined") or {}
    if refined:
        rec["text"] = refined.get("text")
        rec.update(refined.get("structure") or {})
    return Parsed(True, "OK", "OK", [rec], 1)

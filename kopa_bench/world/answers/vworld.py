"""VWorld getcoord, answered per request: the juso building a road or parcel address names
(so juso roadAddr/jibunAddr geocode)."""

from __future__ import annotations

import re
import weakref
from typing import Any

from ...refdata.platform_facts import JUSO_SIDO_FULL


def normalise(addr: str) -> str:
    """The address without parenthesised notes, its 시도 spelled out in full."""
    a = re.sub(r"\(.*?\)", " ", addr or "")
    toks = a.split()
    if toks:
        toks[0] = JUSO_SIDO_FULL.get(toks[0], toks[0])
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
    """The reference lookup's answers as dicts, built once per world.

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
# Building the index costs about as much as INDEX_AFTER SQL lookups: worth it only for many geocodes.
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

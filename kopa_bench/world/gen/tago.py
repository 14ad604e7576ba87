"""TAGO (국가대중교통정보센터) buses: stops, routes and clock-driven arrivals for every city.

Cities are the real `getCtyCodeList` table (`refdata/tago_city_codes.csv`; Seoul is not
served). For each city, stop *sites* are real legal dongs of that city (`places`), named as
Korean bus stops are (`{dong}행정복지센터`, `{dong}입구`, `{dong}사거리`, `{city}시청`,
`{city}종합버스터미널` ...); most sites have a stop on each side of the road (same `nodenm`,
different `nodeid`/`nodeno`, as the real name search returns). nodeid/routeid carry the real
city prefixes (DJB 대전, BSB 부산, GGB 경기, CAB 천안, CWB 창원, GYB 경남 ...).

Routes are walks through nearby sites: the first routes cover every site (a nearest-neighbour
tour cut into overlapping pieces), then extra random routes; each route lists its up stops
(updowncd 0) then its down stops back (updowncd 1), nodeord 1..N. Arrivals are answered per
request from the world clock (world/answers/tago.py).
"""

from __future__ import annotations

import math

import pyarrow as pa

from ...refdata import table_rows
from ...transforms.regions import TAGO_PREFIX_TO_SIDO

DEPENDS = ["regions"]

_PROVINCE_ID = {"31": "GGB", "32": "GWB", "33": "CBB", "34": "CNB", "35": "JBB", "36": "JNB", "37": "GBB", "38": "GYB"}
_CITY_ID = {
    "12": "SJB", "21": "BSB", "22": "DGB", "23": "ICB", "24": "GJB", "25": "DJB", "26": "USB", "39": "JEB",
    "34010": "CAB", "33010": "CJB", "35010": "JJB", "38010": "CWB", "32010": "CCB", "32020": "WJB",
    "37010": "PHB", "37050": "GMB", "36020": "YSB", "36030": "SCB", "36010": "MPB", "35020": "GSB",
}  # fmt: skip
_SUFFIXES = ("행정복지센터", "입구", "사거리", "삼거리", "시장", "초등학교", "우체국", "주민센터", "중학교", "보건지소", "농협", "공원")


def _city_places(places: list[dict], code: str, name: str) -> list[dict]:
    out = []
    for part in name.split("/"):
        if part.endswith(("특별시", "광역시", "도")) or len(code) == 2 and part == name.split("/")[0]:
            sido = TAGO_PREFIX_TO_SIDO[code[:2]]
            out += [p for p in places if p["region_cd"][:2] == sido]
        else:
            sido = TAGO_PREFIX_TO_SIDO[code[:2]]
            if part == "계룡시":
                sido = "44"
            out += [p for p in places if p["region_cd"][:2] == sido and p["sgg_name"].replace(" ", "").startswith(part)]
    return out


def _km(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot((a[0] - b[0]) * 111.0, (a[1] - b[1]) * 88.8)


def _short(name: str) -> str:
    return name[:-1] if len(name) > 2 and name[-1] in "시군" else name


def generate(ctx) -> dict:
    rng = ctx.rng("tago")
    places = ctx.rows("places")
    cities, stops, routes, route_stops = [], [], [], []
    for ci, row in enumerate(table_rows("tago_city_codes")):
        code, cname = row["citycode"], row["cityname"]
        cities.append({"citycode": int(code), "cityname": cname})
        pool = _city_places(places, code, cname)
        if not pool:
            continue
        metro = len(code) == 2
        county = cname.endswith("군")
        prefix = _CITY_ID.get(code) or _PROVINCE_ID.get(code[:2], "TGB")
        # --- stop sites: distinct dongs, plus the city hall and bus terminal
        by_umd: dict[str, dict] = {}
        for p in sorted(pool, key=lambda p: p["region_cd"]):
            by_umd.setdefault(p["umd_name"], p)
        umds = list(by_umd.values())
        rng.shuffle(umds)
        n_sites = min(len(umds), rng.randint(26, 38) if metro else (rng.randint(14, 20) if county else rng.randint(18, 28)))
        sites = []
        centre = umds[0]
        hall = "군청" if county else "시청"
        first_name = cname.split("/")[0]
        main = first_name.removesuffix("특별시").removesuffix("광역시").removesuffix("도") if metro else _short(first_name)
        specials = [(f"{main}{hall}" if not metro else f"{main}시청", centre),
                    (f"{main}종합버스터미널", umds[min(1, len(umds) - 1)])]
        for nm, p in specials:
            sites.append((nm, p["lat"] + rng.uniform(-0.003, 0.003), p["lon"] + rng.uniform(-0.003, 0.003)))
        used = {s[0] for s in sites}
        for p in umds[:n_sites]:
            for _ in range(1 if rng.random() < 0.8 else 2):
                nm = p["umd_name"] + rng.choice(_SUFFIXES)
                if nm in used:
                    continue
                used.add(nm)
                sites.append((nm, p["lat"] + rng.uniform(-0.004, 0.004), p["lon"] + rng.uniform(-0.004, 0.004)))
        # --- stops: one or two per site (both sides of the road)
        site_stops: list[list[dict]] = []
        nodeno = rng.randint(10, 80) * 1000
        si = 0
        for nm, lat, lon in sites:
            pair = []
            for side in range(2 if rng.random() < 0.7 else 1):
                si += 1
                nodeno += rng.randint(1, 9)
                pair.append({"citycode": int(code), "nodeid": f"{prefix}{ci:03d}{si:05d}", "nodenm": nm,
                             "nodeno": str(nodeno), "gpslati": round(lat + side * 0.00025, 7),
                             "gpslong": round(lon + side * 0.0003, 7)})
            site_stops.append(pair)
            stops.extend(pair)
        # --- routes: a nearest-neighbour tour cut into overlapping pieces, then random walks
        n = len(sites)
        order, left = [0], set(range(1, n))
        while left:
            last = sites[order[-1]][1:]
            nxt = min(left, key=lambda j: _km(last, sites[j][1:]))
            order.append(nxt)
            left.discard(nxt)
        paths = []
        piece = 12 if metro else 9
        for start in range(0, n, piece - 2):
            seg = order[start:start + piece]
            if len(seg) >= 3:
                paths.append(seg)
            if start + piece >= n:
                break
        target = rng.randint(14, 20) if metro else (rng.randint(8, 10) if county else rng.randint(10, 16))
        while len(paths) < target:
            cur = rng.randrange(n)
            seg, seen = [cur], {cur}
            for _ in range(rng.randint(6, 14)):
                cands = sorted((j for j in range(n) if j not in seen), key=lambda j: _km(sites[cur][1:], sites[j][1:]))[:4]
                if not cands:
                    break
                cur = rng.choice(cands)
                seg.append(cur)
                seen.add(cur)
            if len(seg) >= 4:
                paths.append(seg)
        used_no: set[str] = set()
        for ri, seg in enumerate(paths):
            if county:
                tp, no = "농어촌버스", str(rng.randint(1, 99))
            elif metro:
                tp = rng.choice(["간선버스", "간선버스", "지선버스", "지선버스", "급행버스", "마을버스"])
                no = {"급행버스": f"급행{rng.randint(1, 9)}", "마을버스": f"마을{rng.randint(1, 30)}",
                      "지선버스": str(rng.randint(300, 999))}.get(tp, str(rng.randint(100, 799)))
            else:
                tp = rng.choice(["일반버스", "일반버스", "일반버스", "좌석버스", "마을버스"])
                no = str(rng.randint(1, 99)) if tp != "좌석버스" else str(rng.randint(100, 990))
                if tp == "마을버스":
                    no = f"{rng.randint(1, 30)}-{rng.randint(1, 3)}"
            while no in used_no:
                no = no + "-1"
            used_no.add(no)
            routeid = f"{prefix}{100 + ci:03d}{ri + 1:05d}"
            headway = rng.randint(40, 90) if county else rng.randint(8, 25)
            first = f"{rng.randint(5, 6):02d}{rng.choice([0, 10, 20, 30, 40]):02d}"
            last = f"{rng.randint(21, 23):02d}{rng.choice([0, 15, 30, 45]):02d}"
            up = [site_stops[j][0] for j in seg]
            down = [site_stops[j][-1] for j in reversed(seg)][1:]
            routes.append({
                "citycode": int(code), "routeid": routeid, "routeno": no, "routetp": tp,
                "startnodenm": sites[seg[0]][0], "endnodenm": sites[seg[-1]][0],
                "startvehicletime": first, "endvehicletime": last,
                "intervaltime": headway, "intervalsattime": int(headway * 1.3), "intervalsuntime": int(headway * 1.5),
                "stop_secs": rng.randint(150, 240) if county else rng.randint(80, 140),
                "n_stops": len(up) + len(down),
            })
            for k, s in enumerate(up + down):
                route_stops.append({"citycode": int(code), "routeid": routeid, "nodeord": k + 1, "nodeid": s["nodeid"],
                                    "nodenm": s["nodenm"], "nodeno": s["nodeno"], "gpslati": s["gpslati"],
                                    "gpslong": s["gpslong"], "updowncd": 0 if k < len(up) else 1})
    return {
        "tago_cities": pa.Table.from_pylist(cities),
        "tago_stops": pa.Table.from_pylist(stops),
        "tago_routes": pa.Table.from_pylist(routes),
        "tago_route_stops": pa.Table.from_pylist(route_stops),
    }

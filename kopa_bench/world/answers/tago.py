"""TAGO bus arrivals (getSttnAcctoArvlPrearngeInfoList), answered per request from the world
clock: buses leave the first stop every headway between the first and last departure, take a
fixed time per stop, and the stop lists the next (at most two) running buses per route with
arrtime in seconds and arrprevstationcnt."""

from __future__ import annotations

import hashlib
from datetime import datetime


def _h(*key) -> int:
    return int.from_bytes(hashlib.blake2b(repr(key).encode(), digest_size=8).digest(), "big")


def arrivals(world, params: dict) -> list[dict]:
    """getSttnAcctoArvlPrearngeInfoList: running buses approaching `nodeId`, from the clock."""
    city, node = params.get("cityCode"), params.get("nodeId")
    if not city or not node:
        return []
    rows = world.sql(
        "SELECT rs.routeid, rs.nodeord, rs.nodenm, r.routeno, r.routetp, r.startvehicletime, r.endvehicletime, "
        "r.intervaltime, r.intervalsattime, r.intervalsuntime, r.stop_secs, r.n_stops "
        "FROM tago_route_stops rs JOIN tago_routes r USING (routeid) "
        "WHERE CAST(rs.citycode AS VARCHAR) = $city AND rs.nodeid = $node ORDER BY rs.routeid, rs.nodeord",
        {"city": str(city).strip(), "node": str(node).strip()},
    )
    now: datetime = world.clock.now()
    now_s = now.hour * 3600 + now.minute * 60 + now.second
    wd = now.weekday()
    out = []
    for r in rows:
        headway = 60 * (r["intervaltime"] if wd < 5 else r["intervalsattime"] if wd == 5 else r["intervalsuntime"])
        first = int(r["startvehicletime"][:2]) * 3600 + int(r["startvehicletime"][2:]) * 60
        last = int(r["endvehicletime"][:2]) * 3600 + int(r["endvehicletime"][2:]) * 60
        tau, p = r["stop_secs"], r["nodeord"] - 1
        found = []
        k_max = (min(now_s, last) - first) // headway if now_s >= first else -1
        k = k_max
        while k >= 0 and len(found) < 2:
            dep = first + k * headway
            pos = (now_s - dep) // tau
            if pos >= r["n_stops"]:
                break
            if pos >= p:
                break  # this bus and every earlier one have passed the stop
            found.append((k, dep + p * tau - now_s, p - pos))
            k -= 1
        for k, eta, cnt in sorted(found, key=lambda f: f[1]):
            low = _h(r["routeid"], k, world.clock.today().isoformat()) % 10 < 4
            out.append({"arrprevstationcnt": int(cnt), "arrtime": int(eta), "nodeid": str(node).strip(), "nodenm": r["nodenm"],
                        "routeid": r["routeid"], "routeno": r["routeno"], "routetp": r["routetp"],
                        "vehicletp": "저상버스" if low else "일반차량"})
    return out

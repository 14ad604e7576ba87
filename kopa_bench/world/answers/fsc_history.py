"""FSC stock prices (getStockPriceInfo) for trading days before the stored window, per request.

The world file stores about six months of daily prices (world/gen/fsc.py). Requests whose date
filters reach further back read the stored rows plus generated ones from FIRST_DAY on: each item's
path walks backwards from the previous close of its first stored day, so the two meet without a
jump, and is drawn once per (world seed, item) from the boundary backwards, so a day's prices are
the same whatever window asked for them. A request with no date filter keeps the stored window."""

from __future__ import annotations

import hashlib
import re
import threading
import weakref
from datetime import date, timedelta

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...refdata import table_rows

FIRST_DAY = date(2020, 1, 2)  # the first trading day of 2020: the history answered here
_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def _tick(price: np.ndarray) -> np.ndarray:
    return np.select([price < 2000, price < 5000, price < 20000, price < 50000, price < 200000, price < 500000],
                     [1, 5, 10, 50, 100, 500], 1000)


def _trading_days(a: date, b: date) -> list[date]:
    off = {r["date"] for name in ("holidays", "kasi_holidays_history") for r in table_rows(name) if r["is_holiday"] == "Y"}
    out, d = [], a
    while d <= b:
        if d.weekday() < 5 and d not in off and not (d.month == 12 and d.day == 31):
            out.append(d)
        d += timedelta(days=1)
    return out


def _rng(seed: str, code: str) -> np.random.Generator:
    return np.random.default_rng(int.from_bytes(hashlib.sha256(f"{seed}:fsc.history:{code}".encode()).digest()[:8], "big"))


def _history(world) -> tuple[str, pa.Table, pa.Table]:
    """(first stored basDt, the stored table, every generated day before it), once per world."""
    with _LOCK:
        hit = _CACHE.get(world)
        if hit is not None:
            return hit
    stored = world.con.sql("SELECT * FROM fsc_stock_prices").to_arrow_table()
    first = min(stored.column("basDt").to_pylist())
    firsts = world.sql("SELECT * FROM fsc_stock_prices WHERE basDt = $d ORDER BY srtnCd", {"d": first})
    bound = date(int(first[:4]), int(first[4:6]), int(first[6:]))
    days = _trading_days(FIRST_DAY, bound - timedelta(days=1))
    seed = str(world.meta.get("seed", ""))
    n, t = len(firsts), len(days)
    cols: dict[str, list] = {name: [] for name in stored.schema.names}
    bas = [d.strftime("%Y%m%d") for d in days]
    for row in firsts:
        rng = _rng(seed, row["srtnCd"])
        vol = 0.018 if row["mrktCtg"] == "KOSPI" else 0.028
        # daily log returns drawn from the boundary backwards (the k-th draw is the k-th day before it),
        # so a day never depends on the window asked for
        g = np.clip(rng.normal(0.0003, vol, t), -0.29, 0.29)[::-1]
        boundary = float(row["clpr"] - row["vs"])  # the close of the last day before the stored window
        after = np.concatenate([np.cumsum(g[::-1])[::-1][1:], [0.0]])  # sum of the returns after each day
        path = boundary * np.exp(-after)
        closes = np.maximum(_tick(path) * np.round(path / _tick(path)), 1).astype(np.int64)
        first_prev = boundary * np.exp(-g.sum())
        prevs = np.concatenate([[max(1, int(_tick(np.array([first_prev]))[0] * round(first_prev / _tick(np.array([first_prev]))[0])))],
                                closes[:-1]])
        openp = prevs * (1 + rng.normal(0, 0.006, t))
        openp = np.maximum(1, _tick(openp) * np.round(openp / _tick(openp))).astype(np.int64)
        hi = np.maximum(openp, closes) * (1 + np.abs(rng.normal(0, 0.008, t)))
        lo = np.minimum(openp, closes) * (1 - np.abs(rng.normal(0, 0.008, t)))
        hi = (_tick(hi) * np.ceil(hi / _tick(hi))).astype(np.int64)
        lo = np.maximum(1, _tick(lo) * np.floor(lo / _tick(lo))).astype(np.int64)
        shares = int(row["lstgStCnt"])
        trqu = np.maximum(1000, shares * rng.lognormal(np.log(0.004), 0.5, t) / (3 if shares > 3e8 else 1)).astype(np.int64)
        vs = closes - prevs
        flt = np.round(vs / np.maximum(prevs, 1) * 100, 2)
        cols["basDt"] += bas
        for k in ("srtnCd", "isinCd", "itmsNm", "mrktCtg"):
            cols[k] += [row[k]] * t
        cols["clpr"] += closes.tolist()
        cols["vs"] += vs.tolist()
        cols["fltRt_num"] += flt.tolist()
        cols["mkp"] += openp.tolist()
        cols["hipr"] += hi.tolist()
        cols["lopr"] += lo.tolist()
        cols["trqu"] += trqu.tolist()
        cols["trPrc"] += (trqu * (openp + closes + hi + lo) / 4).astype(np.int64).tolist()
        cols["lstgStCnt"] += [shares] * t
        cols["mrktTotAmt"] += (closes * shares).tolist()
        cols["fltRt"] += [_flt_text(x) for x in flt.tolist()]
    generated = pa.Table.from_pydict({k: cols[k] for k in stored.schema.names}, schema=stored.schema) if n and t \
        else stored.slice(0, 0)
    out = (first, stored, generated)
    with _LOCK:
        _CACHE[world] = out
    return out


def _flt_text(x: float) -> str:
    """fltRt as the service prints it: "-1.5", "0.35", "0"."""
    if x == 0:
        return "0"
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" + s if s.startswith(".") else s.replace("-.", "-0.")


def _window(key: tuple) -> tuple[str, str] | None:
    """The basDt range [lo, hi] a request's date filters allow, or None when they do not bound it."""
    bas, begin, end, like = (str(k) if k is not None else None for k in key)
    lo, hi = "00000000", "99999999"
    if bas:
        lo, hi = max(lo, bas), min(hi, bas)
    if begin:
        lo = max(lo, begin)
    if end:
        hi = min(hi, (date(int(end[:4]), int(end[4:6]), int(end[6:])) - timedelta(days=1)).strftime("%Y%m%d")
                 if re.fullmatch(r"\d{8}", end) else hi)
    if like and re.fullmatch(r"(19|20)\d{2}(\d{2}(\d{2})?)?", like):
        lo, hi = max(lo, like + "00000101"[len(like):]), min(hi, like + "99991231"[len(like):])
    if not (bas or begin or end or (like and lo != "00000000")):
        return None
    return lo, hi


def stock_prices(world, key: tuple) -> pa.Table | None:
    """`fsc_stock_prices` for a request whose dates reach before the stored window (the stored rows
    and the generated days in its range), else None."""
    window = _window(key)
    if window is None:
        return None
    first = world.sql("SELECT min(basDt) AS d FROM fsc_stock_prices")[0]["d"]
    if window[0] >= first:
        return None
    _, stored, generated = _history(world)
    lo = max(window[0], FIRST_DAY.strftime("%Y%m%d"))
    days = generated.column("basDt")
    earlier = generated.filter(pc.and_(pc.greater_equal(days, lo), pc.less_equal(days, window[1])))
    return pa.concat_tables([earlier, stored])

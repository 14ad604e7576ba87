"""MOLIT RTMS entity rows generated per (district, contract month): every month the real service
answers, without storing them.

The real RTMS services answer from 2006-01 (sales; leases from 2011-01) to the current month.
Every apartment month comes from here, each a pure function of (world seed, table, LAWD_CD,
DEAL_YMD): the same rows whatever else was asked. The world file stores the complexes
(`molit_complexes`: the real K-apt complexes with their 세대수 and what the build drew for them:
price per m2, unit sizes, floors) and empty report tables for their schema, so no month is
answered two ways and consecutive months never jump. Officetel and row-house (연립다세대)
buildings are drawn here per district.

A complex trades from the year it was built, in proportion to its households, at its price per
m2 moved through time by a yearly Seoul price index. Monthly counts (see VOLUME_SOURCE): a Seoul
구's month of 2022-2023 has exactly its real number of sales; other Seoul months split the yearly
Seoul volume over the 구 by their real 2022-2023 shares; elsewhere a district trades at Seoul's
rate per apartment household (K-apt 세대수 of the complexes standing that year).
"""

from __future__ import annotations

import collections
import hashlib
import re
import threading
import weakref
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ...clock import shift_months
from ...refdata import table_rows

FIRST_SALE_MONTH = "200601"  # RTMS sale reports start with contracts of January 2006
FIRST_LEASE_MONTH = "201101"  # lease (전월세) reports start with January 2011
VOLUME_SOURCE = (
    "real Seoul apartment sales per 구 and month 2022-2023 (rt.molit.go.kr download, 48,305 rows; refdata "
    "seoul_apt_trade_counts); yearly Seoul volumes and prices: 한국부동산원 apartment sales volume and price index "
    "series, rounded (approximate); elsewhere by K-apt households")

# Seoul apartment sales per year (thousands, rounded; 2026 continues 2025's level)
SEOUL_SALES_K = {2006: 138, 2007: 67, 2008: 66, 2009: 79, 2010: 47, 2011: 68, 2012: 48, 2013: 69, 2014: 94,
                 2015: 131, 2016: 125, 2017: 115, 2018: 95, 2019: 71, 2020: 81, 2021: 42, 2022: 12, 2023: 36,
                 2024: 43, 2025: 55, 2026: 50}
# Seoul apartment price level per year, 2026 = 1.0 (rounded)
SEOUL_PRICE = {2006: 0.48, 2007: 0.55, 2008: 0.57, 2009: 0.55, 2010: 0.55, 2011: 0.54, 2012: 0.51, 2013: 0.49,
               2014: 0.50, 2015: 0.53, 2016: 0.56, 2017: 0.60, 2018: 0.68, 2019: 0.72, 2020: 0.82, 2021: 0.97,
               2022: 0.95, 2023: 0.86, 2024: 0.90, 2025: 0.95, 2026: 1.0}
SEOUL_LEASES_K = 200  # Seoul apartment leases per year (thousands): steady where sales swing
SEASON = np.array([0.85, 0.9, 1.1, 1.1, 1.05, 1.05, 1.0, 1.0, 0.95, 1.0, 1.0, 1.0])  # Jan..Dec
MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
CACHE_SIZE = 256  # generated district-months kept per world (a paged month is generated once)


def _year_value(table: dict[int, float], year: int) -> float:
    return table[min(max(year, min(table)), max(table))]


def _rng(seed: str, *key: str) -> np.random.Generator:
    digest = hashlib.sha256(":".join((seed, *key)).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big"))


def _days_in(y: int, m: int) -> int:
    return 29 if m == 2 and (y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)) else MONTH_DAYS[m - 1]


# ---- what a world already says about its districts (read once per world) -----------------------

@dataclass
class _Complex:
    sgg: str
    umd: str
    name: str
    seq: str
    jibun: str
    build_year: int
    unit_price: float  # 만원 per m2 at the clock's year
    areas: list[str]
    floors: int
    weight: float  # households


@dataclass
class _District:
    complexes: list[_Complex]
    dongs: list[str]
    sgg_name: str
    sido_short: str
    unit_price: float


def _seoul_counts() -> tuple[dict[tuple[str, str], int], dict[str, float]]:
    """The real Seoul sales per (구, month) of 2022-2023, and each 구's share of them."""
    counts = {(r["lawd_cd"], r["deal_ym"]): int(r["trades"]) for r in table_rows("seoul_apt_trade_counts")}
    total = sum(counts.values())
    share: dict[str, float] = {}
    for (lawd, _), n in counts.items():
        share[lawd] = share.get(lawd, 0.0) + n / total
    return counts, share


SEOUL_COUNTS, SEOUL_SHARE = _seoul_counts()


class _WorldFacts:
    """The complexes and the districts of one world, as the generators need them."""

    def __init__(self, world):
        self.seed = str(world.meta.get("seed", ""))
        now = world.clock.now()
        self.clock_month = f"{now.year:04d}{now.month:02d}"
        self.clock_day = now.day
        self.price_base = _year_value(SEOUL_PRICE, now.year)
        self.schemas = {t: world.con.sql(f"SELECT * FROM {t} LIMIT 0").to_arrow_table().schema
                        for t in ("molit_apt_trade", "molit_apt_rent")}
        places = world.sql("SELECT lawd_cd, umd_name, sgg_name, sido_short FROM places ORDER BY region_cd")
        self.districts: dict[str, _District] = {}
        for p in places:
            d = self.districts.setdefault(p["lawd_cd"], _District([], [], p["sgg_name"], p["sido_short"], 0.0))
            if p["umd_name"] not in d.dongs:
                d.dongs.append(p["umd_name"])
        for c in world.sql("SELECT * FROM molit_complexes ORDER BY sggCd, aptSeq"):
            d = self.districts.get(c["sggCd"])
            if d is None:
                continue
            d.complexes.append(_Complex(
                c["sggCd"], c["umdNm"], c["aptNm"], c["aptSeq"], c["jibun"], int(c["buildYear"]), float(c["unit_price"]),
                c["areas"].split(","), int(c["floors"]), float(c["households"])))
        for d in self.districts.values():
            d.unit_price = float(np.median([c.unit_price for c in d.complexes])) if d.complexes else 500.0
            known = [c.weight for c in d.complexes if c.weight > 0]
            for c in d.complexes:  # K-apt lists brand-new complexes with 0 households
                c.weight = c.weight or (float(np.median(known)) if known else 300.0)
        self.seoul_households = sum(c.weight for k, d in self.districts.items() if k in SEOUL_SHARE for c in d.complexes)
        self._cache: collections.OrderedDict = collections.OrderedDict()
        self._cache_lock = threading.Lock()

    def households(self, lawd: str, year: int) -> float:
        d = self.districts.get(lawd)
        return sum(c.weight for c in d.complexes if c.build_year <= year) if d else 0.0

    def share(self, lawd: str, year: int) -> float:
        """The district's share of a Seoul-sized market: the real 2022-2023 share in Seoul, elsewhere its
        apartment households standing that year against Seoul's."""
        if lawd in SEOUL_SHARE:
            return SEOUL_SHARE[lawd]
        return self.households(lawd, year) / self.seoul_households if self.seoul_households else 0.0

    def cached(self, key: tuple, make):
        with self._cache_lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        table = make()
        with self._cache_lock:
            self._cache[key] = table
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return table


_FACTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_FACTS_LOCK = threading.Lock()


def facts(world) -> _WorldFacts:
    with _FACTS_LOCK:
        hit = _FACTS.get(world)
        if hit is None:
            hit = _FACTS[world] = _WorldFacts(world)
        return hit


# ---- the key a request names -----------------------------------------------------------------

def _month(key: tuple) -> tuple[str, str] | None:
    lawd, ym = (str(k) if k is not None else None for k in key)
    if not lawd or not ym or not re.fullmatch(r"\d{5}", lawd) or not re.fullmatch(r"\d{4}(0[1-9]|1[0-2])", ym):
        return None
    return lawd, ym


def _count(f: _WorldFacts, rng, lawd: str, ym: str, per_year_k: float, real: bool = False) -> int:
    """Reports of one district-month; `real`: the real Seoul count stands where the source has one."""
    y, m = int(ym[:4]), int(ym[4:])
    if real and (lawd, ym) in SEOUL_COUNTS:
        return SEOUL_COUNTS[(lawd, ym)]
    lam = per_year_k * 1000 / 12 * f.share(lawd, y) * SEASON[m - 1]
    if ym == f.clock_month:  # the current month is still being reported
        lam *= 0.45 * f.clock_day / _days_in(y, m)
    return int(rng.poisson(lam)) if lam > 0 else 0


def _days(f: _WorldFacts, rng, ym: str, n: int) -> np.ndarray:
    y, m = int(ym[:4]), int(ym[4:])
    last = f.clock_day if ym == f.clock_month else _days_in(y, m)
    return np.sort(rng.integers(1, last + 1, size=n))


def _manwon(values: np.ndarray, pad: bool) -> list[str]:
    return [f"{v:>9,}" if pad else f"{v:,}" for v in values.tolist()]


def _yymmdd(y: int, m: int, d: int) -> str:
    return f"{y % 100:02d}.{m:02d}.{d:02d}"


def _table(cols: dict[str, list], schema: pa.Schema | None) -> pa.Table:
    if schema is None:
        return pa.table(cols)
    n = len(next(iter(cols.values()))) if cols else 0
    arrays = [pa.array(cols[f.name], type=f.type) if f.name in cols else pa.nulls(n, f.type) for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)


# ---- apartments: sales and leases -----------------------------------------------------------------

def _apartment_draw(f: _WorldFacts, table: str, lawd: str, ym: str, per_year_k: float, real: bool = False):
    rng = _rng(f.seed, table, lawd, ym)
    y = int(ym[:4])
    d = f.districts.get(lawd)
    pool = [c for c in (d.complexes if d else []) if c.build_year <= y]
    n = _count(f, rng, lawd, ym, per_year_k, real) if pool else 0
    weights = np.array([c.weight for c in pool]) if pool else np.ones(0)
    picks = [pool[i] for i in rng.choice(len(pool), size=n, p=weights / weights.sum())] if n else []
    day = _days(f, rng, ym, n)
    area = [c.areas[i % len(c.areas)] for c, i in zip(picks, rng.integers(0, 8, n).tolist())]
    floor = np.array([1 + int(r * c.floors) for c, r in zip(picks, rng.random(n).tolist())], dtype=np.int64)
    level = _year_value(SEOUL_PRICE, y) / f.price_base
    unit = np.array([c.unit_price for c in picks]) * level
    price = unit * np.array([float(a) for a in area]) * (1 + 0.003 * np.clip(floor, 0, 20)) * rng.lognormal(0, 0.06, n)
    common = {
        "sggCd": [lawd] * n, "umdNm": [c.umd for c in picks], "aptNm": [c.name for c in picks],
        "jibun": [c.jibun for c in picks], "excluUseAr": area, "dealYear": [str(y)] * n,
        "dealMonth": [str(int(ym[4:]))] * n, "dealDay": [str(v) for v in day.tolist()],
        "floor": [str(v) for v in floor.tolist()], "buildYear": [str(c.build_year) for c in picks],
        "aptSeq": [c.seq for c in picks], "deal_ymd": [ym] * n, "seq": list(range(n)),
    }
    return rng, n, day, price, common, d


def apt_trade(world, key: tuple) -> pa.Table | None:
    """Apartment sales of one district-month (`molit_apt_trade` rows); None for a key that names none."""
    f = facts(world)
    month = _month(key)
    if month is None:
        return None
    return f.cached(("molit_apt_trade", *month), lambda: _apt_trade(f, *month))


def _apt_trade(f: _WorldFacts, lawd: str, ym: str) -> pa.Table:
    if not FIRST_SALE_MONTH <= ym <= f.clock_month:
        return _table({}, f.schemas["molit_apt_trade"]).slice(0, 0)
    y, m = int(ym[:4]), int(ym[4:])
    rng, n, day, price, cols, d = _apartment_draw(f, "molit_apt_trade", lawd, ym, _year_value(SEOUL_SALES_K, y), real=True)
    amount = np.maximum(np.round(price / 10).astype(np.int64) * 10, 1000)
    # report fields the service added later stay blank before they existed
    cancelled = (rng.random(n) < 0.03) & (ym >= "202102")
    direct = rng.random(n) < 0.12
    has_gbn = ym >= "202111"
    registered = (rng.random(n) < 0.9) & (ym >= "202301")
    sgg_label = f"{d.sido_short} {d.sgg_name}" if d else ""
    cols.update({
        "dealAmount": _manwon(amount, pad=True),
        "aptDong": [str(101 + v) if r < 0.7 and ym >= "202301" else "" for v, r in
                    zip(rng.integers(0, 15, n).tolist(), rng.random(n).tolist())],
        "cdealType": ["O" if c else "" for c in cancelled.tolist()],
        "cdealDay": [_yymmdd(y, m, min(28, dd + 9)) if c else "" for dd, c in zip(day.tolist(), cancelled.tolist())],
        "dealingGbn": [("직거래" if x else "중개거래") if has_gbn else "" for x in direct.tolist()],
        "estateAgentSggNm": ["" if x or not has_gbn else sgg_label for x in direct.tolist()],
        "rgstDate": [_yymmdd(*shift_months(y, m, 1), min(28, dd)) if r else "" for dd, r in
                     zip(day.tolist(), registered.tolist())],
        "slerGbn": [("개인" if r < 0.95 else "법인") if has_gbn else "" for r in rng.random(n).tolist()],
        "buyerGbn": [("개인" if r < 0.96 else "법인") if has_gbn else "" for r in rng.random(n).tolist()],
        "landLeaseholdGbn": ["N"] * n,
        "deal_amount_manwon": amount.tolist(),
    })
    return _table(cols, f.schemas["molit_apt_trade"])


def apt_rent(world, key: tuple) -> pa.Table | None:
    """Apartment leases of one district-month (`molit_apt_rent` rows); None for a key that names none."""
    f = facts(world)
    month = _month(key)
    if month is None:
        return None
    return f.cached(("molit_apt_rent", *month), lambda: _apt_rent(f, *month))


def _apt_rent(f: _WorldFacts, lawd: str, ym: str) -> pa.Table:
    if not FIRST_LEASE_MONTH <= ym <= f.clock_month:
        return _table({}, f.schemas["molit_apt_rent"]).slice(0, 0)
    y, m = int(ym[:4]), int(ym[4:])
    rng, n, day, price, cols, _ = _apartment_draw(f, "molit_apt_rent", lawd, ym, SEOUL_LEASES_K)
    deposit, rent = _lease_terms(rng, price, n, monthly_share=0.25 + 0.01 * max(0, y - 2011))
    renewal = (rng.random(n) < 0.3) & (ym >= "202106")  # 갱신/갱신요구권 fields exist since the 2021-06 reporting rule
    cols.update(_lease_columns(rng, y, m, n, deposit, rent, renewal))
    cols.update({"deposit_manwon": deposit.tolist(), "monthly_rent_manwon": rent.tolist()})
    return _table(cols, f.schemas["molit_apt_rent"])


def _lease_terms(rng, value: np.ndarray, n: int, monthly_share: float) -> tuple[np.ndarray, np.ndarray]:
    jeonse = value * rng.uniform(0.48, 0.65, n)
    monthly = rng.random(n) < min(0.6, monthly_share)
    share = rng.choice([0.05, 0.1, 0.2, 0.3, 0.5], size=n)
    deposit = np.where(monthly, jeonse * share, jeonse)
    rent = np.where(monthly, (jeonse - deposit) * 0.05 / 12, 0)
    return (np.maximum(100, np.round(deposit / 500) * 500).astype(np.int64),
            (np.round(rent / 5) * 5).astype(np.int64))


def _lease_columns(rng, y: int, m: int, n: int, deposit: np.ndarray, rent: np.ndarray, renewal: np.ndarray) -> dict:
    sy, sm = shift_months(y, m, 1)
    used = renewal & (rng.random(n) < 0.6)
    return {
        "deposit": _manwon(deposit, pad=False), "monthlyRent": [str(v) for v in rent.tolist()],
        "contractTerm": [f"{sy % 100:02d}.{sm:02d}~{(sy + 2) % 100:02d}.{sm:02d}" if r and y >= 2021 else ""
                         for r in (rng.random(n) < 0.8).tolist()],
        "contractType": ["갱신" if r else ("신규" if y >= 2021 else "") for r in renewal.tolist()],
        "useRRRight": ["사용" if u else "" for u in used.tolist()],
        "preDeposit": [f"{int(v * 0.95 / 500) * 500:,}" if r else "" for v, r in zip(deposit.tolist(), renewal.tolist())],
        "preMonthlyRent": [str(int(v * 0.95)) if r else "" for v, r in zip(rent.tolist(), renewal.tolist())],
    }


# ---- officetels and row houses: never stored ---------------------------------------------------------

OFFI_TAILS = ["오피스텔", "타워", "시티", "스위트", "푸르지오시티", "오벨리스크", "디오빌", "트라팰리스", "SK허브",
              "센트럴오피스텔", "아이파크", "지웰", "더샵", "리더스뷰", "스카이"]
RH_FORMS = ["{s}빌라", "{s}하이츠", "({s}빌라)", "{s}맨션", "{s}빌", "{s}파크빌", "{s}그린빌", "({s}그린하우스)",
            "{s}연립", "{s}하우스"]


@dataclass
class _Building:
    umd: str
    name: str
    jibun: str
    build_year: int
    unit_price: float
    areas: list[float]
    floors: int
    house_type: str = ""
    land_ar: float = 0.0


def _stem(umd: str) -> str:
    s = re.sub(r"[0-9.·]+", "", umd)
    s2 = re.sub(r"(동|가|읍|면|리)$", "", s)
    return s2 if len(s2) >= 2 else s


_BUILDINGS: dict[tuple, list[_Building]] = {}
_BUILDINGS_LOCK = threading.Lock()


def _buildings(f: _WorldFacts, kind: str, lawd: str) -> list[_Building]:
    """A district's officetels or row houses, drawn once from (seed, kind, district)."""
    with _BUILDINGS_LOCK:
        hit = _BUILDINGS.get((f.seed, kind, lawd))
    if hit is not None:
        return hit
    d = f.districts.get(lawd)
    out: list[_Building] = []
    if d and d.dongs:
        rng = _rng(f.seed, kind, "buildings", lawd)
        metro = d.sido_short in ("서울", "부산", "대구", "인천", "광주", "대전", "울산", "세종", "경기")
        n = int(rng.integers(20, 60) if metro else rng.integers(4, 20)) if kind == "offi" else int(rng.integers(40, 120))
        seen = set()
        for i in range(n):
            umd = d.dongs[int(rng.integers(0, len(d.dongs)))]
            stem = _stem(umd)
            if kind == "offi":
                name = f"{stem}{OFFI_TAILS[int(rng.integers(0, len(OFFI_TAILS)))]}"
                year = int(np.clip(rng.normal(2012, 8), 1988, 2025))
                areas = sorted({float(a) for a in rng.choice([19.8, 23.1, 26.4, 29.7, 33.5, 39.6, 45.2, 59.9, 84.9], 3)})
                floors, unit, htype, land = int(rng.integers(10, 30)), d.unit_price * 0.55, "", 0.0
            else:
                name = RH_FORMS[int(rng.integers(0, len(RH_FORMS)))].format(s=stem)
                year = int(np.clip(rng.normal(2003, 10), 1978, 2025))
                areas = sorted({float(a) for a in rng.choice([29.8, 36.4, 41.2, 49.6, 52.3, 59.8, 64.5, 75.2, 84.3], 3)})
                htype = "연립" if rng.random() < 0.2 else "다세대"
                floors, unit, land = (3 if htype == "연립" else int(rng.integers(4, 6))), d.unit_price * 0.45, float(
                    np.round(rng.uniform(15, 45), 2))
            if (name, umd) in seen:
                name = f"{name}{i % 7 + 2}차"
            seen.add((name, umd))
            out.append(_Building(umd, name, f"{int(rng.integers(1, 999))}" + (f"-{int(rng.integers(1, 40))}" if rng.random() < 0.6 else ""),
                                 year, unit * float(rng.lognormal(0, 0.15)), areas, floors, htype, land))
    with _BUILDINGS_LOCK:
        _BUILDINGS[(f.seed, kind, lawd)] = out
    return out


OFFI_SCHEMA = pa.schema([(n, pa.string()) for n in (
    "sggCd", "sggNm", "umdNm", "jibun", "offiNm", "excluUseAr", "dealYear", "dealMonth", "dealDay", "dealAmount",
    "floor", "buildYear", "cdealType", "cdealDay", "dealingGbn", "estateAgentSggNm", "slerGbn", "buyerGbn",
    "deposit", "monthlyRent", "contractTerm", "contractType", "useRRRight", "preDeposit", "preMonthlyRent",
    "deal_ymd")] + [("seq", pa.int64()), ("amount_manwon", pa.int64()), ("monthly_rent_manwon", pa.int64())])
RH_SCHEMA = pa.schema([(n, pa.string()) for n in (
    "sggCd", "umdNm", "mhouseNm", "jibun", "buildYear", "excluUseAr", "landAr", "dealYear", "dealMonth", "dealDay",
    "dealAmount", "floor", "houseType", "cdealType", "cdealDay", "dealingGbn", "estateAgentSggNm", "rgstDate",
    "slerGbn", "buyerGbn", "deal_ymd")] + [("seq", pa.int64()), ("amount_manwon", pa.int64())])
# yearly Seoul reports of each kind against apartment sales (officetel and villa markets swing less)
KIND_VOLUME = {"offi_trade": 14, "offi_rent": 60, "rh_trade": 45}


def _building_draw(world, key: tuple, table: str, kind: str, first: str):
    f = facts(world)
    month = _month(key)
    if month is None:
        return None
    lawd, ym = month
    if not first <= ym <= f.clock_month:
        return f, lawd, ym, None, 0, [], np.zeros(0, np.int64), np.zeros(0), np.zeros(0)
    y = int(ym[:4])
    rng = _rng(f.seed, table, lawd, ym)
    pool = [b for b in _buildings(f, kind, lawd) if b.build_year <= y]
    n = _count(f, rng, lawd, ym, KIND_VOLUME[table]) if pool else 0
    picks = [pool[i] for i in rng.integers(0, len(pool), n)] if n else []
    day = _days(f, rng, ym, n)
    area = np.array([b.areas[i % len(b.areas)] for b, i in zip(picks, rng.integers(0, 6, n).tolist())])
    value = (np.array([b.unit_price for b in picks]) * area * _year_value(SEOUL_PRICE, y) / f.price_base
             * rng.lognormal(0, 0.08, n)) if n else np.zeros(0)
    return f, lawd, ym, rng, n, picks, day, area, value


def _head(f, lawd, ym, picks, day, area, n) -> dict:
    d = f.districts.get(lawd)
    return {"sggCd": [lawd] * n, "umdNm": [b.umd for b in picks], "jibun": [b.jibun for b in picks],
            "excluUseAr": [f"{a:g}" for a in area.tolist()], "dealYear": [ym[:4]] * n, "dealMonth": [str(int(ym[4:]))] * n,
            "dealDay": [str(v) for v in day.tolist()], "buildYear": [str(b.build_year) for b in picks],
            "deal_ymd": [ym] * n, "seq": list(range(n)), "sggNm": [d.sgg_name if d else ""] * n}


def _sale_flags(rng, ym: str, n: int, label: str) -> dict:
    has_gbn = ym >= "202111"
    direct = (rng.random(n) < 0.15).tolist()
    return {"cdealType": [""] * n, "cdealDay": [""] * n,
            "dealingGbn": [("직거래" if x else "중개거래") if has_gbn else "" for x in direct],
            "estateAgentSggNm": ["" if x or not has_gbn else label for x in direct],
            "slerGbn": ["개인" if has_gbn else ""] * n, "buyerGbn": ["개인" if has_gbn else ""] * n}


def offi_trade(world, key: tuple) -> pa.Table | None:
    """Officetel sales of one district-month (`molit_offi_trade` rows)."""
    got = _building_draw(world, key, "offi_trade", "offi", FIRST_SALE_MONTH)
    if got is None:
        return None
    f, lawd, ym, rng, n, picks, day, area, value = got
    if rng is None or n == 0:
        return _table({}, OFFI_SCHEMA).slice(0, 0)
    amount = np.maximum(np.round(value / 10).astype(np.int64) * 10, 500)
    d = f.districts.get(lawd)
    cols = _head(f, lawd, ym, picks, day, area, n)
    cols.update(_sale_flags(rng, ym, n, f"{d.sido_short} {d.sgg_name}" if d else ""))
    cols.update({"offiNm": [b.name for b in picks], "dealAmount": _manwon(amount, pad=True),
                 "floor": [str(1 + int(r * b.floors)) for b, r in zip(picks, rng.random(n).tolist())],
                 "amount_manwon": amount.tolist()})
    return _table(cols, OFFI_SCHEMA)


def offi_rent(world, key: tuple) -> pa.Table | None:
    """Officetel leases of one district-month (`molit_offi_rent` rows)."""
    got = _building_draw(world, key, "offi_rent", "offi", FIRST_LEASE_MONTH)
    if got is None:
        return None
    f, lawd, ym, rng, n, picks, day, area, value = got
    if rng is None or n == 0:
        return _table({}, OFFI_SCHEMA).slice(0, 0)
    y, m = int(ym[:4]), int(ym[4:])
    deposit, rent = _lease_terms(rng, value, n, monthly_share=0.7)
    renewal = (rng.random(n) < 0.2) & (ym >= "202106")
    cols = _head(f, lawd, ym, picks, day, area, n)
    cols.update(_lease_columns(rng, y, m, n, deposit, rent, renewal))
    cols.update({"offiNm": [b.name for b in picks],
                 "floor": [str(1 + int(r * b.floors)) for b, r in zip(picks, rng.random(n).tolist())],
                 "amount_manwon": deposit.tolist(), "monthly_rent_manwon": rent.tolist()})
    return _table(cols, OFFI_SCHEMA)


def rh_trade(world, key: tuple) -> pa.Table | None:
    """Row-house (연립다세대) sales of one district-month (`molit_rh_trade` rows)."""
    got = _building_draw(world, key, "rh_trade", "rh", FIRST_SALE_MONTH)
    if got is None:
        return None
    f, lawd, ym, rng, n, picks, day, area, value = got
    if rng is None or n == 0:
        return _table({}, RH_SCHEMA).slice(0, 0)
    y, m = int(ym[:4]), int(ym[4:])
    amount = np.maximum(np.round(value / 10).astype(np.int64) * 10, 500)
    d = f.districts.get(lawd)
    registered = (rng.random(n) < 0.85) & (ym >= "202301")
    cols = _head(f, lawd, ym, picks, day, area, n)
    cols.update(_sale_flags(rng, ym, n, f"{d.sido_short} {d.sgg_name}" if d else ""))
    cols.update({"mhouseNm": [b.name for b in picks], "landAr": [f"{b.land_ar:g}" for b in picks],
                 "houseType": [b.house_type for b in picks], "dealAmount": _manwon(amount, pad=True),
                 "floor": [str(1 + int(r * b.floors)) for b, r in zip(picks, rng.random(n).tolist())],
                 "rgstDate": [_yymmdd(*shift_months(y, m, 1), min(28, dd)) if r else "" for dd, r in
                              zip(day.tolist(), registered.tolist())],
                 "amount_manwon": amount.tolist()})
    return _table(cols, RH_SCHEMA)

"""Precomputed handler indexes give exactly the answers of the queries they replace.

vworld geocode_rows looks addresses up in a per-world index (`_GeocodeIndex`) instead of
scanning juso_addr with three OR-ed conditions, a regexp and a LIKE fallback per call; the
reference is the SQL path (`use_index=False`).
"""

from __future__ import annotations

import random

from kopa_bench.world.answers.vworld import geocode_rows


def _addresses(world) -> list[str]:
    rows = world.con.execute(
        "SELECT roadAddrPart1, jibunAddr, regexp_replace(jibunAddr, ' [^ ]*[^0-9 -][^ ]*$', ''), siNm, sggNm, rn, buldMnnm "
        "FROM juso_addr USING SAMPLE 40 ROWS (reservoir, 7)").fetchall()
    short = {"서울특별시": "서울", "부산광역시": "부산", "세종특별자치시": "세종", "경기도": "경기", "제주특별자치도": "제주"}
    out = []
    for road, jibun, jcol, si, sgg, rn, mn in rows:
        toks = road.split()
        out += [road, jibun, jcol, road.replace(" ", ""), jcol.replace(" ", ""),
                " ".join(toks[1:]), " ".join(toks[2:]), " ".join(toks[-2:]), toks[-1],
                f"{short.get(si, si)} {' '.join(toks[1:])}", f"{road} (역삼동)", f"  {road}  ",
                f"{si} {rn} {mn}", f"{sgg} {rn}", road + "1", road[:-1]]
    out += ["", "없는시 없는로 1", "서울", "%", "서울특별시 %", "_", "서울특별시 종로구 _", "세종로 1", "1", "동"]
    return out


def test_geocode_index_matches_the_sql(world):
    n = found = 0
    for addr in _addresses(world):
        for kind in ("ROAD", "PARCEL", "road", None) if n < 40 else ("ROAD", "PARCEL"):
            params = {"address": addr, "type": kind}
            got = geocode_rows(world, params)
            assert got == geocode_rows(world, params, use_index=False), params
            n += 1
            found += bool(got)
    assert n > 1_000 and found > 400, (n, found)
    from kopa_bench.world.answers.vworld import _GEOCODE_INDEX

    assert world in _GEOCODE_INDEX  # built after the first INDEX_AFTER lookups: the index answered the rest


def test_geocode_index_on_random_fragments(world):
    """Arbitrary token runs of real addresses (the tail fallback's suffixes and near misses)."""
    rng = random.Random(3)
    roads = [r[0] for r in world.con.execute("SELECT roadAddrPart1 FROM juso_addr USING SAMPLE 60 ROWS (reservoir, 11)").fetchall()]
    for road in roads:
        toks = road.split()
        i = rng.randrange(len(toks))
        j = rng.randrange(i, len(toks)) + 1
        for addr in (" ".join(toks[i:j]), "".join(toks[i:j])):
            params = {"address": addr, "type": "ROAD"}
            assert geocode_rows(world, params) == geocode_rows(world, params, use_index=False), params


# NEIS meals: built lazily, one page at a time; the reference is the eager build as it was.
def _meals_eager(world, params) -> list[dict]:
    import random as _random
    from datetime import timedelta

    from kopa_bench.world.answers import neis as n
    from kopa_bench.world.answers.neis_calendar import academic_years, school_calendar, school_days_between

    s = n.school_row(world, params)
    if s is None:
        return []
    days = []
    for ay in academic_years(params.get("MLSV_YMD"), params.get("MLSV_FROM_YMD"), params.get("MLSV_TO_YMD")):
        _, off, first, _, last = school_calendar(s, ay)
        days += school_days_between(first, last, off)
    ok = n.date_filter(params, "MLSV_YMD", "MLSV_FROM_YMD", "MLSV_TO_YMD")
    want = params.get("MMEAL_SC_CODE")
    kind = s["_kind"]
    r0 = n._rng(s, "meal.kinds")
    codes = ["2"]
    if kind == "his":
        if r0.random() < 0.7:
            codes.append("3")
        if r0.random() < 0.12:
            codes.insert(0, "1")
    base_kcal = {"els": 620, "mis": 760, "his": 850, "sps": 600}[kind]
    head = n.school_head(s)
    out = []
    for d in days:
        ymd = d.strftime("%Y%m%d")
        if not ok(ymd):
            continue
        for code in codes:
            if want and str(want) != code:
                continue
            r = _random.Random(f"{s['_seed']}:{ymd}:{code}")
            dishes = [r.choice(n.RICE), n._dish(*r.choice(n.SOUP)), n._dish(*r.choice(n.MAIN)), n._dish(*r.choice(n.SIDE)),
                      n._dish(*r.choice(n.KIMCHI))]
            if r.random() < 0.6:
                dishes.append(n._dish(*r.choice(n.DESSERT)))
            kcal = base_kcal * (0.8 if code == "1" else 1.0) * r.uniform(0.88, 1.12)
            carb, prot, fat = kcal * 0.6 / 4, kcal * 0.16 / 4, kcal * 0.24 / 9
            ntr = (f"탄수화물(g) : {carb:.1f}<br/>단백질(g) : {prot:.1f}<br/>지방(g) : {fat:.1f}"
                   f"<br/>비타민A(R.E) : {r.uniform(90, 300):.1f}<br/>티아민(mg) : {r.uniform(0.2, 0.8):.1f}"
                   f"<br/>리보플라빈(mg) : {r.uniform(0.2, 0.7):.1f}<br/>비타민C(mg) : {r.uniform(5, 40):.1f}"
                   f"<br/>칼슘(mg) : {r.uniform(120, 400):.1f}<br/>철분(mg) : {r.uniform(2, 6):.1f}")
            fgr = int(s["_students"] * {"1": 0.2, "2": 0.97, "3": 0.45}[code])
            load = (d.replace(day=1) - timedelta(days=5)).strftime("%Y%m%d")
            out.append({**head, "MMEAL_SC_CODE": code, "MMEAL_SC_NM": n.MEAL_NM[code], "MLSV_YMD": ymd,
                        "MLSV_FGR": fgr, "DDISH_NM": "<br/>".join(dishes), "ORPLC_INFO": n.ORPLC,
                        "CAL_INFO": f"{kcal:.1f} Kcal", "NTR_INFO": ntr, "MLSV_FROM_YMD": ymd, "MLSV_TO_YMD": ymd,
                        "LOAD_DTM": load})
    return out


def test_lazy_meals_equal_the_eager_build(world):
    from kopa_bench.world.answers.neis import meals

    schools = world.con.execute("SELECT ATPT_OFCDC_SC_CODE, SD_SCHUL_CODE FROM neis_schools "
                                "USING SAMPLE 40 ROWS (reservoir, 5)").fetchall()
    filters = [{}, {"MLSV_YMD": "20261126"}, {"MLSV_FROM_YMD": "20260901", "MLSV_TO_YMD": "20261031"},
               {"MLSV_FROM_YMD": "20260301"}, {"MLSV_TO_YMD": "20200102"}, {"MMEAL_SC_CODE": "2"},
               {"MMEAL_SC_CODE": "3", "MLSV_FROM_YMD": "20261001"}, {"MLSV_YMD": "2026"}, {"MLSV_YMD": "202505"}]
    rows = 0
    for atpt, code in schools + [("B10", "0000000")]:
        for f in filters:
            params = {"ATPT_OFCDC_SC_CODE": atpt, "SD_SCHUL_CODE": code, "MMEAL_SC_CODE": None, "MLSV_YMD": None,
                      "MLSV_FROM_YMD": None, "MLSV_TO_YMD": None, **f}
            want, got = _meals_eager(world, params), meals(world, params)
            assert len(got) == len(want) and list(got) == want, params
            for a, b in ((0, 100), (100, 200), (len(want) - 3, None), (5, 5)):
                assert got[a:b] == want[a:b], (params, a, b)
            if want:
                assert got[-1] == want[-1] and got[0] == want[0]
            rows += len(want)
    assert rows > 5_000


def test_school_index_matches_the_query(world):
    """Every NEIS handler's school lookup: the per-world index answers what the query answers,
    for every school and for near misses (wrong office, padded, lower-case, numeric, missing)."""
    from kopa_bench.world.answers.neis import school_row

    keys = world.con.execute("SELECT ATPT_OFCDC_SC_CODE, SD_SCHUL_CODE FROM neis_schools").fetchall()
    offices = sorted({a for a, _ in keys})
    probes = [{"ATPT_OFCDC_SC_CODE": a, "SD_SCHUL_CODE": c} for a, c in keys]
    for a, c in keys[:60]:
        probes += [{"ATPT_OFCDC_SC_CODE": offices[(offices.index(a) + 1) % len(offices)], "SD_SCHUL_CODE": c},
                   {"ATPT_OFCDC_SC_CODE": a, "SD_SCHUL_CODE": f" {c}"}, {"ATPT_OFCDC_SC_CODE": a.lower(), "SD_SCHUL_CODE": c},
                   {"ATPT_OFCDC_SC_CODE": a, "SD_SCHUL_CODE": int(c) if c.isdigit() else c}, {"ATPT_OFCDC_SC_CODE": a},
                   {"SD_SCHUL_CODE": c}, {"ATPT_OFCDC_SC_CODE": a, "SD_SCHUL_CODE": c + "'--"}]
    found = 0
    for params in probes:
        got = school_row(world, params)
        assert got == school_row(world, params, use_index=False), params
        found += got is not None
    assert len(keys) > 2_000 and found >= len(keys), found

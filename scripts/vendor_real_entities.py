"""Vendor the real static entities of issue 22 into kopa_bench/refdata/ (run by hand, never at run time).

Reads the collected public datasets (their PROVENANCE notes name repository, commit and data
date) and writes compact, gzipped UTF-8 CSVs with only the columns the world generators use.
Usage: python scripts/vendor_real_entities.py /path/to/reference/data/real
"""

from __future__ import annotations

import csv
import gzip
import io
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "kopa_bench" / "refdata"


def write_gz(name: str, header: list[str], rows: list[list]) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    data = buf.getvalue().encode("utf-8")
    # mtime=0 and no file name: the same rows give the same bytes
    (OUT / name).write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    print(f"{name}: {len(rows)} rows, {len(data)} -> {(OUT / name).stat().st_size} bytes")


# The world's legal-dong table predates 화성시's 2026 구 (만세/효행/병점/동탄): addresses drop the 구
# so every school joins its legal dong, as addresses did before the split.
HWASEONG_GU = re.compile(r"화성시 (만세구|효행구|병점구|동탄구) ")


# one source row splits a road name ("옥계신당로 9길"); road names have no spaces
SPLIT_ROAD = re.compile(r"(\S(?:로|길)) (\d+(?:번)?(?:가)?길) ")


def clean_addr(addr: str) -> str:
    return SPLIT_ROAD.sub(r"\1\2 ", HWASEONG_GU.sub("화성시 ", " ".join(addr.split())))


def schools(real: Path) -> None:
    src = real / "schools_location_standard" / "2026-03-20_utf8.csv"
    rows = []
    with src.open(encoding="utf-8") as f:
        for r in csv.DictReader(f):
            rows.append([r["학교ID"], r["학교명"], r["학교급구분"], r["설립일자"], r["설립형태"], r["본교분교구분"],
                         clean_addr(r["소재지지번주소"]), clean_addr(r["소재지도로명주소"]), r["시도교육청코드"], r["시도교육청명"],
                         r["교육지원청명"], f"{float(r['위도']):.6f}", f"{float(r['경도']):.6f}"])
    rows.sort(key=lambda x: x[0])
    write_gz("schools.csv.gz", ["school_id", "name", "kind", "fond_date", "fond_type", "branch", "jibun_addr",
                                "road_addr", "office_code", "office_name", "ju_name", "lat", "lon"], rows)


def assembly(real: Path) -> None:
    base = real / "assembly22_members"
    with (base / "members_22nd_2025-03-23.csv").open(encoding="utf-8") as f:
        members = [[r["name"], r["hanja_name"], r["eng_name"], r["birth_date"], r["birth_gbn"], r["position"], r["party"],
                    r["district"], r["committee"], r["committees"], r["reele_gbn"], r["units"]] for r in csv.DictReader(f)]
    write_gz("assembly22_members.csv.gz", ["name", "hanja_name", "eng_name", "birth_date", "birth_gbn", "position", "party",
                                           "district", "committee", "committees", "reele_gbn", "units"], members)
    with (base / "bills_processed_2024-07_2025-03.csv").open(encoding="utf-8") as f:
        bills = [[r[k] for k in ("bill_id", "bill_no", "title", "bill_kind", "proposer", "rep_proposer", "committee",
                                 "proposal_date", "status", "vote_date")] for r in csv.DictReader(f)]
    bills.sort(key=lambda b: b[1])
    write_gz("assembly22_bills.csv.gz", ["bill_id", "bill_no", "title", "bill_kind", "proposer", "rep_proposer", "committee",
                                         "proposal_date", "status", "vote_date"], bills)


def bikes(real: Path) -> None:
    """따릉이 stations (2023-06 list: number, name, 구, coordinates, racks) with their bikeList ST-id:
    the id the list's PROVENANCE joined by exact coordinates, else the nearest master row within 50 m
    that no other station took; stations left without one are not vendored."""
    base = real / "seoul_bike_stations"
    with (base / "bike_stations_2023-06_normalized.csv").open(encoding="utf-8") as f:
        stations = [r for r in csv.DictReader(f) if r["lat"] and float(r["lat"]) > 30]
    with (base / "bike_station_master_OA-21235_utf8.csv").open(encoding="utf-8") as f:
        master = [(r["대여소_ID"], float(r["위도"]), float(r["경도"])) for r in csv.DictReader(f) if float(r["위도"]) > 30]
    taken = {r["stationId_joined"] for r in stations if r["stationId_joined"]}
    rows = []
    for r in sorted(stations, key=lambda r: int(r["stationNo"])):
        sid = r["stationId_joined"]
        lat, lon = float(r["lat"]), float(r["lon"])
        if not sid:
            near = [(((mlat - lat) * 111_000) ** 2 + ((mlon - lon) * 88_400) ** 2, mid) for mid, mlat, mlon in master
                    if mid not in taken]
            d2, mid = min(near)
            if d2 > 50 ** 2:
                continue
            sid = mid
            taken.add(mid)
        rows.append([r["stationNo"], sid, " ".join(r["name"].split()), r["gu"], f"{lat:.8f}", f"{lon:.8f}", r["racks_total"]])
    write_gz("seoul_bike_stations.csv.gz", ["station_no", "station_id", "name", "gu", "lat", "lon", "racks"], rows)


def subway_codes(real: Path) -> None:
    """서울교통공사 station codes (전철역코드 = STATION_CD, 외부코드 = FR_CODE) and English names per line."""
    with (real / "seoul_subway" / "seoul_metro_stations_by_line.csv").open(encoding="utf-8") as f:
        rows = [[r["호선"], r["전철역명"], r["전철역코드"], r["외부코드"], r["전철명명(영문)"]] for r in csv.DictReader(f)]
    rows.sort(key=lambda r: (r[0], r[2]))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["line_num", "station_nm", "station_cd", "fr_code", "station_nm_eng"])
    w.writerows(rows)
    (OUT / "seoul_subway_codes.csv").write_text(buf.getvalue(), encoding="utf-8")
    print(f"seoul_subway_codes.csv: {len(rows)} rows")


def statutes(real: Path) -> None:
    """Article texts (부칙 excluded) of the 20 statutes and their decrees, one row per article."""
    import json

    docs = json.loads((real / "statutes_kr" / "statutes_articles.json").read_text("utf-8"))
    rows = []
    for d in sorted(docs, key=lambda d: d["법령명"]):
        ministry = ",".join(d["소관부처"]) if isinstance(d["소관부처"], list) else d["소관부처"]
        for a in d["조문"]:
            rows.append([d["법령명"], d["법령구분"], ministry, d["시행일자"], a["조문번호"], a["조문제목"] or "",
                         a["조문내용"].replace("\\.", ".").replace("**", "")])  # markdown escapes and bold off
    write_gz("statute_articles.csv.gz", ["law_name", "kind", "ministry", "effective", "article_no", "title", "text"], rows)


def krx(real: Path) -> None:
    """KIND 상장법인목록: KOSPI (유가) and KOSDAQ companies with a numeric 6-digit code."""
    with (real / "krx_listed_companies" / "kind_listed_companies_2026-04-08.csv").open(encoding="utf-8") as f:
        rows = [[r["종목코드"], r["회사명"], {"유가": "KOSPI", "코스닥": "KOSDAQ"}[r["시장구분"]], r["상장일"]]
                for r in csv.DictReader(f) if r["시장구분"] in ("유가", "코스닥") and r["종목코드"].isdigit()]
    rows.sort()
    write_gz("krx_listed_companies.csv.gz", ["code", "name", "market", "listed"], rows)


# The K-apt codes come from a 2023-05 legal-dong list; the world's list (refdata legal_dong_codes) is
# later: 강원 42 -> 51 (2023-06), 전북 45 -> 52 (2024-01), 군위군 경북 -> 대구 (2023-07), 부천시 구 restored (2024-01).
RENAMED_SIDO = {"강원도": "강원특별자치도", "전라북도": "전북특별자치도"}


def _world_codes() -> tuple[dict[str, str], dict[str, str]]:
    with gzip.open(OUT / "legal_dong_codes.csv.gz", "rt", encoding="utf-8") as f:
        live = {r["code"]: r["name"] for r in csv.DictReader(f) if r["status"] == "존재"}
    return live, {name: code for code, name in live.items()}


def _world_code(old_code: str, old_name: str, live: dict[str, str], by_name: dict[str, str]) -> str | None:
    if old_code in live:
        return old_code
    parts = old_name.split()
    parts[0] = RENAMED_SIDO.get(parts[0], parts[0])
    if parts[:2] == ["경상북도", "군위군"]:
        parts[0] = "대구광역시"
    name = " ".join(parts)
    if name in by_name:
        return by_name[name]
    upgraded = " ".join(t[:-1] + "읍" if t.endswith("면") else t for t in parts)  # 면 -> 읍 promotions
    if upgraded in by_name:
        return by_name[upgraded]
    if parts[:2] == ["경기도", "부천시"]:  # the restored 구: the dong keeps its name under one of them
        hits = [c for n, c in by_name.items() if n.startswith("경기도 부천시 ") and n.split()[3:] == parts[2:]]
        if len(hits) == 1:
            return hits[0]
    return None


def kapt(real: Path) -> None:
    """K-apt 공동주택 단지 (2021-01): code, name, legal dong (the world's code vintage), 사용승인일, 동수, 세대수."""
    with (real / "bjd_codes" / "bjd_codes_2023-05.tsv").open(encoding="utf-8") as f:
        old_names = {r["법정동코드"]: r["법정동명"] for r in csv.DictReader(f, delimiter="\t")}
    live, by_name = _world_codes()
    rows, unmatched = [], 0
    with (real / "apartment_complexes_kapt" / "kapt_complexes_2021-01_with_bjdcode.csv").open(encoding="utf-8") as f:
        for r in csv.DictReader(f):
            code = r["bjdCode_joined"] and _world_code(r["bjdCode_joined"], old_names.get(r["bjdCode_joined"], ""), live, by_name)
            if not code:
                unmatched += 1
                continue
            rows.append([r["kaptCode"], " ".join(r["kaptName"].split()), code, r["useApprovalDate"],
                         r["buildingCount"] or "0", r["householdCount"] or "0"])
    rows.sort(key=lambda x: x[0])
    print(f"kapt: {unmatched} rows without a legal dong of the world left out")
    write_gz("kapt_complexes.csv.gz", ["kapt_code", "name", "region_cd", "use_date", "buildings", "households"], rows)


def seoul_trade_counts(real: Path) -> None:
    """Real Seoul apartment sales per 구 and contract month, 2022-2023 (counted from the rt.molit.go.kr rows)."""
    with (real / "apt_trade_molit" / "seoul_apt_trade_monthly_counts_by_gu_2022-2023.csv").open(encoding="utf-8") as f:
        rows = sorted([r["LAWD_CD"], r["deal_ym"], r["trade_count"]] for r in csv.DictReader(f))
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows([["lawd_cd", "deal_ym", "trades"], *rows])
    (OUT / "seoul_apt_trade_counts.csv").write_text(buf.getvalue(), encoding="utf-8")
    print(f"seoul_apt_trade_counts.csv: {len(rows)} rows")


def festivals(real: Path) -> None:
    """전국문화축제표준데이터: every row, the columns the world serves (TourAPI has no bulk dump)."""
    with (real / "festivals_standard" / "festivals_standard_utf8.csv").open(encoding="utf-8") as f:
        rows = []
        for r in csv.DictReader(f):
            one = lambda k: " ".join((r[k] or "").split())  # noqa: E731
            lat, lon = (f"{float(r[k]):.6f}" if r[k] else "" for k in ("위도", "경도"))
            rows.append([one("축제명"), one("개최장소"), r["축제시작일자"], r["축제종료일자"], one("축제내용"), one("주관기관명"),
                         one("주최기관명"), one("전화번호"), one("홈페이지주소"), clean_addr(one("소재지도로명주소")),
                         clean_addr(one("소재지지번주소")), lat, lon, r["데이터기준일자"], one("제공기관명")])
    rows.sort(key=lambda x: (x[2], x[0], x[14]))
    write_gz("festivals.csv.gz", ["name", "place", "start", "end", "content", "organizer", "host", "tel", "homepage",
                                  "road_addr", "jibun_addr", "lat", "lon", "data_date", "provider"], rows)


STEPS = {"krx": krx, "statutes": statutes, "schools": schools, "assembly": assembly, "bikes": bikes, "subway_codes": subway_codes,
         "kapt": kapt, "seoul_trade_counts": seoul_trade_counts, "festivals": festivals}

if __name__ == "__main__":
    real = Path(sys.argv[1])
    for step in sys.argv[2:] or list(STEPS):
        STEPS[step](real)

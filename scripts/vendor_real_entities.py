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


STEPS = {"krx": krx, "statutes": statutes, "schools": schools, "assembly": assembly, "bikes": bikes, "subway_codes": subway_codes}

if __name__ == "__main__":
    real = Path(sys.argv[1])
    for step in sys.argv[2:] or list(STEPS):
        STEPS[step](real)

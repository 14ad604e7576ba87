"""도로명주소 (juso.go.kr) buildings, shared with VWorld's geocoder.

About six buildings per existing legal dong (~30k): road names per district (real landmark
roads like 세종대로, 테헤란로 where they are, generated `<dong stem>로/길` names elsewhere),
building numbers, a legal-dong admCd (the real 10-digit code of the dong), a 12-digit
rnMgtSn (시군구 code + 7-digit road serial), a 25-digit bdMgtSn, zip codes in the sido's real
range, and public buildings (시청/구청/군청 per district, a 행정복지센터 per dong, schools,
apartments), plus every NEIS school at its real road address (ORG_RDNMA) and real coordinates,
and the public buildings of `_landmarks` (서울특별시청, 세종대로 110 ...) at their real positions; the
other buildings sit near their legal dong's point. Entrance coordinates are stored as WGS84
and UTM-K (EPSG:5179, juso entX/entY).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ...geo import wgs84_to_utmk_arrays
from ._landmarks import LANDMARKS

DEPENDS = ["regions", "neis"]

ZIP_RANGE = {"11": (1, 9), "41": (10, 18), "28": (21, 23), "51": (24, 26), "42": (24, 26), "43": (27, 29), "36": (30, 30),
             "44": (31, 33), "30": (34, 35), "47": (36, 40), "27": (41, 43), "31": (44, 45), "26": (46, 49),
             "48": (50, 53), "52": (54, 56), "45": (54, 56), "46": (57, 60), "29": (61, 62), "50": (63, 63)}
# real roads for the landmark districts: lawd_cd -> [(road, dong it runs through or None)]
REAL_ROADS = {
    "11140": [("세종대로", "태평로1가"), ("을지로", "을지로1가"), ("퇴계로", "회현동1가"), ("남대문로", "남대문로2가")],
    "11110": [("세종대로", "세종로"), ("종로", "종로1가"), ("율곡로", "안국동"), ("대학로", "혜화동"), ("자하문로", "청운동")],
    "11680": [("테헤란로", "역삼동"), ("강남대로", "역삼동"), ("학동로", "삼성동"), ("도산대로", "신사동"), ("압구정로", "압구정동"),
              ("선릉로", "대치동"), ("삼성로", "대치동")],
    "11650": [("서초대로", "서초동"), ("반포대로", "반포동"), ("효령로", "방배동")],
    "11440": [("월드컵북로", "성산동"), ("양화로", "서교동"), ("와우산로", "상수동")],
    "11560": [("여의대로", "여의도동"), ("국회대로", "여의도동"), ("영등포로", "영등포동")],
    "26350": [("해운대로", "우동"), ("달맞이길", "중동")],
    "41135": [("판교역로", "백현동"), ("분당로", "서현동"), ("황새울로", "수내동")],
    "36110": [("한누리대로", "어진동"), ("도움6로", "어진동")],
}
BRANDS = ["래미안", "자이", "힐스테이트", "푸르지오", "e편한세상", "롯데캐슬", "아이파크", "더샵", "SK뷰", "현대", "주공", "한신"]
SUFFIX_ROAD = ["로", "길", "대로", "로", "길"]


def _stem(umd: str) -> str:
    s = umd
    for suf in ("동", "읍", "면", "가"):
        if s.endswith(suf) and len(s) > 2:
            s = s[: -len(suf)]
            break
    s = s.rstrip("0123456789")
    return s or umd


def parse_road_address(addr: str, p: dict) -> tuple[str, str, int, int] | None:
    """'경상남도 함양군 함양읍 함양여중길 18-9' -> ('함양읍', '함양여중길', 18, 9) for a place in 함양군."""
    head = f"{p['sido_name']} {p['sgg_name']} " if p["sgg_name"] else f"{p['sido_name']} "
    if not addr.startswith(head):
        return None
    *words, num = addr[len(head):].split()
    mn, _, sl = num.partition("-")
    if not words or not mn.isdigit() or (sl and not sl.isdigit()):
        return None
    emd = words.pop(0) if len(words) > 1 and words[0].endswith(("읍", "면")) else ""
    return emd, "".join(words), int(mn), int(sl or 0)


def generate(ctx) -> dict:
    rng = np.random.default_rng(int(ctx.rng("juso").random() * 2**32))
    places = sorted(ctx.rows("places"), key=lambda p: p["region_cd"])
    by_sgg: dict[str, list[dict]] = {}
    for p in places:
        by_sgg.setdefault(p["lawd_cd"], []).append(p)

    rows = {k: [] for k in ("roadAddr", "roadAddrPart1", "roadAddrPart2", "jibunAddr", "engAddr", "zipNo", "admCd", "rnMgtSn",
                            "bdMgtSn", "detBdNmList", "bdNm", "bdKdcd", "siNm", "sggNm", "emdNm", "liNm", "rn", "udrtYn",
                            "buldMnnm", "buldSlno", "mtYn", "lnbrMnnm", "lnbrSlno", "emdNo", "hemdNm", "lat", "lon",
                            "sido_short")}

    def add(p, road, rn_sn, mn, sl, name, apt, udrt="0", g=None, at=None, emd_prefix=""):
        """One building; `at` = its real (lat, lon), else near its dong's point; `emd_prefix` = the
        읍/면 a rural road address names before the road."""
        rng_ = rng if g is None else g
        sido, sgg, umd = p["sido_name"], p["sgg_name"], p["umd_name"]
        head = f"{sido} {sgg} " if sgg else f"{sido} "
        if emd_prefix:
            head += emd_prefix + " "
        num = f"{mn}" if sl == 0 else f"{mn}-{sl}"
        part1 = f"{head}{'지하 ' if udrt == '1' else ''}{road} {num}"
        extra = []
        if umd.endswith(("동", "가", "로")):
            extra.append(umd)
        if apt and name:
            extra.append(name)
        part2 = f" ({', '.join(extra)})" if extra else ""
        lot_mn, lot_sl = int(rng_.integers(1, 900)), int(rng_.integers(0, 30)) if rng_.random() < 0.4 else 0
        lot = f"{lot_mn}" if lot_sl == 0 else f"{lot_mn}-{lot_sl}"
        jibun = f"{head}{umd} {lot}" + (f" {name}" if name else "")
        lat = p["lat"] + rng_.normal(0, 0.004)
        lon = p["lon"] + rng_.normal(0, 0.005)
        if at is not None:
            lat, lon = at
        zr = ZIP_RANGE.get(p["region_cd"][:2], (1, 63))
        zip_base = zr[0] * 1000 + (int(p["lawd_cd"][2:]) * 37) % ((zr[1] - zr[0] + 1) * 1000)
        zipno = f"{min(zip_base + int(rng_.integers(0, 60)), 63999):05d}"
        rows["roadAddr"].append(part1 + part2)
        rows["roadAddrPart1"].append(part1)
        rows["roadAddrPart2"].append(part2)
        rows["jibunAddr"].append(jibun)
        rows["engAddr"].append(f"{num} {road}, {umd}, {sgg}, {sido}")
        rows["zipNo"].append(zipno)
        rows["admCd"].append(p["region_cd"])
        rows["rnMgtSn"].append(rn_sn)
        rows["bdMgtSn"].append(f"{p['region_cd']}1{lot_mn:04d}{lot_sl:04d}{len(rows['bdNm']) % 1000000:06d}")
        rows["detBdNmList"].append("")
        rows["bdNm"].append(name)
        rows["bdKdcd"].append("1" if apt else "0")
        rows["siNm"].append(sido)
        rows["sggNm"].append(sgg)
        rows["emdNm"].append(umd)
        rows["liNm"].append("")
        rows["rn"].append(road)
        rows["udrtYn"].append(udrt)
        rows["buldMnnm"].append(str(mn))
        rows["buldSlno"].append(str(sl))
        rows["mtYn"].append("0")
        rows["lnbrMnnm"].append(str(lot_mn))
        rows["lnbrSlno"].append(str(lot_sl))
        rows["emdNo"].append("01")
        rows["hemdNm"].append(umd if umd.endswith("동") else umd)
        rows["lat"].append(round(lat, 7))
        rows["lon"].append(round(lon, 7))
        rows["sido_short"].append(p["sido_short"])

    road_tables: dict[str, tuple[dict[str, str], list[int], set]] = {}  # lawd_cd -> (roads, serial, used)
    for lawd, dongs in sorted(by_sgg.items()):
        roads: dict[str, str] = {}  # road -> rnMgtSn
        serial = [3000000 + int(rng.integers(0, 900)) * 1000]

        def road_code(name: str) -> str:
            if name not in roads:
                serial[0] += int(rng.integers(1, 40))
                roads[name] = f"{lawd}{serial[0]:07d}"
            return roads[name]

        real = REAL_ROADS.get(lawd, [])
        used: set[tuple[str, int, int]] = set()
        road_tables[lawd] = (roads, serial, used)
        sgg = dongs[0]["sgg_name"] or dongs[0]["sido_name"]
        office = sgg.split()[-1]
        office_name = {"시": "시청", "군": "군청", "구": "구청"}.get(office[-1], "청사")
        office_name = (office[:-1] + office_name) if office[-1] in "시군구" else office + "청"
        for di, p in enumerate(dongs):
            umd = p["umd_name"]
            stem = _stem(umd)
            road_names = [r for r, d in real if d == umd]
            road_names += [f"{stem}{SUFFIX_ROAD[di % len(SUFFIX_ROAD)]}", f"{stem}로{int(rng.integers(1, 40))}길"]
            n_b = int(rng.integers(4, 9))
            kinds = ["center"] + (["office"] if di == 0 else []) + (["school"] if rng.random() < 0.5 else []) + \
                    (["apt"] if rng.random() < 0.6 else [])
            kinds += ["plain"] * max(0, n_b - len(kinds))
            for k in kinds:
                road = road_names[int(rng.integers(0, len(road_names)))]
                for _ in range(20):
                    mn = int(rng.integers(1, 300))
                    sl = 0 if rng.random() < 0.8 else int(rng.integers(1, 20))
                    if (road, mn, sl) not in used:
                        break
                used.add((road, mn, sl))
                if k == "center":
                    name = f"{umd}행정복지센터" if not umd.endswith("가") else f"{stem}동주민센터"
                elif k == "office":
                    name = office_name
                elif k == "school":
                    name = f"서울{stem}초등학교" if p["sido_short"] == "서울" and rng.random() < 0.2 else \
                        f"{stem}{['초등학교', '중학교', '고등학교'][int(rng.integers(0, 3))]}"
                elif k == "apt":
                    name = f"{stem}{BRANDS[int(rng.integers(0, len(BRANDS)))]}아파트"
                else:
                    name = ""
                add(p, road, road_code(road), mn, sl, name, k == "apt")
        for lw, dong, road, no, name, lat, lon in LANDMARKS:
            if lw == lawd:
                p = next((d for d in dongs if d["umd_name"] == dong), dongs[0])
                add(p, road, road_code(road), no, 0, name, False, at=(lat, lon))

    # NEIS schools: every school's real road address (ORG_RDNMA) is a building here too, at the
    # school's real coordinates, so school -> juso -> coordinates/KOSIS chains work. Appended after
    # the rows above from their own RNG stream, so the other buildings are unchanged; a road the
    # district already has keeps its rnMgtSn, and an address already taken stays as it is.
    srng = np.random.default_rng(int(ctx.rng("juso.schools").random() * 2**32))
    place_at: dict[tuple[str, str], dict] = {}
    for p in places:
        place_at.setdefault((p["lawd_cd"], p["umd_name"]), p)
    for sch in sorted(ctx.rows("neis_schools"), key=lambda r: r["SD_SCHUL_CODE"]):
        p = place_at.get((sch["_lawd_cd"], sch["_umd_name"]))
        if p is None or p["lawd_cd"] not in road_tables:
            raise ValueError(f"school {sch['SCHUL_NM']} ({sch['SD_SCHUL_CODE']}) is in no known legal dong "
                             f"({sch['_lawd_cd']} {sch['_umd_name']}); fix its address in refdata/schools.csv.gz")
        parsed = parse_road_address(sch["ORG_RDNMA"], p)
        if parsed is None:
            raise ValueError(f"school {sch['SCHUL_NM']}: road address {sch['ORG_RDNMA']!r} does not start with its "
                             f"district {p['sido_name']} {p['sgg_name']} or lacks a building number")
        emd, road, mn, sl = parsed
        roads, serial, used = road_tables[p["lawd_cd"]]
        if (emd + road, mn, sl) in used:
            continue
        used.add((emd + road, mn, sl))
        if road not in roads:
            serial[0] += int(srng.integers(1, 40))
            roads[road] = f"{p['lawd_cd']}{serial[0]:07d}"
        add(p, road, roads[road], mn, sl, sch["SCHUL_NM"], False, g=srng, at=(sch["_lat"], sch["_lon"]), emd_prefix=emd)

    x, y = wgs84_to_utmk_arrays(np.array(rows["lat"]), np.array(rows["lon"]))
    table = pa.table({k: pa.array(v) for k, v in rows.items()})
    table = table.append_column("entX", pa.array([f"{v:.10f}" for v in x]))
    table = table.append_column("entY", pa.array([f"{v:.10f}" for v in y]))
    return {"juso_addr": table}

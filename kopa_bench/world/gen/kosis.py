"""KOSIS DT_1B040A3 (행정구역(시군구)별 성별 인구수): monthly resident population.

Rows for 전국 (00), every 시도 (2-digit) and every 시군구 (5-digit, the real codes from
`legal_dong`; cities with 구 get both the city and its 구) from 2023-01 to the last month
published before the world clock (resident registration figures come out in the following
month, so the clock's previous month). Sido totals start near the real Jan-2023 levels
(Seoul ~9.4M) and drift with their real direction (Seoul, Busan decline; Gyeonggi, Sejong,
Incheon grow). Leaves split their sido by approximate real district populations
(DISTRICT_K, a smooth by-kind default for the rest); city = sum of its 구,
sido = sum of its leaves, 전국 = sum of sidos; T20 = T21 + T22.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

DEPENDS = ["regions"]
TBL_NM = "행정구역(시군구)별 성별 인구수"
# (Jan 2023 population, monthly growth rate)
SIDO_POP = {
    "11": (9420000, -0.0006), "26": (3310000, -0.0007), "27": (2370000, -0.0004), "28": (2990000, 0.0006),
    "29": (1420000, -0.0004), "30": (1445000, -0.0002), "31": (1105000, -0.0004), "36": (385000, 0.0010),
    "41": (13590000, 0.0004), "51": (1535000, -0.0003), "43": (1595000, -0.0001), "44": (2125000, 0.0002),
    "52": (1765000, -0.0006), "45": (1765000, -0.0006), "46": (1810000, -0.0005), "47": (2590000, -0.0006),
    "48": (3270000, -0.0005), "50": (676000, -0.0002),
}
ITEMS = [("T20", "총인구수"), ("T21", "남자인구수"), ("T22", "여자인구수")]
# Approximate real resident populations (thousands, late 2024, 주민등록) of every district; they set
# each district's SHARE of its province (the province total comes from SIDO_POP). Districts not
# listed fall back to a smooth default by kind (see _default_k).
DISTRICT_K = {
    "11": {"종로구": 139, "중구": 121, "용산구": 209, "성동구": 280, "광진구": 335, "동대문구": 340, "중랑구": 380,
           "성북구": 425, "강북구": 285, "도봉구": 300, "노원구": 494, "은평구": 460, "서대문구": 305, "마포구": 357,
           "양천구": 430, "강서구": 560, "구로구": 395, "금천구": 225, "영등포구": 375, "동작구": 380, "관악구": 485,
           "서초구": 400, "강남구": 555, "송파구": 655, "강동구": 465},
    "26": {"중구": 39, "서구": 103, "동구": 87, "영도구": 105, "부산진구": 357, "동래구": 265, "남구": 253, "북구": 268,
           "해운대구": 381, "사하구": 300, "금정구": 212, "강서구": 143, "연제구": 205, "수영구": 174, "사상구": 204, "기장군": 181},
    "27": {"중구": 96, "동구": 335, "서구": 156, "남구": 140, "북구": 416, "수성구": 408, "달서구": 527, "달성군": 261, "군위군": 22},
    "28": {"중구": 160, "동구": 60, "미추홀구": 410, "연수구": 395, "남동구": 495, "부평구": 480, "계양구": 285, "서구": 620,
           "강화군": 69, "옹진군": 20},
    "29": {"동구": 102, "서구": 285, "남구": 208, "북구": 418, "광산구": 393},
    "30": {"동구": 218, "중구": 224, "서구": 465, "유성구": 368, "대덕구": 168},
    "31": {"중구": 205, "남구": 305, "동구": 148, "북구": 220, "울주군": 220},
    "41": {"수원시 장안구": 270, "수원시 권선구": 370, "수원시 팔달구": 185, "수원시 영통구": 365, "성남시 수정구": 230,
           "성남시 중원구": 212, "성남시 분당구": 470, "의정부시": 460, "안양시 만안구": 232, "안양시 동안구": 320,
           "부천시 원미구": 400, "부천시 소사구": 215, "부천시 오정구": 160, "광명시": 280, "평택시": 592, "동두천시": 89,
           "안산시 상록구": 340, "안산시 단원구": 285, "고양시 덕양구": 490, "고양시 일산동구": 290, "고양시 일산서구": 290,
           "과천시": 80, "구리시": 186, "남양주시": 735, "오산시": 230, "시흥시": 520, "군포시": 260, "의왕시": 160,
           "하남시": 335, "용인시 처인구": 275, "용인시 기흥구": 445, "용인시 수지구": 380, "파주시": 500, "이천시": 225,
           "안성시": 190, "김포시": 485, "화성시": 950, "광주시": 392, "양주시": 245, "포천시": 145, "여주시": 113,
           "연천군": 41, "가평군": 61, "양평군": 124},
    "43": {"청주시 상당구": 170, "청주시 서원구": 185, "청주시 흥덕구": 275, "청주시 청원구": 195, "충주시": 208, "제천시": 130,
           "보은군": 31, "옥천군": 49, "영동군": 44, "증평군": 37, "진천군": 86, "괴산군": 36, "음성군": 92, "단양군": 28},
    "44": {"천안시 동남구": 255, "천안시 서북구": 400, "공주시": 101, "보령시": 95, "아산시": 345, "서산시": 176, "논산시": 110,
           "계룡시": 44, "당진시": 170, "금산군": 50, "부여군": 61, "서천군": 50, "청양군": 29, "홍성군": 98, "예산군": 78, "태안군": 60},
    "46": {"목포시": 214, "여수시": 272, "순천시": 275, "나주시": 117, "광양시": 150, "담양군": 45, "곡성군": 27, "구례군": 25,
           "고흥군": 61, "보성군": 38, "화순군": 61, "장흥군": 35, "강진군": 33, "해남군": 65, "영암군": 52, "무안군": 92,
           "함평군": 30, "영광군": 51, "장성군": 43, "완도군": 47, "진도군": 29, "신안군": 38},
    "47": {"포항시 남구": 230, "포항시 북구": 262, "경주시": 250, "김천시": 136, "안동시": 154, "구미시": 405, "영주시": 100,
           "영천시": 101, "상주시": 94, "문경시": 69, "경산시": 265, "의성군": 50, "청송군": 24, "영양군": 16, "영덕군": 34,
           "청도군": 41, "고령군": 31, "성주군": 43, "칠곡군": 109, "예천군": 54, "봉화군": 30, "울진군": 47, "울릉군": 9},
    "48": {"창원시 의창구": 205, "창원시 성산구": 230, "창원시 마산합포구": 175, "창원시 마산회원구": 185, "창원시 진해구": 190,
           "진주시": 340, "통영시": 120, "사천시": 108, "김해시": 530, "밀양시": 100, "거제시": 235, "양산시": 355, "의령군": 26,
           "함안군": 61, "창녕군": 58, "고성군": 50, "남해군": 40, "하동군": 42, "산청군": 34, "함양군": 37, "거창군": 60, "합천군": 42},
    "50": {"제주시": 490, "서귀포시": 183},
    "51": {"춘천시": 285, "원주시": 361, "강릉시": 210, "동해시": 88, "태백시": 38, "속초시": 82, "삼척시": 62, "홍천군": 67,
           "횡성군": 46, "영월군": 37, "평창군": 40, "정선군": 34, "철원군": 41, "화천군": 23, "양구군": 21, "인제군": 31,
           "고성군": 27, "양양군": 28},
    "52": {"전주시 완산구": 340, "전주시 덕진구": 300, "군산시": 260, "익산시": 270, "정읍시": 103, "남원시": 78, "김제시": 82,
           "완주군": 91, "진안군": 25, "무주군": 23, "장수군": 21, "임실군": 26, "순창군": 26, "고창군": 52, "부안군": 50},
}


def _default_k(name: str) -> float:
    """Smooth fallback share signal (thousands) for a district missing from DISTRICT_K."""
    last = name.split()[-1] if name else ""
    return {"군": 45.0, "시": 150.0, "구": 220.0}.get(last[-1:], 150.0)


def generate(ctx) -> dict:
    rng = np.random.default_rng(int(ctx.rng("kosis").random() * 2**32))
    legal = ctx.rows("legal_dong")
    places = ctx.rows("places")
    dongs_per_sgg: dict[str, int] = {}
    for p in places:
        dongs_per_sgg[p["lawd_cd"]] = dongs_per_sgg.get(p["lawd_cd"], 0) + 1
    sido_name, sgg_name = {}, {}
    for r in legal:
        code, full = r["region_cd"], r["locatadd_nm"]
        if r["sgg_cd"] == "000" and r["umd_cd"] == "000":
            sido_name[code[:2]] = full
        elif r["umd_cd"] == "000" and r["ri_cd"] == "00":
            sgg_name[code[:5]] = " ".join(full.split()[1:]) or full
    sido_name.setdefault("36", "세종특별자치시")
    if "36110" in sgg_name and not sgg_name["36110"].strip():
        sgg_name["36110"] = "세종특별자치시"
    # leaves: districts that are not a city with 구 below them
    names = set(sgg_name.values())
    parents = {}
    for code, nm in sgg_name.items():
        if " " in nm:
            parent = nm.split()[0]
            pc = [c for c, n in sgg_name.items() if n == parent and c[:2] == code[:2]]
            if pc:
                parents[code] = pc[0]
    is_parent = set(parents.values())
    leaves = sorted(c for c in sgg_name if c not in is_parent and dongs_per_sgg.get(c))
    del names

    ym = []
    y, m = 2023, 1
    last = ctx.clock.last_month()
    while f"{y}{m:02d}" <= last:
        ym.append(f"{y}{m:02d}")
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    n_m = len(ym)
    t = np.arange(n_m)

    series: dict[str, np.ndarray] = {}  # code -> (n_m,) totals
    male: dict[str, np.ndarray] = {}
    for sd, (pop0, g) in SIDO_POP.items():
        kids = [c for c in leaves if c[:2] == sd]
        if not kids or sd not in sido_name:
            continue
        known = DISTRICT_K.get(sd, {})
        w = np.array([known.get(sgg_name[c]) or _default_k(sgg_name[c]) for c in kids], float)
        w *= rng.lognormal(0, 0.02, len(kids))  # a little noise; ranks of real districts survive
        w /= w.sum()
        trend = pop0 * (1 + g) ** t
        for c, wi in zip(kids, w):
            own = g + rng.normal(0, 0.0004)
            base = wi / (1 + g) ** 0 * pop0
            v = np.rint(base * (1 + own) ** t * (1 + rng.normal(0, 0.0002, n_m)))
            series[c] = np.maximum(v, 800)
            male[c] = np.rint(series[c] * rng.uniform(0.485, 0.515))
        del trend
        for code, par in parents.items():
            if code[:2] == sd and code in series:
                series[par] = series.get(par, 0) + series[code]
                male[par] = male.get(par, 0) + male[code]
        series[sd] = sum(series[c] for c in kids)
        male[sd] = sum(male[c] for c in kids)
    sidos = sorted(c for c in series if len(c) == 2)
    series["00"] = sum(series[c] for c in sidos)
    male["00"] = sum(male[c] for c in sidos)

    cols: dict[str, list] = {k: [] for k in ("ORG_ID", "TBL_ID", "TBL_NM", "C1", "C1_NM", "C1_OBJ_NM", "ITM_ID", "ITM_NM",
                                             "UNIT_NM", "PRD_SE", "PRD_DE", "DT", "LST_CHN_DE")}
    order = ["00"] + sidos + sorted(c for c in series if len(c) == 5)
    for code in order:
        nm = "전국" if code == "00" else sido_name[code] if len(code) == 2 else sgg_name[code]
        tot, ma = series[code].astype(np.int64), male[code].astype(np.int64)
        vals = {"T20": tot, "T21": ma, "T22": tot - ma}
        for iid, inm in ITEMS:
            for i, prd in enumerate(ym):
                y_, m_ = int(prd[:4]), int(prd[4:])
                y2, m2 = (y_ + 1, 1) if m_ == 12 else (y_, m_ + 1)
                cols["ORG_ID"].append("101")
                cols["TBL_ID"].append("DT_1B040A3")
                cols["TBL_NM"].append(TBL_NM)
                cols["C1"].append(code)
                cols["C1_NM"].append(nm)
                cols["C1_OBJ_NM"].append("행정구역(시군구)별")
                cols["ITM_ID"].append(iid)
                cols["ITM_NM"].append(inm)
                cols["UNIT_NM"].append("명")
                cols["PRD_SE"].append("M")
                cols["PRD_DE"].append(prd)
                cols["DT"].append(str(int(vals[iid][i])))
                cols["LST_CHN_DE"].append(f"{y2}-{m2:02d}-12")
    return {"kosis_population": pa.table({k: pa.array(v, pa.string()) for k, v in cols.items()})}

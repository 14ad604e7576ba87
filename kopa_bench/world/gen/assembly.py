"""열린국회정보: the 22nd National Assembly -- 300 members, ~3,000 member bills, plenary votes.

- 254 district seats over REAL sigungu names with the real per-sido seat counts of the 22nd
  election (서울 48 ... 제주 3): big districts split 갑/을/병, small ones merged
  ("경북 의성군청송군영덕군"), plus 46 proportional seats; parties in the real proportions.
- three pairs of members share a name, so RST_MONA_CD/MONA_CD is needed to tell them apart;
- bills are "<real law name> 일부개정법률안" etc. (law names shared with the law.go.kr world),
  proposed 2024-05-30 .. the world clock, newest first; those decided in plenary have a vote
  tally whose counts are exactly the per-member rows (찬성/반대/기권/불참) of `asm_votes`.
"""

from __future__ import annotations

import string
from datetime import date, timedelta

import numpy as np
import pyarrow as pa

from ._romanize_ko import person_name

DEPENDS = ["regions"]

SEATS = {"11": 48, "26": 18, "27": 12, "28": 14, "29": 8, "30": 7, "31": 6, "36": 2, "41": 60, "51": 8,
         "43": 8, "44": 11, "52": 10, "46": 10, "47": 13, "48": 16, "50": 3}
SUFFIX = ["갑", "을", "병", "정", "무"]
PARTY_CD = {"더불어민주당": "101182", "국민의힘": "101210", "조국혁신당": "101224", "개혁신당": "101223",
            "진보당": "101211", "기본소득당": "101188", "사회민주당": "101213", "무소속": "101030"}
COMMITTEES = {  # name -> COMMITTEE_ID
    "법제사법위원회": "9700008", "정무위원회": "9700019", "기획재정위원회": "9700300", "교육위원회": "9700510",
    "과학기술정보방송통신위원회": "9700480", "외교통일위원회": "9700408", "국방위원회": "9700036",
    "행정안전위원회": "9700481", "문화체육관광위원회": "9700513", "농림축산식품해양수산위원회": "9700479",
    "산업통상자원중소벤처기업위원회": "9700482", "보건복지위원회": "9700341", "환경노동위원회": "9700038",
    "국토교통위원회": "9700407", "여성가족위원회": "9700342", "국회운영위원회": "9700005", "정보위원회": "9700155",
}
LAWS = [  # (law name, committee) -- common real laws (the law.go.kr world has the same names)
    ("도로교통법", "행정안전위원회"), ("주택임대차보호법", "법제사법위원회"), ("근로기준법", "환경노동위원회"),
    ("소득세법", "기획재정위원회"), ("지방자치법", "행정안전위원회"), ("개인정보 보호법", "정무위원회"),
    ("초·중등교육법", "교육위원회"), ("대기환경보전법", "환경노동위원회"), ("조세특례제한법", "기획재정위원회"),
    ("법인세법", "기획재정위원회"), ("부가가치세법", "기획재정위원회"), ("형법", "법제사법위원회"),
    ("형사소송법", "법제사법위원회"), ("민법", "법제사법위원회"), ("상법", "법제사법위원회"),
    ("공직선거법", "행정안전위원회"), ("재난 및 안전관리 기본법", "행정안전위원회"), ("지방세법", "행정안전위원회"),
    ("국민건강보험법", "보건복지위원회"), ("의료법", "보건복지위원회"), ("약사법", "보건복지위원회"),
    ("국민연금법", "보건복지위원회"), ("아동복지법", "보건복지위원회"), ("장애인복지법", "보건복지위원회"),
    ("고등교육법", "교육위원회"), ("유아교육법", "교육위원회"), ("학교폭력예방 및 대책에 관한 법률", "교육위원회"),
    ("교육공무원법", "교육위원회"), ("주택법", "국토교통위원회"), ("건축법", "국토교통위원회"),
    ("도시 및 주거환경정비법", "국토교통위원회"), ("여객자동차 운수사업법", "국토교통위원회"), ("항공안전법", "국토교통위원회"),
    ("공공주택 특별법", "국토교통위원회"), ("최저임금법", "환경노동위원회"), ("산업안전보건법", "환경노동위원회"),
    ("고용보험법", "환경노동위원회"), ("남녀고용평등과 일·가정 양립 지원에 관한 법률", "환경노동위원회"),
    ("물환경보전법", "환경노동위원회"), ("전기통신사업법", "과학기술정보방송통신위원회"), ("방송법", "과학기술정보방송통신위원회"),
    ("정보통신망 이용촉진 및 정보보호 등에 관한 법률", "과학기술정보방송통신위원회"), ("전자금융거래법", "정무위원회"),
    ("자본시장과 금융투자업에 관한 법률", "정무위원회"), ("독점규제 및 공정거래에 관한 법률", "정무위원회"),
    ("농어업재해보험법", "농림축산식품해양수산위원회"), ("양곡관리법", "농림축산식품해양수산위원회"),
    ("수산업법", "농림축산식품해양수산위원회"), ("중소기업기본법", "산업통상자원중소벤처기업위원회"),
    ("전기사업법", "산업통상자원중소벤처기업위원회"), ("유통산업발전법", "산업통상자원중소벤처기업위원회"),
    ("관광진흥법", "문화체육관광위원회"), ("저작권법", "문화체육관광위원회"), ("국민체육진흥법", "문화체육관광위원회"),
    ("병역법", "국방위원회"), ("군인사법", "국방위원회"), ("가정폭력범죄의 처벌 등에 관한 특례법", "여성가족위원회"),
    ("청소년 보호법", "여성가족위원회"), ("남북교류협력에 관한 법률", "외교통일위원회"), ("국회법", "국회운영위원회"),
]
NEW_LAWS = ["인공지능 산업 육성 및 신뢰 기반 조성 등에 관한 법률안", "기후위기 대응을 위한 탄소중립ㆍ녹색성장 기본법 일부개정법률안",
            "지역소멸 대응 특별법안", "간호법안", "반도체산업 경쟁력 강화 및 혁신성장을 위한 특별법안",
            "저출생 대응을 위한 특별법안", "전세사기피해자 지원 및 주거안정에 관한 특별법 일부개정법률안"]


def _groups(units: list[tuple[str, int]], seats: int) -> list[str]:
    """Split/merge sigungu units (name, weight) into `seats` constituency names."""
    n = len(units)
    if seats >= n:
        alloc = [1] * n
        extra = seats - n
        order = sorted(range(n), key=lambda i: -units[i][1])
        i = 0
        while extra > 0:
            j = order[i % max(1, min(n, 12))]
            if alloc[j] < 5:
                alloc[j] += 1
                extra -= 1
            i += 1
        out = []
        for (name, _), k in zip(units, alloc):
            out += [name] if k == 1 else [name + SUFFIX[s] for s in range(k)]
        return out
    # merge consecutive units into `seats` groups of similar size
    out = []
    per = n / seats
    for s in range(seats):
        a, b = round(s * per), round((s + 1) * per)
        out.append("".join(u[0] for u in units[a:b]))
    return out


def _mona(rng) -> str:
    chars = string.ascii_uppercase + string.digits
    return "".join(rng.choice(chars) for _ in range(8))


def _bill_id(rng) -> str:
    return "PRC_" + "".join(rng.choice(string.ascii_uppercase) + rng.choice(string.digits) for _ in range(15))


def generate(ctx) -> dict:
    rng = ctx.rng("assembly")
    places = ctx.rows("places")
    units: dict[str, dict[str, int]] = {}
    sido_short: dict[str, str] = {}
    for p in places:
        cd = p["lawd_cd"][:2]
        sido_short[cd] = p["sido_short"]
        first = (p["sgg_name"] or "").split()[0] if p["sgg_name"] else ""
        units.setdefault(cd, {})
        units[cd][first] = units[cd].get(first, 0) + 1
    consts: list[tuple[str, str]] = []  # (ORIG_NM, sido_cd)
    for cd, seats in SEATS.items():
        if cd == "36" or not any(units.get(cd, {})):
            consts += [(f"세종특별자치시{SUFFIX[i]}", cd) for i in range(seats)]
            continue
        us = [(k, v) for k, v in units[cd].items() if k]
        for name in _groups(us, seats):
            consts.append((f"{sido_short[cd]} {name}", cd))
    district_parties = ["더불어민주당"] * 160 + ["국민의힘"] * 90 + ["개혁신당", "진보당", "무소속", "무소속"]
    rng.shuffle(district_parties)
    # regional lean: 영남 mostly 국민의힘, 호남 민주
    lean = {"26": "국민의힘", "27": "국민의힘", "31": "국민의힘", "47": "국민의힘", "48": "국민의힘",
            "29": "더불어민주당", "46": "더불어민주당", "52": "더불어민주당"}
    order = sorted(range(len(consts)), key=lambda i: (consts[i][1] not in lean, i))
    pool = list(district_parties)
    parties = [""] * len(consts)
    for i in order:
        want = lean.get(consts[i][1])
        if want and want in pool and rng.random() < 0.85:
            pool.remove(want)
            parties[i] = want
    rest = [x for x in pool]
    for i in range(len(consts)):
        if not parties[i]:
            parties[i] = rest.pop()
    prop = (["국민의힘"] * 18 + ["더불어민주당"] * 11 + ["조국혁신당"] * 12 + ["개혁신당"] * 2 + ["진보당", "기본소득당", "사회민주당"])
    seats_all = [(o, "지역구", p) for (o, _), p in zip(consts, parties)] + [("비례대표", "비례대표", p) for p in prop]
    cmits = list(COMMITTEES)
    used_names: set[str] = set()
    members = []
    for i, (orig, gbn, party) in enumerate(seats_all):
        while True:
            ko, hj, en = person_name(rng)
            if ko not in used_names:
                break
        used_names.add(ko)
        terms = 1 if gbn == "비례대표" and rng.random() < 0.8 else rng.choices([1, 2, 3, 4, 5, 6], [40, 28, 17, 9, 4, 2])[0]
        reele = "초선" if terms == 1 else "재선" if terms == 2 else f"{terms}선"
        units_txt = ", ".join(f"제{22 - k}대" for k in range(terms - 1, -1, -1))
        cmit = rng.choice(cmits[:14])
        sex = "여" if rng.random() < 0.2 else "남"
        room = rng.randint(301, 1040)
        members.append({
            "HG_NM": ko, "HJ_NM": hj, "ENG_NM": en, "BTH_GBN_NM": rng.choice(["양", "양", "양", "음"]),
            "BTH_DATE": date(rng.randint(1955, 1990), rng.randint(1, 12), rng.randint(1, 28)).isoformat(),
            "JOB_RES_NM": rng.choices(["위원", "간사", "위원장"], [85, 10, 5])[0], "POLY_NM": party, "ORIG_NM": orig,
            "ELECT_GBN_NM": gbn, "CMIT_NM": cmit,
            "CMITS": ", ".join(sorted({cmit, rng.choice(cmits)})), "REELE_GBN_NM": reele, "UNITS": units_txt,
            "SEX_GBN_NM": sex, "TEL_NO": f"02-784-{rng.randint(1000, 9999)}",
            "E_MAIL": f"{en.split()[0].lower()}{en.split()[1].lower()[:6]}@assembly.go.kr",
            "HOMEPAGE": f"https://blog.naver.com/{en.split()[1].lower()}{rng.randint(10, 99)}",
            "STAFF": None, "SECRETARY": None, "SECRETARY2": None, "MEM_TITLE": None,
            "ASSEM_ADDR": f"의원회관 {room}호", "MONA_CD": _mona(rng), "_seq": i,
        })
    # three namesake pairs (a district member and another member share a name)
    for a, b in ((5, 140), (60, 262), (101, 290)):
        members[b]["HG_NM"] = members[a]["HG_NM"]
        members[b]["HJ_NM"] = members[a]["HJ_NM"][:1] + members[b]["HJ_NM"][1:]
        members[b]["ENG_NM"] = members[a]["ENG_NM"]
    # bills -------------------------------------------------------------------------------------
    brng = ctx.rng("assembly.bills")
    start, today = date(2024, 5, 30), ctx.clock.today()
    span = (today - start).days
    n_bills = 3000
    days = sorted(brng.randint(0, span - 3) for _ in range(n_bills))
    plenary = []
    d = date(2024, 7, 4)
    while d < today:
        plenary.append(d)
        d += timedelta(days=brng.choice([7, 14, 14, 21, 28]))
    by_party: dict[str, list[int]] = {}
    for j, m in enumerate(members):
        by_party.setdefault(m["POLY_NM"], []).append(j)
    bills, tallies, vote_cols = [], [], {k: [] for k in ("BILL_ID", "BILL_NO", "BILL_NAME", "AGE", "MONA_CD", "MEMBER_NO", "HG_NM", "HJ_NM",
                                                          "POLY_NM", "POLY_CD", "ORIG_NM", "RESULT_VOTE_MOD", "VOTE_DATE",
                                                          "CURR_COMMITTEE", "CURR_COMMITTEE_ID", "DISP_ORDER", "BILL_URL")}
    vrng = np.random.default_rng(int(brng.random() * 2**32))
    bill_no = 2200010
    # make sure some well-known members propose many bills (deterministic but uneven activity)
    activity = [brng.paretovariate(1.5) for _ in members]
    for k, dd in enumerate(days):
        bill_no += brng.randint(1, 4)
        pdt = start + timedelta(days=dd)
        lead_i = brng.choices(range(len(members)), activity)[0]
        lead = members[lead_i]
        r = brng.random()
        if r < 0.03:
            name = brng.choice(NEW_LAWS)
            comm = brng.choice(cmits[:14])
        else:
            law, comm = brng.choice(LAWS)
            name = f"{law} {'전부개정법률안' if r < 0.05 else '일부개정법률안'}"
        same = [j for j in by_party[lead["POLY_NM"]] if j != lead_i]
        others = [j for j in range(len(members)) if j != lead_i]
        n_co = brng.randint(9, 16)
        co = brng.sample(same, min(len(same), n_co)) if len(same) >= n_co else brng.sample(others, n_co)
        age_days = (today - pdt).days
        result, proc_dt = None, None
        rr = brng.random()
        if age_days > 60 and rr < 0.22:
            result = "대안반영폐기"
        elif age_days > 45 and rr < 0.32:
            result = brng.choices(["원안가결", "수정가결", "부결"], [45, 53, 2])[0]
        elif rr < 0.335:
            result = "철회"
        if result in ("원안가결", "수정가결", "부결"):
            later = [p for p in plenary if p > pdt + timedelta(days=40)]
            if not later:
                result = None
            else:
                proc_dt = later[min(len(later) - 1, int(brng.expovariate(1 / 4)))]
        elif result == "대안반영폐기":
            proc_dt = pdt + timedelta(days=brng.randint(60, min(age_days, 400)))
        elif result == "철회":
            proc_dt = pdt + timedelta(days=brng.randint(1, max(2, min(age_days, 30))))
        bid = _bill_id(brng)
        comm_dt = pdt + timedelta(days=brng.randint(1, 6))
        bills.append({
            "BILL_ID": bid, "BILL_NO": str(bill_no), "BILL_NAME": name, "COMMITTEE": comm,
            "PROPOSE_DT": pdt.isoformat(), "PROC_RESULT": result, "AGE": "22",
            "DETAIL_LINK": f"http://likms.assembly.go.kr/bill/billDetail.do?billId={bid}",
            "PROPOSER": f"{lead['HG_NM']}의원 등 {len(co) + 1}인",
            "MEMBER_LIST": f"http://likms.assembly.go.kr/bill/coactorListPopup.do?billId={bid}",
            "LAW_PROC_DT": (proc_dt - timedelta(days=7)).isoformat() if result in ("원안가결", "수정가결", "부결") else None,
            "LAW_PRESENT_DT": (proc_dt - timedelta(days=8)).isoformat() if result in ("원안가결", "수정가결", "부결") else None,
            "LAW_SUBMIT_DT": (proc_dt - timedelta(days=14)).isoformat() if result in ("원안가결", "수정가결", "부결") else None,
            "LAW_PROC_RESULT_CD": ("원안가결" if result in ("원안가결", "수정가결", "부결") else None),
            "RST_PROPOSER": lead["HG_NM"], "RST_MONA_CD": lead["MONA_CD"],
            "PUBL_PROPOSER": ",".join(members[j]["HG_NM"] for j in co),
            "PUBL_MONA_CD": ",".join(members[j]["MONA_CD"] for j in co),
            "COMMITTEE_ID": COMMITTEES[comm], "COMMITTEE_DT": comm_dt.isoformat(),
            "CMT_PRESENT_DT": (proc_dt - timedelta(days=30)).isoformat() if proc_dt and result != "철회" else None,
            "CMT_PROC_DT": (proc_dt - timedelta(days=21)).isoformat() if proc_dt and result != "철회" else None,
            "CMT_PROC_RESULT_CD": ("대안반영폐기" if result == "대안반영폐기" else "수정가결" if result == "수정가결"
                                   else "원안가결" if result in ("원안가결", "부결") else None),
            "PROC_DT": proc_dt.isoformat() if proc_dt else None,
        })
        if result in ("원안가결", "수정가결", "부결"):
            contentious = result == "부결" or vrng.random() < 0.12
            absent = vrng.random(len(members)) < vrng.uniform(0.08, 0.25)
            votes = []
            lead_party = lead["POLY_NM"]
            for j, m in enumerate(members):
                if absent[j]:
                    votes.append("불참")
                    continue
                u = vrng.random()
                if result == "부결":
                    v = "찬성" if m["POLY_NM"] == lead_party and u < 0.9 else ("반대" if u < 0.7 else "기권")
                elif contentious and m["POLY_NM"] != lead_party and m["POLY_NM"] in ("국민의힘", "더불어민주당"):
                    v = "반대" if u < 0.55 else ("기권" if u < 0.7 else "불참")
                else:
                    v = "찬성" if u < 0.95 else ("기권" if u < 0.985 else "반대")
                votes.append(v)
            yes, no, blank = votes.count("찬성"), votes.count("반대"), votes.count("기권")
            if result != "부결" and yes <= (yes + no + blank) / 2:  # keep the outcome consistent with the votes
                votes = ["찬성" if v == "반대" else v for v in votes]
                yes, no = votes.count("찬성"), votes.count("반대")
            vt = f"{proc_dt.strftime('%Y%m%d')} {14 + vrng.integers(0, 4):02d}{vrng.integers(0, 60):02d}{vrng.integers(0, 60):02d}"
            tallies.append({
                "BILL_ID": bid, "BILL_NO": str(bill_no), "BILL_NAME": name, "PROC_DT": proc_dt.isoformat(),
                "PROC_RESULT_CD": result, "BILL_KIND_CD": "법률안", "CURR_COMMITTEE": comm,
                "CURR_COMMITTEE_ID": COMMITTEES[comm], "AGE": "22", "MEMBER_TCNT": len(members),
                "VOTE_TCNT": yes + no + blank, "YES_TCNT": yes, "NO_TCNT": no, "BLANK_TCNT": blank,
                "LINK_URL": f"http://likms.assembly.go.kr/bill/billDetail.do?billId={bid}",
            })
            for j, (m, v) in enumerate(zip(members, votes)):
                vote_cols["BILL_ID"].append(bid)
                vote_cols["BILL_NO"].append(str(bill_no))
                vote_cols["BILL_NAME"].append(name)
                vote_cols["AGE"].append(22)
                vote_cols["MONA_CD"].append(m["MONA_CD"])
                vote_cols["MEMBER_NO"].append(None)
                vote_cols["HG_NM"].append(m["HG_NM"])
                vote_cols["HJ_NM"].append(m["HJ_NM"])
                vote_cols["POLY_NM"].append(m["POLY_NM"])
                vote_cols["POLY_CD"].append(PARTY_CD[m["POLY_NM"]])
                vote_cols["ORIG_NM"].append(m["ORIG_NM"])
                vote_cols["RESULT_VOTE_MOD"].append(v)
                vote_cols["VOTE_DATE"].append(vt)
                vote_cols["CURR_COMMITTEE"].append(comm)
                vote_cols["CURR_COMMITTEE_ID"].append(COMMITTEES[comm])
                vote_cols["DISP_ORDER"].append(j + 1)
                vote_cols["BILL_URL"].append(f"http://likms.assembly.go.kr/bill/billDetail.do?billId={bid}")
    vote_types = {"AGE": pa.int64(), "DISP_ORDER": pa.int64()}
    votes_tbl = pa.table({k: pa.array(v, type=vote_types.get(k, pa.string())) for k, v in vote_cols.items()})
    return {"asm_members": members, "asm_bills": bills, "asm_vote_tally": tallies, "asm_votes": votes_tbl}

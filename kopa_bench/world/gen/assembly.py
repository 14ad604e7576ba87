"""열린국회정보: the 22nd National Assembly -- its 300 real members, real and generated bills, plenary votes.

- members (refdata `assembly22_members`, 열린국회정보 as of 2025-03-23): name, 한자/영문 name,
  birth date, party, the real constituency (254 지역구 + 46 비례대표), committees, terms.
  Contact fields (phone, e-mail, homepage, office room) and sex are not in the source and are
  generated; MONA_CD is derived from the member's name and birth date.
- the 586 real bills decided in plenary 2024-07-04..2025-03-20 (refdata `assembly22_bills`): every
  one has a vote tally; those a member proposed (법률안, "<이름>의원 등 N인") are member bills too,
  with their real 의안번호, 대표발의자 and result. The source gives no proposal date (it repeats
  the vote date) or co-sponsors, so those are generated.
- generated member bills in the same style fill the rest of the term ("<real law name>
  일부개정법률안" etc., law names shared with the law.go.kr world), proposed 2024-05-30 .. the
  world clock, numbered around the real ones; those decided in plenary have a vote tally whose
  counts are exactly the per-member rows (찬성/반대/기권/불참) of `asm_votes`.
"""

from __future__ import annotations

import hashlib
import re
import string
from datetime import date, timedelta

import numpy as np
import pyarrow as pa

from ...refdata import table_rows

DEPENDS = ["regions"]

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
# "(강유정의원 등 10인)", "(박찬대의원 외 170인)", "(정부)", "(보건복지위원장)": the proposer the 의안명
# of the source ends with; the APIs give it apart (PROPOSER), "(대안)" stays in the name
PROPOSER_SUFFIX = re.compile(r"\(([^()]*?)(?:의원 [등외] (\d+)인)?\)$")
NEW_LAWS = ["인공지능 산업 육성 및 신뢰 기반 조성 등에 관한 법률안", "기후위기 대응을 위한 탄소중립ㆍ녹색성장 기본법 일부개정법률안",
            "지역소멸 대응 특별법안", "간호법안", "반도체산업 경쟁력 강화 및 혁신성장을 위한 특별법안",
            "저출생 대응을 위한 특별법안", "전세사기피해자 지원 및 주거안정에 관한 특별법 일부개정법률안"]


def _mona_cd(name: str, birth: str) -> str:
    """An 8-character member code in the real style (e.g. "SZ51175J"), fixed per person."""
    d = hashlib.sha256(f"{name}:{birth}".encode()).digest()
    chars = string.ascii_uppercase + string.digits
    return "".join(chars[b % len(chars)] for b in d[:8])


def _committee_id(name: str) -> str:
    return COMMITTEES.get(name) or f"97{int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], 'big') % 100000:05d}"


def _bill_id(rng) -> str:
    return "PRC_" + "".join(rng.choice(string.ascii_uppercase) + rng.choice(string.digits) for _ in range(15))


def generate(ctx) -> dict:
    rng = ctx.rng("assembly")
    members = []
    for i, r in enumerate(table_rows("assembly22_members")):
        en = r["eng_name"].split()
        room = rng.randint(301, 1040)
        district = r["district"].strip()  # two source values end in a space
        members.append({
            "HG_NM": r["name"], "HJ_NM": r["hanja_name"], "ENG_NM": r["eng_name"], "BTH_GBN_NM": r["birth_gbn"],
            "BTH_DATE": r["birth_date"], "JOB_RES_NM": r["position"] or "위원", "POLY_NM": r["party"], "ORIG_NM": district,
            "ELECT_GBN_NM": "비례대표" if district == "비례대표" else "지역구", "CMIT_NM": r["committee"] or None,
            "CMITS": r["committees"] or None, "REELE_GBN_NM": r["reele_gbn"], "UNITS": r["units"],
            "SEX_GBN_NM": "여" if rng.random() < 0.2 else "남", "TEL_NO": f"02-784-{rng.randint(1000, 9999)}",
            "E_MAIL": f"{en[0].lower()}{en[-1].lower()[:6]}@assembly.go.kr" if en else None,
            "HOMEPAGE": f"https://blog.naver.com/{en[-1].lower()}{rng.randint(10, 99)}" if en else None,
            "STAFF": None, "SECRETARY": None, "SECRETARY2": None, "MEM_TITLE": None,
            "ASSEM_ADDR": f"의원회관 {room}호", "MONA_CD": _mona_cd(r["name"], r["birth_date"]), "_seq": i,
        })
    cmits = list(COMMITTEES)
    # bills -------------------------------------------------------------------------------------
    real = table_rows("assembly22_bills")
    real_nos = {b["bill_no"] for b in real}
    brng = ctx.rng("assembly.bills")
    start, today = date(2024, 5, 30), ctx.clock.today()
    span = (today - start).days
    n_bills = 3000
    days = sorted(brng.randint(0, span - 3) for _ in range(n_bills))
    # plenary sittings: the real ones the source records, then every 1-4 weeks after them
    plenary = sorted({date.fromisoformat(b["vote_date"]) for b in real})
    d = plenary[-1] + timedelta(days=14)
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

    def vote(bid: str, bill_no: str, name: str, comm: str, kind: str, proc_dt: date, result: str, lead_party: str | None) -> None:
        """The plenary vote on one bill: a tally and one row per member whose counts agree."""
        contentious = result == "부결" or vrng.random() < 0.12
        absent = vrng.random(len(members)) < vrng.uniform(0.08, 0.25)
        votes = []
        for j, m in enumerate(members):
            if absent[j]:
                votes.append("불참")
                continue
            u = vrng.random()
            if result == "부결":
                v = "찬성" if m["POLY_NM"] == lead_party and u < 0.9 else ("반대" if u < 0.7 else "기권")
            elif contentious and lead_party and m["POLY_NM"] != lead_party and m["POLY_NM"] in ("국민의힘", "더불어민주당"):
                v = "반대" if u < 0.55 else ("기권" if u < 0.7 else "불참")
            else:
                v = "찬성" if u < 0.95 else ("기권" if u < 0.985 else "반대")
            votes.append(v)
        yes, no, blank = votes.count("찬성"), votes.count("반대"), votes.count("기권")
        if result != "부결" and yes <= (yes + no + blank) / 2:  # keep the outcome consistent with the votes
            votes = ["찬성" if v == "반대" else v for v in votes]
            yes, no = votes.count("찬성"), votes.count("반대")
        if result == "부결" and yes > (yes + no + blank) / 2:
            votes = ["반대" if v == "찬성" and vrng.random() < 0.6 else v for v in votes]
            yes, no = votes.count("찬성"), votes.count("반대")
        vt = f"{proc_dt.strftime('%Y%m%d')} {14 + vrng.integers(0, 4):02d}{vrng.integers(0, 60):02d}{vrng.integers(0, 60):02d}"
        url = f"http://likms.assembly.go.kr/bill/billDetail.do?billId={bid}"
        tallies.append({
            "BILL_ID": bid, "BILL_NO": bill_no, "BILL_NAME": name, "PROC_DT": proc_dt.isoformat(),
            "PROC_RESULT_CD": result, "BILL_KIND_CD": kind, "CURR_COMMITTEE": comm,
            "CURR_COMMITTEE_ID": _committee_id(comm), "AGE": "22", "MEMBER_TCNT": len(members),
            "VOTE_TCNT": yes + no + blank, "YES_TCNT": yes, "NO_TCNT": no, "BLANK_TCNT": blank, "LINK_URL": url,
        })
        for j, (m, v) in enumerate(zip(members, votes)):
            for k, val in (("BILL_ID", bid), ("BILL_NO", bill_no), ("BILL_NAME", name), ("AGE", 22), ("MONA_CD", m["MONA_CD"]),
                           ("MEMBER_NO", None), ("HG_NM", m["HG_NM"]), ("HJ_NM", m["HJ_NM"]), ("POLY_NM", m["POLY_NM"]),
                           ("POLY_CD", PARTY_CD[m["POLY_NM"]]), ("ORIG_NM", m["ORIG_NM"]), ("RESULT_VOTE_MOD", v),
                           ("VOTE_DATE", vt), ("CURR_COMMITTEE", comm), ("CURR_COMMITTEE_ID", _committee_id(comm)),
                           ("DISP_ORDER", j + 1), ("BILL_URL", url)):
                vote_cols[k].append(val)

    def bill_row(bid: str, bill_no: str, name: str, comm: str, pdt: date, result: str | None, proc_dt: date | None,
                 lead: dict, co: list[int], comm_dt: date, proposer: str | None = None) -> dict:
        voted = result in ("원안가결", "수정가결", "부결")
        return {
            "BILL_ID": bid, "BILL_NO": bill_no, "BILL_NAME": name, "COMMITTEE": comm,
            "PROPOSE_DT": pdt.isoformat(), "PROC_RESULT": result, "AGE": "22",
            "DETAIL_LINK": f"http://likms.assembly.go.kr/bill/billDetail.do?billId={bid}",
            "PROPOSER": proposer or f"{lead['HG_NM']}의원 등 {len(co) + 1}인",
            "MEMBER_LIST": f"http://likms.assembly.go.kr/bill/coactorListPopup.do?billId={bid}",
            "LAW_PROC_DT": (proc_dt - timedelta(days=7)).isoformat() if voted else None,
            "LAW_PRESENT_DT": (proc_dt - timedelta(days=8)).isoformat() if voted else None,
            "LAW_SUBMIT_DT": (proc_dt - timedelta(days=14)).isoformat() if voted else None,
            "LAW_PROC_RESULT_CD": ("원안가결" if voted else None),
            "RST_PROPOSER": lead["HG_NM"], "RST_MONA_CD": lead["MONA_CD"],
            "PUBL_PROPOSER": ",".join(members[j]["HG_NM"] for j in co),
            "PUBL_MONA_CD": ",".join(members[j]["MONA_CD"] for j in co),
            "COMMITTEE_ID": _committee_id(comm), "COMMITTEE_DT": comm_dt.isoformat(),
            "CMT_PRESENT_DT": (proc_dt - timedelta(days=30)).isoformat() if proc_dt and result != "철회" else None,
            "CMT_PROC_DT": (proc_dt - timedelta(days=21)).isoformat() if proc_dt and result != "철회" else None,
            "CMT_PROC_RESULT_CD": ("대안반영폐기" if result == "대안반영폐기" else "수정가결" if result == "수정가결"
                                   else "원안가결" if result in ("원안가결", "부결") else None),
            "PROC_DT": proc_dt.isoformat() if proc_dt else None,
        }

    def cosponsors(lead_i: int, n_co: int) -> list[int]:
        same = [j for j in by_party[members[lead_i]["POLY_NM"]] if j != lead_i]
        others = [j for j in range(len(members)) if j != lead_i]
        return brng.sample(same, min(len(same), n_co)) if len(same) >= n_co else brng.sample(others, n_co)

    bill_no = 2200010
    # uneven activity: a few members propose many bills
    activity = [brng.paretovariate(1.5) for _ in members]
    for k, dd in enumerate(days):
        # numbered at the real pace (~31 bills a day were filed), never on a real bill's number
        bill_no = max(bill_no + 1, 2200010 + int(dd * 31.2) + brng.randint(0, 20))
        while str(bill_no) in real_nos:
            bill_no += 1
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
        co = cosponsors(lead_i, brng.randint(9, 16))
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
        bills.append(bill_row(bid, str(bill_no), name, comm, pdt, result, proc_dt, lead, co,
                              pdt + timedelta(days=brng.randint(1, 6))))
        if result in ("원안가결", "수정가결", "부결"):
            vote(bid, str(bill_no), name, comm, "법률안", proc_dt, result, lead["POLY_NM"])

    # the real bills decided in plenary; a member's 법률안 is a member bill as well
    index = {m["HG_NM"]: j for j, m in enumerate(members)}
    for b in real:
        proc_dt = date.fromisoformat(b["vote_date"])
        m = PROPOSER_SUFFIX.search(b["title"])
        name = b["title"][: m.start()] if m else b["title"]
        lead_i = index.get(b["rep_proposer"].removesuffix("의원")) if b["rep_proposer"].endswith("의원") else None
        lead_party = members[lead_i]["POLY_NM"] if lead_i is not None else None
        if lead_i is not None and b["bill_kind"] == "법률안":
            n_all = int(m.group(2)) if m and m.group(2) else brng.randint(10, 17)
            co = cosponsors(lead_i, max(0, min(n_all - 1, 200)))
            pdt = max(start, proc_dt - timedelta(days=brng.randint(45, 200)))
            bills.append(bill_row(b["bill_id"], b["bill_no"], name, b["committee"], pdt, b["status"], proc_dt,
                                  members[lead_i], co, pdt + timedelta(days=brng.randint(1, 6)), m.group(0)[1:-1] if m else None))
        vote(b["bill_id"], b["bill_no"], name, b["committee"], b["bill_kind"], proc_dt, b["status"], lead_party)
    vote_types = {"AGE": pa.int64(), "DISP_ORDER": pa.int64()}
    votes_tbl = pa.table({k: pa.array(v, type=vote_types.get(k, pa.string())) for k, v in vote_cols.items()})
    return {"asm_members": members, "asm_bills": bills, "asm_vote_tally": tallies, "asm_votes": votes_tbl}

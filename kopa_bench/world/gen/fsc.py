"""FSC stock prices (KRX via data.go.kr): ~150 listed items, daily prices for ~6 months.

Every item is a real listed company: the large caps with their real short codes, names and
price levels (삼성전자 005930, SK하이닉스 000660 ...), the rest drawn from the real KIND listing
(refdata `krx_listed_companies`, 2026-04-08; SPACs and foreign issuers left out) with their real code and market;
their prices, share counts and corporate registration numbers are generated. ISINs carry a real check digit
(KR7005930003). Business days skip weekends, public holidays (refdata holidays.csv) and
the year-end closing day (Dec 31). The latest basDt follows the real publishing lag: day D
appears at 13:00 KST on the next business day, so at the world clock (Mon 09:00) the latest
trading day served is the previous Thursday. Prices follow a GBM with KRX tick sizes and the
±30% limit; volumes are log-normal around a size-dependent level.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

import numpy as np
import pyarrow as pa

from ...clock import KST
from ...refdata import table_rows

DAYS_BACK = 185

REAL = [  # name, code, market, price, listed shares (millions), corp name
    ("삼성전자", "005930", "KOSPI", 101000, 5919.6, "삼성전자(주)"), ("SK하이닉스", "000660", "KOSPI", 540000, 728.0, "에스케이하이닉스(주)"),
    ("LG에너지솔루션", "373220", "KOSPI", 382000, 234.0, "(주)엘지에너지솔루션"), ("삼성바이오로직스", "207940", "KOSPI", 1080000, 71.2, "삼성바이오로직스(주)"),
    ("현대차", "005380", "KOSPI", 241000, 204.8, "현대자동차(주)"), ("기아", "000270", "KOSPI", 112000, 393.1, "기아(주)"),
    ("셀트리온", "068270", "KOSPI", 183000, 216.9, "(주)셀트리온"), ("KB금융", "105560", "KOSPI", 118000, 381.5, "(주)케이비금융지주"),
    ("NAVER", "035420", "KOSPI", 262000, 158.4, "네이버(주)"), ("신한지주", "055550", "KOSPI", 71000, 490.0, "(주)신한금융지주회사"),
    ("POSCO홀딩스", "005490", "KOSPI", 318000, 84.6, "(주)포스코홀딩스"), ("삼성물산", "028260", "KOSPI", 205000, 169.9, "삼성물산(주)"),
    ("현대모비스", "012330", "KOSPI", 301000, 91.8, "현대모비스(주)"), ("LG화학", "051910", "KOSPI", 352000, 70.6, "(주)엘지화학"),
    ("삼성SDI", "006400", "KOSPI", 268000, 68.8, "삼성에스디아이(주)"), ("카카오", "035720", "KOSPI", 61000, 444.2, "(주)카카오"),
    ("하나금융지주", "086790", "KOSPI", 88000, 284.7, "(주)하나금융지주"), ("삼성생명", "032830", "KOSPI", 142000, 200.0, "삼성생명보험(주)"),
    ("삼성화재", "000810", "KOSPI", 452000, 47.4, "삼성화재해상보험(주)"), ("메리츠금융지주", "138040", "KOSPI", 118000, 190.0, "메리츠금융지주(주)"),
    ("한국전력", "015760", "KOSPI", 39500, 642.0, "한국전력공사"), ("LG전자", "066570", "KOSPI", 86000, 163.6, "엘지전자(주)"),
    ("SK이노베이션", "096770", "KOSPI", 118000, 151.0, "에스케이이노베이션(주)"), ("HMM", "011200", "KOSPI", 21500, 1025.0, "에이치엠엠(주)"),
    ("고려아연", "010130", "KOSPI", 1020000, 20.7, "고려아연(주)"), ("삼성전자우", "005935", "KOSPI", 79000, 815.0, "삼성전자(주)"),
    ("KT&G", "033780", "KOSPI", 138000, 126.0, "(주)케이티앤지"), ("SK텔레콤", "017670", "KOSPI", 54000, 214.8, "에스케이텔레콤(주)"),
    ("KT", "030200", "KOSPI", 52000, 252.0, "(주)케이티"), ("포스코퓨처엠", "003670", "KOSPI", 152000, 77.5, "(주)포스코퓨처엠"),
    ("한화에어로스페이스", "012450", "KOSPI", 1010000, 51.6, "(주)한화에어로스페이스"), ("HD현대중공업", "329180", "KOSPI", 520000, 88.8, "에이치디현대중공업(주)"),
    ("두산에너빌리티", "034020", "KOSPI", 78000, 640.6, "두산에너빌리티(주)"), ("우리금융지주", "316140", "KOSPI", 26500, 742.6, "(주)우리금융지주"),
    ("기업은행", "024110", "KOSPI", 19800, 797.0, "중소기업은행"), ("LG", "003550", "KOSPI", 82000, 157.3, "(주)엘지"),
    ("SK", "034730", "KOSPI", 232000, 72.8, "에스케이(주)"), ("삼성중공업", "010140", "KOSPI", 24500, 880.0, "삼성중공업(주)"),
    ("대한항공", "003490", "KOSPI", 24000, 368.2, "(주)대한항공"), ("S-Oil", "010950", "KOSPI", 74000, 112.6, "에쓰-오일(주)"),
    ("아모레퍼시픽", "090430", "KOSPI", 128000, 58.5, "(주)아모레퍼시픽"), ("엔씨소프트", "036570", "KOSPI", 228000, 21.3, "(주)엔씨소프트"),
    ("크래프톤", "259960", "KOSPI", 312000, 47.8, "(주)크래프톤"), ("삼성에스디에스", "018260", "KOSPI", 168000, 77.4, "삼성에스디에스(주)"),
    ("삼성전기", "009150", "KOSPI", 212000, 74.7, "삼성전기(주)"), ("현대건설", "000720", "KOSPI", 61000, 111.4, "현대건설(주)"),
    ("CJ제일제당", "097950", "KOSPI", 232000, 15.1, "씨제이제일제당(주)"), ("롯데케미칼", "011170", "KOSPI", 78000, 42.8, "롯데케미칼(주)"),
    ("한미약품", "128940", "KOSPI", 342000, 12.8, "한미약품(주)"), ("유한양행", "000100", "KOSPI", 112000, 80.1, "(주)유한양행"),
    ("에코프로비엠", "247540", "KOSDAQ", 132000, 97.8, "(주)에코프로비엠"), ("에코프로", "086520", "KOSDAQ", 98000, 133.1, "(주)에코프로"),
    ("알테오젠", "196170", "KOSDAQ", 482000, 53.4, "(주)알테오젠"), ("HLB", "028300", "KOSDAQ", 48000, 131.0, "에이치엘비(주)"),
    ("리노공업", "058470", "KOSDAQ", 72000, 15.2, "리노공업(주)"), ("펄어비스", "263750", "KOSDAQ", 36000, 63.5, "(주)펄어비스"),
    ("카카오게임즈", "293490", "KOSDAQ", 17500, 83.0, "(주)카카오게임즈"), ("클래시스", "214150", "KOSDAQ", 54000, 65.5, "클래시스(주)"),
    ("휴젤", "145020", "KOSDAQ", 312000, 11.9, "(주)휴젤"), ("레인보우로보틱스", "277810", "KOSDAQ", 352000, 19.4, "(주)레인보우로보틱스"),
    ("삼천당제약", "000250", "KOSDAQ", 182000, 23.5, "삼천당제약(주)"), ("리가켐바이오", "141080", "KOSDAQ", 142000, 36.6, "리가켐바이오사이언스(주)"),
    ("이오테크닉스", "039030", "KOSDAQ", 168000, 12.3, "(주)이오테크닉스"), ("솔브레인", "357780", "KOSDAQ", 252000, 7.8, "솔브레인(주)"),
    ("원익IPS", "240810", "KOSDAQ", 38000, 49.1, "(주)원익아이피에스"), ("파크시스템스", "140860", "KOSDAQ", 232000, 7.0, "파크시스템스(주)"),
    ("에스엠", "041510", "KOSDAQ", 102000, 23.8, "(주)에스엠엔터테인먼트"), ("JYP Ent.", "035900", "KOSDAQ", 68000, 35.5, "(주)제이와이피엔터테인먼트"),
    ("스튜디오드래곤", "253450", "KOSDAQ", 42000, 30.1, "(주)스튜디오드래곤"), ("에스티팜", "237690", "KOSDAQ", 98000, 20.1, "에스티팜(주)"),
]
def isin_check_digit(body: str) -> str:
    """ISO 6166 check digit: letters -> numbers (A=10), Luhn over the digit string."""
    digits = "".join(str(int(ch, 36)) for ch in body)
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            d = d - 9 if d > 9 else d
        total += d
    return str((10 - total % 10) % 10)


def isin_of(code: str) -> str:
    body = f"KR7{code[:5]}1" + "00" if code.endswith("5") else f"KR7{code}00"
    return body + isin_check_digit(body)


def tick(price: np.ndarray) -> np.ndarray:
    return np.select([price < 2000, price < 5000, price < 20000, price < 50000, price < 200000, price < 500000],
                     [1, 5, 10, 50, 100, 500], 1000)


def business_days(start: date, end: date) -> list[date]:
    holidays = {r["date"] for r in table_rows("holidays") if r["is_holiday"] == "Y"}
    out, d = [], start
    while d <= end:
        if d.weekday() < 5 and d not in holidays and not (d.month == 12 and d.day == 31):
            out.append(d)
        d += timedelta(days=1)
    return out


def latest_published(now: datetime) -> date:
    """The latest trading day whose data is out: D is published 13:00 KST on the next business day."""
    days = business_days(now.date() - timedelta(days=20), now.date() + timedelta(days=1))
    best = None
    for prev, nxt in zip(days, days[1:]):
        if datetime.combine(nxt, time(13, 0), tzinfo=KST) <= now:
            best = prev
    return best


def generate(ctx) -> dict:
    rng = ctx.rng("fsc")
    nprng = np.random.default_rng(int(rng.random() * 2**32))
    now = ctx.clock.now()
    last = latest_published(now)
    days = business_days(last - timedelta(days=DAYS_BACK), last)
    items = [dict(zip(("itmsNm", "srtnCd", "mrktCtg", "price", "shares_m", "corpNm"), r)) for r in REAL]
    used = {i["srtnCd"] for i in items}
    # common stock of Korean issuers (ISIN KR7<code>00x): codes ending in 0, not the 9xxxxx of
    # foreign issuers; SPACs left out
    listed = [r for r in table_rows("krx_listed_companies") if r["code"] not in used and "스팩" not in r["name"]
              and r["listed"] < last.isoformat() and r["code"].endswith("0") and not r["code"].startswith("9")]
    for r in rng.sample(listed, 150 - len(items)):
        name = r["name"]
        items.append({"itmsNm": name, "srtnCd": r["code"], "mrktCtg": r["market"],
                      "price": float(np.exp(rng.uniform(np.log(1500), np.log(90000)))),
                      "shares_m": rng.uniform(5, 80), "corpNm": f"{name}(주)" if rng.random() < 0.6 else f"(주){name}"})
    for it in items:
        it["isinCd"] = isin_of(it["srtnCd"])
        it["crno"] = f"{rng.randint(110111, 285011)}{rng.randint(0, 9999999):07d}"
    n, t = len(items), len(days)
    vol = np.array([0.018 if it["mrktCtg"] == "KOSPI" else 0.028 for it in items])[:, None]
    rets = nprng.normal(0.0004, 1, (n, t + 1)) * vol
    market_factor = nprng.normal(0, 0.009, t + 1)
    rets = np.clip(rets + market_factor, -0.29, 0.29)
    start = np.array([it["price"] for it in items], dtype=float)
    # end near the listed level: walk backwards from the reference price
    path = start[:, None] * np.exp(np.cumsum(rets, axis=1) - np.cumsum(rets, axis=1)[:, -1:])
    close = np.maximum(tick(path) * np.round(path / tick(path)), 1).astype(np.int64)
    prev = close[:, :-1]
    close = close[:, 1:]
    gap = nprng.normal(0, 0.006, (n, t))
    openp = prev * (1 + gap)
    openp = (tick(openp) * np.round(openp / tick(openp))).astype(np.int64)
    hi = np.maximum(openp, close) * (1 + np.abs(nprng.normal(0, 0.008, (n, t))))
    lo = np.minimum(openp, close) * (1 - np.abs(nprng.normal(0, 0.008, (n, t))))
    hi = (tick(hi) * np.ceil(hi / tick(hi))).astype(np.int64)
    lo = np.maximum(1, (tick(lo) * np.floor(lo / tick(lo)))).astype(np.int64)
    shares = np.array([int(it["shares_m"] * 1e6) + rng.randint(0, 999999) for it in items], dtype=np.int64)[:, None]
    turnover = nprng.lognormal(np.log(0.004), 0.5, (n, t))
    trqu = np.maximum(1000, (shares * turnover / np.where(shares > 3e8, 3, 1))).astype(np.int64)
    avg_px = (openp + close + hi + lo) / 4
    trprc = (trqu * avg_px).astype(np.int64)
    vs = close - prev
    flt = np.round(vs / prev * 100, 2)
    cap = close * shares
    bas = np.array([d.strftime("%Y%m%d") for d in days])
    cols = {
        "basDt": np.tile(bas, n),
        "srtnCd": np.repeat([it["srtnCd"] for it in items], t),
        "isinCd": np.repeat([it["isinCd"] for it in items], t),
        "itmsNm": np.repeat([it["itmsNm"] for it in items], t),
        "mrktCtg": np.repeat([it["mrktCtg"] for it in items], t),
        "clpr": close.ravel(), "vs": vs.ravel(), "fltRt_num": flt.ravel(), "mkp": openp.ravel(), "hipr": hi.ravel(),
        "lopr": lo.ravel(), "trqu": trqu.ravel(), "trPrc": trprc.ravel(), "lstgStCnt": np.repeat(shares.ravel(), t),
        "mrktTotAmt": cap.ravel(),
    }
    table = pa.table({k: pa.array(v.tolist() if v.dtype.kind == "U" else v) for k, v in cols.items()})
    flt_str = [f"{x:.2f}".rstrip("0").rstrip(".") if x != 0 else "0" for x in flt.ravel().tolist()]
    flt_str = [("0" + s if s.startswith(".") else s.replace("-.", "-0.")) for s in flt_str]
    table = table.append_column("fltRt", pa.array(flt_str))
    companies = pa.table({
        "srtnCd": [it["srtnCd"] for it in items], "isinCd": [it["isinCd"] for it in items],
        "itmsNm": [it["itmsNm"] for it in items], "mrktCtg": [it["mrktCtg"] for it in items],
        "crno": [it["crno"] for it in items], "corpNm": [it["corpNm"] for it in items],
    })
    return {"fsc_stock_prices": table, "fsc_items": companies}

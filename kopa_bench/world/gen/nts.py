"""NTS business registration status (odcloud): ~3000 business numbers with real check digits.

A 10-digit 사업자등록번호 is 세무서 code (3) + type (2: 01-79 individual taxable, 80 non-profit /
unique number, 81-88 corporation, 89-99 individual exempt) + serial (4) + check digit, where the
check digit uses the NTS weights 1,3,7,1,3,7,1,3,5. Statuses: 01 계속사업자 (~80%), 02 휴업자,
03 폐업자 (with end_dt). Numbers not in the table are answered as unregistered.
"""

from __future__ import annotations

from datetime import timedelta

DEPENDS: list[str] = []

WEIGHTS = (1, 3, 7, 1, 3, 7, 1, 3, 5)
TAX_TYPES = {
    "01": "부가가치세 일반과세자", "02": "부가가치세 간이과세자", "03": "부가가치세 과세특례자", "04": "부가가치세 면세사업자",
    "05": "수익사업을 영위하지 않는 비영리법인이거나 고유번호가 부여된 단체,국가기관 등", "06": "고유번호가 부여된 단체",
    "07": "부가가치세 간이과세자(세금계산서 발급사업자)",
}
STATUS = {"01": "계속사업자", "02": "휴업자", "03": "폐업자"}
FIXED = ["1208147521", "2208162517", "1248100998", "1048137225", "2118117046"]  # real-looking documented examples


def check_digit(first9: str) -> str:
    total = sum(int(d) * w for d, w in zip(first9, WEIGHTS))
    total += int(first9[8]) * 5 // 10
    return str((10 - total % 10) % 10)


def is_valid(b_no: str) -> bool:
    return len(b_no) == 10 and b_no.isdigit() and check_digit(b_no[:9]) == b_no[9]


def generate(ctx) -> dict:
    rng = ctx.rng("nts")
    today = ctx.clock.today()
    offices = [f"{x}" for x in list(range(101, 150)) + list(range(201, 230)) + list(range(301, 318)) + list(range(401, 420))
               + list(range(501, 516)) + list(range(601, 622)) + list(range(701, 712)) + [
               x for x in range(113, 145)] + list(range(214, 230))]
    rows, seen = [], set()

    def add(first9: str):
        b_no = first9 + check_digit(first9)
        if b_no in seen:
            return
        seen.add(b_no)
        kind = int(first9[3:5])
        if 81 <= kind <= 88:
            tax = "01" if rng.random() < 0.93 else "04"
        elif kind == 80:
            tax = rng.choice(["05", "06"])
        elif kind >= 89:
            tax = "04"
        else:
            tax = rng.choices(["01", "02", "07", "04"], weights=[55, 25, 10, 10])[0]
        r = rng.random()
        stt = "01" if r < 0.8 else "02" if r < 0.85 else "03"
        end_dt = ""
        if stt == "03":
            end_dt = (today - timedelta(days=rng.randint(10, 3000))).strftime("%Y%m%d")
        change = ""
        if tax in ("01", "02", "07") and rng.random() < 0.15:
            change = (today - timedelta(days=rng.randint(30, 2000))).strftime("%Y%m%d")
        invoice = (today - timedelta(days=rng.randint(30, 1500))).strftime("%Y%m%d") if tax == "07" else ""
        rows.append({
            "b_no": b_no, "b_stt": STATUS[stt], "b_stt_cd": stt, "tax_type": TAX_TYPES[tax], "tax_type_cd": tax,
            "end_dt": end_dt, "utcc_yn": "Y" if stt == "03" and rng.random() < 0.03 else "N",
            "tax_type_change_dt": change, "invoice_apply_dt": invoice,
            "rbf_tax_type": "해당없음" if not change else TAX_TYPES["02" if tax == "01" else "01"],
            "rbf_tax_type_cd": "99" if not change else ("02" if tax == "01" else "01"),
        })

    for b in FIXED:
        add(b[:9])
    while len(rows) < 3000:
        office = rng.choice(offices)
        kind = rng.choices([rng.randint(1, 79), 80, rng.randint(81, 88), rng.randint(89, 99)], weights=[60, 5, 30, 5])[0]
        add(f"{office}{kind:02d}{rng.randint(0, 9999):04d}")
    # the first documented example is always an active general taxpayer
    rows[0].update({"b_stt": "계속사업자", "b_stt_cd": "01", "tax_type": TAX_TYPES["01"], "tax_type_cd": "01", "end_dt": "",
                    "utcc_yn": "N", "tax_type_change_dt": "", "invoice_apply_dt": "", "rbf_tax_type": "해당없음", "rbf_tax_type_cd": "99"})
    return {"nts_business": rows}

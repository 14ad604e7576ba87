"""Answer normalisation: numbers, dates, names, bools, codes, records."""

import pytest

from kopa_bench.scoring.normalize import fact_in_text, value_in_records


@pytest.mark.parametrize("fact,text,ok", [
    ({"kind": "number", "value": 85000, "unit": "만원"}, "평균 8억 5천만 원", True),
    ({"kind": "number", "value": 85000, "unit": "만원"}, "85,000만원", True),
    ({"kind": "number", "value": 320000000}, "3억 2,000만원", True),
    ({"kind": "number", "value": 35.67}, "35.7㎍/㎥", True),
    ({"kind": "number", "value": 35.67}, "34㎍/㎥", False),
    ({"kind": "number", "value": 3}, "세 건이에요", True),
    ({"kind": "number", "value": 100, "tolerance": 2}, "약 99%", True),
    ({"kind": "date", "value": "20261130"}, "2026.11.30 기준", True),
    ({"kind": "date", "value": "2026-11-30"}, "11월 30일이에요", True),
    ({"kind": "date", "value": "2026-11-30"}, "11월 29일", False),
    ({"kind": "text", "value": "서울특별시 마포구"}, "서울 마포구", True),
    ({"kind": "text", "value": "시청역"}, "시청에 곧 도착", True),
    ({"kind": "text", "value": "홍길동(洪吉童)"}, "홍 길동 의원", True),
    ({"kind": "text", "value": "마포구을", "aliases": ["마포을"]}, "마포을 지역구", True),
    ({"kind": "bool", "value": False, "context": "공휴일"}, "맑아요. 내일은 공휴일이 아닙니다.", True),
    ({"kind": "bool", "value": True, "context": "공휴일"}, "비는 오지 않아요. 내일은 공휴일이에요.", True),
    ({"kind": "bool", "value": True, "context": "공휴일"}, "내일은 공휴일이 아니에요.", False),
    ({"kind": "code", "value": "1120000000"}, "코드 1120000000", True),
    ({"kind": "code", "value": "11200"}, "코드 1120000000", False),
])
def test_fact_in_text(fact, text, ok):
    assert fact_in_text(fact, text) is ok


def test_value_in_records():
    recs = [{"dealAmount": " 85,000", "aptNm": "래미안 옥수", "dealYmd": "2026.11.03"}]
    assert value_in_records({"kind": "number", "value": 85000}, recs)
    assert value_in_records("래미안옥수", recs)
    assert value_in_records({"kind": "date", "value": "20261103"}, recs)
    assert not value_in_records({"kind": "number", "value": 85001}, recs)

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


# ---- issue 21: answers read as a Korean reader reads them ---------------------------------------
from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from kopa_bench.scoring.normalize import canon, items_stated, label_stated  # noqa: E402

GRADES = {"1": ["좋음", "good"], "2": ["보통", "moderate"], "3": ["나쁨", "bad"], "4": ["매우나쁨", "very bad"]}
PTY = {"0": ["없음", "강수없음"], "1": ["비", "rain"], "2": ["비/눈", "진눈깨비"], "3": ["눈", "snow"]}


@pytest.mark.parametrize("fact,text,ok", [
    # one normaliser on both sides: the value copied verbatim is stated, with or without its parentheses
    ({"kind": "text", "value": "현미밥<br/>돼지불고기(10.13)<br/>배추김치(9)"}, "메뉴: 현미밥<br/>돼지불고기(10.13)<br/>배추김치(9)", True),
    ({"kind": "text", "value": "돼지불고기(10.13)"}, "돼지불고기가 나와요", True),
    ({"kind": "text", "value": "기술ㆍ가정"}, "1교시는 기술·가정", True),
    ({"kind": "text", "value": "측정소"}, "가장 가까운 곳(종로구 측정소)", True),
    # number prefixes: dropped either way, never a different number
    ({"kind": "text", "value": "3943. 염곡동 주민센터 앞"}, "염곡동 주민센터 앞 대여소", True),
    ({"kind": "text", "value": "3943. 염곡동 주민센터 앞"}, "3943.염곡동 주민센터 앞", True),
    ({"kind": "text", "value": "염곡동 주민센터 앞"}, "3943. 염곡동 주민센터 앞", True),
    ({"kind": "text", "value": "3943. 염곡동 주민센터 앞"}, "3944. 염곡동 주민센터 앞", False),
    ({"kind": "text", "value": "3943. 염곡동 주민센터 앞"}, "염곡동 주민센터", False),
    # Korean number forms and units
    ({"kind": "number", "value": 228110, "unit": "만원"}, "22억 8,110만원", True),
    ({"kind": "number", "value": 228110, "unit": "만원"}, "228110 만원", True),
    ({"kind": "number", "value": 228110, "unit": "만원"}, "2,281,100,000원", True),
    ({"kind": "number", "value": 2281100000, "unit": "원"}, "22억 8,110만 원", True),
    ({"kind": "number", "value": 22.811, "unit": "억원"}, "22억 8,110만원", True),
    ({"kind": "number", "value": 228110, "unit": "만원"}, "22억 8,100만원", False),
    ({"kind": "number", "value": 228110, "unit": "만원"}, "228,110원", False),
    ({"kind": "number", "value": 1400, "unit": "원"}, "1천4백원", True),
    ({"kind": "number", "value": 1203.5, "unit": "m", "tolerance": 10}, "약 1.2km", True),
    ({"kind": "number", "value": 1203.5, "unit": "m", "tolerance": 10}, "약 1.2m", False),
    ({"kind": "number", "value": 1.2, "unit": "km"}, "1,200m", True),
    ({"kind": "number", "value": 2.3, "unit": "m/s"}, "풍속 2.3m/s", True),
    ({"kind": "number", "value": 35, "unit": "㎍/㎥"}, "35μg/m³", True),
    ({"kind": "number", "value": 1250, "unit": "명"}, "1,250명", True),
    ({"kind": "number", "value": 44, "unit": "조"}, "제44조", True),
    # yes/no in natural phrasing and its negation
    ({"kind": "bool", "value": True, "context": "1,400"}, "환율은 1,453원으로 1,400원을 넘었습니다.", True),
    ({"kind": "bool", "value": False, "context": "1,400"}, "환율은 1,453원으로 1,400원을 넘었습니다.", False),
    ({"kind": "bool", "value": False, "context": "1,400"}, "1,400원을 넘지 않았습니다.", True),
    ({"kind": "bool", "value": True, "context": "1,400"}, "1,400원을 넘지 않았습니다.", False),
    ({"kind": "bool", "value": False, "context": "1,400"}, "아직 1,400원을 안 넘었어요", True),
    ({"kind": "bool", "value": True, "context": "비"}, "내일 아침엔 비가 옵니다", True),
    ({"kind": "bool", "value": True, "context": "비"}, "내일 비 예보", False),
    ({"kind": "bool", "value": True, "context": "snow"}, "Yes, it will snow now.", True),
    ({"kind": "bool", "value": False, "context": "snow"}, "It will not snow now.", True),
    ({"kind": "bool", "value": True, "context": "snow"}, "It won't snow tonight.", False),
    ({"kind": "bool", "value": True, "context": "holiday"}, "It's a public holiday.", True),
    ({"kind": "bool", "value": True, "context": "1,400"}, "The rate exceeded 1,400 won.", True),
    ({"kind": "bool", "value": False, "context": "1,400"}, "The rate hasn't exceeded 1,400 won.", True),
    ({"kind": "bool", "value": True, "context": "1,400"}, "The rate hasn't exceeded 1,400 won.", False),
    ({"kind": "bool", "value": True, "context": "공휴일"}, "그날은 공휴일이라 안내드려요.", True),
    # code -> label from the catalog's field codes
    ({"kind": "code", "value": "2", "codes": GRADES}, "미세먼지는 보통이에요", True),
    ({"kind": "code", "value": "2", "codes": GRADES}, "미세먼지 등급 2", True),
    ({"kind": "code", "value": "2", "codes": GRADES}, "Air quality is moderate.", True),
    ({"kind": "code", "value": "3", "codes": GRADES}, "미세먼지는 매우 나쁨입니다", False),
    ({"kind": "code", "value": "4", "codes": GRADES}, "미세먼지는 매우 나쁨입니다", True),
    ({"kind": "code", "value": "2", "codes": GRADES}, "미세먼지는 나쁨이에요", False),
    ({"kind": "code", "value": "1", "codes": PTY}, "강수 없음, 우산은 준비 안 해도 돼요", False),
    ({"kind": "code", "value": "1", "codes": PTY}, "비는 오지 않습니다", False),
    ({"kind": "code", "value": "1", "codes": PTY}, "비가 와요", True),
    ({"kind": "code", "value": "2", "codes": PTY}, "비/눈이 섞여 내려요", True),
    ({"kind": "code", "value": "1", "codes": PTY}, "비/눈이 섞여 내려요", False),
    ({"kind": "code", "value": "0", "codes": PTY}, "강수형태: 강수 없음", True),
    # list facts
    ({"kind": "list", "value": ["현미밥", "돼지불고기(10.13)", "배추김치(9)"]}, "배추김치, 현미밥, 돼지불고기가 나와요", True),
    ({"kind": "list", "value": ["현미밥", "돼지불고기(10.13)", "배추김치(9)"]}, "현미밥, 김치찌개, 배추김치가 나와요", False),
    ({"kind": "list", "value": ["현미밥", "돼지불고기(10.13)", "배추김치(9)"], "need": "any"}, "김치찌개와 현미밥", True),
    ({"kind": "list", "value": ["현미밥", "돼지불고기(10.13)", "배추김치(9)"], "need": 2}, "김치찌개와 현미밥", False),
    ({"kind": "list", "value": ["현미밥", "돼지불고기(10.13)", "배추김치(9)"], "need": 2}, "돼지불고기와 현미밥", True),
    ({"kind": "list", "value": ["가", "나다", "라"], "ordered": True}, "가, 나다, 라", True),
    ({"kind": "list", "value": ["가", "나다", "라"], "ordered": True}, "가, 라, 나다", False),
    ({"kind": "list", "value": [12, 7.5], "item_kind": "number", "unit": "건"}, "7.5건과 12건", True),
    ({"kind": "list", "value": [12, 7.5], "item_kind": "number", "unit": "건"}, "7.5건과 13건", False),
    ({"kind": "list", "value": ["0630", "2230"], "item_kind": "code", "ordered": True}, "첫차 0630, 막차 2230", True),
    ({"kind": "text", "value": ["강릉 커피축제", "평창송어축제"]}, "평창송어축제와 강릉 커피축제", True),
    ({"kind": "list", "value": []}, "아무거나", False),
])
def test_answer_rules(fact, text, ok):
    assert fact_in_text(fact, text) is ok


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("가나다서울특별시역 ()<br/>.,·ㆍ-0123456789ABab\t")), min_size=1, max_size=24))
def test_a_value_copied_verbatim_is_stated(value):
    """One normaliser on both sides: whatever the gold text is, an answer quoting it states it."""
    assume(canon(value))
    assert fact_in_text({"kind": "text", "value": value}, f"조회 결과: {value} 입니다")


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 99), st.integers(0, 9999))
def test_korean_money_forms(eok, man):
    """N억 M만원, its 만원 and 원 forms state the same amount; one 만원 more is another amount."""
    total = eok * 10_000 + man
    forms = [f"{eok}억 {man:,}만원" if man else f"{eok}억원", f"{total:,}만원", f"{total * 10_000:,}원"]
    for text in forms:
        assert fact_in_text({"kind": "number", "value": total, "unit": "만원"}, text), text
        assert not fact_in_text({"kind": "number", "value": total + 1, "unit": "만원"}, text), text


@settings(max_examples=200, deadline=None)
@given(st.permutations(["현미밥", "돼지불고기(10.13)", "배추김치(9)", "우유(2)"]), st.sampled_from([", ", "와 ", " / ", "\n- "]))
def test_unordered_list_in_any_order_and_rendering(items, sep):
    bare = [i.split("(")[0] for i in items]
    assert fact_in_text({"kind": "list", "value": ["현미밥", "돼지불고기(10.13)", "배추김치(9)", "우유(2)"]}, sep.join(bare))
    assert not fact_in_text({"kind": "list", "value": ["현미밥", "제육볶음", "배추김치(9)", "우유(2)"]}, sep.join(bare))


@pytest.mark.parametrize("verb_yes,verb_no", [("넘었습니다", "넘지 않았습니다"), ("넘었어요", "넘지 않았어요"),
                                              ("넘어요", "안 넘어요"), ("넘었음", "넘지 못했음"), ("초과했습니다", "초과하지 않았습니다")])
@pytest.mark.parametrize("context", ["1,400", "950원", "3%"])
def test_yes_and_its_negation(verb_yes, verb_no, context):
    yes, no = f"지금 값은 {context}을 {verb_yes}.", f"지금 값은 {context}을 {verb_no}."
    assert fact_in_text({"kind": "bool", "value": True, "context": context}, yes)
    assert not fact_in_text({"kind": "bool", "value": False, "context": context}, yes)
    assert fact_in_text({"kind": "bool", "value": False, "context": context}, no)
    assert not fact_in_text({"kind": "bool", "value": True, "context": context}, no)


@pytest.mark.parametrize("code", sorted(GRADES))
def test_each_grade_label_names_its_code_only(code):
    for label in GRADES[code]:
        text = f"지금 등급은 {label}입니다"
        assert [c for c in GRADES if label_stated(c, GRADES, text)] == [code], label


@pytest.mark.parametrize("prefix,other", [("3943", "3944"), ("102", "1020"), ("7", "17")])
def test_number_prefix_never_makes_two_stations_equal(prefix, other):
    fact = {"kind": "text", "value": f"{prefix}. 망원역 1번출구 앞"}
    assert fact_in_text(fact, "망원역 1번출구 앞 대여소")
    assert fact_in_text(fact, f"{prefix}. 망원역 1번출구 앞")
    assert not fact_in_text(fact, f"{other}. 망원역 1번출구 앞")


def test_items_stated_names_what_was_said():
    fact = {"kind": "list", "value": ["a", "b", "c"], "ordered": True}
    assert items_stated(fact, "a then c then b") == ["a", "b"]  # the first in-order run, in gold order
    assert items_stated({**fact, "ordered": False}, "c, b") == ["b", "c"]


def test_list_facts_in_records():
    recs = [{"DDISH_NM": "현미밥<br/>돼지불고기(10.13)<br/>배추김치(9)"}]
    assert value_in_records({"kind": "list", "value": ["현미밥", "돼지불고기(10.13)"]}, recs)
    assert not value_in_records({"kind": "list", "value": ["현미밥", "제육볶음"]}, recs)


@pytest.mark.parametrize("value,text,ok", [("39", "값은 39㎍/㎥", True), ("39", "값은 139㎍/㎥", False), ("39", "3.9", False),
                                           ("5", "마지막은 5교시", True), ("5", "15교시", False),
                                           ("39", "39.5㎍/㎥", False), ("39", "1.39", False), ("39", "39, 40", True),
                                           ("783.1 Kcal", "783.1kcal", True), ("783.1 Kcal", "1783.1 kcal", False)])
def test_numbers_in_text_facts_are_whole(value, text, ok):
    assert fact_in_text({"kind": "text", "value": value}, text) is ok

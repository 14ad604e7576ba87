"""What a reader reads of a final answer: prose, not echoed tool output (scoring/answer_text.py)."""

from kopa_bench.scoring.answer_text import read_answer


def test_prose_is_kept_whole():
    text = "혜화동 근처 측정소는 종로구이고 PM10은 38㎍/㎥입니다. [참고] 1시간 평균값이에요."
    assert read_answer(text).prose == text and read_answer(text).echoed == 0


def test_echoed_json_lines_and_error_objects_are_removed():
    text = ('{"resultCode": "00", "totalCount": 2, "items": [{"pm10Value": "38"}, {"pm10Value": "41"}]}\n'
            '{"error": {"type": "argument", "message": "unknown parameter(s) [\'CYCLE\']"}}')
    got = read_answer(text)
    assert got.echoed == 2 and got.prose == ""


def test_a_dump_cut_off_mid_record_is_removed_to_its_line_end():
    got = read_answer('{"resultCode": "0000", "items": [{"rnum": 1, "code": "1", "name": "강남구"}, {"rnum": 2,\n그래서 답은 4일입니다.')
    assert got.echoed == 1 and got.prose.strip() == "그래서 답은 4일입니다."


def test_pretty_printed_json_and_tool_markup_are_removed_but_the_sentence_stays():
    text = '<tool_response>\n{\n  "totalCount": 4,\n  "items": []\n}\n</tool_response>\n공휴일은 4일이에요.'
    got = read_answer(text)
    assert got.echoed == 1 and "4" not in got.prose.replace("4일이에요", "") and "공휴일은 4일이에요." in got.prose


def test_bracketed_prose_is_not_json():
    for text in ("[1] 강남구 297건", "{강남구} 297건", "[ 참고 ] 297건"):
        assert read_answer(text).prose == text

"""Golden cases for kopa_bench.runner.parsing: every tool-call format real models emit."""

from __future__ import annotations

import json

import pytest

from kopa_bench.runner.parsing import ParsedOutput, parse_assistant_output, parse_with_tokenizer


def _calls(out: ParsedOutput) -> list[tuple[str, dict | None]]:
    return [(c.name, c.arguments) for c in out.tool_calls]


def _assert_ok(out: ParsedOutput) -> None:
    assert out.errors == []
    assert all(c.error is None for c in out.tool_calls)


# -------------------------------------------------------------------------------- Hermes / Qwen


def test_hermes_single_with_text_before():
    text = (
        "대기질을 조회하겠습니다.\n<tool_call>\n"
        '{"name": "airkorea_getNearbyMsrstnList", "arguments": {"tmX": 244148.5, "tmY": 412423.7}}\n'
        "</tool_call><|im_end|>"
    )
    out = parse_assistant_output(text, id_prefix="call_2")
    _assert_ok(out)
    assert _calls(out) == [("airkorea_getNearbyMsrstnList", {"tmX": 244148.5, "tmY": 412423.7})]
    assert out.tool_calls[0].id == "call_2_0"
    assert out.content == "대기질을 조회하겠습니다."


def test_hermes_several_calls_and_string_arguments():
    text = (
        '<tool_call>\n{"name": "a", "arguments": {"x": 1}}\n</tool_call>\n'
        '<tool_call>\n{"name": "b", "arguments": "{\\"y\\": \\"서울\\"}"}\n</tool_call>'
    )
    out = parse_assistant_output(text, id_prefix="call_0")
    _assert_ok(out)
    assert _calls(out) == [("a", {"x": 1}), ("b", {"y": "서울"})]
    assert [c.id for c in out.tool_calls] == ["call_0_0", "call_0_1"]
    assert out.content == ""


def test_hermes_unclosed_last_block():
    out = parse_assistant_output('<tool_call>\n{"name": "a", "arguments": {"q": "x"}}')
    _assert_ok(out)
    assert _calls(out) == [("a", {"q": "x"})]


def test_hermes_raw_is_the_block_body():
    body = '{"name": "a", "arguments": {"q": "x"}}'
    out = parse_assistant_output(f"<tool_call>{body}</tool_call>")
    assert out.tool_calls[0].raw == body


def test_openai_shape_inside_tag():
    text = '<tool_call>{"type": "function", "function": {"name": "a", "arguments": "{\\"k\\": 1}"}}</tool_call>'
    out = parse_assistant_output(text)
    _assert_ok(out)
    assert _calls(out) == [("a", {"k": 1})]


def test_qwen3_coder_xml_body():
    text = (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nSeoul\n</parameter>\n"
        "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
    )
    out = parse_assistant_output(text)
    _assert_ok(out)
    assert _calls(out) == [("get_weather", {"city": "Seoul", "days": 3})]


def test_python_literal_inside_tag_is_accepted():
    out = parse_assistant_output("<tool_call>{'name': 'a', 'arguments': {'flag': True}}</tool_call>")
    _assert_ok(out)
    assert _calls(out) == [("a", {"flag": True})]


def test_think_block_goes_to_reasoning():
    text = '<think>I need the station list.</think>\n<tool_call>{"name": "a", "arguments": {}}</tool_call>'
    out = parse_assistant_output(text)
    assert out.reasoning == "I need the station list."
    assert _calls(out) == [("a", {})]
    assert out.content == ""


def test_orphan_think_close_from_prefilled_template():
    out = parse_assistant_output("thinking here</think>\n\n최종 답: 42")
    assert out.reasoning == "thinking here"
    assert out.content == "최종 답: 42"


# -------------------------------------------------------------------------------- fenced JSON


def test_fenced_json_single_object_qwen_coder_style():
    text = 'I will call the tool.\n```json\n{"name": "a", "arguments": {"x": "1"}}\n```\nDone.'
    out = parse_assistant_output(text)
    _assert_ok(out)
    assert _calls(out) == [("a", {"x": "1"})]
    assert out.content == "I will call the tool.\n\nDone."


def test_fenced_json_list():
    text = '```json\n[{"name": "a", "arguments": {}}, {"name": "b", "parameters": {"z": [1, 2]}}]\n```'
    out = parse_assistant_output(text)
    _assert_ok(out)
    assert _calls(out) == [("a", {}), ("b", {"z": [1, 2]})]
    assert json.loads(out.tool_calls[1].raw) == {"name": "b", "parameters": {"z": [1, 2]}}


def test_fenced_json_two_objects_back_to_back():
    text = '```json\n{"name": "a", "arguments": {}}\n{"name": "b", "arguments": {}}\n```'
    assert _calls(parse_assistant_output(text)) == [("a", {}), ("b", {})]


def test_fenced_json_that_is_not_a_call_stays_content():
    text = 'Result:\n```json\n{"stationName": "종로구", "pm10": "31"}\n```'
    out = parse_assistant_output(text)
    assert out.tool_calls == []
    assert '"stationName"' in out.content


def test_fenced_broken_call_is_an_error_not_content():
    text = '```json\n{"name": "a", "arguments": {"x": 1,}\n```'
    out = parse_assistant_output(text)
    assert len(out.tool_calls) == 1
    call = out.tool_calls[0]
    assert call.error and "JSON" in call.error
    assert call.name == "a" and call.arguments is None
    assert out.errors and out.errors[0].startswith("call_0_0:")


# -------------------------------------------------------------------------------- bare JSON / Llama


def test_bare_json_object_with_parameters_llama():
    out = parse_assistant_output('{"name": "get_weather", "parameters": {"city": "Seoul"}}<|eot_id|>')
    _assert_ok(out)
    assert _calls(out) == [("get_weather", {"city": "Seoul"})]
    assert out.content == ""


def test_bare_json_list_and_text_around():
    text = 'Calling: [{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {}}] now'
    out = parse_assistant_output(text)
    _assert_ok(out)
    assert _calls(out) == [("a", {"x": 1}), ("b", {})]
    assert out.content == "Calling:  now"


def test_bare_json_arguments_encoded_string():
    out = parse_assistant_output('{"name": "a", "arguments": "{\\"n\\": 5}"}')
    assert _calls(out) == [("a", {"n": 5})]


def test_bare_tool_calls_wrapper():
    out = parse_assistant_output('{"tool_calls": [{"name": "a", "arguments": {}}]}')
    assert _calls(out) == [("a", {})]


def test_llama_python_tag_multiple():
    text = '<|python_tag|>{"name": "a", "parameters": {"x": 1}}; {"name": "b", "parameters": {}}<|eom_id|>'
    out = parse_assistant_output(text)
    _assert_ok(out)
    assert _calls(out) == [("a", {"x": 1}), ("b", {})]


def test_llama_python_tag_builtin_call():
    out = parse_assistant_output('<|python_tag|>brave_search.call(query="서울 날씨")')
    assert _calls(out) == [("brave_search", {"query": "서울 날씨"})]


def test_llama_missing_closing_brace_is_repaired():
    out = parse_assistant_output('{"name": "a", "parameters": {"x": 1}')
    assert _calls(out) == [("a", {"x": 1})]


def test_pythonic_list_llama32():
    out = parse_assistant_output('[get_weather(city="Seoul"), get_time(tz="Asia/Seoul", n=2)]')
    _assert_ok(out)
    assert _calls(out) == [("get_weather", {"city": "Seoul"}), ("get_time", {"tz": "Asia/Seoul", "n": 2})]


def test_json_answer_with_name_but_no_arguments_is_content():
    text = 'The nearest station: {"name": "종로구", "distance": 1.2}'
    out = parse_assistant_output(text)
    assert out.tool_calls == []
    assert out.content == text


def test_nested_call_shaped_object_inside_answer_json_is_not_a_call():
    text = '{"answer": {"name": "a", "arguments": {}}}'
    assert parse_assistant_output(text).tool_calls == []


# -------------------------------------------------------------------------------- Mistral


def test_mistral_list_format():
    out = parse_assistant_output('[TOOL_CALLS] [{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {}}]</s>')
    _assert_ok(out)
    assert _calls(out) == [("a", {"x": 1}), ("b", {})]
    assert out.content == ""


def test_mistral_new_format_with_call_id():
    text = 'ok[TOOL_CALLS]a[ARGS]{"x": 1}[TOOL_CALLS]b[CALL_ID]abc123xyz[ARGS]{"y": "z"}'
    out = parse_assistant_output(text)
    _assert_ok(out)
    assert _calls(out) == [("a", {"x": 1}), ("b", {"y": "z"})]
    assert out.content == "ok"


def test_mistral_new_format_bad_json():
    out = parse_assistant_output('[TOOL_CALLS]a[ARGS]{"x": ')
    assert out.tool_calls[0].name == "a"
    assert out.tool_calls[0].error and out.tool_calls[0].arguments is None


# -------------------------------------------------------------------------------- malformed


@pytest.mark.parametrize(
    ("text", "needle", "name"),
    [
        ('<tool_call>{"name": "a", "arguments": {"x": </tool_call>', "invalid JSON", "a"),
        ('<tool_call>{"arguments": {"x": 1}}</tool_call>', 'no "name"', ""),
        ('<tool_call>{"name": "", "arguments": {}}</tool_call>', 'no "name"', ""),
        ('<tool_call>{"name": "a", "arguments": [1, 2]}</tool_call>', "must be a JSON object, got list", "a"),
        ('<tool_call>{"name": "a", "arguments": "not json"}</tool_call>', "not valid JSON", "a"),
        ('<tool_call>{"name": "a", "arguments": "[1]"}</tool_call>', "got list", "a"),
        ("<tool_call>[1, 2]</tool_call>", "must be a JSON object, got int", ""),
        ("<tool_call>  </tool_call>", "empty", ""),
        ('<tool_call>"just a string"</tool_call>', "got str", ""),
        ('{"name": "a", "arguments": 7}', "got int", "a"),
    ],
)
def test_malformed_calls_become_errors(text, needle, name):
    out = parse_assistant_output(text, id_prefix="call_3")
    assert out.tool_calls, f"no call found in {text!r}"
    call = out.tool_calls[0]
    assert call.error is not None and needle in call.error, call.error
    assert call.arguments is None
    assert call.name == name
    assert call.id == "call_3_0"
    assert any(e.startswith("call_3_0:") for e in out.errors)


def test_malformed_and_valid_calls_keep_order():
    text = '<tool_call>{"name": "a", "arguments": {}}</tool_call><tool_call>{bad</tool_call><tool_call>{"name": "c", "arguments": {}}</tool_call>'
    out = parse_assistant_output(text)
    assert [c.name for c in out.tool_calls] == ["a", "", "c"]
    assert [c.error is None for c in out.tool_calls] == [True, False, True]
    assert [c.id for c in out.tool_calls] == ["call_0_0", "call_0_1", "call_0_2"]


# -------------------------------------------------------------------------------- plain answers


@pytest.mark.parametrize(
    "text",
    ["", "서울 종로구의 PM10은 31㎍/㎥입니다.", "Use ```bash\nls\n``` to list.", "a { b [ c", "[1, 2, 3]"],
)
def test_plain_answers_have_no_calls(text):
    out = parse_assistant_output(text)
    assert out.tool_calls == [] and out.errors == []
    assert out.content == text.strip()


def test_none_and_end_tokens():
    assert parse_assistant_output(None).content == ""
    assert parse_assistant_output("답: 3<|im_end|><|endoftext|>").content == "답: 3"


# -------------------------------------------------------------------------------- tokenizer helper


class _FakeTok:
    """Stands in for a transformers 5 tokenizer with a response_template."""

    def __init__(self, message=None, exc=None):
        self.response_template = {"fake": True} if (message or exc) else None
        self._message, self._exc, self.seen = message, exc, None

    def parse_response(self, text, schema=None, *, prefix=None, tools=None):
        self.seen = (text, prefix, tools)
        if self._exc:
            raise self._exc
        return self._message


def test_parse_with_tokenizer_uses_response_template():
    msg = {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"type": "function", "function": {"name": "a", "arguments": {"x": 1}}}],
    }
    tok = _FakeTok(message=msg)
    out = parse_with_tokenizer(tok, "whatever", prefix="<prompt>", tools=[], id_prefix="call_4")
    assert _calls(out) == [("a", {"x": 1})]
    assert out.tool_calls[0].id == "call_4_0"
    assert tok.seen == ("whatever", "<prompt>", [])


def test_parse_with_tokenizer_falls_back():
    text = '<tool_call>{"name": "b", "arguments": {}}</tool_call>'
    for tok in (_FakeTok(), _FakeTok(exc=ValueError("no match")), object()):
        assert _calls(parse_with_tokenizer(tok, text)) == [("b", {})]


def test_end_and_think_tokens_inside_arguments_survive():
    text = '<tool_call>{"name": "a", "arguments": {"s": "</s> <think>x</think>"}}</tool_call><|im_end|>'
    out = parse_assistant_output(text)
    assert _calls(out) == [("a", {"s": "</s> <think>x</think>"})]
    assert out.reasoning == ""

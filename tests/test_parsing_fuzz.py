"""Fuzz parse_assistant_output: random text with injected tag/JSON fragments must never raise."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kopa_bench.runner.parsing import ParsedOutput, parse_assistant_output

_FRAGMENTS = [
    "<tool_call>", "</tool_call>", "<think>", "</think>", "<|python_tag|>", "[TOOL_CALLS]", "[ARGS]",
    "[CALL_ID]", "<|im_end|>", "<|eot_id|>", "</s>", "```json\n", "```", "```\n", "{", "}", "[", "]",
    '"name"', '"arguments"', '"parameters"', ":", ",", ";", '"', "\\", "\n", "null", "true", "1e999",
    '{"name": "a", "arguments": {"x": 1}}', '{"name": "b", "parameters": "{\\"y\\": 2}"}',
    '[{"name": "c", "arguments": {}}]', '{"name": ', '"arguments": [1]', "<function=f>",
    "<parameter=x>", "</parameter>", "</function>", "f(a=1)", "[g(b='x')]", "{'name': 'p', 'arguments': {}}",
    '{"tool_calls": [', '{"type": "function", "function": {"name": "d", "arguments": "{}"}}',
    "서울", "종로구 PM10", "\x00", "\u2028", "NaN",
]

_text = st.lists(
    st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=12)),
    max_size=25,
).map("".join)


def _well_formed(out: ParsedOutput, prefix: str) -> None:
    assert isinstance(out, ParsedOutput)
    assert isinstance(out.content, str) and isinstance(out.reasoning, str)
    ids = [c.id for c in out.tool_calls]
    assert ids == [f"{prefix}_{i}" for i in range(len(ids))]
    for call in out.tool_calls:
        assert isinstance(call.name, str) and isinstance(call.raw, str)
        if call.error is None:
            assert call.name and isinstance(call.arguments, dict)
            json.dumps(call.arguments)  # what we execute must be serialisable
        else:
            assert isinstance(call.error, str) and call.error
            assert call.arguments is None
    n_errors = sum(c.error is not None for c in out.tool_calls)
    assert len(out.errors) == n_errors
    assert not any("internal parser error" in e for e in out.errors)


@settings(
    max_examples=3000,
    deadline=None,  # per-example timing is noisy on 2 shared cores; the total is what matters
    derandomize=True,  # reproducible in CI, no example database needed
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(text=_text, turn=st.integers(min_value=0, max_value=99))
def test_parse_never_raises_and_is_well_formed(text, turn):
    prefix = f"call_{turn}"
    _well_formed(parse_assistant_output(text, id_prefix=prefix), prefix)


@settings(max_examples=500, deadline=None, derandomize=True, database=None)
@given(
    name=st.from_regex(r"[A-Za-z_][A-Za-z0-9_.\-]{0,30}", fullmatch=True),
    # '<' and '`' excluded: a literal "</tool_call>" inside an argument ends the block for every parser
    args=st.dictionaries(
        st.text(alphabet=st.characters(blacklist_characters="<`"), max_size=8),
        st.one_of(st.integers(), st.text(alphabet=st.characters(blacklist_characters="<`"), max_size=8), st.booleans()),
        max_size=4,
    ),
    before=st.text(alphabet=st.characters(blacklist_characters="{}[]<>`\\\""), max_size=20),
)
def test_roundtrip_hermes(name, args, before):
    """Any valid call rendered in Hermes format comes back exactly."""
    body = json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
    out = parse_assistant_output(f"{before}<tool_call>\n{body}\n</tool_call>")
    assert [(c.name, c.arguments, c.error) for c in out.tool_calls] == [(name, args, None)]

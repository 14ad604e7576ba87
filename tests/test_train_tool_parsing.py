"""train.tool_parsing: TRL executes the calls the benchmark runner would execute."""
from train.tool_parsing import align_with_runner, runner_calls


class FakeTokenizer:
    """parse_response like transformers' with a Hermes template: only <tool_call> tags are calls."""

    def __init__(self, text: str, raise_on_parse: bool = False):
        self.text, self.raise_on_parse, self.native_calls = text, raise_on_parse, 0

    def decode(self, ids, skip_special_tokens=True):
        return self.text

    def parse_response(self, ids, prefix=None, tools=None):
        self.native_calls += 1
        if self.raise_on_parse:
            raise ValueError("malformed")
        if "<tool_call>" in self.text:
            return {"role": "assistant", "content": "", "tool_calls": [
                {"type": "function", "function": {"name": "native", "arguments": {}}}]}
        return {"role": "assistant", "content": self.text}


def test_fenced_json_call_becomes_a_tool_call():
    tok = FakeTokenizer('```json\n{"name": "juso_addrLinkApi", "arguments": {"keyword": "세종대로 110"}}\n```')
    align_with_runner(tok)
    out = tok.parse_response([1, 2], prefix=[0])
    assert out["tool_calls"] == [{"type": "function", "function": {"name": "juso_addrLinkApi",
                                                                   "arguments": {"keyword": "세종대로 110"}}}]
    assert out["role"] == "assistant" and "juso" not in out["content"]


def test_native_calls_and_plain_answers_pass_through():
    tok = FakeTokenizer("<tool_call>{}</tool_call>")
    align_with_runner(tok)
    assert tok.parse_response([1])["tool_calls"][0]["function"]["name"] == "native"
    tok = FakeTokenizer("종로구의 PM10은 32㎍/㎥입니다.")
    align_with_runner(tok)
    assert tok.parse_response([1]) == {"role": "assistant", "content": "종로구의 PM10은 32㎍/㎥입니다."}


def test_malformed_calls_are_not_executed_and_native_errors_still_raise():
    content, calls = runner_calls('```json\n{"name": "juso_addrLinkApi", "arguments": "not an object"}\n```')
    assert calls == []
    tok = FakeTokenizer("plain text", raise_on_parse=True)
    align_with_runner(tok)
    try:
        tok.parse_response([1])
    except ValueError:
        pass  # TRL's own fallback (decode as text) handles it, as without the wrapper
    else:
        raise AssertionError("expected the native error when neither parser finds a call")


def test_wrapping_twice_is_harmless():
    tok = FakeTokenizer('{"name": "a_b", "arguments": {"x": 1}}')
    align_with_runner(tok)
    align_with_runner(tok)
    assert tok.parse_response([1])["tool_calls"][0]["function"] == {"name": "a_b", "arguments": {"x": 1}}
    assert tok.native_calls == 1

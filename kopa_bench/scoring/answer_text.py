"""The part of a final answer a reader reads: prose, without echoed tool output.

Small models often end an episode by pasting a tool result (or an error object, or a call) as their
answer. A JSON dump of a page of records contains most small numbers and many names, so reading facts
out of it would credit an answer nobody could use; a reader sees no answer there. So JSON documents,
JSON lines cut off mid-record, and tool-call markup are removed before facts are looked for.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_DECODER = json.JSONDecoder()
# a JSON object or array opening a line (after optional markup or a fence): `{"key"`, `[{`, `[ "`, `{}`
_JSON_START = re.compile(r'^[ \t]*(?:```(?:json)?[ \t]*\n?[ \t]*)?(?=[\[{][ \t]*(?:["{\[\]}]|$))', re.M)
_MARKUP = re.compile(r"</?(?:tool_call|tool_response|tools|function_call|function)>|^[ \t]*```(?:json)?[ \t]*$", re.M)


@dataclass(frozen=True)
class AnswerText:
    prose: str
    echoed: int  # JSON blocks removed


def _json_span(text: str, start: int) -> int:
    """End of the JSON value at `start`: the whole value if it parses, else the rest of its line
    (a dump cut off by the token limit)."""
    try:
        _, end = _DECODER.raw_decode(text, start)
        return end
    except json.JSONDecodeError:
        nl = text.find("\n", start)
        return len(text) if nl < 0 else nl


def read_answer(text: str | None) -> AnswerText:
    """`text` without the JSON it echoes and without tool markup."""
    text = text or ""
    if "{" not in text and "[" not in text and "<" not in text:
        return AnswerText(text, 0)
    parts, pos, echoed = [], 0, 0
    for m in _JSON_START.finditer(text):
        start = m.end()
        if start < pos:
            continue
        parts.append(text[pos:m.start()])
        pos = _json_span(text, start)
        echoed += 1
    parts.append(text[pos:])
    prose = _MARKUP.sub(" ", "".join(parts))
    return AnswerText(prose if prose.strip() else "", echoed)

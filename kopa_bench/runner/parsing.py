"""Parse tool calls out of a model's raw assistant text.

Open models do not agree on how a tool call looks in text. This module recognises the formats
seen in practice and turns them into :class:`ParsedCall` objects:

* Hermes / Qwen2.5 / Qwen3: ``<tool_call>{"name": .., "arguments": {..}}</tool_call>`` (several per
  message; an unclosed last block is accepted because generation often stops on the close tag),
  and the Qwen3-Coder XML body ``<tool_call><function=f><parameter=x>1</parameter></function></tool_call>``.
* JSON in a Markdown fence (```json ... ```): what Qwen2.5-Coder-0.5B usually emits; one object or
  a list of objects.
* Bare JSON object / list with ``name`` + ``arguments`` (or ``parameters``), also the OpenAI shape
  ``{"type": "function", "function": {...}}`` and a ``{"tool_calls": [...]}`` wrapper.
* Llama 3.x: ``<|python_tag|>{"name": .., "parameters": ..}`` (``;``-separated for several) and the
  bare JSON form; pythonic ``[f(a=1), g(b="x")]`` (Llama 3.2 / 4 style).
* Mistral: ``[TOOL_CALLS][{"name": .., "arguments": ..}]`` and the newer
  ``[TOOL_CALLS]name[ARGS]{...}`` (optionally with ``[CALL_ID]id``).

``arguments`` may itself be a JSON-encoded string (OpenAI style); it is decoded.

Malformed calls (bad JSON, missing name, arguments that are not an object) never raise: they become
a :class:`ParsedCall` with ``error`` set and ``arguments=None`` so the runner can send a tool error
message back to the model, the way a real API would. Invariant: ``error is None`` exactly when
``name`` is non-empty and ``arguments`` is a dict.

Text outside the calls becomes ``content`` (the final answer when there are no calls). ``<think>``
blocks are moved to ``reasoning`` so they never count as an answer.
"""

from __future__ import annotations

import ast
import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

logger = logging.getLogger(__name__)

__all__ = [
    "ParsedCall",
    "ParsedOutput",
    "call_id",
    "calls_from_message",
    "parse_assistant_output",
    "parse_with_tokenizer",
]


class ParsedCall(BaseModel):
    """One tool call found in a model's output (valid or not)."""

    id: str
    name: str = ""
    arguments: dict[str, Any] | None = None
    raw: str = ""
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class ParsedOutput(BaseModel):
    """Result of :func:`parse_assistant_output`."""

    content: str = ""
    tool_calls: list[ParsedCall] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    reasoning: str = ""


def call_id(prefix: str, index: int) -> str:
    """Deterministic tool call id: ``<prefix>_<index>`` (prefix is usually ``call_<turn>``)."""
    return f"{prefix}_{index}"


# Tokens that end a turn or pad the output; they carry no meaning for content.
_END_TOKENS = (
    "<|im_end|>",
    "<|endoftext|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|end_of_text|>",
    "<|end|>",
    "</s>",
    "<end_of_turn>",
    "<|return|>",
)
# Reasoning blocks only count at the start of a message (where Qwen3 / R1 put them); a "<think>"
# later on is text or argument data.
_THINK_RE = re.compile(r"\A\s*<think>(.*?)(?:</think>|\Z)", re.S)
_ORPHAN_THINK_CLOSE_RE = re.compile(r"\A(.*?)</think>", re.S)
_TOOL_CALL_RE = re.compile(r"<tool_call>(.*?)(?:</tool_call>|(?=<tool_call>)|\Z)", re.S)
_FENCE_RE = re.compile(r"```[ \t]*([A-Za-z0-9_\-]*)[^\n`]*\n?(.*?)(?:```|\Z)", re.S)
_CALL_FENCE_LANGS = {"", "json", "json5", "tool_call", "tool_calls", "tool", "function", "javascript", "js"}
_MISTRAL_MARK = "[TOOL_CALLS]"
_PYTHON_TAG = "<|python_tag|>"
_QWEN_XML_FUNC_RE = re.compile(r"<function=([^>\n]*)>(.*?)(?:</function>|\Z)", re.S)
_QWEN_XML_PARAM_RE = re.compile(r"<parameter=([^>\n]*)>(.*?)(?:</parameter>|(?=<parameter=)|\Z)", re.S)
_MAX_TEXT = 200_000  # longer outputs are truncated before parsing (a runaway generation, not a call)


# --------------------------------------------------------------------------------------------------
# JSON helpers


_DECODER = json.JSONDecoder()


def _json_loads(text: str) -> tuple[Any, str | None]:
    """json.loads that reports errors instead of raising (also RecursionError on deep nesting)."""
    try:
        return json.loads(text), None
    except Exception as exc:  # noqa: BLE001 - any failure is a parse error for the model
        return None, f"{type(exc).__name__}: {exc}"


def _decode_many(body: str) -> tuple[list[Any], str | None]:
    """Decode one JSON value, or several written back to back (``{..}\\n{..}`` or ``{..}; {..}``).

    Falls back to a Python-literal reading (single quotes, True/None) because small models mix the
    two; the result must still be JSON-serialisable. Returns (values, error).
    """
    body = body.strip()
    if not body:
        return [], "empty tool call body"
    value, err = _json_loads(body)
    if err is None:
        return [value], None
    values: list[Any] = []
    pos = 0
    try:
        while pos < len(body):
            while pos < len(body) and body[pos] in " \t\r\n,;":
                pos += 1
            if pos >= len(body):
                break
            value, pos = _DECODER.raw_decode(body, pos)
            values.append(value)
    except Exception:  # noqa: BLE001
        values = []
    if values:
        return values, None
    repaired = _repair_braces(body)
    if repaired is not None:
        value, rerr = _json_loads(repaired)
        if rerr is None:
            return [value], None
    try:
        value = ast.literal_eval(body)
        json.dumps(value)  # tuples/sets/bytes are not JSON: reject them
        return [value], None
    except Exception:  # noqa: BLE001
        pass
    return [], f"invalid JSON ({err})"


def _repair_braces(body: str) -> str | None:
    """Append missing closing brackets (generation cut off or a model that drops the last brace)."""
    if len(body) > 20_000 or not body.startswith(("{", "[")):
        return None
    stack: list[str] = []
    in_str = esc = False
    for ch in body:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack or stack.pop() != ch:
                return None
    if in_str or not stack or len(stack) > 4:
        return None
    return body + "".join(reversed(stack))


def _looks_like_call(obj: Any) -> bool:
    """True for a dict shaped like one tool call (used to tell calls from JSON answers)."""
    if not isinstance(obj, dict):
        return False
    fn = obj.get("function")
    if isinstance(fn, dict) and isinstance(fn.get("name"), str):
        return True
    return isinstance(obj.get("name"), str) and ("arguments" in obj or "parameters" in obj)


def _expand_calls(value: Any) -> list[Any] | None:
    """Return the list of call objects in a decoded JSON value, or None if it is not call-shaped."""
    if isinstance(value, dict) and isinstance(value.get("tool_calls"), list) and value["tool_calls"]:
        value = value["tool_calls"]
    if _looks_like_call(value):
        return [value]
    if isinstance(value, list) and value and all(_looks_like_call(v) for v in value):
        return list(value)
    return None


# --------------------------------------------------------------------------------------------------
# Call construction


@dataclass
class _Call:
    """A call before it gets its id: either a decoded object or an error."""

    raw: str
    obj: Any = None
    error: str | None = None
    name: str = ""


def _finish(call: _Call, cid: str) -> ParsedCall:
    """Normalise one call object into a ParsedCall (never raises)."""
    if call.error is not None:
        return ParsedCall(id=cid, name=call.name, arguments=None, raw=call.raw, error=call.error)
    obj = call.obj
    if not isinstance(obj, dict):
        return ParsedCall(
            id=cid, raw=call.raw, error=f"tool call must be a JSON object, got {type(obj).__name__}"
        )
    fn = obj.get("function")
    if isinstance(fn, dict):  # OpenAI shape {"type": "function", "function": {...}}
        obj = fn
    name = obj.get("name")
    if not isinstance(name, str) or not name.strip():
        return ParsedCall(
            id=cid,
            raw=call.raw,
            error='tool call has no "name" (expected {"name": "<tool>", "arguments": {...}})',
        )
    name = name.strip()
    args: Any = {}
    for key in ("arguments", "parameters", "args"):
        if key in obj:
            args = obj[key]
            break
    if args is None:
        args = {}
    if isinstance(args, str):
        # OpenAI-style JSON-encoded arguments; double-encoded strings happen too.
        for _ in range(2):
            if not isinstance(args, str):
                break
            if not args.strip():
                args = {}
                break
            decoded, err = _json_loads(args)
            if err is not None:
                return ParsedCall(
                    id=cid,
                    name=name,
                    raw=call.raw,
                    error=f'arguments for "{name}" are a string that is not valid JSON ({err})',
                )
            args = decoded
    if not isinstance(args, dict):
        return ParsedCall(
            id=cid,
            name=name,
            raw=call.raw,
            error=f'arguments for "{name}" must be a JSON object, got {type(args).__name__}',
        )
    return ParsedCall(id=cid, name=name, arguments=args, raw=call.raw)


def _calls_from_body(body: str) -> list[_Call]:
    """Calls inside an explicit call region (tag body, python tag, Mistral list)."""
    stripped = body.strip()
    if stripped.startswith("<function="):
        return _calls_from_qwen_xml(stripped)
    values, err = _decode_many(stripped)
    if err is not None:
        return [_Call(raw=stripped, error=err, name=_guess_name(stripped))]
    out: list[_Call] = []
    for value in values:
        expanded = _expand_calls(value)
        if expanded is None:
            # Inside an explicit call region anything goes to _finish, which names what is wrong.
            expanded = list(value) if isinstance(value, list) and value else [value]
        single = len(values) == 1 and len(expanded) == 1
        out.extend(_Call(raw=stripped if single else (_dump(v) or ""), obj=v) for v in expanded)
    if not out:
        out.append(_Call(raw=stripped, error="empty tool call list"))
    return out


def _dump(value: Any) -> str | None:
    if value is None:
        return None
    try:
        return json.dumps(value, ensure_ascii=False)
    except Exception:  # noqa: BLE001
        return repr(value)


def _guess_name(text: str) -> str:
    """Best-effort tool name from broken JSON, so the error message can name the tool."""
    m = re.search(r'"name"\s*:\s*"([^"\\]{1,200})"', text)
    return m.group(1).strip() if m else ""


def _calls_from_qwen_xml(body: str) -> list[_Call]:
    """Qwen3-Coder ``<function=f><parameter=x>value</parameter></function>`` bodies."""
    out: list[_Call] = []
    for fm in _QWEN_XML_FUNC_RE.finditer(body):
        name = fm.group(1).strip()
        args: dict[str, Any] = {}
        for pm in _QWEN_XML_PARAM_RE.finditer(fm.group(2)):
            raw_val = pm.group(2).strip()
            val, err = _json_loads(raw_val)
            args[pm.group(1).strip()] = raw_val if err is not None else val
        out.append(_Call(raw=fm.group(0).strip(), obj={"name": name, "arguments": args}))
    if not out:
        out.append(_Call(raw=body, error="could not read <function=...> tool call"))
    return out


def _calls_from_pythonic(text: str) -> list[_Call] | None:
    """``[f(a=1), g(b="x")]`` or ``f(a=1)`` (Llama 3.2 / 4, brave_search.call(...)). None if not that."""
    stripped = text.strip()
    if not stripped or len(stripped) > 20_000 or not re.match(r"\[?\s*[A-Za-z_][\w.]*\s*\(", stripped):
        return None
    try:
        tree = ast.parse(stripped, mode="eval").body
    except Exception:  # noqa: BLE001
        return None
    nodes = tree.elts if isinstance(tree, ast.List) else [tree]
    if not nodes or not all(isinstance(n, ast.Call) for n in nodes):
        return None
    out: list[_Call] = []
    for node in nodes:
        name = _dotted(node.func)
        if name is None:
            return None
        if name.endswith(".call"):  # Llama builtin tools: brave_search.call(query=...)
            name = name[: -len(".call")]
        raw = ast.get_source_segment(stripped, node) or stripped
        if node.args:
            out.append(_Call(raw=raw, name=name, error=f'call to "{name}" must use keyword arguments'))
            continue
        try:
            args = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg}
            json.dumps(args)
        except Exception as exc:  # noqa: BLE001
            out.append(_Call(raw=raw, name=name, error=f'arguments for "{name}" are not literals ({exc})'))
            continue
        out.append(_Call(raw=raw, obj={"name": name, "arguments": args}))
    return out


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


# --------------------------------------------------------------------------------------------------
# Region finders: each returns (start, end, calls) spans over the text


@dataclass
class _Spans:
    """Claimed regions of the text, so later finders skip text already read as calls."""

    items: list[tuple[int, int, list[_Call]]] = field(default_factory=list)

    def free(self, start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e, _ in self.items)

    def add(self, start: int, end: int, calls: list[_Call]) -> None:
        self.items.append((start, end, calls))


def _find_mistral(text: str, spans: _Spans) -> None:
    idx = text.find(_MISTRAL_MARK)
    if idx < 0:
        return
    # Everything from the first marker on is calls (Mistral never writes text after its calls).
    segments = text[idx:].split(_MISTRAL_MARK)[1:]
    calls: list[_Call] = []
    for seg in segments:
        seg_s = seg.strip()
        if not seg_s:
            continue
        if "[ARGS]" in seg_s and not seg_s.startswith(("[", "{")):
            name, _, rest = seg_s.partition("[ARGS]")
            name = name.split("[CALL_ID]")[0].strip()
            rest = rest.strip()
            try:
                value, _end = _DECODER.raw_decode(rest)
                calls.append(_Call(raw=seg_s, obj={"name": name, "arguments": value}))
            except Exception as exc:  # noqa: BLE001
                calls.append(_Call(raw=seg_s, name=name, error=f'invalid JSON arguments for "{name}" ({exc})'))
        else:
            calls.extend(_calls_from_body(seg_s))
    spans.add(idx, len(text), calls)


def _find_tool_call_tags(text: str, spans: _Spans) -> None:
    for m in _TOOL_CALL_RE.finditer(text):
        if spans.free(m.start(), m.end()):
            spans.add(m.start(), m.end(), _calls_from_body(m.group(1)))


def _find_python_tag(text: str, spans: _Spans) -> None:
    idx = text.find(_PYTHON_TAG)
    while idx >= 0 and not spans.free(idx, idx + len(_PYTHON_TAG)):
        idx = text.find(_PYTHON_TAG, idx + 1)
    if idx < 0:
        return
    end = len(text)
    for s, _e, _ in spans.items:  # stop at the next claimed region, if any
        if s > idx:
            end = min(end, s)
    body = text[idx + len(_PYTHON_TAG) : end].replace(_PYTHON_TAG, "\n").strip()
    pythonic = _calls_from_pythonic(body)
    if pythonic is not None:
        spans.add(idx, end, pythonic)
        return
    # Llama writes several JSON calls separated by ';'.
    spans.add(idx, end, _calls_from_body(body))


def _find_fences(text: str, spans: _Spans) -> None:
    for m in _FENCE_RE.finditer(text):
        lang = m.group(1).lower()
        if lang not in _CALL_FENCE_LANGS or not spans.free(m.start(), m.end()):
            continue
        body = m.group(2).strip()
        if not body:
            continue
        values, err = _decode_many(body)
        if err is None:
            if not values:
                continue
            expanded = [_expand_calls(v) for v in values]
            if all(e is not None for e in expanded):
                calls = [
                    _Call(raw=body if len(values) == 1 and len(e) == 1 else (_dump(c) or ""), obj=c)
                    for e in expanded
                    for c in e  # type: ignore[union-attr]
                ]
                spans.add(m.start(), m.end(), calls)
            continue
        # Broken JSON that clearly tried to be a call: report it instead of treating it as an answer.
        if lang in ("json", "tool_call", "tool_calls", "") and '"name"' in body and (
            '"arguments"' in body or '"parameters"' in body
        ):
            spans.add(m.start(), m.end(), [_Call(raw=body, error=err, name=_guess_name(body))])
            continue
        pythonic = _calls_from_pythonic(body) if lang in ("", "tool_call", "tool_calls", "python", "py") else None
        if pythonic:
            spans.add(m.start(), m.end(), pythonic)


def _find_bare_json(text: str, spans: _Spans) -> None:
    pos = 0
    n = len(text)
    while pos < n:
        m = re.compile(r"[\[{]").search(text, pos)
        if m is None:
            return
        start = m.start()
        if not spans.free(start, start + 1):
            pos = start + 1
            continue
        try:
            value, end = _DECODER.raw_decode(text, start)
        except Exception:  # noqa: BLE001 - not JSON here
            pos = start + 1
            continue
        if not spans.free(start, end):
            pos = start + 1
            continue
        expanded = _expand_calls(value)
        if expanded is not None:
            raw = text[start:end]
            calls = [_Call(raw=raw if len(expanded) == 1 else (_dump(c) or ""), obj=c) for c in expanded]
            spans.add(start, end, calls)
        pos = end  # skip the whole JSON value: calls nested in an answer are not calls
    return


def _find_broken_bare_call(text: str, spans: _Spans) -> None:
    """A whole message that starts like a JSON call but does not decode (Llama often drops a brace)."""
    if spans.items:
        return
    stripped = text.strip()
    if re.match(r'\A\[?\s*\{\s*"name"\s*:', stripped) and (
        '"arguments"' in stripped or '"parameters"' in stripped
    ):
        values, err = _decode_many(stripped)
        start = text.find(stripped)
        if err is None:
            calls: list[_Call] = []
            for v in values:
                e = _expand_calls(v)
                calls.extend(_Call(raw=_dump(c) or "", obj=c) for c in (e or [v]))
            spans.add(start, start + len(stripped), calls)
        else:
            spans.add(start, start + len(stripped), [_Call(raw=stripped, error=err, name=_guess_name(stripped))])


# --------------------------------------------------------------------------------------------------
# Public API


def _strip_think(text: str) -> tuple[str, str]:
    """Move <think>..</think> to reasoning. A lone </think> means the template opened the block."""
    parts: list[str] = []

    def grab(m: re.Match[str]) -> str:
        parts.append(m.group(1).strip())
        return ""

    head = text.split("</think>", 1)[0] if "</think>" in text else None
    if head is not None and not any(t in head for t in ("<think>", "<tool_call>", _MISTRAL_MARK, _PYTHON_TAG)):
        text = _ORPHAN_THINK_CLOSE_RE.sub(grab, text, count=1)
    text = _THINK_RE.sub(grab, text, count=1)
    return text, "\n".join(p for p in parts if p)


def _strip_trailing_end_tokens(text: str) -> str:
    """Drop end-of-turn tokens at the end only: inside JSON strings they are argument data."""
    while True:
        stripped = text.rstrip()
        for tok in _END_TOKENS:
            if stripped.endswith(tok):
                text = stripped[: -len(tok)]
                break
        else:
            return text


def _clean_content(text: str) -> str:
    for tok in _END_TOKENS:
        text = text.replace(tok, "")
    text = text.replace("</tool_call>", "")  # stray close tags are noise, not answer text
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()


def parse_assistant_output(text: str | None, *, id_prefix: str = "call_0") -> ParsedOutput:
    """Parse raw assistant text into content + tool calls; never raises.

    ``id_prefix`` makes ids deterministic: calls get ``<id_prefix>_0``, ``<id_prefix>_1``, ...
    (the runner passes ``call_<turn>``).
    """
    if text is None:
        text = ""
    if not isinstance(text, str):
        text = str(text)
    try:
        return _parse(text, id_prefix)
    except Exception as exc:  # noqa: BLE001 - last resort: a parser bug must not kill an episode
        logger.exception("internal parser error on %d chars of model output", len(text))
        return ParsedOutput(content=_clean_content(text), errors=[f"internal parser error: {exc!r}"])


def _parse(text: str, id_prefix: str) -> ParsedOutput:
    errors: list[str] = []
    if len(text) > _MAX_TEXT:
        errors.append(f"output truncated from {len(text)} to {_MAX_TEXT} characters before parsing")
        text = text[:_MAX_TEXT]
    text, reasoning = _strip_think(text)
    text = _strip_trailing_end_tokens(text)  # so "{...}<|eot_id|>" is still a bare JSON message

    spans = _Spans()
    _find_mistral(text, spans)
    _find_tool_call_tags(text, spans)
    _find_python_tag(text, spans)
    _find_fences(text, spans)
    _find_bare_json(text, spans)
    if not spans.items:
        pythonic = _calls_from_pythonic(text)
        if pythonic:
            stripped = text.strip()
            start = text.find(stripped)
            spans.add(start, start + len(stripped), pythonic)
    _find_broken_bare_call(text, spans)

    spans.items.sort(key=lambda s: s[0])
    content_parts: list[str] = []
    calls: list[ParsedCall] = []
    cursor = 0
    for start, end, raw_calls in spans.items:
        content_parts.append(text[cursor:start])
        cursor = max(cursor, end)
        for rc in raw_calls:
            pc = _finish(rc, call_id(id_prefix, len(calls)))
            if pc.error:
                errors.append(f"{pc.id}: {pc.error}")
            calls.append(pc)
    content_parts.append(text[cursor:])
    content = _clean_content("".join(content_parts))
    return ParsedOutput(content=content, tool_calls=calls, errors=errors, reasoning=reasoning)


def calls_from_message(message: dict[str, Any], id_prefix: str) -> list[ParsedCall]:
    """Tool calls from a parsed chat message (tokenizer.parse_response or an OpenAI response)."""
    out: list[ParsedCall] = []
    for i, tc in enumerate(message.get("tool_calls") or []):
        cid = call_id(id_prefix, i)
        if isinstance(tc, dict) and isinstance(tc.get("id"), str) and tc["id"]:
            cid = tc["id"]
        raw = _dump(tc) or ""
        out.append(_finish(_Call(raw=raw, obj=tc), cid))
    return out


def parse_with_tokenizer(
    tokenizer: Any,
    text: str,
    *,
    prefix: str = "",
    tools: list[dict] | None = None,
    id_prefix: str = "call_0",
) -> ParsedOutput:
    """Parse with the tokenizer's own response template when it has one, else heuristically.

    transformers 5 tokenizers may carry a ``response_template`` (loaded from the checkpoint) that
    ``tokenizer.parse_response(text, prefix=..., tools=...)`` applies, returning a chat message dict
    ``{"role", "content", "tool_calls": [{"type": "function", "function": {"name", "arguments"}}]}``.
    ``prefix`` is the prompt text (some templates pre-open ``<think>``). If the template path fails
    or finds no calls, :func:`parse_assistant_output` reads the text, since many checkpoints ship
    without a template and small models often drift from their own format.
    """
    if getattr(tokenizer, "response_template", None) and hasattr(tokenizer, "parse_response"):
        try:
            message = tokenizer.parse_response(text, prefix=prefix, tools=tools)
        except Exception as exc:  # noqa: BLE001 - fall back to the heuristic parser
            logger.debug("tokenizer.parse_response failed (%s); using heuristic parser", exc)
        else:
            if isinstance(message, dict) and message.get("tool_calls"):
                calls = calls_from_message(message, id_prefix)
                content = message.get("content") or ""
                if not isinstance(content, str):
                    content = json.dumps(content, ensure_ascii=False)
                reasoning = message.get("thinking") or message.get("reasoning_content") or ""
                return ParsedOutput(
                    content=_clean_content(content),
                    tool_calls=calls,
                    errors=[f"{c.id}: {c.error}" for c in calls if c.error],
                    reasoning=reasoning if isinstance(reasoning, str) else "",
                )
    return parse_assistant_output(text, id_prefix=id_prefix)

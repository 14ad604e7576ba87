"""Make TRL execute the tool calls the benchmark would execute.

TRL's multi-turn loop finds tool calls with `tokenizer.parse_response` (the chat template's own
syntax: `<tool_call>{...}</tool_call>` for Qwen2.5/Qwen3). The KOPA runner is more forgiving: it
also accepts the JSON-in-a-fence and bare-JSON calls small models actually write
(kopa_bench.runner.parsing). Without this, a rollout whose call the benchmark would have executed
ends as a one-turn text answer in training, so GRPO optimises a different task than the one it is
evaluated on (seen on Qwen2.5-Coder-0.5B: its calls come in ```json fences, TRL executed none).

`align_with_runner(tokenizer)` keeps the native parse and, only when it finds no call, falls back
to the runner's parser; well-formed calls (name + object arguments) become `tool_calls` in TRL's
shape, malformed ones stay in the text (the format reward counts them as malformed).
"""

from __future__ import annotations

from typing import Any

from kopa_bench.runner.parsing import parse_assistant_output


def runner_calls(text: str) -> tuple[str, list[dict[str, Any]]]:
    """(remaining content, well-formed calls in TRL's {"type", "function": {name, arguments}} shape)."""
    parsed = parse_assistant_output(text)
    calls = [{"type": "function", "function": {"name": c.name, "arguments": c.arguments}}
             for c in parsed.tool_calls if c.error is None]
    return parsed.content, calls


def align_with_runner(tokenizer) -> None:
    """Wrap `tokenizer.parse_response` (in place) with the runner's call formats as a fallback."""
    native = tokenizer.parse_response
    if getattr(native, "_kopa_aligned", False):
        return

    def parse_response(ids, *args, **kwargs):
        error, out = None, None
        try:
            out = native(ids, *args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - TRL falls back to plain decoding; we try the runner first
            error = exc
        if out and out.get("tool_calls"):
            return out
        text = out.get("content") if out else tokenizer.decode(ids, skip_special_tokens=True)
        content, calls = runner_calls(text or "")
        if not calls:
            if error is not None:  # let TRL's own fallback handle what neither parser understood
                raise error
            return out
        return {**(out or {}), "role": "assistant", "content": content, "tool_calls": calls}

    parse_response._kopa_aligned = True
    tokenizer.parse_response = parse_response

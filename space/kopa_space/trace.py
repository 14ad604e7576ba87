"""Turn episode events into chat messages, and a finished episode into score tables.

The chat is a list of message dicts (Gradio's messages format). Each tool call is one
collapsible assistant message whose metadata title is "⚙ tool" (icons.TOOL) and whose status goes from
"pending" (sent) to "done" (result back).
"""

from __future__ import annotations

import json
from typing import Any

from kopa_bench.client.redact import redact

from .errors import TOOL_ERRORS, explain_runner_errors, explain_tool_error
from .icons import FAIL, OK, THINK, TOOL, WARN

MAX_RESULT_CHARS = 1500
MAX_RECORDS_SHOWN = 5


def _fmt_json(value: Any, limit: int = MAX_RESULT_CHARS) -> str:
    text = json.dumps(value, ensure_ascii=False, indent=1)
    if len(text) > limit:
        text = text[:limit] + "\n… (truncated)"
    return redact(text) or ""


def args_block(arguments: Any) -> str:
    return f"**arguments**\n```json\n{_fmt_json(arguments, 600)}\n```"


def result_block(result) -> str:
    """The normalised response (first records), or the error explained."""
    if not result.ok or result.error is not None:
        return explain_tool_error(result)
    view = result.model_view(max_records=MAX_RECORDS_SHOWN)
    shown = min(len(result.records), MAX_RECORDS_SHOWN)
    head = f"**result** `{result.result_code}` · {result.total_count if result.total_count is not None else len(result.records)} records"
    if len(result.records) > shown:
        head += f" (showing {shown})"
    head += f" · {result.elapsed_ms:.0f} ms"
    return f"{head}\n```json\n{_fmt_json(view.get('items', []))}\n```"


class ChatTrace:
    """Accumulates chat messages from events; `messages` is what the Chatbot shows."""

    def __init__(self, query: str, offered: set[str]):
        self.messages: list[dict[str, Any]] = [{"role": "user", "content": query}]
        self.offered = offered
        self._pending: list[tuple[int, str, Any]] = []  # (message index, tool, arguments)
        self._by_seq: dict[int, int] = {}
        self._thinking: int | None = None

    # -- events ---------------------------------------------------------------------------
    def model_start(self, turn: int) -> None:
        self._thinking = len(self.messages)
        self.messages.append({"role": "assistant", "content": "",
                              "metadata": {"title": f"{THINK} model turn {turn + 1}…", "status": "pending"}})

    def assistant(self, turn: int, assistant) -> None:
        if self._thinking is not None:
            self.messages.pop(self._thinking)
            self._thinking = None
        if assistant.tool_calls and assistant.content.strip():
            self.messages.append({"role": "assistant", "content": redact(assistant.content.strip()),
                                  "metadata": {"title": f"{THINK} turn {turn + 1}", "status": "done"}})
        for call in assistant.tool_calls:
            if call.error is not None:
                self.messages.append({"role": "assistant",
                                      "content": f"{WARN} {TOOL_ERRORS['parse'][0]} / {TOOL_ERRORS['parse'][1]}\n\n`{redact(call.error)[:300]}`\n```\n{redact(call.raw)[:400]}\n```",
                                      "metadata": {"title": f"{WARN} unparsable tool call", "status": "done"}})
            elif call.name not in self.offered:
                self.messages.append({"role": "assistant",
                                      "content": f"{args_block(call.arguments)}\n\n{WARN} {TOOL_ERRORS['unknown_tool'][0]} / {TOOL_ERRORS['unknown_tool'][1]}",
                                      "metadata": {"title": f"{WARN} {call.name} (not offered)", "status": "done"}})
            else:
                self._pending.append((len(self.messages), call.name, call.arguments))
                self.messages.append({"role": "assistant", "content": args_block(call.arguments) + "\n\ncalling…",
                                      "metadata": {"title": f"{TOOL} {call.name}", "status": "pending"}})

    def call_start(self, seq: int, tool: str, arguments: Any) -> None:
        # Match the call to the pending message of the same tool and arguments (calls of one
        # turn run concurrently, so results can come back in any order).
        pick = next((p for p in self._pending if p[1] == tool and p[2] == arguments), None)
        pick = pick or next((p for p in self._pending if p[1] == tool), None)
        if pick is None:  # a call the turn did not announce (a scripted agent may skip generate)
            idx = len(self.messages)
            self.messages.append({"role": "assistant", "content": args_block(arguments) + "\n\ncalling…",
                                  "metadata": {"title": f"{TOOL} {tool}", "status": "pending"}})
        else:
            self._pending.remove(pick)
            idx = pick[0]
        self._by_seq[seq] = idx

    def call_end(self, seq: int, tool: str, result) -> None:
        idx = self._by_seq.get(seq)
        if idx is None:
            return
        msg = self.messages[idx]
        ok = result.ok and result.error is None
        msg["content"] = args_block(result.arguments) + "\n\n" + result_block(result)
        msg["metadata"] = {"title": f"{TOOL if ok else WARN} {tool}", "status": "done",
                           "duration": round(result.elapsed_ms / 1000, 3)}

    def final(self, episode) -> None:
        if self._thinking is not None:
            self.messages.pop(self._thinking)
            self._thinking = None
        for idx, _, _ in self._pending:  # announced but never executed (episode ended)
            self.messages[idx]["metadata"]["status"] = "done"
        answer = redact(episode.final_answer) or "(no final answer)"
        if episode.stop_reason == "step_limit":
            answer += f"\n\n{WARN} 단계 한도에 도달했습니다 / the step limit was reached."
        elif episode.infra_error:
            answer += f"\n\n{WARN} " + explain_runner_errors(episode.errors)
        self.messages.append({"role": "assistant", "content": answer})

    def note(self, text: str) -> None:
        self.messages.append({"role": "assistant", "content": text})


# -- score tables ---------------------------------------------------------------------------

def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.0%}"


def score_markdown(score, episode) -> str:
    ok = f"{OK} success" if score.success else f"{FAIL} not solved"
    # one axis per row: seven columns in the narrow score column squeezed each header to a letter a line
    axes = [("response", _pct(score.response)), ("grounded", _pct(score.grounded)),
            ("action precision", _pct(score.action_precision)), ("action recall", _pct(score.action_recall)),
            ("data flow", _pct(score.data_flow)), ("state", _pct(score.state)),
            ("calls (gold)", f"{score.n_calls} ({score.n_gold_calls})")]
    lines = [
        f"### {ok}",
        "| axis | value |",
        "|---|---|",
        *(f"| {name} | {value} |" for name, value in axes),
        "",
        "**facts**: " + ", ".join(f"{f.id} `{f.value}` {OK if f.grounded else (WARN + ' not grounded' if f.stated else FAIL)}" for f in score.facts),
        f"\n<sub>{episode.steps} turns · {episode.timings.total_s:.1f} s · stop: {episode.stop_reason}</sub>",
    ]
    if score.diagnosis:
        lines.append("\n**diagnosis**\n" + "\n".join(f"- {redact(d)}" for d in score.diagnosis))
    return "\n".join(lines)


# short headers, and widths (agent_tab) that fit each one's longest word: a narrow column broke them a letter a line
COMPARE_HEADERS = ["gold step", "gold call", "call #", "model call", "match"]
FLOW_HEADERS = ["step.argument", "from", "ok", "detail"]


def compare_rows(task, gold, episode, score) -> list[list[str]]:
    """Gold program beside the model's calls: one row per gold step, then unmatched calls."""
    rows: list[list[str]] = []
    used: set[int] = set()
    for run in gold.steps:
        if run.aggregate:  # a for_each / paged step: its expansions have the rows
            continue
        gold_txt = "(skipped)" if run.skipped else f"{run.tool}({_short(run.args)})"
        ci = score.matched.get(run.step_id)
        if ci is not None and ci < len(episode.calls):
            c = episode.calls[ci]
            used.add(ci)
            rows.append([run.step_id, gold_txt, str(ci), f"{c.tool}({_short(c.arguments)})", OK])
        else:
            rows.append([run.step_id, gold_txt, "", "", "—" if run.skipped else FAIL])
    for i, c in enumerate(episode.calls):
        if i not in used:
            rows.append(["", "", str(i), f"{c.tool}({_short(c.arguments)})", "extra" + (f" ({c.error_kind})" if c.error_kind else "")])
    return rows


def flow_rows(score) -> list[list[str]]:
    return [[f"{e.step}.{e.arg}", e.path, OK if e.satisfied else FAIL, redact(e.detail) or ""] for e in score.edges]


def _short(args: Any, limit: int = 160) -> str:
    if args is None:
        return "<unparsable>"
    text = ", ".join(f"{k}={v!r}" for k, v in args.items()) if isinstance(args, dict) else str(args)
    return redact(text if len(text) <= limit else text[:limit] + "…") or ""


def trace_json(task_id: str, episode, score) -> dict[str, Any]:
    """Machine-readable summary (also what the API test reads)."""
    return {
        "task_id": task_id,
        "model": episode.model,
        "stop_reason": episode.stop_reason,
        "calls": [{"tool": c.tool, "arguments": c.arguments, "ok": c.ok, "error_kind": c.error_kind} for c in episode.calls],
        "final_answer": redact(episode.final_answer),
        "score": None if score is None else score.model_dump(include={
            "success", "response", "grounded", "action_precision", "action_recall", "data_flow", "state",
            "efficiency", "n_calls", "n_gold_calls", "diagnosis"}),
    }

"""Prompting as BFCL does, built from bfcl_eval's own helpers.

``fc`` (function calling, BFCL's "FC" models): the question goes in as is and the function docs
are passed natively as tools, converted by BFCL's ``convert_to_tool`` in its OpenAI style
(JSON-schema types; '.' in names sent as '_', which its checker maps back for FC models). The
KOPA backend renders them with the model's chat template (or sends them to an OpenAI-compatible
server); multi-turn execution results come back as ``tool`` messages.

``prompt`` (BFCL's prompting models, for backends without native tools): BFCL's default system
prompt (``system_prompt_pre_processing_chat_model``: the function docs as JSON and the
``[func(a=1)]`` output format) is put in front of the question and no tools are passed;
execution results come back as one user message (``format_execution_results_prompting``).

Either way the model's reply is read by the backend with KOPA's own parser
(``kopa_bench.runner.parsing``), which reads both tool-call tags and pythonic call lists.
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from kopa_bench.bfcl import compat

Mode = Literal["fc", "prompt"]
MODES = ("auto", "fc", "prompt")


def checker_model(mode: Mode) -> str:
    """The key of BFCL's model table the checker is given (decides '.'-to-'_' in names)."""
    return compat.FC_MODEL if mode == "fc" else compat.PROMPT_MODEL


def native_tools(backend: Any) -> bool:
    """Whether a backend takes tools natively: a chat template that renders ``tools``, an
    OpenAI-compatible server, or a scripted agent."""
    tokenizer = getattr(backend, "tokenizer", None)
    if tokenizer is None:
        return True
    template = getattr(tokenizer, "chat_template", None) or ""
    if isinstance(template, dict):  # named templates: the default one, else any "tool_use" one
        template = " ".join(str(v) for v in template.values())
    return "tools" in str(template)


def resolve_mode(requested: str, backend: Any) -> Mode:
    if requested not in MODES:
        raise ValueError(f"unknown --mode {requested!r}; valid: {', '.join(MODES)}")
    if requested == "auto":
        return "fc" if native_tools(backend) else "prompt"
    return requested  # type: ignore[return-value]


def compile_tools(functions: list[dict], mode: Mode) -> list[dict]:
    """The ``tools=`` a backend gets: BFCL's OpenAI-style conversion in fc mode, none in prompt mode."""
    if mode == "prompt":
        return []
    bfcl = compat.load()
    return bfcl.handler_utils.convert_to_tool(functions, bfcl.type_mappings.GORILLA_TO_OPENAPI,
                                              bfcl.enums.ModelStyle.OPENAI_COMPLETIONS)


def tool_names(functions: list[dict], mode: Mode) -> dict[str, str]:
    """Offered name -> BFCL's name (they differ in fc mode when BFCL's name has a '.')."""
    if mode == "prompt":
        return {f["name"]: f["name"] for f in functions}
    return {t["function"]["name"]: f["name"] for t, f in zip(compile_tools(functions, mode), functions)}


def first_turn(prompt: dict, mode: Mode) -> list[dict]:
    """The messages of the first turn (prompt mode: BFCL's system prompt added); `prompt` is mutated."""
    messages = prompt["question"][0]
    if mode == "prompt":
        bfcl = compat.load()
        messages = bfcl.handler_utils.system_prompt_pre_processing_chat_model(messages, prompt["function"], prompt["id"])
    return copy.deepcopy(messages)


def holdout_turn(functions: list[dict], mode: Mode) -> list[dict]:
    """The user message of a miss_func turn that hands the model the held-out functions."""
    prompts = compat.load().default_prompts
    if mode == "fc":
        return [{"role": "user", "content": prompts.DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC}]
    return [{"role": "user", "content": prompts.DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING.format(functions=functions)}]


def assistant_message(turn: Any, mode: Mode) -> dict:
    """The model's turn as history: with tool calls (fc), or its text as written (prompt)."""
    if mode == "fc":
        return turn.to_message(arguments_as="json")
    text = turn.raw_text or turn.content or _calls_text(turn)
    return {"role": "assistant", "content": text}


def _calls_text(turn: Any) -> str:
    """A scripted agent's calls in BFCL's prompt output format, for the history."""
    parts = [f"{c.name}({', '.join(f'{k}={v!r}' for k, v in (c.arguments or {}).items())})" for c in turn.tool_calls]
    return f"[{', '.join(parts)}]" if parts else ""


def result_messages(turn: Any, call_strings: list[str], results: list[str], mode: Mode) -> list[dict]:
    """Execution results as the next messages: ``tool`` messages (fc) or BFCL's one user message (prompt)."""
    if mode == "fc":
        return [{"role": "tool", "tool_call_id": c.id, "name": c.name, "content": r}
                for c, r in zip(turn.tool_calls, results)]
    bfcl = compat.load()
    text = bfcl.handler_utils.format_execution_results_prompting({}, results, {"model_responses_decoded": call_strings})
    return [{"role": "user", "content": text}]

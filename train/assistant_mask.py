"""Assistant-only loss for multi-turn tool-calling SFT, for any prefix-preserving chat template.

Training on the whole rendered conversation teaches the model to write tool results and system
text too (the 0.5B CPU run in train/results/cpu_sft_experiment.md learned to invent tool results
and then stop answering). TRL's `assistant_only_loss=True` needs `{% generation %}` markers in the
template, which the upstream Qwen2.5 template lacks and TRL only patches for templates it knows.

This module needs no markers: each assistant turn i is located as the text that rendering
`messages[:i+1]` adds to rendering `messages[:i]` with the generation prompt, i.e. exactly what the
model produces at inference for that turn (tool-call block or final answer, then the end-of-turn
token). Characters map to tokens through the fast tokenizer's offsets, so the mask is over the
tokenization of the whole conversation, the same ids the trainer sees. The rows come out
pre-tokenized (`input_ids` + `assistant_masks`); TRL's SFTTrainer turns `assistant_masks` into
`labels` (-100 elsewhere) without touching the template.
"""

from __future__ import annotations

from typing import Any


class TemplateNotPrefixPreserving(ValueError):
    pass


def _render(tokenizer, messages, tools, add_generation_prompt: bool) -> str:
    return tokenizer.apply_chat_template(messages, tools=tools or None, tokenize=False,
                                         add_generation_prompt=add_generation_prompt)


def assistant_spans(tokenizer, messages: list[dict[str, Any]], tools: list[dict] | None = None) -> tuple[str, list[tuple[int, int]]]:
    """(full rendered text, [(start, end) character spans of each assistant turn's generated text])."""
    full = _render(tokenizer, messages, tools, False)
    spans = []
    for i, m in enumerate(messages):
        if m.get("role") != "assistant":
            continue
        prompt = _render(tokenizer, messages[:i], tools, True)
        upto = _render(tokenizer, messages[: i + 1], tools, False)
        if not upto.startswith(prompt) or not full.startswith(upto):
            raise TemplateNotPrefixPreserving(
                f"the chat template renders turn {i} differently depending on later turns (e.g. it strips "
                "reasoning from earlier turns), so assistant spans cannot be cut out by prefix; use a template "
                "with {% generation %} markers and TRL's assistant_only_loss=True instead")
        # The generated text ends at the end-of-turn token; whitespace the template adds after it
        # (Qwen: "\n") is not produced by the model, so it stays unlabelled.
        end = len(upto.rstrip())
        spans.append((len(prompt), end))
    return full, spans


def tokenize_with_assistant_mask(tokenizer, messages: list[dict[str, Any]], tools: list[dict] | None = None) -> dict[str, list[int]]:
    """{'input_ids', 'assistant_masks'}: 1 on exactly the tokens of the assistant turns' generated text."""
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError(f"{type(tokenizer).__name__} is not a fast tokenizer; offsets are needed to map the "
                         "assistant spans to tokens (load it with use_fast=True)")
    text, spans = assistant_spans(tokenizer, messages, tools)
    enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    mask = []
    for start, end in enc["offset_mapping"]:
        # a token belongs to a turn when it starts inside the span (BPE never merges across the
        # <|im_start|>assistant\n header, so no token straddles a span start)
        mask.append(int(any(s <= start < e for s, e in spans)))
    return {"input_ids": list(enc["input_ids"]), "assistant_masks": mask}


def tokenize_conversations(rows, tokenizer, max_length: int | None = None):
    """Rows with `messages` (+ optional `tools`, a list or its JSON string) -> (datasets.Dataset of
    input_ids/assistant_masks plus the rows' other columns, stats).

    Messages are rendered as the benchmark runner renders them at inference (tool-call arguments
    decoded to objects, see transformers_backend.template_messages). Rows longer than `max_length`
    are dropped, not truncated: truncation would cut the final answer, the one turn that teaches
    the model to stop calling tools and answer."""
    import json

    from datasets import Dataset

    from kopa_bench.runner.backends.transformers_backend import template_messages

    out, dropped, lengths = [], 0, []
    for r in rows:
        messages = json.loads(r["messages"]) if isinstance(r["messages"], str) else r["messages"]
        tools = r.get("tools")
        tools = json.loads(tools) if isinstance(tools, str) else tools
        enc = tokenize_with_assistant_mask(tokenizer, template_messages(messages), tools)
        if max_length is not None and len(enc["input_ids"]) > max_length:
            dropped += 1
            continue
        keep = {k: v for k, v in r.items() if k not in ("messages", "tools")}
        out.append({**keep, **enc, "n_tokens": len(enc["input_ids"]), "n_labelled": sum(enc["assistant_masks"])})
        lengths.append(len(enc["input_ids"]))
    stats = {"kept": len(out), "dropped_over_max_length": dropped,
             "mean_tokens": (sum(lengths) / len(lengths)) if lengths else 0.0,
             "labelled_fraction": (sum(o["n_labelled"] for o in out) / max(1, sum(lengths)))}
    return Dataset.from_list(out), stats

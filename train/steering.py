"""Steer a tiny model's first turn to its task's first gold tool call (smoke runs only).

A random tiny model never writes a parseable tool call, so a smoke run of GRPO would never reach
the tool loop. With `steer_first_calls(model, tokenizer, rows)`, the first rollout of each group
(rows of one prompt) is made to emit the task's first gold call in the chat template's own
tool-call syntax, by a transformers LogitsProcessor on the model's own `generate`; the other
rollouts and every later turn are the model's own sampling. Everything downstream is the real
machinery: TRL's `parse_response`, its tool loop calling the environment, the sandbox answering,
the rewards scoring the executed calls, the loss on the model's log-probabilities of those tokens.
"""

from __future__ import annotations

from typing import Any

import torch
from transformers import LogitsProcessor, LogitsProcessorList

from kopa_bench.tasks.refs import iter_refs


class ForcedCompletion(LogitsProcessor):
    """Rows of a generate() batch whose completion is forced to given token ids (then end of turn)."""

    def __init__(self, plan: dict[int, list[int]], prompt_length: int):
        self.plan, self.prompt_length = plan, prompt_length

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        step = input_ids.shape[1] - self.prompt_length
        for row, ids in self.plan.items():
            if step < len(ids):
                forced = torch.full_like(scores[row], float("-inf"))
                forced[ids[step]] = 0.0
                scores[row] = forced
        return scores


def gold_first_call(task) -> dict[str, Any] | None:
    """The task's first gold step as an OpenAI tool call, when its arguments are literals (no references)."""
    step = task.program[0]
    if any(True for _ in iter_refs(step.args)):
        return None
    return {"type": "function", "function": {"name": step.tool, "arguments": dict(step.args)}}


def call_turn_text(tokenizer, call: dict[str, Any]) -> str:
    """What the chat template renders for an assistant turn holding exactly `call` (its end-of-turn token
    included, the template's trailing whitespace not), i.e. what the model writes to make that call."""
    prefix = [{"role": "user", "content": "?"}]
    prompt = tokenizer.apply_chat_template(prefix, tokenize=False, add_generation_prompt=True)
    full = tokenizer.apply_chat_template(prefix + [{"role": "assistant", "content": "", "tool_calls": [call]}],
                                         tokenize=False)
    if not full.startswith(prompt):
        raise ValueError("the chat template renders the prompt differently once an assistant turn follows; "
                         "the steered turn cannot be cut out of it")
    return full[len(prompt):].rstrip()


def steer_first_calls(model, tokenizer, rows, marker: str = "<tool_response>") -> dict[str, str]:
    """Make `model.generate` emit each row's first gold call in the first rollout of its group.

    `rows`: KOPA task rows (query + program). A prompt is a first turn when it holds no tool result
    (`marker`); of identical first-turn prompts in one batch (a GRPO group) the first is steered.
    Returns {query: steered turn text} for the tasks that have a literal first call."""
    from train.rewards import task_from_row

    turns: dict[str, list[int]] = {}
    texts: dict[str, str] = {}
    for row in rows:
        task = task_from_row(dict(row))
        call = gold_first_call(task)
        if call is None:
            continue
        texts[task.query] = call_turn_text(tokenizer, call)
        turns[task.query] = tokenizer(texts[task.query], add_special_tokens=False)["input_ids"]
    if not turns:
        raise ValueError("no row has a first gold step with literal arguments to steer to")
    own_generate = model.generate

    def generate(*args, **kwargs):
        input_ids = kwargs.get("input_ids", args[0] if args else None)
        plan: dict[int, list[int]] = {}
        seen: set[str] = set()
        for i, ids in enumerate(input_ids.tolist()):
            text = tokenizer.decode(ids)
            if marker in text or text in seen:
                continue
            seen.add(text)
            query = next((q for q in turns if q in text), None)
            if query is not None:
                plan[i] = turns[query]
        if plan:
            processors = LogitsProcessorList(kwargs.pop("logits_processor", None) or [])
            processors.append(ForcedCompletion(plan, input_ids.shape[1]))
            kwargs["logits_processor"] = processors
        return own_generate(*args, **kwargs)

    model.generate = generate
    return texts


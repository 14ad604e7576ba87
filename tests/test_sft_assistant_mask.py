"""Assistant-only SFT labels (train.assistant_mask) on the tiny tokenizer: the mask covers exactly the
assistant turns' generated text (tool calls, final answer, end-of-turn token), matches HF's
{% generation %}-marker mask, needs no markers, and plugs into TRL's SFTTrainer as labels."""

from __future__ import annotations

import json

import pytest

TOOLS = [{"type": "function", "function": {"name": "airkorea_getTMStdrCrdnt", "description": "측정소 좌표 조회",
                                            "parameters": {"type": "object", "properties": {"umdName": {"type": "string"}},
                                                           "required": ["umdName"]}}}]
MESSAGES = [
    {"role": "system", "content": "시스템 프롬프트"},
    {"role": "user", "content": "혜화동 근처 측정소를 알려줘."},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "airkorea_getTMStdrCrdnt", "arguments": '{"umdName": "혜화동"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": '{"items": [{"tmX": 1.5, "tmY": 2.5}]}'},
    {"role": "assistant", "content": "가장 가까운 측정소는 종로구입니다."},
]


@pytest.fixture(scope="module")
def tok(tmp_path_factory):
    from transformers import AutoTokenizer

    from kopa_bench.testing.tiny_model import build_tiny_model

    path = build_tiny_model(tmp_path_factory.mktemp("tiny"))
    return AutoTokenizer.from_pretrained(str(path))


def _labelled_text(tok, enc) -> list[str]:
    """Decoded runs of consecutive labelled tokens."""
    runs, cur = [], []
    for t, m in zip(enc["input_ids"] + [None], enc["assistant_masks"] + [0]):
        if m:
            cur.append(t)
        elif cur:
            runs.append(tok.decode(cur))
            cur = []
    return runs


def test_mask_covers_exactly_the_assistant_turns(tok):
    from kopa_bench.runner.backends.transformers_backend import template_messages
    from train.assistant_mask import tokenize_with_assistant_mask

    enc = tokenize_with_assistant_mask(tok, template_messages(MESSAGES), TOOLS)
    assert len(enc["input_ids"]) == len(enc["assistant_masks"])
    runs = _labelled_text(tok, enc)
    assert runs == ['<tool_call>\n{"name": "airkorea_getTMStdrCrdnt", "arguments": {"umdName": "혜화동"}}\n</tool_call><|im_end|>',
                    "가장 가까운 측정소는 종로구입니다.<|im_end|>"]
    # nothing of the system prompt, the user turn or the tool result is labelled
    labelled = "".join(runs)
    for text in ("시스템 프롬프트", "혜화동 근처", "tmX", "<|im_start|>"):
        assert text not in labelled


def test_mask_equals_generation_marker_mask(tok):
    """The tiny template has {% generation %} markers: HF's own mask must agree token for token."""
    from kopa_bench.runner.backends.transformers_backend import template_messages
    from train.assistant_mask import tokenize_with_assistant_mask

    msgs = template_messages(MESSAGES)
    ours = tokenize_with_assistant_mask(tok, msgs, TOOLS)
    hf = tok.apply_chat_template(msgs, tools=TOOLS, tokenize=True, return_dict=True, return_assistant_tokens_mask=True)
    assert ours["input_ids"] == list(hf["input_ids"])
    assert ours["assistant_masks"] == list(hf["assistant_masks"])


def test_mask_needs_no_generation_markers(tok):
    """Same mask from a copy of the template with the markers removed (the upstream Qwen2.5 case)."""
    from copy import deepcopy

    from kopa_bench.runner.backends.transformers_backend import template_messages
    from train.assistant_mask import tokenize_with_assistant_mask

    plain = deepcopy(tok)
    plain.chat_template = tok.chat_template.replace("{%- generation -%}", "").replace("{%- endgeneration -%}", "")
    assert "generation %}" not in plain.chat_template
    msgs = template_messages(MESSAGES)
    assert tokenize_with_assistant_mask(plain, msgs, TOOLS) == tokenize_with_assistant_mask(tok, msgs, TOOLS)


def test_template_that_rewrites_history_is_refused(tok):
    from copy import deepcopy

    from train.assistant_mask import TemplateNotPrefixPreserving, tokenize_with_assistant_mask

    odd = deepcopy(tok)
    # renders a marker after the system turn only when the conversation is complete, so earlier renders are not prefixes
    odd.chat_template = tok.chat_template.replace(
        "{{- '<|im_end|>\\n' -}}\n{%- for message in loop_messages -%}",
        "{{- '<|im_end|>\\n' -}}{%- if not add_generation_prompt -%}{{- 'X' -}}{%- endif -%}\n{%- for message in loop_messages -%}", 1)
    assert odd.chat_template != tok.chat_template
    with pytest.raises(TemplateNotPrefixPreserving, match="generation"):
        tokenize_with_assistant_mask(odd, MESSAGES, TOOLS)


def test_long_rows_are_dropped_not_truncated(tok):
    from train.assistant_mask import tokenize_conversations

    long = [dict(m) for m in MESSAGES]
    long[3] = {**long[3], "content": json.dumps({"items": [{"x": "가" * 50}] * 40}, ensure_ascii=False)}
    rows = [{"id": "short", "messages": MESSAGES, "tools": json.dumps(TOOLS, ensure_ascii=False)},
            {"id": "long", "messages": long, "tools": TOOLS}]
    full, _ = tokenize_conversations(rows, tok, None)
    limit = full[0]["n_tokens"] + 10
    assert full[1]["n_tokens"] > limit
    ds, stats = tokenize_conversations(rows, tok, limit)
    assert ds["id"] == ["short"] and stats["dropped_over_max_length"] == 1
    assert ds[0]["input_ids"] == full[0]["input_ids"]  # kept whole


def test_sft_trainer_labels_only_assistant_tokens(tok, tmp_path, monkeypatch):
    """train/sft.py with prefix_assistant_mask: TRL's labels are -100 everywhere but the assistant tokens."""
    from datasets import Dataset

    from train.assistant_mask import tokenize_conversations
    from train.sft import build_trainer, parse_args

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    data = tmp_path / "rows"
    Dataset.from_list([{"messages": json.dumps(MESSAGES, ensure_ascii=False),
                        "tools": json.dumps(TOOLS, ensure_ascii=False)}] * 2).save_to_disk(str(data))
    script_args, training_args, model_args = parse_args([
        "--config", "train/recipes/tiny-cpu/sft.yaml", "--dataset_name", str(data), "--output_dir", str(tmp_path / "o"),
        "--assistant_only_loss", "false", "--prefix_assistant_mask", "true", "--max_steps", "1"])
    trainer = build_trainer(script_args, training_args, model_args)
    row = trainer.train_dataset[0]
    expected, _ = tokenize_conversations([{"messages": MESSAGES, "tools": TOOLS}], trainer.processing_class)
    assert row["input_ids"] == expected[0]["input_ids"]
    assert row["labels"] == [t if m else -100 for t, m in zip(expected[0]["input_ids"], expected[0]["assistant_masks"])]
    trainer.train()  # one step runs on these labels
    assert trainer.state.global_step == 1

    script_args.prefix_assistant_mask, training_args.assistant_only_loss = True, True
    with pytest.raises(ValueError, match="assistant_only_loss: false"):
        build_trainer(script_args, training_args, model_args)


def test_string_messages_are_decoded_for_trl():
    """Rows with `messages` as a JSON string (EDGE before 0.2.0) reach TRL as lists; list rows pass unchanged."""
    from datasets import Dataset

    from train.sft import _conversational

    legacy = _conversational(Dataset.from_list([{"messages": json.dumps(MESSAGES, ensure_ascii=False)}]))
    assert legacy[0]["messages"][2]["tool_calls"][0]["function"]["name"] == "airkorea_getTMStdrCrdnt"
    rows = Dataset.from_list([{"messages": MESSAGES}])
    assert _conversational(rows) is rows

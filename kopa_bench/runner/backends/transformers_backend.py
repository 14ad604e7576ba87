"""In-process transformers backend (``hf:<path or hub id>``, and the offline GGUF model).

Renders the conversation with the tokenizer's chat template (``tools=`` included), generates
(greedy when ``temperature == 0``, else sampling seeded with ``torch.manual_seed(seed)``), decodes
only the new tokens and parses them with :func:`parse_with_tokenizer`.

Generation runs in a worker thread (``asyncio.to_thread``) so the event loop keeps serving tool
calls of other episodes; a ``threading.Lock`` allows one generation at a time because one model
instance is not safe to drive from several threads (and on CPU it would only thrash the cores).
A thread lock rather than an ``asyncio.Lock`` because the runner may call from several event loops.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from typing import Any

from kopa_bench.runner.backends.contract import DEFAULT_MAX_TOKENS, AssistantTurn, Backend, Usage, turn_index
from kopa_bench.runner.parsing import parse_with_tokenizer

logger = logging.getLogger(__name__)

# Tokens that end an assistant turn in common chat formats; used as extra stop ids when present.
_STOP_TOKENS = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|eom_id|>", "<|end|>", "</s>", "<end_of_turn>")


def template_messages(messages: list[dict]) -> list[dict]:
    """Copy messages into the shape chat templates expect.

    OpenAI history stores tool-call arguments as JSON strings; most templates render
    ``arguments | tojson`` and would double-encode them, so decodable strings become dicts.
    ``content: None`` (assistant turns with only calls) becomes ``""``.
    """
    out = []
    for m in messages:
        m = dict(m)
        if m.get("content") is None:
            m["content"] = ""
        if m.get("tool_calls"):
            calls = []
            for tc in m["tool_calls"]:
                tc = dict(tc)
                fn = dict(tc.get("function") or {})
                args = fn.get("arguments")
                if isinstance(args, str):
                    try:
                        decoded = json.loads(args)
                    except ValueError:
                        decoded = None
                    if isinstance(decoded, dict):
                        fn["arguments"] = decoded
                tc["function"] = fn
                calls.append(tc)
            m["tool_calls"] = calls
        out.append(m)
    return out


class TransformersBackend(Backend):
    """A causal LM + tokenizer held in this process."""

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        model_name: str | None = None,
        chat_template_kwargs: dict[str, Any] | None = None,
        generation_kwargs: dict[str, Any] | None = None,
    ) -> None:
        if getattr(tokenizer, "chat_template", None) is None:
            raise ValueError(
                f"tokenizer {type(tokenizer).__name__} has no chat_template; load a chat/instruct checkpoint "
                "or set tokenizer.chat_template before building the backend"
            )
        self.model = model
        self.tokenizer = tokenizer
        self.model_name = model_name or getattr(getattr(model, "config", None), "_name_or_path", "") or "hf-model"
        self.chat_template_kwargs = dict(chat_template_kwargs or {})
        self.generation_kwargs = dict(generation_kwargs or {})
        self._lock = threading.Lock()
        self._stop_ids = self._find_stop_ids()
        model.eval()

    @classmethod
    def from_pretrained(
        cls,
        path: str,
        *,
        dtype: Any = "auto",
        device: str | None = None,
        model_kwargs: dict[str, Any] | None = None,
        **kw: Any,
    ) -> TransformersBackend:
        """Load model + tokenizer from a local folder or hub id (hub needs network; offline mode is respected)."""
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(path)
        model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype, **(model_kwargs or {}))
        if device:
            model = model.to(device)
        return cls(model, tokenizer, model_name=kw.pop("model_name", path), **kw)

    def _find_stop_ids(self) -> list[int]:
        ids: list[int] = []
        gen_eos = getattr(getattr(self.model, "generation_config", None), "eos_token_id", None)
        for value in (gen_eos, self.tokenizer.eos_token_id):
            if isinstance(value, int):
                ids.append(value)
            elif isinstance(value, (list, tuple)):
                ids.extend(v for v in value if isinstance(v, int))
        vocab = self.tokenizer.get_vocab()
        ids.extend(vocab[t] for t in _STOP_TOKENS if t in vocab)
        return sorted(set(ids))

    def render_prompt(self, messages: list[dict], tools: list[dict]) -> str:
        """The prompt text the model sees (chat template with tools and the generation prompt)."""
        return self.tokenizer.apply_chat_template(
            template_messages(messages),
            tools=tools or None,
            add_generation_prompt=True,
            tokenize=False,
            **self.chat_template_kwargs,
        )

    async def generate(
        self,
        messages: list[dict],
        tools: list[dict],
        *,
        temperature: float = 0.0,
        seed: int | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> AssistantTurn:
        return await asyncio.to_thread(self.generate_sync, messages, tools, temperature, seed, max_tokens)

    def generate_sync(
        self,
        messages: list[dict],
        tools: list[dict],
        temperature: float = 0.0,
        seed: int | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> AssistantTurn:
        """Blocking version of :meth:`generate` (used by the thread and by sync callers)."""
        import torch

        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {temperature}")
        prompt = self.render_prompt(messages, tools)
        enc = self.tokenizer(prompt, return_tensors="pt", add_special_tokens=False)
        device = getattr(self.model, "device", None)
        if device is not None:
            enc = enc.to(device)
        n_prompt = int(enc["input_ids"].shape[1])
        pad_id = self.tokenizer.pad_token_id
        if pad_id is None and self._stop_ids:
            pad_id = self._stop_ids[0]
        gen_kwargs: dict[str, Any] = {"max_new_tokens": max_tokens}
        if self._stop_ids:
            gen_kwargs["eos_token_id"] = self._stop_ids
        if pad_id is not None:
            gen_kwargs["pad_token_id"] = pad_id
        if temperature == 0:
            # Neutralise sampling defaults from generation_config so greedy runs without warnings.
            gen_kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        else:
            gen_kwargs.update(do_sample=True, temperature=temperature)
        gen_kwargs.update(self.generation_kwargs)

        with self._lock:
            if temperature > 0 and seed is not None:
                # Seeding inside the lock: the global RNG is shared, so the seed must be set right
                # before this generation's sampling for reproducible draws.
                torch.manual_seed(seed)
            t0 = time.perf_counter()
            with torch.inference_mode():
                out = self.model.generate(**enc, **gen_kwargs)
            elapsed = time.perf_counter() - t0
        new_ids = out[0, n_prompt:].tolist()
        # Drop trailing stop/pad tokens from the count and the text.
        while new_ids and (new_ids[-1] in self._stop_ids or new_ids[-1] == pad_id):
            new_ids.pop()
        n_new = int(out.shape[1]) - n_prompt
        logger.debug("generated %d tokens in %.2fs (%.1f tok/s)", n_new, elapsed, n_new / max(elapsed, 1e-9))
        raw_text = self.tokenizer.decode(new_ids, skip_special_tokens=False)
        parsed = parse_with_tokenizer(
            self.tokenizer, raw_text, prefix=prompt, tools=tools or None, id_prefix=f"call_{turn_index(messages)}"
        )
        return AssistantTurn(
            content=parsed.content,
            tool_calls=parsed.tool_calls,
            usage=Usage(prompt_tokens=n_prompt, completion_tokens=n_new),
            raw_text=raw_text,
            reasoning=parsed.reasoning,
        )


def load_backend(rest: str, **kw: Any) -> TransformersBackend:
    """Factory behind the ``hf:<local path or hub id>`` spec."""
    if not rest:
        raise ValueError("backend spec 'hf:' needs a model path or hub id, e.g. 'hf:./runs/sft/final'")
    return TransformersBackend.from_pretrained(rest, **kw)

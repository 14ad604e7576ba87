"""The bundled GGUF models on llama.cpp (``llamacpp:qwen2.5-coder-0.5b``, ``llamacpp:qwen2.5-coder-1.5b``): same model, same chat
template and parser as ``gguf:``, much faster on CPU.

transformers de-quantises the GGUF to float32 and re-reads the whole prompt every turn;
llama.cpp runs the Q4_K_M weights directly and keeps the KV cache of the previous prompt, so a
turn only pays for the new tokens. The prompt is rendered with the GGUF's own Hugging Face chat
template (tools included) and the output parsed by :func:`parse_with_tokenizer`, so the two
backends differ only in the arithmetic.

Needs ``pip install llama-cpp-python`` (it compiles llama.cpp).
"""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

from kopa_bench.runner.backends.contract import DEFAULT_MAX_TOKENS, AssistantTurn, Backend, ContextOverflowError, Usage, turn_index
from kopa_bench.runner.backends.transformers_backend import template_messages
from kopa_bench.runner.parsing import parse_with_tokenizer

STOP = ["<|im_end|>", "<|endoftext|>"]


class LlamaCppBackend(Backend):
    def __init__(self, model_path: str, tokenizer: Any, *, n_ctx: int = 32768, n_threads: int | None = None,
                 model_name: str = "llamacpp"):
        try:
            from llama_cpp import Llama
        except ModuleNotFoundError:
            raise ModuleNotFoundError("the llamacpp: backend needs llama-cpp-python; fix: pip install "
                                      "llama-cpp-python (compiles llama.cpp), or use gguf: (transformers)") from None
        self.llm = Llama(model_path=str(model_path), n_ctx=n_ctx, n_threads=n_threads or os.cpu_count(),
                         verbose=False, logits_all=False)
        self.tokenizer = tokenizer
        self.model_name = model_name
        self._lock = threading.Lock()  # one llama.cpp context is driven by one thread at a time

    def render_prompt(self, messages: list[dict], tools: list[dict]) -> str:
        return self.tokenizer.apply_chat_template(template_messages(messages), tools=tools or None,
                                                  add_generation_prompt=True, tokenize=False)

    async def generate(self, messages: list[dict], tools: list[dict], *, temperature: float = 0.0,
                       seed: int | None = None, max_tokens: int = DEFAULT_MAX_TOKENS) -> AssistantTurn:
        return await asyncio.to_thread(self.generate_sync, messages, tools, temperature, seed, max_tokens)

    def generate_sync(self, messages: list[dict], tools: list[dict], temperature: float = 0.0,
                      seed: int | None = None, max_tokens: int = DEFAULT_MAX_TOKENS) -> AssistantTurn:
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {temperature}")
        prompt = self.render_prompt(messages, tools)
        n_ctx = self.llm.n_ctx()
        n_prompt = len(self.llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True))
        if n_prompt >= n_ctx:
            raise ContextOverflowError(f"the prompt is {n_prompt} tokens and the context window {n_ctx}; "
                                       "fix: lower --max-tool-records or --max-steps, or offer fewer tools")
        # llama.cpp refuses prompt + max_tokens > n_ctx outright; generate what still fits instead
        max_tokens = min(max_tokens, n_ctx - n_prompt)
        with self._lock:
            out = self.llm.create_completion(prompt, max_tokens=max_tokens, temperature=temperature,
                                             top_k=1 if temperature == 0 else 40, seed=seed if seed is not None else 0,
                                             stop=STOP)
        text = out["choices"][0]["text"]
        usage = out.get("usage") or {}
        parsed = parse_with_tokenizer(self.tokenizer, text, prefix=prompt, tools=tools or None,
                                      id_prefix=f"call_{turn_index(messages)}")
        return AssistantTurn(content=parsed.content, tool_calls=parsed.tool_calls,
                             usage=Usage(prompt_tokens=int(usage.get("prompt_tokens", 0)),
                                         completion_tokens=int(usage.get("completion_tokens", 0))),
                             raw_text=text, reasoning=parsed.reasoning)


def load_backend(name: str = "qwen2.5-coder-0.5b", **kw: Any) -> LlamaCppBackend:
    """Factory behind ``llamacpp:<bundled model>`` (``qwen2.5-coder-0.5b``, ``qwen2.5-coder-1.5b``):
    the assembled, hash-checked bundled GGUF."""
    from transformers import AutoTokenizer

    from kopa_bench.runner.backends.gguf_model import assemble_gguf, bundled_model

    m = bundled_model(name, "llamacpp")
    path = assemble_gguf(m)
    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name, local_files_only=True)
    kw.setdefault("model_name", f"{m.alias}-instruct-q4_k_m-llamacpp")
    return LlamaCppBackend(str(path), tokenizer, **kw)

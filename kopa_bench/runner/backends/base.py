"""Backend contract (DESIGN.md "Model backends") and the spec -> backend registry.

A backend turns an OpenAI-format conversation plus tool schemas into one :class:`AssistantTurn`.
Specs are short strings so the CLI and configs can name a model:

* ``openai:<base_url>#<model>`` (or ``openai:<base_url>`` with ``model=`` given as a keyword)
* ``hf:<local path or hub id>``
* ``gguf:qwen2.5-coder-0.5b`` (the offline model shipped as PyPI parts)
* anything added with :func:`register_backend` (the scripted ``oracle`` / ``no-tool`` /
  ``first-call`` agents live elsewhere and register themselves).
"""

from __future__ import annotations

import abc
import importlib
import json
import logging
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from kopa_bench.runner.parsing import ParsedCall

logger = logging.getLogger(__name__)


class BackendError(RuntimeError):
    """A model backend failed in a way retries did not fix (HTTP 4xx, exhausted retries, ...)."""


class ContextOverflowError(BackendError):
    """The conversation no longer fits the model's context window. The episode ends there with
    stop_reason ``context_limit``; the calls made so far are kept and scored."""


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class AssistantTurn(BaseModel):
    """One assistant message, parsed. ``tool_calls`` may contain calls with ``error`` set."""

    content: str = ""
    tool_calls: list[ParsedCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    raw_text: str = ""
    reasoning: str = ""

    def to_message(self, *, arguments_as: str = "json") -> dict[str, Any]:
        """OpenAI-format assistant message for the conversation history.

        ``arguments_as="json"`` gives JSON strings (what OpenAI servers require);
        ``"dict"`` gives objects (what chat templates render best). A malformed call keeps its raw
        text as arguments, so the model sees what it wrote next to the error the tool returns.
        """
        msg: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            calls = []
            for c in self.tool_calls:
                if c.arguments is None:
                    args: Any = c.raw
                elif arguments_as == "dict":
                    args = c.arguments
                else:
                    args = json.dumps(c.arguments, ensure_ascii=False)
                calls.append({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": args}})
            msg["tool_calls"] = calls
        return msg


def turn_index(messages: list[dict]) -> int:
    """Index of the assistant turn about to be generated (number of assistant messages so far).

    Backends use it for deterministic call ids ``call_<turn>_<i>`` without an extra argument.
    """
    return sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")


class Backend(abc.ABC):
    """An async chat model with tool calling."""

    #: short label recorded in episodes (``Episode.backend``)
    kind: str = "backend"
    #: model name recorded in episodes (``Episode.model``)
    model_name: str = ""

    @abc.abstractmethod
    async def generate(
        self,
        messages: list[dict],
        tools: list[dict],
        *,
        temperature: float = 0.0,
        seed: int | None = None,
        max_tokens: int = 1024,
    ) -> AssistantTurn:
        """Generate the next assistant turn for ``messages`` with ``tools`` offered."""

    async def aclose(self) -> None:
        """Release network clients / models. Safe to call twice."""

    async def __aenter__(self) -> Backend:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


# ---------------------------------------------------------------------------------------- registry

#: factory(rest_of_spec, **kw) -> Backend; a "module:attr" string is imported on first use
Factory = Callable[..., Backend]
_REGISTRY: dict[str, Factory | str] = {}
_FORMS: dict[str, str] = {}


def register_backend(prefix: str, factory: Factory | str, *, form: str | None = None) -> None:
    """Register ``factory`` for specs ``<prefix>`` or ``<prefix>:<rest>``.

    ``factory`` is called as ``factory(rest, **kw)`` (``rest`` is ``""`` for a bare ``prefix``).
    Pass a ``"package.module:function"`` string to register without importing heavy code.
    ``form`` is the human-readable spec shown in error messages (e.g. ``"oracle"``).
    Re-registering a prefix replaces it (last one wins, logged).
    """
    if not prefix or ":" in prefix or prefix != prefix.strip():
        raise ValueError(f"backend prefix must be a non-empty word without ':', got {prefix!r}")
    if prefix in _REGISTRY:
        logger.info("backend prefix %r re-registered", prefix)
    _REGISTRY[prefix] = factory
    _FORMS[prefix] = form or prefix


def registered_backends() -> dict[str, str]:
    """prefix -> example spec form, for help texts."""
    return dict(_FORMS)


def _resolve(factory: Factory | str) -> Factory:
    if callable(factory):
        return factory
    module, _, attr = factory.partition(":")
    return getattr(importlib.import_module(module), attr)


def make_backend(spec: str, **kw: Any) -> Backend:
    """Build a backend from a spec string (see module docstring); ValueError lists the valid forms."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"empty backend spec {spec!r}; valid forms: {', '.join(_FORMS.values())}")
    spec = spec.strip()
    prefix, sep, rest = spec.partition(":")
    factory = _REGISTRY.get(prefix)
    if factory is None:
        raise ValueError(
            f"unknown backend spec {spec!r} (prefix {prefix!r}); valid forms: {', '.join(_FORMS.values())}"
        )
    return _resolve(factory)(rest if sep else "", **kw)


def _openai_factory(rest: str, **kw: Any) -> Backend:
    from kopa_bench.runner.backends.openai_compat import OpenAICompatBackend

    return OpenAICompatBackend.from_spec(rest, **kw)


def _hf_factory(rest: str, **kw: Any) -> Backend:
    from kopa_bench.runner.backends.transformers_backend import TransformersBackend

    if not rest:
        raise ValueError("backend spec 'hf:' needs a model path or hub id, e.g. 'hf:./runs/sft/final'")
    return TransformersBackend.from_pretrained(rest, **kw)


def _gguf_factory(rest: str, **kw: Any) -> Backend:
    from kopa_bench.runner.backends.gguf_model import load_backend

    return load_backend(rest, **kw)


register_backend("openai", _openai_factory, form="openai:<base_url>#<model>")
register_backend("hf", _hf_factory, form="hf:<local path or hub id>")
register_backend("gguf", _gguf_factory, form="gguf:qwen2.5-coder-0.5b")
register_backend("llamacpp", "kopa_bench.runner.backends.llamacpp_backend:load_backend",
                 form="llamacpp:qwen2.5-coder-0.5b")

"""Backend specs: the short strings that name a model, and the factory each prefix maps to.

* ``openai:<base_url>#<model>`` (or ``openai:<base_url>`` with ``model=`` given as a keyword)
* ``hf:<local path or hub id>``
* ``gguf:qwen2.5-coder-0.5b`` / ``gguf:qwen2.5-coder-1.5b`` (the offline models shipped as PyPI parts), ``llamacpp:`` the same on llama.cpp
* ``oracle``, ``no-tool``, ``first-call`` (the scripted reference agents)
* anything added with :func:`register_backend`

Factories are ``"module:attribute"`` strings imported on first use, so naming a backend never
imports torch, and no backend module is imported by the contract they implement.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from functools import reduce
from typing import Any

from kopa_bench.runner.backends.contract import Backend

logger = logging.getLogger(__name__)

#: factory(rest_of_spec, **kw) -> Backend; a "module:attr" string is imported on first use
Factory = Callable[..., Backend]
_REGISTRY: dict[str, Factory | str] = {}
_FORMS: dict[str, str] = {}


def register_backend(prefix: str, factory: Factory | str, *, form: str | None = None) -> None:
    """Register ``factory`` for specs ``<prefix>`` or ``<prefix>:<rest>``.

    ``factory`` is called as ``factory(rest, **kw)`` (``rest`` is ``""`` for a bare ``prefix``).
    Pass a ``"package.module:attribute"`` string to register without importing heavy code.
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
    return reduce(getattr, attr.split("."), importlib.import_module(module))


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


_BACKENDS = "kopa_bench.runner.backends"
register_backend("openai", f"{_BACKENDS}.openai_compat:OpenAICompatBackend.from_spec", form="openai:<base_url>#<model>")
register_backend("hf", f"{_BACKENDS}.transformers_backend:load_backend", form="hf:<local path or hub id>")
register_backend("gguf", f"{_BACKENDS}.gguf_model:load_backend", form="gguf:qwen2.5-coder-0.5b|qwen2.5-coder-1.5b")
register_backend("llamacpp", f"{_BACKENDS}.llamacpp_backend:load_backend", form="llamacpp:qwen2.5-coder-0.5b|qwen2.5-coder-1.5b")
for _prefix, _cls in (("oracle", "OracleBackend"), ("no-tool", "NoToolBackend"), ("first-call", "FirstCallBackend")):
    register_backend(_prefix, f"kopa_bench.runner.scripted:{_cls}.from_spec", form=_prefix)

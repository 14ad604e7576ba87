"""The one place KOPA imports ``bfcl_eval`` (the PyPI package of the Berkeley Function Calling
Leaderboard), and the one stub it needs.

Why a stub: ``bfcl_eval.eval_checker.ast_eval.ast_checker`` and
``bfcl_eval.eval_checker.eval_runner_helper`` import ``MODEL_CONFIG_MAPPING`` from
``bfcl_eval.constants.model_config``, and that module imports every model handler BFCL ships
(anthropic, cohere, mistralai, google-genai, boto3, openai, qwen-agent, ...) at import time. The
checkers read only two things from that table: ``underscore_to_dot`` of the model being checked
(``ast_checker.convert_func_name``) and the display fields of the leaderboard CSVs
(``eval_runner_helper.generate_leaderboard_csv``). So before the first import, :func:`load`
puts a module of the same name into ``sys.modules`` whose ``MODEL_CONFIG_MAPPING`` holds KOPA's
own entries (:data:`FC_MODEL`, :data:`PROMPT_MODEL`, and one per model of a leaderboard, added by
:func:`register_model`). Nothing else of BFCL is replaced: its data files, data loaders
(``bfcl_eval.utils``), prompt helpers (``bfcl_eval.model_handler.utils``), AST checker,
multi-turn checker, simulated API classes and leaderboard aggregation run as shipped.

Why ``BFCL_PROJECT_ROOT``: ``bfcl_eval.constants.eval_config`` creates ``result/``, ``score/`` and
``.file_locks/`` under that folder when imported (default: next to site-packages). KOPA points it
at its cache (``$KOPA_CACHE/bfcl`` or ``~/.cache/kopa/bfcl``) unless the variable is already set.

Install: ``bash scripts/setup.sh <extras>,bfcl`` (or ``pip install 'kopa[bfcl]'`` then
``pip install --no-deps bfcl-eval==2026.3.23``). bfcl-eval goes in without its declared
dependencies because they pin numpy, networkx and filelock below KOPA's and pull every provider
SDK; the ``bfcl`` extra lists what the modules above really import.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import logging
import os
import sys
import threading
import types
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

BFCL_EVAL_VERSION = "2026.3.23"
INSTALL_HINT = (f"fix: bash scripts/setup.sh train,space,dev,bfcl  (or: pip install 'kopa[bfcl]' && "
                f"pip install --no-deps bfcl-eval=={BFCL_EVAL_VERSION})")
STUBBED_MODULE = "bfcl_eval.constants.model_config"
#: checker keys: native function calling (BFCL's FC convention: '.' in names sent as '_') and prompting
FC_MODEL, PROMPT_MODEL = "kopa-fc", "kopa-prompt"

_lock = threading.Lock()
_loaded: types.SimpleNamespace | None = None


class BfclNotInstalled(ModuleNotFoundError):
    """bfcl-eval (or one of the few packages its checkers import) is missing."""


@dataclass
class ModelConfig:
    """The fields of bfcl_eval's ModelConfig that its checkers and leaderboard read."""

    model_name: str
    display_name: str
    url: str = ""
    org: str = "-"
    license: str = "-"
    model_handler: Any = None
    input_price: float | None = None
    output_price: float | None = None
    is_fc_model: bool = True
    underscore_to_dot: bool = False


def cache_root() -> str:
    from kopa_bench.runner.backends.gguf_model import cache_dir

    return str(cache_dir().parent / "bfcl")


def _stub_model_config() -> dict[str, ModelConfig]:
    """Install the handler-table stub (or reuse a real table someone imported) and return the mapping."""
    mod = sys.modules.get(STUBBED_MODULE)
    if mod is None:
        mod = types.ModuleType(STUBBED_MODULE)
        mod.__doc__ = "KOPA stub for bfcl_eval's model handler table (see kopa_bench/bfcl/compat.py)."
        mod.ModelConfig = ModelConfig
        mod.MODEL_CONFIG_MAPPING = {}
        mod.KOPA_STUB = True
        sys.modules[STUBBED_MODULE] = mod
    mapping = mod.MODEL_CONFIG_MAPPING
    mapping.setdefault(FC_MODEL, ModelConfig(FC_MODEL, "KOPA (function calling)", underscore_to_dot=True))
    mapping.setdefault(PROMPT_MODEL, ModelConfig(PROMPT_MODEL, "KOPA (prompting)", is_fc_model=False))
    return mapping


def load() -> types.SimpleNamespace:
    """Import the parts of bfcl_eval KOPA uses (once) and return them as one namespace.

    Raises BfclNotInstalled with the install command when bfcl-eval or a package it imports is
    missing."""
    global _loaded
    if _loaded is not None:
        return _loaded
    with _lock:
        if _loaded is not None:
            return _loaded
        try:
            version = importlib.metadata.version("bfcl-eval")
        except importlib.metadata.PackageNotFoundError:
            raise BfclNotInstalled(f"BFCL needs the bfcl-eval package, which is not installed; {INSTALL_HINT}") from None
        if version != BFCL_EVAL_VERSION:
            log.warning("bfcl-eval %s is installed; KOPA is tested with %s", version, BFCL_EVAL_VERSION)
        os.environ.setdefault("BFCL_PROJECT_ROOT", cache_root())
        mapping = _stub_model_config()
        try:
            ns = types.SimpleNamespace(
                version=version,
                model_config=mapping,
                utils=importlib.import_module("bfcl_eval.utils"),
                category_mapping=importlib.import_module("bfcl_eval.constants.category_mapping"),
                enums=importlib.import_module("bfcl_eval.constants.enums"),
                type_mappings=importlib.import_module("bfcl_eval.constants.type_mappings"),
                default_prompts=importlib.import_module("bfcl_eval.constants.default_prompts"),
                backend_config=importlib.import_module("bfcl_eval.constants.executable_backend_config"),
                handler_utils=importlib.import_module("bfcl_eval.model_handler.utils"),
                ast_checker=importlib.import_module("bfcl_eval.eval_checker.ast_eval.ast_checker"),
                multi_turn_checker=importlib.import_module("bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker"),
                multi_turn_utils=importlib.import_module("bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils"),
                runner_helper=importlib.import_module("bfcl_eval.eval_checker.eval_runner_helper"),
            )
        except ModuleNotFoundError as exc:
            raise BfclNotInstalled(f"bfcl-eval {version} imports {exc.name!r}, which is not installed; {INSTALL_HINT}") from None
        _loaded = ns
        return ns


def register_model(key: str, display_name: str, *, fc: bool = True) -> None:
    """Add a leaderboard row's model to the (stubbed) handler table BFCL's CSV writer reads."""
    mapping = load().model_config
    mapping[key] = ModelConfig(key, display_name, is_fc_model=fc, underscore_to_dot=fc)


def available() -> bool:
    """True when bfcl-eval is installed (without importing it)."""
    try:
        importlib.metadata.version("bfcl-eval")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True

"""KOPA tool environment for TRL's `GRPOTrainer(environment_factory=...)` (TRL >= 1.16).

How it plugs into TRL (read from trl/trainer/grpo_trainer.py, not guessed):

* TRL lists the environment's *tools* as the public functions of its class
  (`inspect.getmembers(type(env), inspect.isfunction)`), minus `reset` and `get_reward`. Their
  JSON schemas come from `transformers.utils.get_json_schema` (signature + Google docstring).
  So every KOPA tool becomes a generated async method named after the tool, whose signature and
  docstring are derived from the catalog; nothing else on the class may be public.
* `environment_factory` may be a dict `{name: factory}`; each dataset row then names its
  environment in an `environment` column and only that environment's tools are rendered in its
  prompt. We key environments by the task's offered tool set, so a rollout sees exactly the
  tools the task offers (gold + distractors), as in the benchmark.
* `reset(**row)` gets every dataset column (minus `environment`) once per rollout; the pool of
  instances is reused across batches, so `reset` clears the episode record.
* TRL runs the tool loop (`max_tool_calling_iterations` in `GRPOConfig` bounds assistant turns);
  async tools are awaited on TRL's daemon event loop. The reward functions receive the rollout's
  instances as the `environments` kwarg and score `env._calls` with the benchmark scorer.
"""

from __future__ import annotations

import hashlib
import inspect
import itertools
import json
import logging
from dataclasses import dataclass
from typing import Any, Callable

from kopa_bench.client import KopaClient, ToolErrorInfo, ToolResult

log = logging.getLogger(__name__)

_PY_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool}


@dataclass
class EnvSettings:
    """What every environment instance of one run shares."""

    backend: str = "sandbox"  # sandbox | http(s)://... | live
    cache_path: str | None = None  # ReplayCache file (replay/record/auto)
    cache_mode: str = "replay"
    world_seed: int | None = None
    max_tool_calls: int = 8  # per episode; further calls come back as errors, not executed
    max_records: int = 20  # records shown to the model per call (ToolResult.for_model)
    platforms: tuple[str, ...] | None = None  # catalog platform ids to load (None: all); smaller, faster sandbox


def settings_catalog(settings: "EnvSettings"):
    """The catalog these settings train on: all platforms, or only `settings.platforms`."""
    from kopa_bench.catalog import Catalog, get_catalog

    catalog = get_catalog()
    if not settings.platforms:
        return catalog
    unknown = [p for p in settings.platforms if p not in catalog.platforms]
    if unknown:
        raise ValueError(f"unknown platform ids {unknown}; the catalog has {sorted(catalog.platforms)}")
    return Catalog([catalog.platforms[p] for p in settings.platforms])


_CLIENTS: dict[tuple, KopaClient] = {}


def shared_client(settings: EnvSettings) -> KopaClient:
    """One client (and one sandbox app / world) per process and settings."""
    key = (settings.backend, settings.cache_path, settings.cache_mode, settings.world_seed, settings.platforms)
    if key not in _CLIENTS:
        cache = None
        if settings.cache_path:
            from kopa_bench.client import ReplayCache

            cache = ReplayCache(settings.cache_path, mode=settings.cache_mode)
        world = None
        if settings.backend == "sandbox" and settings.world_seed is not None:
            from kopa_bench.world import get_world

            world = get_world(seed=settings.world_seed)
        _CLIENTS[key] = KopaClient(settings.backend, catalog=settings_catalog(settings), world=world, cache=cache)
    return _CLIENTS[key]


def toolset_key(tools: list[str]) -> str:
    """Environment name for a set of offered tools (order-insensitive)."""
    digest = hashlib.sha1("\n".join(sorted(set(tools))).encode()).hexdigest()[:12]
    return f"kopa-{digest}"


def decode_list(value: Any) -> list:
    """Dataset columns hold JSON strings (the KOPA task schema); accept decoded lists too."""
    if value is None:
        return []
    while isinstance(value, str):
        value = json.loads(value)
    return list(value)


class KopaEnvironment:
    """One rollout's view of the KOPA APIs: executes calls and records them for the rewards.

    Subclasses made by :func:`environment_class` add one async method per offered tool.
    Only `reset` is public here: TRL would expose any other public method as a tool.
    """

    _settings: EnvSettings = EnvSettings()
    _tool_names: tuple[str, ...] = ()

    def __init__(self) -> None:
        self._client = shared_client(self._settings)
        self._calls: list = []  # kopa_bench.episodes.CallRecord, in the order issued
        self._row: dict[str, Any] = {}
        self._offered: set[str] = set(self._tool_names)
        self._score_cache: dict[str, Any] = {}

    def reset(self, **row: Any) -> None:
        """Start a new episode for one dataset row (a KOPA task). Returns None: the prompt is in the row."""
        self._calls = []
        self._row = row
        self._score_cache = {}
        offered = decode_list(row.get("tools")) or list(self._tool_names)
        self._offered = set(offered)
        return None

    async def _call(self, tool: str, arguments: dict[str, Any]) -> str:
        from kopa_bench.episodes import CallRecord

        index = len(self._calls)
        # Reserve the slot before awaiting so parallel calls of one turn keep their issue order.
        record = CallRecord(id=f"call_{index}", turn=index, tool=tool, arguments=dict(arguments),
                            raw_arguments=json.dumps(arguments, ensure_ascii=False, default=str))
        self._calls.append(record)
        args = {k: v for k, v in arguments.items() if v is not None}  # omitted optionals arrive as None
        if index >= self._settings.max_tool_calls:
            result = _error(tool, args, "platform",
                            f"tool-call budget of {self._settings.max_tool_calls} calls is spent; answer now")
        elif tool not in self._offered:
            result = _error(tool, args, "unknown_tool", f"{tool} is not offered for this task")
        else:
            result = await self._client.call(tool, args)
        record.result = result
        record.arguments = args
        if result.error is not None and result.error.type in ("unknown_tool", "argument"):
            record.error_kind = result.error.type
        elif result.error is not None:
            record.error_kind = "platform"
        return result.for_model(self._settings.max_records)


def _error(tool: str, args: dict, kind: str, message: str) -> ToolResult:
    return ToolResult(tool=tool, arguments=args, ok=False, error=ToolErrorInfo(type=kind, message=message))


def _tool_method(schema: dict[str, Any]) -> Callable:
    """An async method whose signature/docstring make get_json_schema reproduce the catalog schema."""
    fn_schema = schema["function"]
    name = fn_schema["name"]
    props: dict[str, dict] = fn_schema["parameters"]["properties"]
    required = set(fn_schema["parameters"].get("required", []))

    async def tool(self, **kwargs):
        return await self._call(name, kwargs)

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {"return": str}
    arg_lines = []
    # Required parameters first: a Python signature cannot put defaults before non-defaults.
    for pname in sorted(props, key=lambda p: p not in required):
        p = props[pname]
        py = _PY_TYPES.get(p.get("type", "string"), str)
        if pname in required:
            params.append(inspect.Parameter(pname, inspect.Parameter.KEYWORD_ONLY, annotation=py))
            annotations[pname] = py
        else:
            params.append(inspect.Parameter(pname, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=py | None))
            annotations[pname] = py | None
        desc = " ".join(str(p.get("description", pname)).split()).replace("(choices:", "(")
        if p.get("enum"):
            desc += f" (choices: {json.dumps(p['enum'], ensure_ascii=False)})"
        arg_lines.append(f"    {pname}: {desc}")
    description = " ".join(fn_schema.get("description", name).split())
    doc = description + "\n\nArgs:\n" + "\n".join(arg_lines) + "\n\nReturns:\n    The API result as JSON: resultCode, totalCount and items, or an error."
    tool.__name__ = tool.__qualname__ = name
    tool.__doc__ = doc
    tool.__signature__ = inspect.Signature(params, return_annotation=str)
    tool.__annotations__ = annotations
    return tool


_CLASSES: dict[tuple, type] = {}
_counter = itertools.count()


def environment_class(tools: list[str], settings: EnvSettings | None = None, lang: str = "both") -> type[KopaEnvironment]:
    """A KopaEnvironment subclass exposing exactly `tools` (schemas from the catalog)."""
    from kopa_bench.catalog import tool_schemas

    settings = settings or EnvSettings()
    key = (tuple(sorted(set(tools))), repr(settings), lang)
    if key not in _CLASSES:
        reserved = [t for t in tools if t.startswith("_") or t in ("reset", "get_reward")]
        if reserved:
            raise ValueError(f"tool names {reserved} clash with the environment protocol")
        methods = {s["function"]["name"]: _tool_method(s) for s in tool_schemas(settings_catalog(settings), sorted(set(tools)), lang)}
        attrs = {**methods, "_settings": settings, "_tool_names": tuple(sorted(set(tools)))}
        _CLASSES[key] = type(f"KopaEnv{next(_counter)}", (KopaEnvironment,), attrs)
    return _CLASSES[key]


def build_environment_factories(rows, settings: EnvSettings | None = None, lang: str = "both") -> dict[str, type]:
    """`{toolset_key: class}` for every distinct offered tool set in `rows` (dicts or a Dataset).

    The classes themselves are the factories (calling one makes an instance), which is what
    `GRPOTrainer(environment_factory=...)` expects.
    """
    factories: dict[str, type] = {}
    for tools_col in (rows["tools"] if hasattr(rows, "column_names") else [r["tools"] for r in rows]):
        tools = decode_list(tools_col)
        key = toolset_key(tools)
        if key not in factories:
            factories[key] = environment_class(tools, settings, lang)
    if not factories:
        raise ValueError("no rows with a `tools` column: cannot build KOPA environments")
    return factories

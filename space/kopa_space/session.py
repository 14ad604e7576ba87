"""What one press of "Run" needs: the model backend, the tool client, the task, the gold run.

Nothing here touches Gradio. Heavy objects (a loaded local model, the sandbox app with its
DuckDB world) are created on first use and cached for the process; a typed API key is only
ever held in the arguments of one run.
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kopa_bench.client import KopaClient, register_secret

from .errors import UserFacingError
from kopa_bench.settings import get_settings

SCRIPTED = ("oracle", "no-tool", "first-call")
MODEL_KINDS = {
    "oracle": "scripted oracle (demo)",
    "gguf": "gguf:qwen2.5-coder-0.5b (CPU)",
    "local": "local checkpoint folder",
    "hub": "Hugging Face Hub id",
    "openai": "OpenAI-compatible endpoint",
}
FREE_TASK_ID = "free-request"


@dataclass
class ModelChoice:
    kind: str = "oracle"  # a key of MODEL_KINDS
    target: str = ""  # folder / hub id / endpoint URL
    endpoint_model: str = ""  # model name on the endpoint

    def spec(self) -> str:
        """The backend spec for make_backend; UserFacingError for a choice that cannot work."""
        target = (self.target or "").strip()
        if self.kind == "oracle":
            return "oracle"
        if self.kind == "gguf":
            # llama.cpp runs the same GGUF faster on CPU (BENCHMARKS.md); transformers when it is absent
            import importlib.util

            fast = importlib.util.find_spec("llama_cpp") is not None
            return "llamacpp:qwen2.5-coder-0.5b" if fast else "gguf:qwen2.5-coder-0.5b"
        if self.kind == "local":
            folder = Path(target).expanduser()
            if not target or not folder.is_dir():
                raise UserFacingError(f"**체크포인트 폴더가 없습니다: `{target or '(비어 있음)'}`**\n\n"
                                      "No checkpoint folder at that path; give a folder with config.json and the weights.")
            # Checked here so a wrong folder is named in one sentence instead of a loader error
            if not (folder / "config.json").is_file():
                raise UserFacingError(f"**체크포인트 폴더가 아닙니다 (config.json 없음): `{target}`**\n\n"
                                      "That folder has no config.json; give the folder a trainer saved "
                                      "(config.json, tokenizer files and *.safetensors), e.g. `runs/sft/final`.")
            return f"hf:{folder}"
        if self.kind == "hub":
            if "/" not in target or " " in target:
                raise UserFacingError(f"**Hub id 형식이 아닙니다: `{target or '(비어 있음)'}`**\n\n"
                                      "Give a Hub id like `Qwen/Qwen2.5-0.5B-Instruct`.")
            return f"hf:{target}"
        if self.kind == "openai":
            if not target.startswith(("http://", "https://")):
                raise UserFacingError(f"**엔드포인트 주소가 올바르지 않습니다: `{target or '(비어 있음)'}`**\n\n"
                                      "The endpoint must look like `http://host:port/v1`.")
            return f"openai:{target}#{(self.endpoint_model or '').strip() or 'default'}"
        raise UserFacingError(f"unknown model kind {self.kind!r}; choose one of {list(MODEL_KINDS)}")


# -- tasks ----------------------------------------------------------------------------------

_tasks_cache: dict[str, list] = {}


def load_space_tasks() -> list:
    """Benchmark tasks shown by the Space: $KOPA_SPACE_TASKS (a JSON file) if set, else test+dev."""
    from kopa_bench.tasks import load_tasks, parse_tasks

    path = str(get_settings().space_tasks or "")
    key = path or "<splits>"
    if key in _tasks_cache:
        return _tasks_cache[key]
    if path:
        p = Path(path)
        if not p.is_file():
            raise UserFacingError(f"**과제 파일이 없습니다: `{path}`**\n\nKOPA_SPACE_TASKS points to a missing file.")
        tasks = parse_tasks(json.loads(p.read_text(encoding="utf-8")), str(p))
    else:
        tasks = []
        for split in ("test", "dev"):
            try:
                tasks.extend(load_tasks(split))
            except Exception:  # a missing split folder just means no tasks there yet
                continue
    _tasks_cache[key] = tasks
    return tasks


def find_task(task_id: str):
    for t in load_space_tasks():
        if t.id == task_id:
            return t
    raise UserFacingError(f"**과제를 찾을 수 없습니다: `{task_id}`**\n\nNo task with that id.")


def free_task(query: str, platforms: list[str] | None = None):
    """A Task wrapper for a typed request: the query plus the catalog's tools (not scored)."""
    from kopa_bench.catalog import get_catalog
    from kopa_bench.tasks import Task

    catalog = get_catalog()
    tools = [r.op.tool for r in catalog if not platforms or r.platform.id in platforms]
    if not tools:
        raise UserFacingError("**선택한 플랫폼에 도구가 없습니다.**\n\nNo tools for the selected platforms.")
    # The Task model demands a gold program and >= 5 tools; a placeholder step satisfies it and
    # is never executed or scored.
    while len(set(tools)) < 5:
        extra = [r.op.tool for r in catalog if r.op.tool not in tools]
        if not extra:
            break
        tools.append(extra[0])
    return Task(id=FREE_TASK_ID, split="dev", query=query, domain="district", platforms=sorted({catalog.get(t).platform.id for t in tools}),
                shape="sequential", difficulty="easy", tools=tools,
                program=[{"id": "s1", "tool": tools[0]}], answer=[{"id": "f1", "description": "free request", "value": ""}])


def platform_ids() -> list[str]:
    from kopa_bench.catalog import get_catalog

    return sorted({r.platform.id for r in get_catalog()})


# -- clients and backends -------------------------------------------------------------------

_sandbox_app = None
_app_lock = threading.Lock()


def sandbox_app():
    global _sandbox_app
    with _app_lock:
        if _sandbox_app is None:
            from kopa_bench.sandbox import create_app

            _sandbox_app = create_app()
        return _sandbox_app


def make_client(tool_backend: str, api_key: str | None) -> KopaClient:
    """A fresh client per run (httpx clients belong to one loop); the sandbox app is shared."""
    if tool_backend == "live":
        key = (api_key or "").strip()
        if not key:
            raise UserFacingError("**실제 API를 쓰려면 서비스 키가 필요합니다.**\n\n"
                                  "The live backend needs your data.go.kr service key (it is never stored).")
        register_secret(key)  # masked from every log line, error and raw payload from now on
        from kopa_bench.catalog import get_catalog

        keys = {r.platform.id: key for r in get_catalog()}
        return KopaClient("live", keys=keys)
    return KopaClient("sandbox", app=sandbox_app())


@dataclass
class _BackendCache:
    """Keeps the last loaded local model (loading one takes ~40 s on CPU)."""

    spec: str = ""
    backend: Any = None
    lock: asyncio.Lock | None = None
    extra: dict = field(default_factory=dict)


_cache = _BackendCache()


async def get_backend(spec: str, task, gold_client: Any = None) -> tuple[Any, bool]:
    """(backend, owned): `owned` backends are closed by the caller after the run.

    Scripted agents are bound to the one task and to a separate (unwatched) client for their
    gold run, so only the calls made through the episode appear in the chat.
    """
    from kopa_bench.runner.backends import make_backend

    if spec in SCRIPTED:
        return make_backend(spec, tasks=[task], client=gold_client), True
    if spec.startswith("openai:"):
        # One retry, not the benchmark runner's four with backoff: a visitor who typed a wrong URL
        # should read the explanation in about a second, not after ~15 s of retries.
        return make_backend(spec, max_retries=1, backoff_s=0.5), True
    if _cache.lock is None:
        _cache.lock = asyncio.Lock()
    async with _cache.lock:
        if _cache.spec != spec:
            old, _cache.backend, _cache.spec = _cache.backend, None, ""
            if old is not None:
                await old.aclose()
            _cache.backend = await asyncio.to_thread(make_backend, spec)
            _cache.spec = spec
        return _cache.backend, False

"""JSON-schema tool definitions derived from the operation specs (never written twice)."""

from __future__ import annotations

from typing import Any

from .models import Operation, Param
from .registry import Catalog, ToolRef

_JSON_TYPES = {"string": "string", "integer": "integer", "number": "number"}


def _param_schema(p: Param, lang: str) -> dict[str, Any]:
    desc = f"{p.desc_ko} / {p.desc_en}" if lang == "both" else (p.desc_ko if lang == "ko" else p.desc_en)
    if p.example not in (None, ""):
        desc += f" (예: {p.example})"
    schema: dict[str, Any] = {"type": _JSON_TYPES[p.type], "description": desc}
    if p.enum:
        schema["enum"] = list(p.enum)
    return schema


def tool_description(ref: ToolRef, lang: str = "both") -> str:
    op: Operation = ref.op
    ko = op.description_ko or op.title_ko
    en = op.description_en or op.title_en
    head = f"[{ref.platform.name_ko} / {ref.service.name_ko}]"
    if lang == "ko":
        return f"{head} {ko}"
    if lang == "en":
        return f"[{ref.platform.name_en} / {ref.service.name_en}] {en}"
    return f"{head} {ko} — {en}"


def tool_schema(ref: ToolRef, lang: str = "both") -> dict[str, Any]:
    """OpenAI / transformers `tools=` entry for one operation."""
    props = {p.name: _param_schema(p, lang) for p in ref.op.model_params}
    required = [p.name for p in ref.op.model_params if p.required and p.default is None]
    return {
        "type": "function",
        "function": {
            "name": ref.op.tool,
            "description": tool_description(ref, lang),
            "parameters": {"type": "object", "properties": props, "required": required},
        },
    }


def tool_schemas(catalog: Catalog, names: list[str] | None = None, lang: str = "both") -> list[dict[str, Any]]:
    refs = [catalog.get(n) for n in names] if names is not None else list(catalog)
    return [tool_schema(r, lang) for r in refs]

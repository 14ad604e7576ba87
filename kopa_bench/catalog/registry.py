"""Load the YAML specs into one Catalog with explicit lookups."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources
from typing import Iterator

import yaml

from .models import Operation, Platform, Service


class UnknownToolError(KeyError):
    """A tool name that is not in the catalog; the message lists close valid names."""

    def __init__(self, name: str, valid: list[str]):
        import difflib

        close = difflib.get_close_matches(name, valid, n=5, cutoff=0.5)
        hint = f"; did you mean {close}?" if close else f"; `kopa tools list` shows all {len(valid)}"
        super().__init__(f"unknown tool {name!r}{hint}")
        self.name = name

    def __str__(self) -> str:  # KeyError would repr() the message
        return self.args[0]


@dataclass(frozen=True)
class ToolRef:
    """Everything needed to execute one tool: its platform, service and operation."""

    platform: Platform
    service: Service
    op: Operation

    @property
    def name(self) -> str:
        return self.op.tool


class Catalog:
    """All platforms, with lookup by model-facing tool name."""

    def __init__(self, platforms: list[Platform]):
        self.platforms = {p.id: p for p in platforms}
        self._tools: dict[str, ToolRef] = {}
        for platform in platforms:
            for service in platform.services:
                for op in service.operations:
                    op.service_id = service.id
                    op.platform_id = platform.id
                    if not op.tool:
                        op.tool = f"{service.id}_{re.sub(r'[^A-Za-z0-9_]', '_', op.name)}"
                    if op.tool in self._tools:
                        raise ValueError(f"duplicate tool name {op.tool!r} (platform {platform.id})")
                    self._tools[op.tool] = ToolRef(platform, service, op)

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[ToolRef]:
        return iter(self._tools.values())

    def __contains__(self, name: str) -> bool:
        return name in self._tools

    @property
    def tool_names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> ToolRef:
        try:
            return self._tools[name]
        except KeyError:
            raise UnknownToolError(name, self.tool_names) from None

    def platform(self, platform_id: str) -> Platform:
        try:
            return self.platforms[platform_id]
        except KeyError:
            raise KeyError(f"unknown platform {platform_id!r}; valid: {sorted(self.platforms)}") from None


def _merge(platforms: dict[str, Platform], incoming: Platform, source: str) -> None:
    """Specs of one platform may be split over several files (one per service group)."""
    have = platforms.get(incoming.id)
    if have is None:
        platforms[incoming.id] = incoming
        return
    for attr in ("protocol", "live_base_url", "sandbox_prefix", "key_env"):
        if getattr(have, attr) != getattr(incoming, attr):
            raise ValueError(f"{source}: platform {incoming.id} disagrees on {attr} with an earlier spec file")
    have.services.extend(incoming.services)


def load_platforms() -> list[Platform]:
    platforms: dict[str, Platform] = {}
    spec_dir = resources.files("kopa_bench.catalog") / "specs"
    for entry in sorted(spec_dir.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith((".yaml", ".yml")):
            continue
        data = yaml.safe_load(entry.read_text(encoding="utf-8"))
        try:
            platform = Platform.model_validate(data)
        except Exception as exc:  # pydantic's message names the field; add the file
            raise ValueError(f"invalid catalog spec {entry.name}: {exc}") from exc
        _merge(platforms, platform, entry.name)
    return list(platforms.values())


@functools.lru_cache(maxsize=1)
def get_catalog() -> Catalog:
    """The catalog, loaded once per process."""
    return Catalog(load_platforms())

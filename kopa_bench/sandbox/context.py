"""State the sandbox endpoints share: the world, the accepted keys, fault injection."""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response

from ..catalog.registry import Catalog, ToolRef
from ..world.store import World
from .faults import FaultConfig, FaultInjector

DEFAULT_SANDBOX_KEY = "KOPA-SANDBOX"


@dataclass
class SandboxContext:
    world: World
    catalog: Catalog
    keys: dict[str, set[str]] | set[str] = field(default_factory=lambda: {DEFAULT_SANDBOX_KEY})
    faults: FaultInjector | None = None

    def key_ok(self, platform_id: str, key: str | None) -> bool:
        if not key:
            return False
        allowed = self.keys.get(platform_id, set()) | self.keys.get("*", set()) if isinstance(self.keys, dict) else self.keys
        return key in allowed

    async def fault_for(self, ref: ToolRef, request: Request) -> Response | None:
        if self.faults is None:
            return None
        return await self.faults.maybe(ref, request)


def make_context(world: World, catalog: Catalog, keys=None, faults: FaultConfig | None = None) -> SandboxContext:
    return SandboxContext(
        world=world,
        catalog=catalog,
        keys=keys if keys is not None else {DEFAULT_SANDBOX_KEY},
        faults=FaultInjector(faults) if faults and faults.rate > 0 else None,
    )

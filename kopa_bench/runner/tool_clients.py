"""ClientSpec: how a run builds its tool clients (backend, replay cache, fault injection)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from kopa_bench.catalog.registry import Catalog
from kopa_bench.client import KopaClient
from kopa_bench.client.cache import ReplayCache
from kopa_bench.client.redact import redact
from kopa_bench.sandbox.faults import FaultConfig
from kopa_bench.world.store import World

log = logging.getLogger(__name__)


@dataclass
class ClientSpec:
    """The agent's client and the gold client of one run share the replay cache; closing a client
    closes it too, which is harmless once both are done (ReplayCache.close is idempotent)."""

    backend: str = "sandbox"
    cache: str | None = None
    cache_mode: str = "auto"
    faults: str | None = None
    world: World | None = None  # the World to serve (sandbox); None = the default world
    catalog: Catalog | None = None
    _cache_obj: ReplayCache | None = field(default=None, repr=False)

    def _cache(self) -> ReplayCache | None:
        if self.cache and self._cache_obj is None:
            self._cache_obj = ReplayCache(self.cache, mode=self.cache_mode)  # type: ignore[arg-type]
        return self._cache_obj

    def agent_client(self, seed: int = 0) -> KopaClient:
        faults = FaultConfig.parse(self.faults, seed=seed)
        if faults and self.backend != "sandbox":
            log.warning("--faults applies to the in-process sandbox only; start `kopa sandbox serve --faults` for %s",
                        redact(self.backend))
        return KopaClient(self.backend, world=self.world, catalog=self.catalog, cache=self._cache(), faults=faults)

    def gold_client(self) -> KopaClient:
        """A fault-free client of the same backend (faults test the agent, not the gold)."""
        return KopaClient(self.backend, world=self.world, catalog=self.catalog, cache=self._cache())

    def world_hash(self) -> str:
        """The content hash of the world the tools answer from ("live" for the live APIs)."""
        if self.backend == "live":
            return "live"
        try:
            if self.backend == "sandbox":
                from kopa_bench.world.store import get_world

                return (self.world or get_world()).content_hash
            import httpx

            return httpx.get(self.backend.rstrip("/") + "/__kopa/health", timeout=5).json().get("world", "")
        except Exception as exc:  # the hash is informative; a broken world fails loudly elsewhere
            log.warning("could not read the world hash: %s", redact(str(exc)))
            return ""

    def close(self) -> None:
        if self._cache_obj is not None:
            self._cache_obj.close()
            self._cache_obj = None

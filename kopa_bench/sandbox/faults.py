"""Fault injection: the failures live APIs produce, at a configurable rate, reproducibly.

Kinds: quota (data.go.kr 22), per_second (23), key (30), timeout (the server stalls past the
client's time-out), server_error (HTTP 5xx), truncated (a payload cut mid-way), malformed
(garbage instead of XML/JSON), slow (a delay that still answers).
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import threading
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response

FAULT_KINDS = ("quota", "per_second", "key", "timeout", "server_error", "truncated", "malformed", "slow")


@dataclass
class FaultConfig:
    rate: float = 0.0
    kinds: tuple[str, ...] = FAULT_KINDS
    seed: int = 0
    timeout_s: float = 30.0  # how long a `timeout` fault stalls
    slow_s: float = 0.2

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"fault rate must be within [0, 1], got {self.rate!r}")
        bad = [k for k in self.kinds if k not in FAULT_KINDS]
        if bad:
            raise ValueError(f"unknown fault kind(s) {bad}; valid kinds: {list(FAULT_KINDS)}")

    @classmethod
    def parse(cls, text: str | None, seed: int = 0) -> "FaultConfig | None":
        """'0.2' or '0.2:quota,timeout' -> FaultConfig."""
        if not text:
            return None
        rate_s, _, kinds_s = text.partition(":")
        try:
            rate = float(rate_s)
        except ValueError:
            raise ValueError(f"--faults {text!r}: expected RATE or RATE:kind1,kind2 (e.g. 0.2:quota,timeout)") from None
        kinds = tuple(k.strip() for k in kinds_s.split(",") if k.strip()) or FAULT_KINDS
        return cls(rate=rate, kinds=kinds, seed=seed)


class FaultInjector:
    def __init__(self, config: FaultConfig):
        self.config = config
        self._rng = random.Random(config.seed)
        self._lock = threading.Lock()
        self.injected: dict[str, int] = {}

    def _draw(self) -> str | None:
        with self._lock:
            if self._rng.random() >= self.config.rate:
                return None
            kind = self._rng.choice(self.config.kinds)
            self.injected[kind] = self.injected.get(kind, 0) + 1
            return kind

    async def maybe(self, ref, request: Request) -> Response | None:
        kind = self._draw()
        if kind is None:
            return None
        if kind == "slow":  # a late but correct answer
            await asyncio.sleep(self.config.slow_s)
            return None
        from . import fault_responses

        return fault_responses.response_for(kind, ref, self.config)

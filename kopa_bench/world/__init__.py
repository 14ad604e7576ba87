"""The deterministic world behind the sandbox: DuckDB tables built from a seed, the world
clock and vendored real reference tables."""

from .build import DEFAULT_SEED, build_world_file, content_hash
from .clock import WorldClock
from .store import World, get_world

__all__ = ["DEFAULT_SEED", "World", "WorldClock", "build_world_file", "content_hash", "get_world"]

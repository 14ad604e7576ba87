"""The deterministic world behind the sandbox: DuckDB tables built from a seed, the world
clock and vendored real reference tables."""

from .build import DEFAULT_SEED, build_world_file, content_hash
from .store import World, get_world

__all__ = ["DEFAULT_SEED", "World", "build_world_file", "content_hash", "get_world"]

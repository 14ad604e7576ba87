"""Every `KOPA_*` setting in one typed place (pydantic-settings), read when asked for.

Platform service keys are not here: each platform names its own variable in the catalog
(`Platform.key_env`) and the client reads it only for the live backend.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict


def _default_workers() -> int:
    return max(0, min(4, (os.cpu_count() or 1) - 1))


class KopaSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="KOPA_", extra="ignore", frozen=True, env_ignore_empty=True)

    cache: Path = Field(default_factory=lambda: Path.home() / ".cache" / "kopa",
                        description="built worlds, assembled model files, training caches")
    world_threads: int = Field(1, ge=1, description="DuckDB threads per world query")
    world_workers: int = Field(default_factory=_default_workers, ge=0,
                               description="world worker processes for EDGE probes and concurrent scripted runs "
                                           "(0: none); default one per CPU beyond the first, at most 4")
    world_now: str | None = Field(None, description="the world clock's instant (ISO date or datetime, KST when "
                                                   "no zone is given); default 2026-11-30T09:00")
    edge_world: Path | None = Field(None, description="a built world file EDGE probes instead of the default world")
    edge_out: Path = Field(Path("out/edge"), description="the EDGE output folder: `kopa edge` commands write and read "
                                                        "it, the edge-trajectories builder reads its run there and the "
                                                        "Space's EDGE tab shows its verified.json and verify_summary.json")
    space_tasks: Path | None = Field(None, description="a task JSON file the Space shows instead of test + dev")
    space_results: Path | None = Field(None, description="the folder of results the Space leaderboard reads")
    log_level: str = Field("INFO", description="the Space's log level")


class SettingsError(ValueError):
    """A `KOPA_*` variable holds a value its setting cannot take."""


def get_settings() -> KopaSettings:
    """The settings as the environment says now; a bad value raises SettingsError naming the
    variable, the value and what it accepts."""
    return _settings_for(tuple(sorted((k, v) for k, v in os.environ.items() if k.upper().startswith("KOPA_"))))


@lru_cache(maxsize=32)
def _settings_for(environment: tuple[tuple[str, str], ...]) -> KopaSettings:
    """One frozen KopaSettings per distinct KOPA_* environment: building one reads and validates
    every source, which costs more than the calls that ask for it (a WorldClock per gold run)."""
    del environment  # the cache key only: KopaSettings reads os.environ itself
    try:
        return KopaSettings()
    except ValidationError as exc:
        err = exc.errors()[0]
        name = f"KOPA_{str(err['loc'][0]).upper()}"
        raise SettingsError(f"{name}={os.environ.get(name)!r}: {err['msg']}; fix or unset it "
                            f"({KopaSettings.model_fields[str(err['loc'][0])].description})") from None

"""The Episode contract between the runner, which writes episodes, and the scorer, which reads them."""

from kopa_bench.episodes.completeness import Completeness, check_completeness, episode_run_completeness
from kopa_bench.episodes.run_dir import (EPISODES, RUN_JSON, TASKS_JSON, EpisodeWriter, RunDirError, latest_attempts,
                                         read_episodes, scan_records)
from kopa_bench.episodes.schema import CallErrorKind, CallRecord, Episode, StepEpisode, StopReason, Timings, Tokens

__all__ = [
    "EPISODES", "RUN_JSON", "TASKS_JSON", "CallErrorKind", "CallRecord", "Completeness", "Episode", "EpisodeWriter",
    "RunDirError", "StepEpisode", "StopReason", "Timings", "Tokens", "check_completeness", "episode_run_completeness",
    "latest_attempts", "read_episodes", "scan_records",
]

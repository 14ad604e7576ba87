"""The Episode contract between the runner, which writes episodes, and the scorer, which reads them."""

from kopa_bench.episodes.run_dir import EPISODES, RUN_JSON, TASKS_JSON, EpisodeWriter, RunDirError, read_episodes
from kopa_bench.episodes.schema import CallErrorKind, CallRecord, Episode, StepEpisode, Timings, Tokens

__all__ = [
    "EPISODES", "RUN_JSON", "TASKS_JSON", "CallErrorKind", "CallRecord", "Episode", "EpisodeWriter", "RunDirError",
    "StepEpisode", "Timings", "Tokens", "read_episodes",
]

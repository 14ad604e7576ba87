"""Scoring: per-episode axes (RESPONSE, GROUNDED, ACTION, DATA FLOW, STATE) and aggregates."""

from kopa_bench.scoring.aggregate import METRICS, Metric, aggregate, pass_at_k, pass_hat_k
from kopa_bench.scoring.episode_score import EpisodeScore, score_episode
from kopa_bench.scoring.normalize import fact_in_text, value_in_records

__all__ = ["METRICS", "EpisodeScore", "Metric", "aggregate", "fact_in_text", "pass_at_k", "pass_hat_k", "score_episode", "value_in_records"]

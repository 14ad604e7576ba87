"""Aggregate EpisodeScores: success rate, pass@k, pass^k, per-axis means, bootstrap CIs, breakdowns.

Every metric is a per-sample function (EpisodeScore -> float | None) plus an aggregate (mean of
per-task means, so a task run with 8 seeds weighs as much as one run once). CIs resample
*tasks*, the unit the benchmark samples, with a seeded generator.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from kopa_bench.scoring.episode_score import EpisodeScore


@dataclass(frozen=True)
class Metric:
    name: str
    fn: Callable[[EpisodeScore], float | None]
    higher_is_better: bool = True


METRICS: dict[str, Metric] = {m.name: m for m in [
    Metric("success", lambda s: float(s.success)),
    Metric("response", lambda s: s.response),
    Metric("grounded", lambda s: s.grounded),
    Metric("action_precision", lambda s: s.action_precision),
    Metric("action_recall", lambda s: s.action_recall),
    Metric("data_flow", lambda s: s.data_flow),
    Metric("state", lambda s: s.state),
    Metric("efficiency", lambda s: s.efficiency, higher_is_better=False),
]}


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k: chance that at least one of k samples (of n, c correct) succeeds."""
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples per task, got {n}")
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k (tau-bench): chance that all of k samples succeed."""
    if k > n:
        raise ValueError(f"pass^{k} needs at least {k} samples per task, got {n}")
    return math.comb(c, k) / math.comb(n, k)


def _by_task(scores: Iterable[EpisodeScore]) -> dict[str, list[EpisodeScore]]:
    out: dict[str, list[EpisodeScore]] = defaultdict(list)
    for s in scores:
        out[s.task_id].append(s)
    return dict(out)


def task_values(scores: Iterable[EpisodeScore], metric: str) -> dict[str, float]:
    """Per-task mean of a metric (tasks where it is undefined for every episode are left out)."""
    m = METRICS[metric]
    out = {}
    for tid, eps in _by_task(scores).items():
        vals = [v for v in (m.fn(e) for e in eps) if v is not None]
        if vals:
            out[tid] = sum(vals) / len(vals)
    return out


def task_pass(scores: Iterable[EpisodeScore], k: int, hat: bool = False) -> dict[str, float]:
    """Per-task pass@k (or pass^k with hat=True) from success counts."""
    f = pass_hat_k if hat else pass_at_k
    return {tid: f(len(eps), sum(e.success for e in eps), k) for tid, eps in _by_task(scores).items()}


def bootstrap_ci(values: list[float], *, n_boot: int = 1000, alpha: float = 0.05, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean of `values` (one value per task)."""
    if not values:
        return (math.nan, math.nan)
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(rng.choice(values) for _ in range(n)) / n for _ in range(n_boot))
    lo = means[int(math.floor(alpha / 2 * (n_boot - 1)))]
    hi = means[int(math.ceil((1 - alpha / 2) * (n_boot - 1)))]
    return (lo, hi)


def summarize(per_task: dict[str, float], higher_is_better: bool = True, **boot: int) -> dict:
    vals = list(per_task.values())
    mean = sum(vals) / len(vals) if vals else math.nan
    lo, hi = bootstrap_ci(vals, **boot)
    return {"mean": mean, "ci_low": lo, "ci_high": hi, "n_tasks": len(vals), "higher_is_better": higher_is_better}


def aggregate(scores: list[EpisodeScore], *, ks: tuple[int, ...] = (1, 4), n_boot: int = 1000, seed: int = 0, breakdown: bool = True) -> dict:
    """Overall metrics (mean + CI), pass@k/pass^k for each k the sample counts allow, breakdowns."""
    boot = {"n_boot": n_boot, "seed": seed}
    out: dict = {"n_episodes": len(scores), "n_tasks": len(_by_task(scores)), "metrics": {}}
    for name, m in METRICS.items():
        out["metrics"][name] = summarize(task_values(scores, name), m.higher_is_better, **boot)
    min_n = min((len(v) for v in _by_task(scores).values()), default=0)
    for k in ks:
        if k <= min_n:
            out["metrics"][f"pass@{k}"] = summarize(task_pass(scores, k), True, **boot)
            out["metrics"][f"pass^{k}"] = summarize(task_pass(scores, k, hat=True), True, **boot)
    if breakdown:
        out["breakdown"] = {key: {g: aggregate(sub, ks=ks, n_boot=n_boot, seed=seed, breakdown=False)["metrics"]
                                  for g, sub in groups.items()}
                            for key, groups in breakdowns(scores).items()}
    return out


def breakdowns(scores: list[EpisodeScore]) -> dict[str, dict[str, list[EpisodeScore]]]:
    """Group episodes by domain, shape, difficulty, platform (a task counts for each) and held-out."""
    out: dict[str, dict[str, list[EpisodeScore]]] = {k: defaultdict(list) for k in ("domain", "shape", "difficulty", "platform", "held_out_platform")}
    for s in scores:
        out["domain"][s.domain].append(s)
        out["shape"][s.shape].append(s)
        out["difficulty"][s.difficulty].append(s)
        for p in s.platforms:
            out["platform"][p].append(s)
        out["held_out_platform"][s.held_out_platform or "none"].append(s)
    return {k: dict(v) for k, v in out.items()}


def strict_json(x: Any) -> Any:
    """NaN -> None, through dicts and lists, so a summary is strict JSON."""
    if isinstance(x, float) and math.isnan(x):
        return None
    if isinstance(x, dict):
        return {k: strict_json(v) for k, v in x.items()}
    if isinstance(x, list):
        return [strict_json(v) for v in x]
    return x

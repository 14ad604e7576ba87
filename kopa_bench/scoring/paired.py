"""Paired comparison of two runs on the same units (step positions, or episodes' tasks).

Two models scored on the same items are compared item by item, not by their two means: the
difference of accuracies with a bootstrap CI that resamples whole tasks (the steps of one task are
not independent), and an exact two-sided McNemar test on the items where exactly one run is right.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from typing import Any, Iterable, Mapping

from .aggregate import strict_json


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value: the discordant pairs as Binomial(n, 1/2)."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    k = min(only_a, only_b)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def run_items(scores: Iterable[Any]) -> tuple[dict[str, float], dict[str, str]]:
    """(item -> 1.0 right / 0.0 wrong, item -> its task) of a run's scores: step scores by
    task, seed and position; episode scores by task and seed (right = success)."""
    items: dict[str, float] = {}
    cluster: dict[str, str] = {}
    for s in scores:
        steps = hasattr(s, "position")
        key = f"{s.task_id}#{s.seed}#{s.position}" if steps else f"{s.task_id}#{s.seed}"
        items[key] = float(s.correct if steps else s.success)
        cluster[key] = s.task_id
    return items, cluster


def paired_compare(a: Mapping[str, float], b: Mapping[str, float], *, cluster: Mapping[str, str] | None = None,
                   n_boot: int = 2000, seed: int = 0, alpha: float = 0.05) -> dict[str, Any]:
    """Compare per-item scores (0..1; 1 = right) of run A and run B on the items both have.

    `cluster` maps an item to its resampling unit (its task); without it every item is its own.
    Returns accuracies, diff = B - A with a cluster-bootstrap CI, McNemar counts and p-value."""
    if n_boot < 1:
        raise ValueError(f"n_boot={n_boot}: the CI needs at least one bootstrap resample")
    common = sorted(set(a) & set(b))
    if not common:
        raise ValueError("the two runs share no scored item: compare runs of the same tasks and mode")
    groups: dict[str, list[str]] = defaultdict(list)
    for item in common:
        groups[(cluster or {}).get(item, item)].append(item)
    keys = sorted(groups)
    diffs = {k: (sum(b[i] for i in groups[k]) - sum(a[i] for i in groups[k]), len(groups[k])) for k in keys}
    rng = random.Random(seed)
    boots = []
    for _ in range(n_boot):
        pick = [diffs[rng.choice(keys)] for _ in keys]
        boots.append(sum(d for d, _ in pick) / sum(n for _, n in pick))
    boots.sort()
    lo, hi = boots[int(alpha / 2 * n_boot)], boots[min(n_boot - 1, int((1 - alpha / 2) * n_boot))]
    right_a = {i for i in common if a[i] >= 0.5}
    right_b = {i for i in common if b[i] >= 0.5}
    only_a, only_b = len(right_a - right_b), len(right_b - right_a)
    acc_a = sum(a[i] for i in common) / len(common)
    acc_b = sum(b[i] for i in common) / len(common)
    p = mcnemar_exact(only_a, only_b)
    return strict_json({
        "n_items": len(common), "n_clusters": len(keys), "only_in_a": len(set(a) - set(b)),
        "only_in_b": len(set(b) - set(a)), "accuracy_a": acc_a, "accuracy_b": acc_b, "diff": acc_b - acc_a,
        "diff_ci": [lo, hi], "a_right_b_wrong": only_a, "b_right_a_wrong": only_b, "mcnemar_p": p,
        "significant": bool(p < alpha and not (lo <= 0.0 <= hi)), "alpha": alpha, "n_boot": n_boot, "seed": seed,
    })

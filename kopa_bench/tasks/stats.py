"""`kopa bench stats`: distributions of a task set (calls, shapes, domains, platforms, parallelism)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from kopa_bench.tasks.task_schema import Task


def task_stats(tasks: list[Task]) -> dict[str, Any]:
    """One JSON-able dict describing the task set."""
    calls = [t.n_calls for t in tasks]
    n = len(tasks)
    platforms: Counter = Counter(p for t in tasks for p in t.platforms)
    tools: Counter = Counter(s.tool for t in tasks for s in t.program)
    return {
        "tasks": n,
        "mean_calls": sum(calls) / n if n else 0.0,
        "max_calls": max(calls, default=0),
        "min_calls": min(calls, default=0),
        "calls_hist": dict(sorted(Counter(calls).items())),
        "parallel_share": sum(t.has_parallel for t in tasks) / n if n else 0.0,
        "multi_platform_share": sum(len(set(t.platforms)) > 1 for t in tasks) / n if n else 0.0,
        "mean_facts": sum(len(t.answer) for t in tasks) / n if n else 0.0,
        "mean_tools_offered": sum(len(set(t.tools)) for t in tasks) / n if n else 0.0,
        "by_shape": dict(Counter(str(t.shape) for t in tasks).most_common()),
        "by_domain": dict(Counter(str(t.domain) for t in tasks).most_common()),
        "by_difficulty": dict(Counter(str(t.difficulty) for t in tasks).most_common()),
        "by_split": dict(Counter(t.split for t in tasks).most_common()),
        "platforms": dict(platforms.most_common()),
        "held_out_platforms": dict(Counter(t.held_out_platform for t in tasks if t.held_out_platform).most_common()),
        "top_tools": dict(tools.most_common(20)),
    }


def plot_stats(stats: dict[str, Any], path: str | Path) -> Path:
    """A 2x2 figure: calls per task, shapes, domains, platforms."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    panels = [("calls per task", {str(k): v for k, v in stats["calls_hist"].items()}), ("shape", stats["by_shape"]),
              ("domain", stats["by_domain"]), ("platform", stats["platforms"])]
    for ax, (title, counts) in zip(axes.flat, panels):
        ax.bar(list(counts), list(counts.values()))
        ax.set_title(title)
        ax.tick_params(axis="x", rotation=30)
    fig.suptitle(f"{stats['tasks']} tasks, mean {stats['mean_calls']:.2f} calls, {stats['parallel_share']:.0%} with parallel calls")
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out

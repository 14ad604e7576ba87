"""Run summaries (the JSON `kopa bench score --json` prints and the evaluate metric returns),
the scoreboard table, and the multi-run markdown report with plots.

`summarize_scores` is the one place the headline numbers are assembled, so the CLI, the
report and the `evaluate` metric cannot drift apart. matplotlib and rich are imported lazily.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from kopa_bench.scoring.aggregate import aggregate, strict_json
from kopa_bench.scoring.episode_score import EpisodeScore

AXES = ("response", "grounded", "action_precision", "action_recall", "data_flow", "state", "efficiency")
PASS_KS = (1, 2, 4, 8, 16)




def _ks(scores: list[EpisodeScore]) -> tuple[int, ...]:
    per_task = Counter(s.task_id for s in scores)
    n = min(per_task.values(), default=0)
    return tuple(sorted({k for k in PASS_KS if k <= n} | ({n} if n else set())))


def summarize_scores(scores: list[EpisodeScore], *, n_boot: int = 1000, seed: int = 0,
                     gold_failures: dict[str, str] | None = None) -> dict[str, Any]:
    """Headline numbers of a set of scored episodes.

    success_rate and axis means are means of per-task means (CI: bootstrap over tasks);
    pass_at_k / pass_hat_k are keyed by k (as strings, JSON-style) for every k the seeds allow.
    """
    ks = _ks(scores)
    agg = aggregate(scores, ks=ks, n_boot=n_boot, seed=seed) if scores else {"metrics": {}, "breakdown": {}}
    m = agg["metrics"]
    mean = lambda name: m.get(name, {}).get("mean")  # noqa: E731
    ci = lambda name: [m.get(name, {}).get("ci_low"), m.get(name, {}).get("ci_high")]  # noqa: E731
    errors: Counter = Counter()
    for s in scores:
        errors.update(s.errors)
    out: dict[str, Any] = {
        "n_episodes": len(scores),
        "n_tasks": len({s.task_id for s in scores}),
        "models": sorted({s.model for s in scores}),
        "success_rate": mean("success"),
        "success_ci": ci("success"),
        "pass_at_k": {str(k): mean(f"pass@{k}") for k in ks},
        "pass_hat_k": {str(k): mean(f"pass^{k}") for k in ks},
        **{a: mean(a) for a in AXES},
        "ci": {a: ci(a) for a in ("success", *AXES)},
        "mean_calls": sum(s.n_calls for s in scores) / len(scores) if scores else None,
        "errors": dict(sorted(errors.items())),
        "breakdowns": {key: {g: {"success_rate": gm["success"]["mean"], "n_tasks": gm["success"]["n_tasks"],
                                 **{a: gm[a]["mean"] for a in AXES}}
                             for g, gm in sorted(groups.items())}
                       for key, groups in agg.get("breakdown", {}).items()},
        "gold_failures": dict(gold_failures or {}),
    }
    return strict_json(out)


def _fmt(x: Any, pct: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:.1%}" if pct else f"{x:.3f}"


def scoreboard_table(summary: dict[str, Any], title: str = "KOPA-Bench"):
    """A rich Table of one run's summary."""
    from rich.table import Table

    whole = summary.get("completeness")
    state = f" ({whole['expected'] - whole['finished']} missing: INCOMPLETE)" if whole and not whole["complete"] else ""
    t = Table(title=f"{title}: {summary['n_tasks']} tasks, {summary['n_episodes']} episodes{state}")
    t.add_column("metric")
    t.add_column("value", justify="right")
    t.add_column("95% CI", justify="right")
    lo, hi = summary["success_ci"]
    t.add_row("success", _fmt(summary["success_rate"], True), f"{_fmt(lo, True)} – {_fmt(hi, True)}")
    for k, v in summary["pass_at_k"].items():
        t.add_row(f"pass@{k}", _fmt(v, True), "")
    for k, v in summary["pass_hat_k"].items():
        t.add_row(f"pass^{k}", _fmt(v, True), "")
    for a in AXES:
        lo, hi = summary["ci"][a]
        t.add_row(a + (" (lower is leaner)" if a == "efficiency" else ""), _fmt(summary[a]), f"{_fmt(lo)} – {_fmt(hi)}")
    t.add_row("mean calls", _fmt(summary["mean_calls"]), "")
    if summary["errors"]:
        t.add_row("call errors", ", ".join(f"{k} {n}" for k, n in summary["errors"].items()), "")
    if whole and whole["infra_errors"]:
        t.add_row("infra errors (not scored)", str(len(whole["infra_errors"])), "")
    if summary["gold_failures"]:
        t.add_row("gold failures", f"{len(summary['gold_failures'])}: {', '.join(sorted(summary['gold_failures']))[:60]}", "")
    return t


# ---- multi-run report ----------------------------------------------------------------------------
def _bar_groups(ax, runs: list[tuple[str, dict]], key: str, title: str) -> None:
    groups = sorted({g for _, s in runs for g in s["breakdowns"].get(key, {})})
    width = 0.8 / max(len(runs), 1)
    for i, (label, s) in enumerate(runs):
        vals = [(s["breakdowns"].get(key, {}).get(g, {}).get("success_rate") or 0.0) for g in groups]
        ax.bar([j + i * width for j in range(len(groups))], vals, width, label=label)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(groups))])
    ax.set_xticklabels(groups, rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.set_ylabel("success")
    if runs:  # a report of steps runs only has no full-episode bars
        ax.legend(fontsize=7)


def write_report(runs: list[tuple[str, list[EpisodeScore], dict[str, Any]]], out_dir: str | Path,
                 *, extra_sections: tuple[str, ...] = ()) -> dict[str, Path]:
    """Write report.md and PNG plots for runs given as (label, scores, summary).

    `extra_sections` are markdown sections appended after the plots (e.g. the BFCL leaderboard,
    which the CLI builds: scoring does not import kopa_bench.bfcl). Returns the written files by name."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    summaries = [(label, summary) for label, _, summary in runs]
    files: dict[str, Path] = {}

    for key, name in (("shape", "success_by_shape.png"), ("domain", "success_by_domain.png")):
        fig, ax = plt.subplots(figsize=(7, 4))
        _bar_groups(ax, summaries, key, f"success by {key}")
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        files[name] = out / name

    fig, ax = plt.subplots(figsize=(7, 4))
    for label, scores, _ in runs:
        per_task: dict[str, list[int]] = defaultdict(list)
        for s in scores:
            per_task[s.task_id].append(s.n_calls)
        vals = [sum(v) / len(v) for v in per_task.values()]
        ax.hist(vals, bins=range(0, int(max(vals, default=0)) + 3), alpha=0.5, label=label)
    gold = [s.n_gold_calls for s in (runs[0][1] if runs else [])]
    if gold:
        ax.axvline(sum(gold) / len(gold), color="k", linestyle="--", label="gold mean")
    ax.set_xlabel("calls per task (mean over seeds)")
    ax.set_ylabel("tasks")
    ax.set_title("calls per task")
    if runs:
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "calls_per_task.png", dpi=110)
    plt.close(fig)
    files["calls_per_task.png"] = out / "calls_per_task.png"

    kinds = sorted({k for _, s in summaries for k in s["errors"]})
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / max(len(summaries), 1)
    for i, (label, s) in enumerate(summaries):
        ax.bar([j + i * width for j in range(len(kinds))], [s["errors"].get(k, 0) for k in kinds], width, label=label)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(kinds))])
    ax.set_xticklabels(kinds, rotation=30, ha="right")
    ax.set_title("failed calls by error type" if kinds else "failed calls by error type (none)")
    ax.set_ylabel("calls")
    if summaries:
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "error_types.png", dpi=110)
    plt.close(fig)
    files["error_types.png"] = out / "error_types.png"

    md = out / "report.md"
    md.write_text(report_markdown(summaries, [n for n in files if n.endswith(".png")]) +
                  "".join("\n" + sec for sec in extra_sections), encoding="utf-8")
    files["report.md"] = md
    return files


def report_markdown(summaries: list[tuple[str, dict[str, Any]]], images: list[str]) -> str:
    ks = sorted({k for _, s in summaries for k in s["pass_at_k"]}, key=int)
    head = ["rank", "run", "tasks", "episodes", "success [95% CI]", *(f"pass@{k}" for k in ks), *(f"pass^{k}" for k in ks if k != "1"),
            "grounded", "action P/R", "data flow", "state", "efficiency"]
    lines = ["# KOPA-Bench report", "", "## Leaderboard", "",
             "Success = every fact of the answer stated and grounded in a result the agent received. "
             "CIs: bootstrap over tasks. Efficiency = agent calls / gold calls (lower is leaner).", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ranked = sorted(summaries, key=lambda x: -(x[1]["success_rate"] or 0.0))
    for i, (label, s) in enumerate(ranked, 1):
        lo, hi = s["success_ci"]
        row = [str(i), label, str(s["n_tasks"]), str(s["n_episodes"]),
               f"{_fmt(s['success_rate'], True)} [{_fmt(lo, True)}, {_fmt(hi, True)}]",
               *(_fmt(s["pass_at_k"].get(k), True) for k in ks), *(_fmt(s["pass_hat_k"].get(k), True) for k in ks if k != "1"),
               _fmt(s["grounded"]), f"{_fmt(s['action_precision'])}/{_fmt(s['action_recall'])}", _fmt(s["data_flow"]),
               _fmt(s["state"]), _fmt(s["efficiency"])]
        lines.append("| " + " | ".join(row) + " |")
    for key in ("shape", "domain", "difficulty", "platform"):
        groups = sorted({g for _, s in summaries for g in s["breakdowns"].get(key, {})})
        if not groups:
            continue
        lines += ["", f"## Success by {key}", "", "| run | " + " | ".join(groups) + " |", "|---|" + "---|" * len(groups)]
        for label, s in ranked:
            cells = [_fmt(s["breakdowns"].get(key, {}).get(g, {}).get("success_rate"), True) for g in groups]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    errs = sorted({k for _, s in summaries for k in s["errors"]})
    if errs:
        lines += ["", "## Failed calls by type", "", "| run | " + " | ".join(errs) + " |", "|---|" + "---|" * len(errs)]
        for label, s in ranked:
            lines.append(f"| {label} | " + " | ".join(str(s["errors"].get(k, 0)) for k in errs) + " |")
    for label, s in ranked:
        if s["gold_failures"]:
            lines += ["", f"**{label}: gold failed for {len(s['gold_failures'])} task(s)** (not scored): "
                      + ", ".join(sorted(s["gold_failures"]))]
    lines += ["", "## Plots", ""] + [f"![{Path(i).stem}]({i})" for i in images]
    return "\n".join(lines) + "\n"

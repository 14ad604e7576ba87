"""Step-level scoring: one generation per gold step position, each right or wrong.

A task's positions are its gold call groups in dependency order (a parallel group is one
position), then the final answer. At call position k the model was given the gold calls of
positions < k with their real results (kopa_bench.runner.steps); its turn is right when

  - every gold step of group k (all of a parallel group) is matched by one of its own calls
    (the scorer's matcher: right tool, right arguments),
  - every data-flow edge into those steps is satisfied (the argument came from the right
    record of an earlier result, through the gold's path, pick and transform),
  - and it made no call that matches no gold step.

At the answer position it is right when it makes no call and the answer states every gold fact,
grounded in the results it was given (the episode scorer's `success`). The record is scored as
a whole episode by `score_episode`, so the matcher and fact checks are the episode scorer's own.

`summarize_step_scores` assembles what `kopa bench score --json` prints for a steps run and the
`evaluate` metric returns: step accuracy with bootstrap CIs (aggregate.py's), per position,
shape, domain, platform and the error kind the model's calls met, and failures by reason.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import groupby
from pathlib import Path
from typing import Any, Iterable, Literal

from pydantic import BaseModel, Field

from kopa_bench.episodes import StepEpisode
from kopa_bench.scoring.aggregate import strict_json, summarize
from kopa_bench.scoring.episode_score import EpisodeScore, score_episode
from kopa_bench.tasks.facts import ResolvedFact, compute_answer
from kopa_bench.tasks.program import GoldRun, StepRun
from kopa_bench.tasks.task_schema import Task

ANSWER = "answer"  # the position label of the final answer

# Why a step is wrong, checked in this order (the first that applies is reported).
FailureKind = Literal["backend_error", "context_limit", "no_call", "call_instead_of_answer", "parse", "unknown_tool", "wrong_tool",
                      "argument", "missing_call", "wrong_arguments", "data_flow", "extra_call", "answer_facts"]


def call_positions(gold: GoldRun) -> list[list[StepRun]]:
    """The gold's executed steps by call group, in the order they ran: one list per call position.
    Each page of a paged step is a position of its own: paging is sequential, a page's arguments
    follow from the one before."""
    return [list(g) for _, g in groupby(gold.executed, key=lambda s: (s.group, s.page))]


class StepScore(BaseModel):
    """One step position of one task (and seed), scored."""

    task_id: str
    seed: int = 0
    position: int
    positions: int
    model: str = ""
    domain: str = ""
    shape: str = ""
    difficulty: str = ""
    platforms: list[str] = Field(default_factory=list)
    correct: bool
    failure: FailureKind | None = Field(default=None, description="why the step is wrong (None when right)")
    call_errors: list[str] = Field(default_factory=list, description="error kinds the model's own calls met")
    gold_steps: list[str] = Field(default_factory=list)
    n_calls: int = Field(default=0, description="calls the model made at this position")
    detail: list[str] = Field(default_factory=list, description="what went wrong, from the episode scorer")

    @property
    def is_answer(self) -> bool:
        return self.position == self.positions - 1

    @property
    def label(self) -> str:
        """The position as reports show it: '1', '2', ... for calls, 'answer' for the answer."""
        return ANSWER if self.is_answer else str(self.position + 1)

    @property
    def error_kind(self) -> str:
        """The error the model's calls met at this step ('none' when none did)."""
        return self.call_errors[0] if self.call_errors else "none"


def _call_errors(record: StepEpisode) -> list[str]:
    kinds = []
    for c in record.own_calls:
        kind = c.error_kind
        if kind == "platform" and c.result is not None and c.result.error is not None:
            kind = c.result.error.type or "platform"
        if kind and kind not in kinds:
            kinds.append(kind)
    return kinds


def _call_failure(record: StepEpisode, score: EpisodeScore, steps: list[StepRun], errors: list[str]) -> tuple[str | None, list[str]]:
    own = set(range(record.given_calls, len(record.calls)))
    ids = {s.step_id for s in steps}
    unmatched = [s for s in steps if score.matched.get(s.step_id) not in own]
    if unmatched:
        detail = [d for d in score.diagnosis if d.split(" ", 1)[0] in {s.step_id for s in unmatched}]
        # a call that could not be read or names no offered tool, then the wrong tool, then a schema error
        form = next((e for e in errors if e in ("parse", "unknown_tool")), None)
        if form:
            return form, detail
        tools = {record.calls[i].tool for i in own}
        spare = {record.calls[i].tool for i in own - set(score.matched.values())}
        if any(s.tool not in tools for s in unmatched):
            return "wrong_tool", detail
        if "argument" in errors:
            return "argument", detail
        # the group's other calls were made but this one was not (a parallel group cut short)
        return ("wrong_arguments" if any(s.tool in spare for s in unmatched) else "missing_call"), detail
    broken = [e for e in score.edges if e.step in ids and not e.satisfied]
    if broken:
        return "data_flow", [f"edge {e.step}.{e.arg} <- {e.path}: {e.detail}" for e in broken]
    extra = sorted(own - set(score.matched.values()))
    if extra:
        return "extra_call", [f"call #{i} {record.calls[i].tool} matches no gold step" for i in extra]
    return None, []


def score_step(task: Task, gold: GoldRun, record: StepEpisode, facts: list[ResolvedFact] | None = None) -> StepScore:
    """Score one step record (see the module docstring). The position is checked against the
    gold's own positions, so a record cannot claim easier steps than the gold has."""
    groups = call_positions(gold)
    if record.positions != len(groups) + 1 or not 0 <= record.position < record.positions:
        raise ValueError(f"{task.id}: record at position {record.position} of {record.positions}, but the gold "
                         f"has {len(groups)} call positions + the answer; was the run made on another world?")
    facts = facts if facts is not None else compute_answer(task, gold)
    score = score_episode(task, gold, record, facts, visible_records=record.max_tool_records)
    errors = _call_errors(record)
    answer = record.is_answer
    steps = [] if answer else groups[record.position]
    failure: str | None
    detail: list[str] = []
    if record.stop_reason in ("infra_error", "context_limit"):  # no turn came back: the model's window or the backend
        failure = "context_limit" if record.stop_reason == "context_limit" else "backend_error"
        detail = record.errors[-1:]
    elif answer:
        if record.own_calls:
            failure = "call_instead_of_answer"
        elif not score.success:
            failure = "answer_facts"
            fact_ids = {f.id for f in facts}
            detail = [d for d in score.diagnosis if d.split(" ", 1)[0] in fact_ids]
        else:
            failure = None
    elif not record.own_calls:
        failure = "no_call"
    else:
        failure, detail = _call_failure(record, score, steps, errors)
    return StepScore(task_id=task.id, seed=record.seed, position=record.position, positions=record.positions,
                     model=record.model, domain=str(task.domain), shape=str(task.shape), difficulty=str(task.difficulty),
                     platforms=list(task.platforms), correct=failure is None, failure=failure, call_errors=errors,
                     gold_steps=[s.step_id for s in steps], n_calls=len(record.own_calls), detail=detail[:10])


# ---- aggregates ---------------------------------------------------------------------------------
def _per_step(scores: Iterable[StepScore]) -> dict[str, float]:
    """Accuracy per (task, position), averaged over seeds, so every step weighs the same."""
    acc: dict[str, list[bool]] = defaultdict(list)
    for s in scores:
        acc[f"{s.task_id}#{s.position}"].append(s.correct)
    return {k: sum(v) / len(v) for k, v in acc.items()}


def _per_task(scores: Iterable[StepScore]) -> dict[str, float]:
    acc: dict[str, list[bool]] = defaultdict(list)
    for s in scores:
        acc[s.task_id].append(s.correct)
    return {k: sum(v) / len(v) for k, v in acc.items()}


def _figure(scores: list[StepScore], **boot: int) -> dict[str, Any]:
    m = summarize(_per_step(scores), **boot)
    return {"step_accuracy": m["mean"], "ci": [m["ci_low"], m["ci_high"]], "n_steps": m["n_tasks"],
            "n_tasks": len({s.task_id for s in scores})}


def _position_order(label: str) -> tuple[int, int]:
    return (1, 0) if label == ANSWER else (0, int(label))


def step_breakdowns(scores: list[StepScore]) -> dict[str, dict[str, list[StepScore]]]:
    """Step scores grouped by position, shape, domain, platform (a task counts for each) and
    the error kind the model's calls met."""
    out: dict[str, dict[str, list[StepScore]]] = {k: defaultdict(list) for k in
                                                  ("position", "shape", "domain", "platform", "error_kind")}
    for s in scores:
        out["position"][s.label].append(s)
        out["shape"][s.shape].append(s)
        out["domain"][s.domain].append(s)
        for p in s.platforms:
            out["platform"][p].append(s)
        out["error_kind"][s.error_kind].append(s)
    return {k: dict(v) for k, v in out.items()}




def summarize_step_scores(scores: list[StepScore], *, n_boot: int = 1000, seed: int = 0,
                          gold_failures: dict[str, str] | None = None) -> dict[str, Any]:
    """Headline numbers of a steps run.

    step_accuracy: the mean over step positions (each (task, position) averaged over seeds), CI
    by bootstrap over those steps; task_step_accuracy: the mean of per-task step accuracies, CI by
    bootstrap over tasks. Every breakdown group has its own CI."""
    boot = {"n_boot": n_boot, "seed": seed}
    overall = _figure(scores, **boot)
    task = summarize(_per_task(scores), **boot)
    calls = [s for s in scores if not s.is_answer]
    answers = [s for s in scores if s.is_answer]
    groups = step_breakdowns(scores)
    breakdowns = {key: {g: _figure(sub, **boot) for g, sub in sorted(groups[key].items(),
                                                                     key=lambda kv: _position_order(kv[0]) if key == "position" else (0, 0, kv[0]))}
                  for key in groups}
    out = {
        "mode": "steps",
        "n_steps": overall["n_steps"],
        "n_records": len(scores),
        "n_tasks": overall["n_tasks"],
        "models": sorted({s.model for s in scores}),
        "step_accuracy": overall["step_accuracy"],
        "step_accuracy_ci": overall["ci"],
        "task_step_accuracy": task["mean"],
        "task_step_accuracy_ci": [task["ci_low"], task["ci_high"]],
        "call_step_accuracy": _figure(calls, **boot)["step_accuracy"],
        "call_step_accuracy_ci": _figure(calls, **boot)["ci"],
        "answer_accuracy": _figure(answers, **boot)["step_accuracy"],
        "answer_accuracy_ci": _figure(answers, **boot)["ci"],
        "failures": dict(sorted(Counter(s.failure for s in scores if s.failure).items())),
        "breakdowns": breakdowns,
        "gold_failures": dict(gold_failures or {}),
    }
    return strict_json(out)


def is_steps_summary(summary: dict[str, Any]) -> bool:
    return summary.get("mode") == "steps"


def _pct(x: Any) -> str:
    return "-" if x is None else f"{x:.1%}"


def _with_ci(x: Any, ci: list[Any]) -> str:
    return f"{_pct(x)} [{_pct(ci[0])}, {_pct(ci[1])}]"


def step_table(summary: dict[str, Any], title: str = "KOPA-Bench steps"):
    """A rich Table of one steps run's summary."""
    from rich.table import Table

    t = Table(title=f"{title}: {summary['n_tasks']} tasks, {summary['n_steps']} steps")
    t.add_column("step accuracy")
    t.add_column("value", justify="right")
    t.add_column("95% CI", justify="right")
    t.add_column("steps", justify="right")
    for name, key in (("all steps", "step_accuracy"), ("call steps", "call_step_accuracy"), ("answer", "answer_accuracy"),
                      ("per task (mean)", "task_step_accuracy")):
        lo, hi = summary[f"{key}_ci"]
        t.add_row(name, _pct(summary[key]), f"{_pct(lo)} – {_pct(hi)}", "")
    for label, fig in summary["breakdowns"].get("position", {}).items():
        lo, hi = fig["ci"]
        t.add_row(f"position {label}", _pct(fig["step_accuracy"]), f"{_pct(lo)} – {_pct(hi)}", str(fig["n_steps"]))
    if summary["failures"]:
        t.add_row("failures", ", ".join(f"{k} {n}" for k, n in summary["failures"].items()), "", "")
    if summary["gold_failures"]:
        t.add_row("gold failures", str(len(summary["gold_failures"])), "", "")
    return t


def side_by_side_rows(summaries: list[tuple[str, dict[str, Any]]]) -> list[dict[str, str]]:
    """One row per model: pass@1 of its episodes run beside the step accuracy of its steps run
    (runs given as (label, summary); either may be missing)."""
    rows: dict[str, dict[str, str]] = {}
    for label, s in summaries:
        model = (s.get("models") or [label])[0] if len(s.get("models") or []) == 1 else label
        row = rows.setdefault(model, {"model": model, "pass@1": "-", "step accuracy": "-", "call steps": "-",
                                      "answer step": "-"})
        if is_steps_summary(s):
            row["step accuracy"] = _with_ci(s["step_accuracy"], s["step_accuracy_ci"]) + f" ({s['n_steps']} steps)"
            row["call steps"] = _pct(s["call_step_accuracy"])
            row["answer step"] = _pct(s["answer_accuracy"])
        else:
            p1 = (s.get("pass_at_k") or {}).get("1")
            n_ok = round((s.get("success_rate") or 0.0) * s.get("n_tasks", 0)) if s.get("n_episodes") == s.get("n_tasks") else None
            row["pass@1"] = _with_ci(p1, s.get("success_ci") or [None, None]) + (
                f" ({n_ok}/{s['n_tasks']})" if n_ok is not None else f" ({s.get('n_tasks', 0)} tasks)")
    return list(rows.values())


def side_by_side_markdown(summaries: list[tuple[str, dict[str, Any]]]) -> str:
    """The report section putting full-episode pass@1 and step accuracy side by side."""
    rows = side_by_side_rows(summaries)
    head = ["model", "pass@1 [95% CI]", "step accuracy [95% CI]", "call steps", "answer step"]
    lines = ["## Full episodes and steps, side by side", "",
             "pass@1: whole episodes, every fact stated and grounded. Step accuracy: one generation per gold step, "
             "given the gold calls before it and their results (`kopa bench run --mode steps`).", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        lines.append("| " + " | ".join([r["model"], r["pass@1"], r["step accuracy"], r["call steps"], r["answer step"]]) + " |")
    return "\n".join(lines) + "\n"


def step_positions_markdown(summaries: list[tuple[str, dict[str, Any]]], image: str | None = None) -> str:
    """Step accuracy per position, shape, domain, platform and error kind for each steps run
    (and `image`, the position plot, when given)."""
    steps = [(label, s) for label, s in summaries if is_steps_summary(s)]
    if not steps:
        return ""
    lines: list[str] = [f"![step accuracy by position]({image})"] if image else []
    for key in ("position", "shape", "domain", "platform", "error_kind"):
        groups = sorted({g for _, s in steps for g in s["breakdowns"].get(key, {})},
                        key=(_position_order if key == "position" else (lambda g: (0, 0, g))))
        if not groups:
            continue
        lines += ["", f"## Step accuracy by {key.replace('_', ' ')}", "",
                  "| run | " + " | ".join(groups) + " |", "|---|" + "---|" * len(groups)]
        for label, s in steps:
            cells = [_pct(s["breakdowns"].get(key, {}).get(g, {}).get("step_accuracy")) for g in groups]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines).lstrip("\n") + "\n"


def plot_positions(summaries: list[tuple[str, dict[str, Any]]], out_dir: str | Path) -> Path | None:
    """`step_accuracy_by_position.png`: step accuracy per position with its CI, one series per
    steps run; None when no run is a steps run."""
    steps = [(label, s) for label, s in summaries if is_steps_summary(s)]
    if not steps:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = sorted({g for _, s in steps for g in s["breakdowns"].get("position", {})}, key=_position_order)
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(steps)
    for i, (label, s) in enumerate(steps):
        figs = [s["breakdowns"]["position"].get(g, {}) for g in labels]
        vals = [f.get("step_accuracy") or 0.0 for f in figs]
        cis = [f.get("ci") or [None, None] for f in figs]
        err = [[v - lo if lo is not None else 0.0 for v, (lo, _) in zip(vals, cis)],
               [hi - v if hi is not None else 0.0 for v, (_, hi) in zip(vals, cis)]]
        ax.bar([j + i * width for j in range(len(labels))], vals, width, yerr=err, capsize=2, label=label)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(labels))])
    ax.set_xticklabels(labels)
    ax.set_xlabel("step position (gold call group; then the answer)")
    ax.set_ylabel("step accuracy (95% CI)")
    ax.set_ylim(0, 1.05)
    ax.set_title("step accuracy by position")
    ax.legend(fontsize=7)
    fig.tight_layout()
    out = Path(out_dir) / "step_accuracy_by_position.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out

"""Read benchmark results in the shapes the CLI writes them.

Accepted, per file or folder:
  * the JSON `kopa bench score RUN --json` prints (success_rate, success_ci, ci, pass_at_k,
    breakdowns, completeness), like the repo's own docs/results/*.score.json
  * an aggregate JSON ({"metrics": {name: {mean, ci_low, ci_high}}, "breakdown": ...}, as
    kopa_bench.scoring.aggregate returns it), optionally wrapped as {"model", "aggregate" | "summary"}
  * a JSONL of EpisodeScore lines (`kopa bench score RUN --scores-out scores.jsonl`)
  * a run folder: a score file inside it, else a `kopa bench run` folder (tasks.json +
    episodes.jsonl), scored here as `kopa bench score` does (the folder name is the model label
    unless a file names it)

A run folder is checked for completeness (missing or torn episodes, infra errors) and a score
JSON carries the check; a row whose run is incomplete is marked as such.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cachetools import LRUCache

SCORE_FILES = ("scores.jsonl", "score.json", "scores.json", "summary.json", "aggregate.json")
RUN_FILES = ("tasks.json", "episodes.jsonl")  # what makes a folder a `kopa bench run` folder
TABLE_METRICS = ("success", "response", "grounded", "action_precision", "action_recall", "data_flow", "state")
SHAPES = ("`kopa bench score RUN --json` output, an aggregate with 'metrics', scores.jsonl (--scores-out), "
          "or a `kopa bench run` folder")


@dataclass
class Result:
    model: str
    source: str
    agg: dict[str, Any]
    completeness: dict[str, Any] | None = None  # Completeness.report(); None when the file does not say

    @property
    def status(self) -> str:
        c = self.completeness
        if c is None:
            return "not recorded"
        return "complete" if c.get("complete") else f"INCOMPLETE: {c.get('finished')} of {c.get('expected')}"


class ResultsError(ValueError):
    """A results file could not be read; the message names the file and the expected shapes."""


def _metric(mean: Any, ci: Any = None) -> dict[str, Any]:
    out = {"mean": mean}
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(isinstance(v, (int, float)) for v in ci):
        out.update(ci_low=ci[0], ci_high=ci[1])  # the plots draw whiskers only where both ends are known
    return out


def _from_summary(s: dict[str, Any]) -> dict[str, Any]:
    """`kopa bench score --json` (scoring.report.summarize_scores) -> the aggregate shape."""
    ci = s.get("ci") or {}
    metrics = {"success": _metric(s.get("success_rate"), s.get("success_ci"))}
    for name in TABLE_METRICS[1:] + ("efficiency",):
        if name in s:
            metrics[name] = _metric(s[name], ci.get(name))
    for k, v in (s.get("pass_at_k") or {}).items():
        metrics[f"pass@{k}"] = _metric(v)
    for k, v in (s.get("pass_hat_k") or {}).items():
        metrics[f"pass^{k}"] = _metric(v)
    breakdown = {key: {g: {"success": _metric(gm.get("success_rate")),
                           **{a: _metric(gm[a]) for a in TABLE_METRICS[1:] if a in gm}}
                       for g, gm in groups.items()}
                 for key, groups in (s.get("breakdowns") or {}).items()}
    return {"n_tasks": s.get("n_tasks"), "n_episodes": s.get("n_episodes"), "metrics": metrics, "breakdown": breakdown}


def _from_json(data: Any, label: str, source: str) -> Result:
    if not isinstance(data, dict):
        raise ResultsError(f"{source}: expected a JSON object: {SHAPES}")
    inner = data.get("aggregate") or data.get("summary") or data
    if "metrics" in inner:
        agg = inner
    elif "success_rate" in inner:
        agg = _from_summary(inner)
    else:
        raise ResultsError(f"{source}: neither 'metrics' nor 'success_rate'; expected {SHAPES}")
    model = str(data.get("model") or inner.get("model") or (inner.get("models") or [""])[0] or label)
    return Result(model=model, source=source, agg=agg, completeness=inner.get("completeness") or data.get("completeness"))


def _from_jsonl(path: Path, label: str) -> Result:
    from kopa_bench.scoring import EpisodeScore, aggregate

    scores = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                scores.append(EpisodeScore.model_validate_json(line))
            except Exception as exc:
                raise ResultsError(f"{path}:{i}: not an EpisodeScore line ({type(exc).__name__})") from None
    if not scores:
        raise ResultsError(f"{path}: no scores")
    model = scores[0].model or label
    return Result(model=model, source=str(path), agg=aggregate(scores, n_boot=300))


def is_run_dir(p: Path) -> bool:
    return p.is_dir() and all((p / n).is_file() for n in RUN_FILES)


# scored run folders by (path, episodes file size and mtime): every load of the tab re-reads the folder
_SCORED: LRUCache = LRUCache(maxsize=64)


def _from_run_dir(p: Path) -> Result:
    """Score a `kopa bench run` folder the way `kopa bench score` does (gold re-executed)."""
    from kopa_bench.runner.gold_scoring import score_run
    from kopa_bench.scoring.report import summarize_scores

    st = (p / RUN_FILES[1]).stat()
    key = (str(p.resolve()), st.st_size, st.st_mtime_ns, (p / RUN_FILES[0]).stat().st_mtime_ns)
    if key not in _SCORED:
        scores, failures, meta = score_run(p)
        summary = summarize_scores(scores, n_boot=300, gold_failures=failures)
        _SCORED[key] = (str((meta.get("config") or {}).get("model") or p.name), _from_summary(summary))
    model, agg = _SCORED[key]
    return Result(model=model, source=str(p), agg=agg)


def load_result(path: str | Path) -> Result:
    p = Path(path)
    if p.is_dir():
        r = None
        for name in SCORE_FILES:
            if (p / name).is_file():
                r = load_result(p / name)
                if r.model in ("", name, Path(name).stem):
                    r.model = p.name
                break
        if r is None and is_run_dir(p):
            r = _from_run_dir(p)
        if r is None:
            raise ResultsError(f"{p}: no {' / '.join(SCORE_FILES)} inside, and not a `kopa bench run` folder "
                               f"({' + '.join(RUN_FILES)})")
        if is_run_dir(p):  # the folder itself says what it should hold
            from kopa_bench.episodes import episode_run_completeness

            r.completeness = episode_run_completeness(p).report()
        return r
    if not p.is_file():
        raise ResultsError(f"{p}: no such file")
    if p.suffix == ".jsonl":
        return _from_jsonl(p, p.parent.name if p.stem == "scores" else p.stem)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ResultsError(f"{p}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    return _from_json(data, p.stem if p.stem not in ("score", "summary", "aggregate", "scores") else p.parent.name, str(p))


def discover(root: str | Path) -> list[Path]:
    """Result files/folders directly under `root` (folders holding a score file, or run folders, count once)."""
    r = Path(root)
    if not r.is_dir():
        return []
    out = []
    for child in sorted(r.iterdir()):
        if child.is_dir() and (any((child / n).is_file() for n in SCORE_FILES) or is_run_dir(child)):
            out.append(child)
        elif child.is_file() and child.suffix in (".json", ".jsonl"):
            out.append(child)
    return out


def _cell(m: dict | None) -> tuple[float, str]:
    if not m or m.get("mean") is None or (isinstance(m["mean"], float) and math.isnan(m["mean"])):
        return (float("nan"), "n/a")
    lo, hi = m.get("ci_low"), m.get("ci_high")
    ci = f" [{lo:.2f}, {hi:.2f}]" if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and not math.isnan(lo) else ""
    return (m["mean"], f"{m['mean']:.3f}{ci}")


def table(results: list[Result]) -> tuple[list[str], list[list[Any]]]:
    """Sortable rows: model, run (complete / INCOMPLETE: n of N / not recorded), tasks, episodes,
    success mean, success (CI), other axes, pass@k. Incomplete runs sort after complete ones."""
    passes = sorted({k for r in results for k in r.agg.get("metrics", {}) if k.startswith("pass")})
    headers = ["model", "run", "tasks", "episodes", "success", "success 95% CI"] + [m for m in TABLE_METRICS[1:]] + passes
    rows = []
    for r in results:
        mets = r.agg.get("metrics", {})
        mean, txt = _cell(mets.get("success"))
        row = [r.model, r.status, r.agg.get("n_tasks", ""), r.agg.get("n_episodes", ""),
               round(mean, 4) if mean == mean else None, txt]
        row += [_cell(mets.get(m))[1] for m in TABLE_METRICS[1:]]
        row += [_cell(mets.get(k))[1] for k in passes]
        rows.append(row)
    rows.sort(key=lambda x: (x[1].startswith("INCOMPLETE"), -(x[4] if x[4] is not None else -1)))
    return headers, rows


def breakdown(results: list[Result], key: str) -> dict[str, dict[str, dict[str, Any]]]:
    """model -> group value -> metrics, for `key` in domain / shape / difficulty / platform."""
    return {r.model: r.agg.get("breakdown", {}).get(key, {}) for r in results}

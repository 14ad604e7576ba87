"""Read benchmark results in the shapes the CLI writes them.

Accepted, per file or folder:
  * an aggregate JSON (`kopa bench score --json`): {"metrics": {name: {mean, ci_low, ci_high}}, "breakdown": ...},
    optionally wrapped as {"model": ..., "aggregate" | "summary": {...}}
  * a JSONL of EpisodeScore lines (scores.jsonl): aggregated here with kopa_bench.scoring.aggregate
  * a run folder holding either of those (the folder name is the model label unless a file names it)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCORE_FILES = ("scores.jsonl", "score.json", "scores.json", "summary.json", "aggregate.json")
TABLE_METRICS = ("success", "response", "grounded", "action_precision", "action_recall", "data_flow", "state")


@dataclass
class Result:
    model: str
    source: str
    agg: dict[str, Any]


class ResultsError(ValueError):
    """A results file could not be read; the message names the file and the expected shapes."""


def _from_json(data: Any, label: str, source: str) -> Result:
    if not isinstance(data, dict):
        raise ResultsError(f"{source}: expected a JSON object with 'metrics'")
    agg = data.get("aggregate") or data.get("summary") or data
    if "metrics" not in agg:
        raise ResultsError(f"{source}: no 'metrics' key; expected the output of `kopa bench score --json` or scores.jsonl")
    model = str(data.get("model") or agg.get("model") or label)
    return Result(model=model, source=source, agg=agg)


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


def load_result(path: str | Path) -> Result:
    p = Path(path)
    if p.is_dir():
        for name in SCORE_FILES:
            if (p / name).is_file():
                r = load_result(p / name)
                if r.model in ("", name, Path(name).stem):
                    r.model = p.name
                return r
        raise ResultsError(f"{p}: no {' / '.join(SCORE_FILES)} inside")
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
    """Result files/folders directly under `root` (folders holding a score file count once)."""
    r = Path(root)
    if not r.is_dir():
        return []
    out = []
    for child in sorted(r.iterdir()):
        if child.is_dir() and any((child / n).is_file() for n in SCORE_FILES):
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
    """Sortable rows: model, tasks, episodes, success mean, success (CI), other axes, pass@k."""
    passes = sorted({k for r in results for k in r.agg.get("metrics", {}) if k.startswith("pass")})
    headers = ["model", "tasks", "episodes", "success", "success 95% CI"] + [m for m in TABLE_METRICS[1:]] + passes
    rows = []
    for r in results:
        mets = r.agg.get("metrics", {})
        mean, txt = _cell(mets.get("success"))
        row = [r.model, r.agg.get("n_tasks", ""), r.agg.get("n_episodes", ""), round(mean, 4) if mean == mean else None, txt]
        row += [_cell(mets.get(m))[1] for m in TABLE_METRICS[1:]]
        row += [_cell(mets.get(k))[1] for k in passes]
        rows.append(row)
    rows.sort(key=lambda x: -(x[3] if x[3] is not None else -1))
    return headers, rows


def breakdown(results: list[Result], key: str) -> dict[str, dict[str, dict[str, Any]]]:
    """model -> group value -> metrics, for `key` in domain / shape / difficulty / platform."""
    return {r.model: r.agg.get("breakdown", {}).get(key, {}) for r in results}

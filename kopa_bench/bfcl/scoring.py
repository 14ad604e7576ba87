"""BFCL scores the way BFCL reports them.

Per category: BFCL's accuracy (correct entries / entries run, its ``save_eval_results`` header
``{accuracy, correct_count, total_count}``) and its score file
(``bfcl_score/<model>/<group>/BFCL_v4_<category>_score.json``: the header, then every failed entry
with BFCL's error type), written by bfcl_eval's own ``save_eval_results``.

Across categories: BFCL's own leaderboard code (``generate_leaderboard_csv``) turns the per-category
headers of each model into its ``data_overall.csv``, ``data_non_live.csv``, ``data_live.csv``,
``data_multi_turn.csv`` ... files; :func:`leaderboard` runs it and mirrors the rows as JSON. As on
BFCL's leaderboard, a summary with a category that was not run shows N/A, and the "Overall"
columns count such a category as 0. A category run on a sample (``--limit``) is scored on that
sample only (BFCL's ``--partial-eval``), which the reports say next to every number.

Everything here is labelled BFCL, never mixed with KOPA-Bench's success rates.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from kopa_bench.episodes.run_dir import RunDirError

from kopa_bench.bfcl import compat
from kopa_bench.bfcl.categories import CATEGORIES, resolve
from kopa_bench.bfcl.checking import Verdict, check
from kopa_bench.bfcl.data import load_entries
from kopa_bench.bfcl.runner import read_run, run_completeness

BENCHMARK = "BFCL v4"
SCORE_JSON = "bfcl_score.json"
LEADERBOARD_JSON = "bfcl_leaderboard.json"
CSV_DIR = "bfcl_csv"
#: BFCL's CSV files and the rows KOPA's report shows from each
BFCL_CSVS = ("data_overall.csv", "data_non_live.csv", "data_live.csv", "data_multi_turn.csv")
TITLE = f"{BENCHMARK} (Berkeley Function Calling Leaderboard; bfcl-eval data and checker) — not KOPA-Bench"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.+-]+", "-", text).strip("-")[:80] or "model"


def score_run(run_dir: str | Path, *, write: bool = True) -> dict[str, Any]:
    """Check every finished entry of a `kopa bfcl run` directory with bfcl_eval's checker.

    Returns the category's score record (also written to `run_dir/bfcl_score.json`, beside
    BFCL's own score file, unless write=False)."""
    d = Path(run_dir)
    meta, results = read_run(d)
    cfg = meta.get("config", {})
    cat = resolve(cfg.get("category", ""))
    mode = cfg.get("mode", "fc")
    entries = {e.id: e for e in load_entries(cat)}
    unknown = [r.id for r in results if r.id not in entries]
    if unknown:
        raise RunDirError(f"{d}: entries {unknown[:3]} are not in bfcl-eval {compat.load().version}'s {cat.name}; "
                          "the run was made with another bfcl-eval version")
    verdicts: list[Verdict] = [check(entries[r.id], r, cat, mode) for r in results]
    completeness = run_completeness(d)
    correct = sum(v.valid for v in verdicts)
    total = len(verdicts)
    bfcl = compat.load()
    record: dict[str, Any] = {
        "benchmark": BENCHMARK, "bfcl_eval": bfcl.version, "model": cfg.get("model", ""), "mode": mode,
        "category": cat.name, "group": cat.group,
        "accuracy": correct / total if total else None, "correct_count": correct, "total_count": total,
        "category_size": len(entries), "sample": total < len(entries),
        "error_types": dict(sorted(Counter(v.error_type for v in verdicts if not v.valid).items())),
        "inference_errors": sum(r.stop_reason == "error" for r in results),
        "complete": completeness.complete, "completeness": completeness.report(),
        "model_s": round(sum(s.latency_s for r in results for t in r.turns for s in t), 3),
        "wall_s": (meta.get("summary") or {}).get("wall_s"),
        "run_dir": str(d),
    }
    if write and total:
        failed = [{"id": v.id, "model_name": record["model"], "test_category": cat.name, "valid": False,
                   "error": v.error, "error_type": v.error_type} for v in verdicts if not v.valid]
        with contextlib.redirect_stdout(io.StringIO()):
            bfcl.runner_helper.save_eval_results(failed, correct, results, cat.name, _slug(record["model"]),
                                                 d / "bfcl_score")
        (d / SCORE_JSON).write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
    return record


def score_runs(run_dirs: list[str | Path]) -> list[dict[str, Any]]:
    return [score_run(d) for d in run_dirs]


# ---- across categories: BFCL's leaderboard code -----------------------------------------------------
def _by_model(records: list[dict[str, Any]]) -> dict[str, dict[str, dict]]:
    models: dict[str, dict[str, dict]] = {}
    for r in records:
        label = r["model"] if r.get("mode", "fc") == "fc" else f"{r['model']} (prompt)"
        cats = models.setdefault(label, {})
        if r["category"] in cats:
            raise ValueError(f"two runs of {label} on {r['category']}: {cats[r['category']]['run_dir']} and {r['run_dir']}")
        cats[r["category"]] = r
    return models


def leaderboard(records: list[dict[str, Any]], csv_dir: str | Path | None = None) -> dict[str, Any]:
    """BFCL's leaderboard over score records (one per model and category): its CSV rows per model
    (written to `csv_dir` when given) plus each category's accuracy and sample size."""
    bfcl = compat.load()
    models = _by_model(records)
    table, keys = {}, {}
    for i, (label, cats) in enumerate(models.items()):
        key = f"kopa-model-{i}"  # BFCL reads '_' in a model key as '/'
        compat.register_model(key, label, fc=not label.endswith("(prompt)"))
        keys[label] = key
        table[key] = {c: {"accuracy": r["accuracy"] or 0.0, "correct_count": r["correct_count"],
                          "total_count": r["total_count"]} for c, r in cats.items()}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(csv_dir) if csv_dir is not None else Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        with contextlib.redirect_stdout(io.StringIO()):  # it prints progress lines
            bfcl.runner_helper.generate_leaderboard_csv(table, out)
        rows = {name: _read_csv(out / name) for name in BFCL_CSVS}
    board = []
    for label, cats in models.items():
        board.append({"model": label, "categories": {c: {k: r[k] for k in ("accuracy", "correct_count", "total_count",
                                                                            "category_size", "sample")}
                                                     for c, r in sorted(cats.items(), key=lambda kv: _order(kv[0]))},
                      **{name.removeprefix("data_").removesuffix(".csv"): rows[name].get(label, {}) for name in BFCL_CSVS}})
    return {"benchmark": BENCHMARK, "bfcl_eval": bfcl.version, "models": board}


def _read_csv(path: Path) -> dict[str, dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return {row["Model"]: row for row in csv.DictReader(fh)}


def _order(category: str) -> int:
    names = list(CATEGORIES)
    return names.index(category) if category in names else len(names)


# ---- markdown ---------------------------------------------------------------------------------------
def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


SUMMARY_COLUMNS = (("non_live", "Non-Live Overall Acc"), ("non_live", "AST Summary"), ("live", "Live Overall Acc"),
                   ("multi_turn", "Multi Turn Overall Acc"), ("overall", "Overall Acc"))


def markdown(board: dict[str, Any], *, level: int = 2) -> str:
    """A report section: per-category accuracy with sample sizes, then BFCL's summary columns."""
    h = "#" * level
    cats = sorted({c for m in board["models"] for c in m["categories"]}, key=_order)
    lines = [f"{h} {TITLE}", "",
             f"bfcl-eval {board['bfcl_eval']}. Accuracy per category = correct entries / entries run, judged by "
             "bfcl_eval's own AST and multi-turn checkers; `n/N` = entries run / entries in the category (n < N: the "
             "first n entries only). Summary columns come from BFCL's leaderboard code: a summary with a category "
             "that was not run is N/A, and the Overall columns count such categories as 0.", "",
             "| model | " + " | ".join(cats) + " |", "|---|" + "---|" * len(cats)]
    for m in board["models"]:
        cells = []
        for c in cats:
            r = m["categories"].get(c)
            cells.append("-" if r is None else f"{_pct(r['accuracy'])} ({r['total_count']}/{r['category_size']})")
        lines.append(f"| {m['model']} | " + " | ".join(cells) + " |")
    lines += ["", "BFCL summary (its own aggregation):", "",
              "| model | " + " | ".join(f"{g}: {c}" for g, c in SUMMARY_COLUMNS) + " |",
              "|---|" + "---|" * len(SUMMARY_COLUMNS)]
    for m in board["models"]:
        lines.append(f"| {m['model']} | " + " | ".join(m.get(g, {}).get(c, "-") for g, c in SUMMARY_COLUMNS) + " |")
    return "\n".join(lines) + "\n"


def write_report(records: list[dict[str, Any]], out_dir: str | Path) -> dict[str, Path]:
    """bfcl_report.md, bfcl_leaderboard.json and BFCL's CSVs (bfcl_csv/) in `out_dir`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    board = leaderboard(records, out / CSV_DIR)
    (out / LEADERBOARD_JSON).write_text(json.dumps(board, ensure_ascii=False, indent=1), encoding="utf-8")
    md = out / "bfcl_report.md"
    md.write_text(markdown(board, level=1), encoding="utf-8")
    return {"bfcl_report.md": md, LEADERBOARD_JSON: out / LEADERBOARD_JSON, CSV_DIR: out / CSV_DIR}

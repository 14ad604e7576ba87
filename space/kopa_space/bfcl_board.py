"""BFCL v4 results for the leaderboard tab, kept apart from KOPA-Bench's.

Read from the same results folder (and uploads) as KOPA-Bench's score files:
  * a category score (`kopa bfcl score DIR --json > results/bfcl-<model>-<category>.json`, or a
    run folder holding `bfcl_score.json`): {"benchmark": "BFCL v4", "model", "category", "accuracy", ...}
  * a leaderboard (`kopa bfcl report ... --out DIR` writes `bfcl_leaderboard.json`):
    {"benchmark": "BFCL v4", "models": [{"model", "categories": {...}, "non_live": {...}, ...}]}
The numbers are shown as written (BFCL's accuracy and its own summary columns); nothing is
recomputed here, and bfcl-eval is not needed to show them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

BENCHMARK = "BFCL v4"
RUN_FILE = "bfcl_score.json"
CATEGORY_ORDER = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance", "live_simple",
                  "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance", "multi_turn_base",
                  "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context")
SUMMARY = (("non_live", "Non-Live Overall Acc"), ("non_live", "AST Summary"), ("multi_turn", "Multi Turn Overall Acc"))
NOTE = ("**BFCL v4** (Berkeley Function Calling Leaderboard): BFCL's own data and checker (bfcl-eval), not KOPA-Bench. "
        "Cells: accuracy (entries run / entries in the category; fewer = the first entries only). Summary columns are "
        "BFCL's own aggregation from `kopa bfcl report` (N/A where a category is missing).")


def _load(path: Path) -> Any:
    if path.is_dir():
        path = path / RUN_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def is_bfcl(path: str | Path) -> bool:
    """A BFCL score / leaderboard file, or a BFCL run folder (so KOPA-Bench's reader skips it)."""
    p = Path(path)
    if p.is_dir():
        return (p / RUN_FILE).is_file()
    if p.suffix != ".json" or not p.is_file():
        return False
    data = _load(p)
    return isinstance(data, dict) and data.get("benchmark") == BENCHMARK


def discover(root: str | Path) -> list[Path]:
    r = Path(root)
    if not r.is_dir():
        return []
    return [c for c in sorted(r.iterdir()) if is_bfcl(c)]


def _merge(rows: dict[str, dict], model: str) -> dict:
    return rows.setdefault(model, {"categories": {}, "summary": {}})


def collect(paths: list[str | Path]) -> dict[str, dict]:
    """model -> {"categories": {category: record}, "summary": {column: value}}."""
    rows: dict[str, dict] = {}
    for p in paths:
        data = _load(Path(p))
        if not isinstance(data, dict) or data.get("benchmark") != BENCHMARK:
            continue
        if "models" in data:
            for m in data["models"]:
                row = _merge(rows, m.get("model", "?"))
                row["categories"].update(m.get("categories", {}))
                row["summary"].update({f"{g}: {c}": m.get(g, {}).get(c) for g, c in SUMMARY if m.get(g, {}).get(c)})
        elif "category" in data:
            label = data.get("model", "?") + (" (prompt)" if data.get("mode") == "prompt" else "")
            if data.get("complete") is False:  # `kopa bfcl score` found entries missing, torn or ended by infra errors
                label += " [INCOMPLETE]"
            _merge(rows, label)["categories"][data["category"]] = data
    return rows


def table(rows: dict[str, dict]) -> tuple[list[str], list[list[Any]]]:
    cats = [c for c in CATEGORY_ORDER if any(c in r["categories"] for r in rows.values())]
    cats += sorted({c for r in rows.values() for c in r["categories"]} - set(cats))
    summary = [f"{g}: {c}" for g, c in SUMMARY]
    headers = ["model", *cats, *summary]
    out = []
    for model, r in sorted(rows.items()):
        cells = []
        for c in cats:
            rec = r["categories"].get(c)
            if rec is None or rec.get("accuracy") is None:
                cells.append("-")
            else:
                cells.append(f"{rec['accuracy']:.1%} ({rec.get('total_count', '?')}/{rec.get('category_size', '?')})")
        out.append([model, *cells, *(r["summary"].get(s, "-") for s in summary)])
    return headers, out

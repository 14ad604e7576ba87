"""Model card for a KOPA-trained checkpoint: base model, method, data version, KOPA-Bench results.

`results_json` is what `kopa` writes for a finished benchmark run: either a flat mapping of
metric -> number, or {"metrics": {...}, "model": ..., "benchmark_version": ...}; scalar metrics
are tabulated, nested breakdowns (per domain, per shape) are tabulated one level deep.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _fmt(v: Any) -> str:
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def _results_section(results: dict[str, Any]) -> str:
    metrics = results.get("metrics", results)
    lines = ["## KOPA-Bench results", ""]
    if "benchmark_version" in results:
        lines += [f"Benchmark version: `{results['benchmark_version']}`", ""]
    scalars = {k: v for k, v in metrics.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    if scalars:
        lines += ["| metric | value |", "|---|---|"] + [f"| {k} | {_fmt(v)} |" for k, v in scalars.items()] + [""]
    for k, v in metrics.items():
        if isinstance(v, dict) and v and all(isinstance(x, (int, float)) for x in v.values()):
            lines += [f"**{k}**", "", "| | value |", "|---|---|"] + [f"| {a} | {_fmt(b)} |" for a, b in v.items()] + [""]
    if len(lines) == 2:
        lines += ["(the results file has no numeric metrics)", ""]
    return "\n".join(lines)


def build_model_card(*, base_model: str, method: str, dataset: str, data_version: str | None = None,
                     results: dict[str, Any] | None = None, hub_model_id: str | None = None,
                     rewards: dict[str, float] | None = None) -> str:
    name = hub_model_id or f"{base_model.split('/')[-1]}-kopa-{method.lower()}"
    front = ["---", "library_name: transformers", "tags:", "- trl", f"- {method.lower()}", "- kopa", "- tool-calling",
             "language:", "- ko", f"base_model: {base_model}" if "/" in base_model else "", "---"]
    body = [
        f"# {name}", "",
        f"Fine-tuned from `{base_model}` with {method} (TRL) to chain calls to Korean public APIs (KOPA).",
        "During training every tool call ran against the KOPA environment (sandbox / replay) and was scored with the "
        "KOPA-Bench episode scorer.", "",
        "## Training data", "",
        f"- dataset: `{dataset}`",
        f"- data version: `{data_version or 'unversioned (local)'}`",
    ]
    if rewards:
        body += ["- rewards (weight): " + ", ".join(f"{k} ({w:g})" for k, w in rewards.items())]
    body += [""]
    body += [_results_section(results)] if results else ["## KOPA-Bench results", "", "Not evaluated yet.", ""]
    return "\n".join(line for line in front if line != "") + "\n\n" + "\n".join(body) + "\n"


def write_model_card(output_dir: str | Path, *, results_json: str | Path | None = None, **kw: Any) -> Path:
    """Write README.md into `output_dir` (what push_to_hub uploads)."""
    results = json.loads(Path(results_json).read_text(encoding="utf-8")) if results_json else None
    path = Path(output_dir) / "README.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(build_model_card(results=results, **kw), encoding="utf-8")
    return path

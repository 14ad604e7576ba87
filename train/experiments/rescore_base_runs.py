"""Old (1.x scorer) vs new (2.0 scorer) numbers for every committed result that came from the base 0.5B.

The committed 1.x results kept only their summaries, not their episodes, so they cannot be re-scored as
they are. The base model's runs all came from one greedy full-dev run (or subsets of it), so the base model is
run again on dev and its per-episode 2.0 scores (`kopa bench score RUN --scores-out FILE`) are aggregated over
each old file's task subset, with the summary `kopa bench score --json` prints.

    python train/experiments/rescore_base_runs.py --scores dev_base_v2.scores.jsonl --out-md table.md --out-json t.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from kopa_bench.scoring.episode_score import EpisodeScore
from kopa_bench.scoring.report import summarize_scores

ROOT = Path(__file__).resolve().parents[2]
# old base-model score file -> the dev tasks it covered (from the experiment notes that wrote it): a slice of the
# old split in run order, or the ids themselves
BASE_RUNS: dict[str, slice | list[str]] = {
    "docs/results/qwen2.5-coder-0.5b-llamacpp-dev.score.json": slice(None),
    "train/results/cpu_grpo_before_dev32.score.json": slice(None),
    "train/results/cpu_sft_masked_before_dev32.score.json": slice(None),
    "train/results/cpu_sft_before_paired5.score.json": [f"kopa-dev-district-00{i}" for i in range(1, 6)],
    "train/results/cpu_sft_masked_before_paired7.score.json": [f"kopa-dev-district-00{i}" for i in range(1, 7)]
    + ["kopa-dev-education-001"],
    "train/results/cpu_sft_masked_before_paired28.score.json": slice(28),  # district-001 ... traffic-002
}
METRICS = ("success_rate", "response", "grounded", "action_precision", "action_recall", "data_flow", "state", "mean_calls")


def _subset(scores: list[EpisodeScore], spec: slice | list[str], old_ids: list[str]) -> list[EpisodeScore]:
    ids = set(old_ids[spec] if isinstance(spec, slice) else spec)
    return [s for s in scores if s.task_id in ids]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scores", type=Path, required=True, help="per-episode 2.0 scores of the base dev run (--scores-out)")
    ap.add_argument("--old-ids", type=Path, required=True,
                    help="text file: the 32 task ids of the 1.x dev split, in run order (one per line)")
    ap.add_argument("--out-md", type=Path, required=True)
    ap.add_argument("--out-json", type=Path, required=True)
    a = ap.parse_args()
    scores = [EpisodeScore.model_validate_json(line) for line in a.scores.read_text(encoding="utf-8").splitlines() if line.strip()]
    old_ids = [x.strip() for x in a.old_ids.read_text(encoding="utf-8").splitlines() if x.strip()]
    rows, table = [], ["| result file | tasks | scorer | " + " | ".join(METRICS) + " |",
                       "|---|---|---|" + "---|" * len(METRICS)]
    for rel, spec in BASE_RUNS.items():
        old = json.loads((ROOT / rel).read_text(encoding="utf-8"))
        sub = _subset(scores, spec, old_ids)
        new = summarize_scores(sub) if sub else {}
        rows.append({"file": rel, "n_old": old.get("n_tasks"), "n_new": len(sub),
                     "old": {m: old.get(m) for m in METRICS}, "new": {m: new.get(m) for m in METRICS}})
        for tag, vals, n in (("1.x", old, old.get("n_tasks")), ("3.0.0 (re-run)", new, len(sub))):
            cells = ["-" if vals.get(m) is None else f"{vals[m]:.3f}" for m in METRICS]
            table.append(f"| `{rel}` | {n} | {tag} | " + " | ".join(cells) + " |")
    a.out_md.write_text("\n".join(table) + "\n", encoding="utf-8")
    a.out_json.write_text(json.dumps(rows, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print("\n".join(table))


if __name__ == "__main__":
    main()

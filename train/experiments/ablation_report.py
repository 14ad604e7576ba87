"""The EDGE ablation's table: each arm's steps run scored, paired against the base arm, loss curves.

    PYTHONPATH=. .venv/bin/python train/experiments/ablation_report.py \
        --arm base=RUN_DIR --arm sft-verified=RUN_DIR --arm sft-candidate=RUN_DIR \
        --log sft-verified=LORA_log.json --log sft-candidate=LORA_log.json \
        --json train/results/edge_ablation.json --png train/results/edge_ablation_loss.png

Every arm is scored with `kopa bench score` (the 2.0 matcher) and compared item by item with the
first arm (`kopa bench paired`: cluster bootstrap over tasks, exact McNemar) and with each other
where named by --pair. Prints a Markdown table; the JSON keeps everything.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from kopa_bench.cli.bench_cmd import score_dir
from kopa_bench.scoring.paired import paired_compare, run_items


def _kv(items: list[str]) -> list[tuple[str, str]]:
    out = []
    for s in items:
        if "=" not in s:
            raise SystemExit(f"expected NAME=PATH, got {s!r}")
        k, v = s.split("=", 1)
        out.append((k, v))
    return out


def _pct(x, ci=None) -> str:
    if x is None:
        return "-"
    return f"{x:.1%}" + (f" [{ci[0]:.1%}, {ci[1]:.1%}]" if ci else "")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--arm", action="append", required=True, help="NAME=steps run dir; the first is the baseline")
    ap.add_argument("--log", action="append", default=[], help="NAME=training log JSON (loss curve)")
    ap.add_argument("--pair", action="append", default=[], help="A:B extra paired comparisons by arm name")
    ap.add_argument("--json", required=True)
    ap.add_argument("--png", default=None)
    ap.add_argument("--n-boot", type=int, default=2000)
    a = ap.parse_args()
    arms = _kv(a.arm)
    scored = {}
    for name, run in arms:
        scores, summary, completeness = score_dir(Path(run), n_boot=a.n_boot)
        items, cluster = run_items(scores)
        scored[name] = {"run": run, "summary": summary, "items": items, "cluster": cluster,
                        "complete": completeness.complete}
    base = arms[0][0]
    pairs = [(base, n) for n, _ in arms[1:]] + [tuple(p.split(":", 1)) for p in a.pair]
    paired = {f"{x} -> {y}": paired_compare(scored[x]["items"], scored[y]["items"],
                                           cluster={**scored[x]["cluster"], **scored[y]["cluster"]}, n_boot=a.n_boot)
              for x, y in pairs}
    lines = ["| arm | steps | tasks | step accuracy [95% CI] | call steps | answer steps | complete |",
             "|---|---:|---:|---|---|---|---|"]
    for name, _ in arms:
        s = scored[name]["summary"]
        lines.append(f"| {name} | {s['n_steps']} | {s['n_tasks']} | {_pct(s['step_accuracy'], s['step_accuracy_ci'])} | "
                     f"{_pct(s['call_step_accuracy'], s['call_step_accuracy_ci'])} | "
                     f"{_pct(s['answer_accuracy'], s['answer_accuracy_ci'])} | {scored[name]['complete']} |")
    lines += ["", "| comparison | shared steps | A | B | B - A [95% CI] | A only right | B only right | McNemar p |",
              "|---|---:|---:|---:|---|---:|---:|---:|"]
    for k, r in paired.items():
        lines.append(f"| {k} | {r['n_items']} | {r['accuracy_a']:.1%} | {r['accuracy_b']:.1%} | {r['diff']:+.1%} "
                     f"[{r['diff_ci'][0]:+.1%}, {r['diff_ci'][1]:+.1%}] | {r['a_right_b_wrong']} | "
                     f"{r['b_right_a_wrong']} | {r['mcnemar_p']:.3g} |")
    table = "\n".join(lines)
    print(table)
    out = {"arms": {n: {"run": v["run"], "complete": v["complete"],
                        **{k: v["summary"].get(k) for k in ("n_steps", "n_tasks", "step_accuracy", "step_accuracy_ci",
                                                            "call_step_accuracy", "call_step_accuracy_ci",
                                                            "answer_accuracy", "answer_accuracy_ci", "failures")},
                        "by_position": {p: f["step_accuracy"] for p, f in
                                        v["summary"]["breakdowns"]["position"].items()}}
                    for n, v in scored.items()},
           "paired": paired, "table_md": table}
    logs = {}
    for name, path in _kv(a.log):
        lg = json.loads(Path(path).read_text())
        logs[name] = lg
        out.setdefault("training", {})[name] = {
            "steps": lg["steps"], "train_seconds": round(lg["train_seconds"], 1),
            "tokens": sum(r["tokens"] for r in lg["log"]), "labelled_tokens": sum(r["labelled"] for r in lg["log"]),
            "first_loss": lg["log"][0]["loss"], "last_loss": lg["log"][-1]["loss"]}
    Path(a.json).write_text(json.dumps(out, ensure_ascii=False, indent=1))
    if a.png and logs:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        for name, lg in logs.items():
            ax.plot([r["step"] for r in lg["log"]], [r["loss"] for r in lg["log"]], marker=".", label=name)
        ax.set_xlabel("optimizer step (1 trajectory each)")
        ax.set_ylabel("loss (assistant tokens)")
        ax.set_title("Qwen2.5-Coder-0.5B LoRA SFT: verified vs candidate EDGE trajectories (CPU)", fontsize=9)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(a.png, dpi=110)
        print("wrote", a.png)


if __name__ == "__main__":
    main()

"""The reward curve of a train/grpo.py run, from its trainer_state.json (TRL logs `reward`,
`reward_std` and `rewards/<func>/mean` every logging step), as a PNG plus a JSON of the series.

    PYTHONPATH=. .venv/bin/python train/experiments/plot_grpo_rewards.py /tmp/s3/grpo/trainer_state.json \
        --png train/results/cpu_grpo_reward.png --json train/results/cpu_grpo_log.json
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path


def series(state_path: str) -> dict[str, list]:
    hist = json.loads(Path(state_path).read_text())["log_history"]
    rows = [h for h in hist if "reward" in h]
    keys = sorted({k for h in rows for k in h if k.startswith("rewards/") and k.endswith("/mean")})
    out = {"step": [h["step"] for h in rows], "reward": [h["reward"] for h in rows],
           "reward_std": [h.get("reward_std") for h in rows]}
    for k in keys + ["loss", "completions/mean_length", "tools/call_frequency", "tools/failure_frequency"]:
        if any(k in h for h in rows):
            out[k] = [h.get(k) for h in rows]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("state", help="trainer_state.json of the run (or of a checkpoint)")
    ap.add_argument("--png", required=True)
    ap.add_argument("--json", default=None)
    ap.add_argument("--title", default="GRPO on EDGE rl rows, Qwen2.5-Coder-0.5B LoRA, CPU")
    a = ap.parse_args()
    s = series(a.state)
    if not s["step"]:
        raise SystemExit(f"{a.state} has no logged reward yet (log_history without 'reward')")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    ax1.plot(s["step"], s["reward"], "o-", label="weighted reward (mean of the group)")
    lo = [r - (sd or 0) for r, sd in zip(s["reward"], s["reward_std"])]
    hi = [r + (sd or 0) for r, sd in zip(s["reward"], s["reward_std"])]
    ax1.fill_between(s["step"], lo, hi, alpha=0.2, label="± std within the batch")
    ax1.set_xlabel("step"); ax1.set_ylabel("reward"); ax1.legend(fontsize=8); ax1.set_title(a.title, fontsize=9)
    for k in s:
        if k.startswith("rewards/"):
            ax2.plot(s["step"], s[k], ".-", label=k.split("/")[1])
    ax2.set_xlabel("step"); ax2.set_ylabel("unweighted reward"); ax2.legend(fontsize=8); ax2.set_title("per reward function", fontsize=9)
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)
    if a.json:
        Path(a.json).write_text(json.dumps(s, indent=1))
    print(f"{len(s['step'])} logged steps -> {a.png}")


if __name__ == "__main__":
    main()

"""LoRA SFT of Qwen2.5-Coder-0.5B on pre-tokenized EDGE rows with assistant-only labels (CPU), then merge.

    PYTHONPATH=. .venv/bin/python train/experiments/cpu_lora_sft_masked.py --model /tmp/cpusft/base_hf \
        --data /tmp/s2/w/sft_masked --out /tmp/s2/w/lora --merged /tmp/s2/w/merged_hf --time-budget 2100

Rows come from prep_edge_sft_masked.py (`input_ids` + `assistant_masks`, train.assistant_mask).
A plain loop rather than TRL's SFTTrainer (which accepts the same rows: it turns `assistant_masks`
into labels) for one reason, CPU time: only ~7% of tokens carry labels, so the 151,936-way LM head
is applied to those positions only (`logits_to_keep` with an index tensor) instead of to all ~2k,
which saves about a quarter of the step's compute and ~1 GiB of logits. The loss is the same
token-mean cross-entropy over the labelled tokens that SFTTrainer computes.

Schedule: linear warmup then cosine decay to 10% over the number of steps the time budget is
expected to allow (re-estimated from the running mean step time); stops when the next step would
overrun the budget. Writes <out>_log.json and a loss-curve PNG.
"""
from __future__ import annotations

import argparse
import json
import math
import resource
import time

import torch
import torch.nn.functional as F
from datasets import load_from_disk
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer


def step_loss(model, ids: list[int], mask: list[int]) -> tuple[torch.Tensor, float, int]:
    """Cross-entropy of predicting each labelled token from the position before it."""
    x = torch.tensor([ids])
    # position p predicts token p+1; keep the positions whose next token is labelled
    pos = torch.tensor([p for p in range(len(ids) - 1) if mask[p + 1]])
    target = x[0, pos + 1]
    logits = model(input_ids=x, logits_to_keep=pos).logits[0].float()
    loss = F.cross_entropy(logits, target)
    acc = (logits.argmax(-1) == target).float().mean().item()
    return loss, acc, len(pos)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--merged", required=True)
    ap.add_argument("--png", default="train/results/cpu_sft_masked_loss.png")
    ap.add_argument("--time-budget", type=float, default=2100)
    ap.add_argument("--max-steps", type=int, default=10000)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--grad-ckpt", action="store_true",
                    help="recompute each layer's activations in backward: ~4-5x less memory for ~4k-token rows "
                         "(without it a 0.5B step on such a row needs ~18 GB), about a third more compute")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    tok = AutoTokenizer.from_pretrained(a.model)
    model = AutoModelForCausalLM.from_pretrained(a.model, dtype=torch.float32)
    model = get_peft_model(model, LoraConfig(
        r=16, lora_alpha=32, lora_dropout=0.05, task_type="CAUSAL_LM",
        target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]))
    if a.grad_ckpt:
        model.config.use_cache = False
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    model.print_trainable_parameters()
    model.train()
    ds = load_from_disk(a.data).shuffle(seed=a.seed)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=a.lr, weight_decay=0.0)

    log, t0 = [], time.perf_counter()
    est_total = a.max_steps
    for step in range(1, min(a.max_steps, len(ds)) + 1):
        if step <= a.warmup:
            lr = a.lr * step / a.warmup
        else:
            frac = min(1.0, (step - a.warmup) / max(1, est_total - a.warmup))
            lr = a.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * frac)))
        for g in opt.param_groups:
            g["lr"] = lr
        row = ds[step - 1]
        ts = time.perf_counter()
        loss, acc, n_lab = step_loss(model, row["input_ids"], row["assistant_masks"])
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(params, 1.0).item()
        opt.step()
        opt.zero_grad(set_to_none=True)
        dt = time.perf_counter() - ts
        elapsed = time.perf_counter() - t0
        mean_dt = elapsed / step
        est_total = max(step + 1, min(a.max_steps, int(a.time_budget / mean_dt)))
        rss_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
        rec = {"step": step, "peak_rss_gb": round(rss_gb, 2), "loss": round(loss.item(), 4), "token_acc": round(acc, 4), "lr": lr, "grad_norm": round(gnorm, 3),
               "tokens": len(row["input_ids"]), "labelled": n_lab, "id": row["id"], "shape": row["shape"],
               "step_s": round(dt, 1), "elapsed_s": round(elapsed, 1), "est_total_steps": est_total}
        log.append(rec)
        print(json.dumps(rec, ensure_ascii=False), flush=True)
        if elapsed + mean_dt > a.time_budget:
            print(f"time budget {a.time_budget}s: stopping after step {step}", flush=True)
            break
    train_s = time.perf_counter() - t0
    json.dump({"train_seconds": train_s, "steps": len(log), "args": vars(a), "log": log},
              open(f"{a.out.rstrip('/')}_log.json", "w"), indent=1, ensure_ascii=False)
    model.save_pretrained(a.out)
    print(f"trained {len(log)} steps in {train_s:.0f}s ({train_s / max(1, len(log)):.1f}s/step)", flush=True)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        s = [r["step"] for r in log]
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        ax.plot(s, [r["loss"] for r in log], marker=".", label="loss (assistant tokens)")
        k = 5
        if len(log) >= k:
            ma = [sum(r["loss"] for r in log[i - k + 1:i + 1]) / k for i in range(k - 1, len(log))]
            ax.plot(s[k - 1:], ma, color="tab:blue", alpha=0.5, lw=2, label=f"{k}-step mean")
        ax.set_xlabel("optimizer step (1 trajectory each)"); ax.set_ylabel("loss")
        ax2 = ax.twinx(); ax2.plot(s, [r["token_acc"] for r in log], color="tab:orange", marker=".", alpha=0.6)
        ax2.set_ylabel("token accuracy (assistant tokens)", color="tab:orange")
        ax.legend(loc="upper right", fontsize=8)
        ax.set_title("Qwen2.5-Coder-0.5B LoRA r=16, assistant-only SFT on EDGE (CPU)", fontsize=9)
        fig.tight_layout(); fig.savefig(a.png, dpi=110)
        print("wrote", a.png)
    except Exception as e:  # plotting is a nicety
        print("plot failed:", e)
    t = time.perf_counter()
    merged = model.merge_and_unload()
    merged.save_pretrained(a.merged)
    tok.save_pretrained(a.merged)
    print(f"merged + saved to {a.merged} in {time.perf_counter() - t:.1f}s", flush=True)


if __name__ == "__main__":
    main()

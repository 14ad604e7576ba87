"""Short LoRA SFT of Qwen2.5-Coder-0.5B on rendered EDGE trajectories (CPU), then merge and save HF.

    PYTHONPATH=. .venv/bin/python train/experiments/cpu_lora_sft.py --model /tmp/cpusft/base_hf \
        --data /tmp/cpusft/sft_ds --out /tmp/cpusft/lora --merged /tmp/cpusft/merged_hf --max-steps 40 --time-budget 660
Loss is on the whole rendered sequence (Qwen2.5's template has no {% generation %} markers for
assistant-only loss). Writes log_history.json and a loss-curve PNG.
"""
from __future__ import annotations

import argparse
import json
import time

import torch
from datasets import load_from_disk
from peft import LoraConfig
from transformers import AutoModelForCausalLM, AutoTokenizer, TrainerCallback
from trl import SFTConfig, SFTTrainer


class TimeBudget(TrainerCallback):
    def __init__(self, seconds: float):
        self.seconds, self.t0 = seconds, None

    def on_train_begin(self, args, state, control, **kw):
        self.t0 = time.perf_counter()

    def on_step_end(self, args, state, control, **kw):
        if time.perf_counter() - self.t0 > self.seconds:
            print(f"time budget {self.seconds}s reached at step {state.global_step}; stopping")
            control.should_training_stop = True


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--merged", required=True)
    ap.add_argument("--png", default="train/results/cpu_sft_loss.png")
    ap.add_argument("--max-steps", type=int, default=40)
    ap.add_argument("--time-budget", type=float, default=660)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--max-length", type=int, default=1536)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    tok = AutoTokenizer.from_pretrained(a.model)
    model = AutoModelForCausalLM.from_pretrained(a.model, dtype=torch.float32)
    ds = load_from_disk(a.data).select_columns(["text"]).shuffle(seed=0)
    cfg = SFTConfig(output_dir=a.out, max_steps=a.max_steps, per_device_train_batch_size=1, gradient_accumulation_steps=1,
                    learning_rate=a.lr, lr_scheduler_type="constant", warmup_steps=0, max_length=a.max_length,
                    logging_steps=1, save_strategy="no", report_to="none", use_cpu=True, bf16=False, seed=0,
                    dataset_text_field="text", packing=False)
    peft_cfg = LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05, task_type="CAUSAL_LM",
                          target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])
    trainer = SFTTrainer(model=model, args=cfg, train_dataset=ds, processing_class=tok, peft_config=peft_cfg,
                         callbacks=[TimeBudget(a.time_budget)])
    t = time.perf_counter()
    res = trainer.train()
    train_s = time.perf_counter() - t
    hist = trainer.state.log_history
    json.dump({"train_seconds": train_s, "steps": trainer.state.global_step, "metrics": res.metrics, "log_history": hist},
              open(f"{a.out.rstrip('/')}_log.json", "w"), indent=1)
    print(f"trained {trainer.state.global_step} steps in {train_s:.1f}s ({train_s / max(1, trainer.state.global_step):.1f}s/step)")
    trainer.save_model(a.out)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        pts = [(h["step"], h["loss"]) for h in hist if "loss" in h]
        acc = [(h["step"], h["mean_token_accuracy"]) for h in hist if "mean_token_accuracy" in h]
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label="train loss")
        ax.set_xlabel("optimizer step (batch 1)"); ax.set_ylabel("loss")
        if acc:
            ax2 = ax.twinx(); ax2.plot([p[0] for p in acc], [p[1] for p in acc], color="tab:orange", marker=".", label="token acc")
            ax2.set_ylabel("mean token accuracy")
        ax.set_title("Qwen2.5-Coder-0.5B LoRA r=16 SFT on EDGE (CPU)")
        fig.tight_layout(); fig.savefig(a.png, dpi=110)
        print("wrote", a.png)
    except Exception as e:  # plotting is a nicety
        print("plot failed:", e)
    t = time.perf_counter()
    merged = trainer.model.merge_and_unload()
    merged.save_pretrained(a.merged)
    tok.save_pretrained(a.merged)
    print(f"merged + saved to {a.merged} in {time.perf_counter() - t:.1f}s")


if __name__ == "__main__":
    main()

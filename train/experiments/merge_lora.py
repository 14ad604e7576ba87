"""Merge a LoRA adapter (e.g. a train/grpo.py output folder) into its base model and save the full
checkpoint, ready for train/convert_to_gguf.py.

    PYTHONPATH=. .venv/bin/python train/experiments/merge_lora.py --base ~/.cache/kopa/train-models/qwen2.5-coder-0.5b \
        --adapter /tmp/s3/grpo --out /tmp/s3/grpo_merged
"""
from __future__ import annotations

import argparse


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="base checkpoint folder (the one the adapter was trained on)")
    ap.add_argument("--adapter", required=True, help="folder with adapter_config.json + adapter_model.safetensors")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(a.base, dtype=torch.float32)
    model = PeftModel.from_pretrained(model, a.adapter).merge_and_unload()
    model.save_pretrained(a.out)
    AutoTokenizer.from_pretrained(a.base).save_pretrained(a.out)
    print(f"merged {a.adapter} into {a.base} -> {a.out}")


if __name__ == "__main__":
    main()

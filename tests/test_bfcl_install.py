"""The `bfcl` extra as a fresh clone gets it (scripts/setup.sh, which CI runs through
scripts/test.sh): bfcl-eval installed without its declared dependencies, only what its modules
import added, nothing heavy imported, and a category runs with the network unreachable."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tests.limits import HANG_S

from kopa_bench.bfcl import compat

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
needs_bfcl = pytest.mark.skipif(not compat.available() and not os.environ.get("CI"),
                                reason=f"bfcl-eval is not installed; {compat.INSTALL_HINT}")
# provider SDKs bfcl-eval declares but KOPA never installs or imports
HEAVY = ("openai", "anthropic", "cohere", "mistralai", "google.genai", "boto3", "writerai", "faiss",
         "sentence_transformers", "qwen_agent", "vllm", "torch", "transformers")


def _extra(name: str) -> list[str]:
    block = re.search(rf"^{name} = \[(.*?)\]$", PYPROJECT, re.M | re.S).group(1)
    return re.findall(r'"([^"]+)"', block)


def test_the_pinned_bfcl_eval_version_is_one_fact():
    pin = re.search(r'^bfcl-eval\s*=\s*"([^"]+)"', PYPROJECT, re.M).group(1)
    assert pin == f"bfcl-eval=={compat.BFCL_EVAL_VERSION}"
    assert not any(r.startswith("bfcl") for r in _extra("bfcl"))  # never resolved with its dependencies
    setup = (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8")
    assert 'pip install -q --no-deps "${BFCL_REQ}"' in setup and "*,bfcl,*)" in setup
    assert "train,space,dev,bfcl" in (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")


@needs_bfcl
def test_the_extra_is_installed_and_bfcl_eval_s_own_pins_are_not():
    from packaging.requirements import Requirement

    for line in _extra("bfcl"):
        req = Requirement(line)
        assert req.specifier.contains(metadata.version(req.name), prereleases=True), line
    assert metadata.version("bfcl-eval") == compat.BFCL_EVAL_VERSION
    declared = {Requirement(r).name for r in metadata.requires("bfcl-eval") or [] if "extra ==" not in r}
    assert {"numpy", "networkx", "filelock", "anthropic", "boto3"} <= declared  # what --no-deps skips


def _clean_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    dead = "http://127.0.0.1:9"  # nothing listens: any attempt to reach the network fails at once
    env.update(HTTP_PROXY=dead, HTTPS_PROXY=dead, ALL_PROXY=dead, NO_PROXY="", HF_HUB_OFFLINE="1",
               PYTHONPATH=str(ROOT), BFCL_PROJECT_ROOT=str(tmp_path / "bfcl_root"))
    return env


@needs_bfcl
def test_loading_bfcl_imports_no_provider_sdk_and_no_handler_table(tmp_path):
    code = ("import sys, json; from kopa_bench.bfcl import compat; compat.load(); "
            "from kopa_bench.bfcl.data import load_entries; from kopa_bench.bfcl.categories import resolve; "
            "[load_entries(resolve(c)) for c in ('simple', 'multi_turn_base')]; "
            "print(json.dumps(sorted(m for m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_clean_env(tmp_path),
                         cwd=tmp_path, timeout=HANG_S)
    assert out.returncode == 0, out.stderr
    mods = json.loads(out.stdout)
    assert not [m for m in mods if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert not [m for m in mods if m.startswith("bfcl_eval.model_handler.") and "inference" in m]
    assert (tmp_path / "bfcl_root" / "score").is_dir()  # eval_config's folders go where KOPA points it


@needs_bfcl
def test_one_category_runs_offline_from_the_console_script(tmp_path):
    kopa = [sys.executable, "-m", "kopa_bench.cli"]
    env = _clean_env(tmp_path)
    out = subprocess.run([*kopa, "bfcl", "run", "--model", "replay", "--category", "multiple", "--limit", "12",
                          "--out", str(tmp_path / "run"), "--no-progress"], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=HANG_S)
    assert out.returncode == 0, out.stderr
    score = subprocess.run([*kopa, "bfcl", "score", str(tmp_path / "run"), "--json"], capture_output=True, text=True,
                           env=env, cwd=tmp_path, timeout=HANG_S)
    assert score.returncode == 0, score.stderr
    record = json.loads(score.stdout)
    assert (record["category"], record["accuracy"], record["total_count"]) == ("multiple", 1.0, 12)

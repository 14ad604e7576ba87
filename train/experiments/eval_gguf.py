"""Run KOPA-Bench with the llama.cpp backend pointed at an arbitrary GGUF file (no kopa_bench edits).

    PYTHONPATH=. .venv/bin/python train/experiments/eval_gguf.py --gguf PATH|bundled --tokenizer HF_DIR|bundled \
        --out RUN_DIR --split dev --limit 8 --max-steps 6 --max-tool-records 20 --max-tokens 512 --tool-lang ko
Then: kopa bench score RUN_DIR --json
"""
from __future__ import annotations

import argparse
import time

from kopa_bench.runner.backends.llamacpp_backend import LlamaCppBackend
from kopa_bench.runner.benchmark import run_benchmark
from kopa_bench.runner.run_config import RunConfig
from kopa_bench.tasks.task_schema import load_tasks


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gguf", required=True, help="GGUF path, or 'bundled' for the packaged q4_k_m")
    ap.add_argument("--tokenizer", default="bundled", help="HF tokenizer folder, or 'bundled'")
    ap.add_argument("--name", default=None)
    ap.add_argument("--out", required=True)
    ap.add_argument("--split", default="dev")
    ap.add_argument("--limit", type=int, default=8)
    ap.add_argument("--max-steps", type=int, default=6)
    ap.add_argument("--max-tool-records", type=int, default=20)
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--tool-lang", default="ko")
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--n-threads", type=int, default=1)
    ap.add_argument("--n-ctx", type=int, default=16384)
    ap.add_argument("--ids", nargs="*", help="only these task ids (after --limit), run in the order given")
    ap.add_argument("--mode", default="episodes", choices=["episodes", "steps"],
                    help="full episodes, or one generation per gold step (kopa bench run --mode steps)")
    a = ap.parse_args()

    from transformers import AutoTokenizer

    if a.gguf == "bundled":
        from kopa_bench.runner.backends.gguf_model import assemble_gguf
        path = assemble_gguf()
    else:
        path = a.gguf
    if a.tokenizer == "bundled":
        from pathlib import Path
        p = Path(path)
        tok = AutoTokenizer.from_pretrained(p.parent, gguf_file=p.name, local_files_only=True)
    else:
        tok = AutoTokenizer.from_pretrained(a.tokenizer, local_files_only=True)
    backend = LlamaCppBackend(str(path), tok, n_ctx=a.n_ctx, n_threads=a.n_threads,
                              model_name=a.name or f"llamacpp-{path}")
    tasks = load_tasks(a.split)[: a.limit]
    if a.ids:
        by_id = {t.id: t for t in tasks}
        missing = [i for i in a.ids if i not in by_id]
        if missing:
            raise SystemExit(f"--ids: {missing} are not in the first {a.limit} tasks of {a.split}")
        tasks = [by_id[i] for i in a.ids]  # in the order given: a run stopped early covers a chosen prefix
    t = time.perf_counter()
    config = RunConfig(model=f"llamacpp:{a.name or path}", concurrency=a.concurrency, max_steps=a.max_steps,
                       max_tool_records=a.max_tool_records, max_tokens=a.max_tokens, tool_lang=a.tool_lang,
                       mode=a.mode, source=f"split:{a.split}")
    if a.mode == "steps":
        from kopa_bench.runner.steps import run_steps

        res = run_steps(tasks, config, a.out, backend=backend)
        print(f"step accuracy {res.run['summary']['step_accuracy']}")
    else:
        run_benchmark(tasks, config, a.out, backend=backend)
    print(f"eval wall {time.perf_counter() - t:.1f}s for {len(tasks)} tasks")


if __name__ == "__main__":
    main()

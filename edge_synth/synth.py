"""Resumable synthesis: trajectories are written in JSONL chunks with deterministic ids.

Ids are `edge-<shape>-<n>` for attempt n of a shape; attempt n is a pure function of (seed, id,
verified graph, sampler state after bootstrap), so an interrupted run resumes by skipping ids
already written (and attempts already rejected, kept in `rejected.jsonl`): nothing is lost or
duplicated.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any, Callable

from .export import Decontaminator, program_key, rl_task, sft_messages
from .plausible import rejection
from .queries import make_query, paraphrase_llm
from .shapes import SHAPES, Synthesizer


def _read_jsonl(path: Path) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            break  # a torn last line from an interruption: ignore it
    return out


async def synthesize(vg, pipeline, out_dir: str | Path, n_per_shape: int = 900, seed: int = 0, chunk: int = 50,
                     decon: Decontaminator | None = None, paraphrase: dict | None = None,
                     shapes: list[str] | None = None, max_attempts_factor: int = 6,
                     progress: Callable[[int, int], None] | None = None, stop_after: int | None = None,
                     plausible: Callable[..., str | None] | None = rejection,
                     keep_failures: bool = False) -> dict[str, Any]:
    """Synthesize up to `n_per_shape` trajectories per shape into out_dir/traj-*.jsonl (`pipeline`: an
    EdgePipeline after `prepare`, for its catalog, sampler and executor). `plausible` names why no
    person would make a request (edge_synth.plausible.rejection; None keeps every executable one).
    `keep_failures` keeps walks whose calls fail or return nothing (row key `failure`): the ablation
    that walks the unverified candidate graph."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    shapes = shapes or SHAPES
    decon = decon or Decontaminator()
    syn = Synthesizer(vg, pipeline.catalog, pipeline.sampler, pipeline.executor, seed, keep_failures=keep_failures)
    done = {}
    for p in sorted(out.glob("traj-*.jsonl")):
        for row in _read_jsonl(p):
            done[row["id"]] = row
    rejected = {r["id"]: r for r in _read_jsonl(out / "rejected.jsonl")}
    seen_programs = {row["program_key"] for row in done.values()}
    audit = {"attempts": 0, "built": 0, "failed_build": 0, "duplicates": 0, "decontaminated": 0,
             "resumed": len(done), **{f"rejected_{k}": 0 for k in ("prev",)}}
    per_shape = {s: sum(1 for r in done.values() if r["shape"] == s) for s in shapes}
    total_target = n_per_shape * len(shapes)
    written_since_start = 0
    buf: list[dict] = []
    rej_f = (out / "rejected.jsonl").open("a", encoding="utf-8")
    chunk_idx = len(list(out.glob("traj-*.jsonl")))

    def flush():
        nonlocal buf, chunk_idx
        if not buf:
            return
        path = out / f"traj-{chunk_idx:05d}.jsonl"
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in buf), encoding="utf-8")
        tmp.replace(path)
        chunk_idx += 1
        buf = []

    try:
        for shape in shapes:
            n = 0
            batch = 16
            while per_shape[shape] < n_per_shape and n < n_per_shape * max_attempts_factor:
                ids = [f"edge-{shape}-{i:06d}" for i in range(n, n + batch)]
                n += batch
                todo = [i for i in ids if i not in done and i not in rejected]
                audit["attempts"] += len(todo)
                results = await asyncio.gather(*(syn.build(shape, i) for i in todo))
                for tid, traj in zip(todo, results):
                    if per_shape[shape] >= n_per_shape:
                        break
                    reason = None
                    if traj is None:
                        reason = "failed_build"
                    else:
                        rng = random.Random(f"{seed}:q:{tid}")
                        traj["entity_steps"] = ["s1", "s2"] if shape == "comparison" else \
                            [s["id"] for s in traj["task"]["program"]] if shape == "parallel" else ["s1"]
                        q, reg = make_query(traj, pipeline.catalog, rng)
                        if paraphrase:
                            q = paraphrase_llm(q, **paraphrase)
                        traj["query"], traj["register"] = q, reg
                        pk = program_key(traj["task"]["program"])
                        why = plausible(traj, pipeline.catalog, pipeline.sampler.param_kind) if plausible else None
                        if why is not None:
                            reason = f"implausible_{why}"
                        elif pk in seen_programs:
                            reason = "duplicates"
                        elif decon.check(traj["task"]["program"], q) is not None:
                            reason = "decontaminated"
                    if reason:
                        audit[reason] = audit.get(reason, 0) + 1
                        rej_f.write(json.dumps({"id": tid, "reason": reason}) + "\n")
                        continue
                    seen_programs.add(pk)
                    row = {"id": tid, "shape": shape, "program_key": pk, "query": traj["query"],
                           "register": traj["register"], "n_calls": traj["n_calls"],
                           "platforms": traj["task"]["platforms"], "domain": traj["task"]["domain"],
                           "messages": sft_messages(traj, pipeline.catalog), "task": rl_task(traj),
                           "facts": [{k: v for k, v in f.items() if k in ("id", "description", "field", "tool", "resolved")}
                                     for f in traj["facts"]]}
                    if traj.get("failure"):
                        row["failure"] = traj["failure"]
                        audit["kept_failures"] = audit.get("kept_failures", 0) + 1
                    buf.append(row)
                    done[tid] = row
                    per_shape[shape] += 1
                    audit["built"] += 1
                    written_since_start += 1
                    if len(buf) >= chunk:
                        flush()
                        rej_f.flush()
                    if stop_after is not None and written_since_start >= stop_after:
                        raise KeyboardInterrupt  # simulated interruption (tests)
                if progress:
                    progress(sum(per_shape.values()), total_target)
        flush()
    finally:
        rej_f.close()
    audit["decontamination"] = decon.counts
    audit["per_shape"] = per_shape
    audit["total"] = len(done)
    (out / "synth_audit.json").write_text(json.dumps(audit, ensure_ascii=False, indent=1), encoding="utf-8")
    return audit


def load_trajectories(out_dir: str | Path) -> list[dict]:
    rows = []
    for p in sorted(Path(out_dir).glob("traj-*.jsonl")):
        rows += _read_jsonl(p)
    return sorted(rows, key=lambda r: r["id"])

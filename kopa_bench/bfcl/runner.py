"""`kopa bfcl run`: one BFCL category with any KOPA backend, concurrently and resumably.

A run directory holds
  run.json        config (model, category, mode, sampling), versions, last summary
  results.jsonl   one BfclResult per ended entry, appended, flushed and fsync'd (the KOPA
                  runner's EpisodeWriter); a rerun skips the entries already there except those an
                  infra error ended, and a line torn by a kill is cut off first (read_episodes)

`run_completeness` checks a folder against the entries its run.json asked for (missing, torn,
infra errors), with the same check KOPA-Bench runs use.

An entry runs as BFCL's generation step runs it (base_handler.inference_*): single-turn
categories get one model turn; multi-turn categories get each user turn in order, and within a
turn the model is asked again after each step whose calls all decode, its calls executed on
BFCL's simulated API classes (``execute_multi_turn_func_call``), until a step without a
decodable call or BFCL's step limit (``MAXIMUM_STEP_LIMIT``, which force-terminates the entry).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from filelock import FileLock, Timeout

from kopa_bench.client.redact import redact
from kopa_bench.runner.backends.contract import Backend, ContextOverflowError
from kopa_bench.episodes.completeness import Completeness, check_completeness
from kopa_bench.episodes.run_dir import EpisodeWriter, RunDirError, latest_attempts, read_episodes, scan_records, versions

from kopa_bench.bfcl import compat, prompting
from kopa_bench.bfcl.agents import AGENTS, CURRENT, EntryContext
from kopa_bench.bfcl.categories import Category, resolve
from kopa_bench.bfcl.checking import Verdict, allowed_functions, call_strings, check, release_instances
from kopa_bench.bfcl.data import Entry, category_size, load_entries
from kopa_bench.bfcl.records import BfclCall, BfclResult, BfclStep

log = logging.getLogger(__name__)

RESULTS, RUN_JSON = "results.jsonl", "run.json"
# settings that change what a result means; a resumed run must keep them
_FIXED = ("model", "category", "mode", "temperature", "max_tokens")


# KOPA-Bench's scripted agents answer KOPA tasks, not BFCL entries
_KOPA_ONLY = ("oracle", "no-tool", "first-call")


def check_spec(spec: str) -> None:
    """Reject a spec no backend answers to, before anything is loaded or written."""
    from kopa_bench.runner.backends import registered_backends

    forms = registered_backends()
    prefix = (spec or "").strip().partition(":")[0]
    if spec in AGENTS or (prefix in forms and prefix not in _KOPA_ONLY):
        return
    valid = [f for p, f in forms.items() if p not in _KOPA_ONLY] + list(AGENTS)
    what = "a KOPA-Bench scripted agent" if prefix in _KOPA_ONLY else "an unknown backend spec"
    raise ValueError(f"--model {spec!r} is {what}; valid for BFCL: {', '.join(valid)}")


def make_bfcl_backend(spec: str, **kw: Any) -> Backend:
    """A BFCL scripted agent (replay, wrong-function, wrong-value) or any KOPA model backend."""
    check_spec(spec)
    if spec in AGENTS:
        return AGENTS[spec]()
    from kopa_bench.runner.backends import make_backend

    return make_backend(spec, **kw)


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def read_run(run_dir: str | Path) -> tuple[dict, list[BfclResult]]:
    """(run.json, finished results) of a BFCL run directory; RunDirError says what is wrong.
    Torn lines and entries an infra error ended are left out (`run_completeness` names them)."""
    meta = _run_meta(Path(run_dir))
    scan = scan_records(Path(run_dir) / RESULTS, BfclResult)
    return meta, [r for r in latest_attempts(scan.records, key=_id) if not r.infra_error]


def run_completeness(run_dir: str | Path) -> Completeness:
    """The entries run.json's category and --limit ask for (and any an earlier invocation with
    another --limit ran) against the finished ones."""
    d = Path(run_dir)
    cfg = _run_meta(d).get("config", {})
    scan = scan_records(d / RESULTS, BfclResult)
    attempts = latest_attempts(scan.records, key=_id)
    expected = [e.id for e in load_entries(resolve(cfg.get("category", "")), cfg.get("limit"))]
    expected += sorted({r.id for r in attempts} - set(expected), key=_index)
    return check_completeness(expected, [r.id for r in attempts if not r.infra_error],
                              infra_errors={r.id: r.errors[-1] if r.errors else "" for r in attempts if r.infra_error},
                              torn_lines=scan.torn_lines,
                              unit="entries", source=str(d / RESULTS))


def _run_meta(d: Path) -> dict:
    if not d.is_dir():
        raise RunDirError(f"{d} is not a directory; give a `kopa bfcl run --out` directory")
    if not (d / RUN_JSON).is_file():
        raise RunDirError(f"{d} has no {RUN_JSON}; is it a `kopa bfcl run` directory?")
    meta = json.loads((d / RUN_JSON).read_text(encoding="utf-8"))
    if meta.get("kind") != "bfcl":
        raise RunDirError(f"{d} is not a BFCL run (its {RUN_JSON} has kind {meta.get('kind')!r}); "
                          "KOPA-Bench runs are scored with `kopa bench score`")
    return meta


# ---- one entry ----------------------------------------------------------------------------------
@dataclass
class _Settings:
    mode: prompting.Mode
    temperature: float
    max_tokens: int
    model: str
    token: str  # makes this invocation's BFCL instance names unique


def _step(turn: Any, latency: float) -> BfclStep:
    return BfclStep(content=turn.content, raw_text=turn.raw_text, calls=[BfclCall.from_parsed(c) for c in turn.tool_calls],
                    prompt_tokens=turn.usage.prompt_tokens, completion_tokens=turn.usage.completion_tokens,
                    latency_s=round(latency, 4))


async def _generate(backend: Backend, messages: list[dict], tools: list[dict], s: _Settings) -> tuple[Any, float]:
    t0 = time.perf_counter()
    turn = await backend.generate(messages, tools, temperature=s.temperature, seed=0, max_tokens=s.max_tokens)
    return turn, time.perf_counter() - t0


async def run_entry(entry: Entry, category: Category, backend: Backend, s: _Settings) -> BfclResult:
    """Run one entry; a full context becomes stop_reason "error" (the model's), any other failure
    (the model server, the harness, odd data) "infra_error", with the reason recorded."""
    t0 = time.perf_counter()
    res = BfclResult(id=entry.id, category=category.name, model=s.model, mode=s.mode)
    try:
        if category.kind == "multi_turn":
            await _multi_turn(entry, category, backend, s, res)
        else:
            prompt = entry.fresh_prompt()
            functions = prompt["function"]
            CURRENT.set(EntryContext(entry, category, _offered(functions, s.mode), functions))
            turn, dt = await _generate(backend, prompting.first_turn(prompt, s.mode),
                                       prompting.compile_tools(functions, s.mode), s)
            res.turns = [[_step(turn, dt)]]
    except ContextOverflowError as exc:
        res.stop_reason = "error"
        res.errors.append(redact(f"context window full: {exc}")[:500])
    except Exception as exc:  # one bad entry (backend error, odd data) must not end the run
        log.error("entry %s failed: %s", entry.id, redact(str(exc)))
        res.stop_reason = "infra_error"
        res.errors.append(redact(f"{type(exc).__name__}: {exc}")[:500])
    res.total_s = round(time.perf_counter() - t0, 4)
    return res


def _offered(functions: list[dict], mode: prompting.Mode) -> dict[str, str]:
    return {bfcl: offered for offered, bfcl in prompting.tool_names(functions, mode).items()}


async def _multi_turn(entry: Entry, category: Category, backend: Backend, s: _Settings, res: BfclResult) -> None:
    bfcl = compat.load()
    prompt = entry.fresh_prompt()
    functions: list[dict] = prompt["function"]
    holdout: dict[str, list] = prompt.get("missed_function", {}) or {}
    long_context = "long_context" in category.name or "composite" in category.name
    limit = bfcl.default_prompts.MAXIMUM_STEP_LIMIT
    allowed = allowed_functions(prompt)
    instance_model = f"kopa_run_{s.token}"
    held_out = [d for docs in holdout.values() for d in docs]
    messages: list[dict] = []
    try:
        for t, turn_messages in enumerate(prompt["question"]):
            if str(t) in holdout:
                functions.extend(holdout[str(t)])
                turn_messages = prompting.holdout_turn(holdout[str(t)], s.mode)
            if t == 0:  # prompt mode: BFCL's system prompt goes in front of the first turn
                turn_messages = prompting.first_turn({**prompt, "question": [turn_messages]}, s.mode)
            messages.extend(turn_messages)
            tools = prompting.compile_tools(functions, s.mode)
            names = prompting.tool_names(functions, s.mode)
            ctx = EntryContext(entry, category, {b: o for o, b in names.items()}, functions, turn=t,
                               extra={"held_out": held_out})
            steps: list[BfclStep] = []
            res.turns.append(steps)
            for count in range(limit + 1):
                ctx.step = count
                CURRENT.set(ctx)
                turn, dt = await _generate(backend, messages, tools, s)
                step = _step(turn, dt)
                steps.append(step)
                messages.append(prompting.assistant_message(turn, s.mode))
                strings = call_strings(step, allowed, names)
                if not strings:  # no call, or one BFCL's decoder could not read: the turn is over
                    break
                results, _ = bfcl.multi_turn_utils.execute_multi_turn_func_call(
                    strings, prompt.get("initial_config", {}), prompt["involved_classes"], instance_model, entry.id,
                    long_context=long_context, is_evaL_run=False)
                step.execution_results = list(results)
                messages.extend(prompting.result_messages(turn, strings, results, s.mode))
            else:
                res.stop_reason = "force_terminated"
                res.errors.append(f"turn {t}: still calling functions after {limit} steps (BFCL's limit)")
                return
    finally:
        release_instances(instance_model)


# ---- the run ------------------------------------------------------------------------------------
@dataclass
class BfclRunResult:
    out_dir: Path
    run: dict
    ran: int
    skipped: int
    verdicts: list[Verdict]
    elapsed_s: float
    completeness: Completeness

    @property
    def accuracy(self) -> float | None:
        return sum(v.valid for v in self.verdicts) / len(self.verdicts) if self.verdicts else None


async def run_bfcl_async(category: str, backend_spec: str, out_dir: str | Path, *, limit: int | None = None,
                         concurrency: int = 4, mode: str = "auto", temperature: float = 0.0, max_tokens: int = 1024,
                         backend: Backend | None = None, backend_kwargs: dict | None = None, progress: bool = False,
                         on_result: Callable[[BfclResult, Verdict], None] | None = None) -> BfclRunResult:
    """Run every entry of `category` (the first `limit`) not yet in `out_dir/results.jsonl`."""
    cat = resolve(category)
    if concurrency < 1:
        raise ValueError(f"--concurrency must be at least 1, got {concurrency}")
    if mode not in prompting.MODES:
        raise ValueError(f"unknown --mode {mode!r}; valid: {', '.join(prompting.MODES)}")
    if backend is None:
        check_spec(backend_spec)
    compat.load()
    entries = load_entries(cat, limit)
    t_start = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(out / ".lock"))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise RunDirError(f"another process is running into {out}; wait for it or use another --out") from None
    try:
        return await _run(cat, entries, backend_spec, out, t_start, limit=limit, concurrency=concurrency, mode=mode,
                          temperature=temperature, max_tokens=max_tokens, backend=backend,
                          backend_kwargs=backend_kwargs or {}, progress=progress, on_result=on_result)
    finally:
        lock.release()


async def _run(cat, entries, backend_spec, out, t_start, *, limit, concurrency, mode, temperature, max_tokens, backend,
               backend_kwargs, progress, on_result) -> BfclRunResult:
    old = json.loads((out / RUN_JSON).read_text(encoding="utf-8")) if (out / RUN_JSON).exists() else None
    if old is not None and old.get("kind") != "bfcl":
        raise RunDirError(f"{out} holds a run that is not a BFCL run; use another --out directory")
    # an entry an infra error ended is run again; its old line stays, superseded (latest_attempts)
    finished = [r for r in latest_attempts(read_episodes(out / RESULTS, repair=True, model=BfclResult), key=_id)
                if not r.infra_error]
    if backend is None:
        backend = make_bfcl_backend(backend_spec, **backend_kwargs)
    try:
        resolved = prompting.resolve_mode(mode, backend)
        config = {"model": redact(backend_spec), "category": cat.name, "mode": resolved, "requested_mode": mode,
                  "temperature": temperature, "max_tokens": max_tokens, "limit": limit, "concurrency": concurrency,
                  "bfcl_eval": compat.load().version, "category_size": category_size(cat)}
        if old is not None:
            diff = {k: (old["config"].get(k), config[k]) for k in _FIXED if old["config"].get(k) != config[k]}
            if diff:
                raise RunDirError(f"{out} was run with different settings {diff} (old, new); "
                                  "resume with the same settings or use a new --out directory")
        planned = sorted({e.id for e in entries} | {r.id for r in finished}, key=lambda i: _index(i))
        run = {"kind": "bfcl", "kopa_run": 1, "config": config, "versions": {**versions(), "bfcl-eval": compat.load().version},
               "n_entries": len(planned), "created": (old or {}).get("created") or _now(), "updated": _now(),
               "status": "running"}
        _atomic_write(out / RUN_JSON, json.dumps(run, ensure_ascii=False, indent=1))
        done = {r.id for r in finished}
        todo = [e for e in entries if e.id not in done]
        settings = _Settings(mode=resolved, temperature=temperature, max_tokens=max_tokens, model=redact(backend_spec),
                             token=uuid.uuid4().hex[:10])
        writer = EpisodeWriter(out / RESULTS)
        sem = asyncio.Semaphore(concurrency)
        verdicts: list[Verdict] = []
        new: list[BfclResult] = []
        bar = _Bar(len(todo), f"BFCL {cat.name}") if progress else None

        async def one(entry: Entry) -> None:
            async with sem:
                res = await run_entry(entry, cat, backend, settings)
                await writer.write(res)
            new.append(res)
            if res.infra_error:  # not the model's doing: no verdict
                if bar:
                    bar.skip()
                return
            verdict = check(entry, res, cat, resolved)
            verdicts.append(verdict)
            if bar:
                bar.advance(verdict.valid)
            if on_result:
                on_result(res, verdict)

        try:
            if bar:
                bar.start()
            await asyncio.gather(*(one(e) for e in todo))
        finally:
            if bar:
                bar.stop()
            writer.close()
        by_id = {e.id: e for e in load_entries(cat)}
        verdicts += [check(by_id[r.id], r, cat, resolved) for r in finished if r.id in by_id]
    finally:
        await backend.aclose()
    elapsed = time.perf_counter() - t_start
    correct = sum(v.valid for v in verdicts)
    completeness = run_completeness(out)
    run.update(status="finished" if completeness.complete else "incomplete", updated=_now(),
               summary={"entries": len(verdicts), "correct_count": correct,
                        "accuracy": correct / len(verdicts) if verdicts else None,
                        "inference_errors": sum(r.stop_reason == "error" for r in finished + new),
                        "infra_errors": len(completeness.infra_errors), "expected": completeness.expected,
                        "last_invocation_s": round(elapsed, 3), "ran": len(todo),
                        "wall_s": round(((old or {}).get("summary") or {}).get("wall_s", 0.0) + elapsed, 3)})
    _atomic_write(out / RUN_JSON, json.dumps(run, ensure_ascii=False, indent=1))
    return BfclRunResult(out, run, len(todo), len(entries) - len(todo), verdicts, elapsed, completeness)


def run_bfcl(category: str, backend_spec: str, out_dir: str | Path, **kw: Any) -> BfclRunResult:
    """Synchronous :func:`run_bfcl_async` (CLI, scripts)."""
    return asyncio.run(run_bfcl_async(category, backend_spec, out_dir, **kw))


def _id(result: BfclResult) -> str:
    return result.id


def _index(entry_id: str) -> tuple[str, int]:
    head, _, tail = entry_id.rpartition("_")
    try:
        return head, int(tail.split("-")[0])
    except ValueError:
        return entry_id, 0


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


class _Bar:
    """A rich progress bar with the live BFCL accuracy (top layer only)."""

    def __init__(self, total: int, label: str):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self.p = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("accuracy {task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn())
        self.t = self.p.add_task(label[:40], total=total, rate="-")
        self.n = self.ok = 0

    def start(self) -> None:
        self.p.start()

    def stop(self) -> None:
        self.p.stop()

    def skip(self) -> None:
        self.p.update(self.t, advance=1)

    def advance(self, ok: bool) -> None:
        self.n += 1
        self.ok += bool(ok)
        self.p.update(self.t, advance=1, rate=f"{self.ok / self.n:.1%} ({self.ok}/{self.n})")

"""The batch runner: many (task, seed) episodes, concurrently, resumable, scored as they finish.

A run directory holds
  run.json        config, model, tool backend, world hash, versions, last summary
  tasks.json      the exact tasks run (so `kopa bench score` needs no task files)
  episodes.jsonl  one line per FINISHED episode, appended, flushed and fsync'd

Resuming: a rerun reads episodes.jsonl, skips the (task_id, seed) pairs already there and runs
the rest. A line torn by a kill mid-write can only be the last one; it is cut off before
appending. Scoring re-executes each task's gold program (once per task) on a fault-free client
of the same tool backend.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import platform
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Iterable

from filelock import FileLock, Timeout

from kopa_bench.client.redact import redact
from kopa_bench.runner.agent import DEFAULT_MAX_STEPS, DEFAULT_MAX_TOOL_RECORDS, run_episode
from kopa_bench.runner.episode import Episode
from kopa_bench.scoring.episode import EpisodeScore, score_episode
from kopa_bench.scoring.heap import heap_frozen
from kopa_bench.tasks.facts import ResolvedFact, compute_answer
from kopa_bench.tasks.models import Task, parse_tasks
from kopa_bench.tasks.program import GoldRun, execute_program

log = logging.getLogger(__name__)

EPISODES, RUN_JSON, TASKS_JSON = "episodes.jsonl", "run.json", "tasks.json"
SAMPLING_TEMPERATURE = 0.7  # used when --seeds > 1 and no temperature is given
# Settings that change what an episode means; a resumed run must keep them.
_FIXED = ("model", "client_backend", "world_hash", "max_steps", "temperature", "max_tool_records", "faults", "tool_lang")


class RunDirError(RuntimeError):
    """The run directory cannot be resumed as asked; the message says why and what to do."""


# ---- the episodes file ------------------------------------------------------------------------
def read_episodes(path: Path, *, repair: bool = False, model: Any = Episode) -> list[Any]:
    """Episodes of an episodes.jsonl. An unterminated last line (a write cut by a kill) is
    ignored, and cut off with repair=True; a bad complete line is corruption and raises.
    `model` is the pydantic model of a line (BFCL runs write their own records)."""
    if not path.exists():
        return []
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1  # bytes after the last newline never finished writing
    episodes = []
    for i, line in enumerate(data[:end].split(b"\n")[:-1]):
        if not line.strip():
            continue
        try:
            episodes.append(model.model_validate_json(line))
        except ValueError as exc:
            raise RunDirError(f"{path}: line {i + 1} is corrupt ({str(exc)[:120]}); "
                              "remove it by hand or start a new run directory") from None
    if end < len(data) and repair:
        log.warning("%s: dropping a torn last line (%d bytes) left by an interrupted run", path, len(data) - end)
        with open(path, "r+b") as fh:
            fh.truncate(end)
            fh.flush()
            os.fsync(fh.fileno())
    return episodes


class EpisodeWriter:
    """Appends one episode per line; each line is flushed and fsync'd before it counts."""

    def __init__(self, path: Path):
        self.path = path
        self._fh = open(path, "ab")
        self._lock = asyncio.Lock()

    async def write(self, ep: Episode) -> None:
        line = (ep.to_jsonl() + "\n").encode("utf-8")
        async with self._lock:
            # the fsync waits for the disk: off the event loop, so other episodes keep running
            await asyncio.to_thread(self._append, line)

    def _append(self, line: bytes) -> None:
        self._fh.write(line)
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


# ---- clients, world, versions -----------------------------------------------------------------
@dataclass
class ClientSpec:
    """How to build tool clients: backend, optional replay cache and fault injection."""

    backend: str = "sandbox"
    cache: str | None = None
    cache_mode: str = "auto"
    faults: str | None = None
    world: Any = None  # a World to serve (sandbox); None = the default world
    catalog: Any = None
    _cache_obj: Any = field(default=None, repr=False)

    def _cache(self):
        if self.cache and self._cache_obj is None:
            from kopa_bench.client.cache import ReplayCache

            self._cache_obj = ReplayCache(self.cache, mode=self.cache_mode)  # type: ignore[arg-type]
        return self._cache_obj

    def agent_client(self, seed: int = 0):
        from kopa_bench.client import KopaClient
        from kopa_bench.sandbox.faults import FaultConfig

        faults = FaultConfig.parse(self.faults, seed=seed)
        if faults and self.backend != "sandbox":
            log.warning("--faults applies to the in-process sandbox only; start `kopa sandbox serve --faults` for %s",
                        redact(self.backend))
        return KopaClient(self.backend, world=self.world, catalog=self.catalog, cache=self._cache(), faults=faults)

    def gold_client(self):
        """A fault-free client of the same backend (faults test the agent, not the gold)."""
        from kopa_bench.client import KopaClient

        return KopaClient(self.backend, world=self.world, catalog=self.catalog, cache=self._cache())

    def close(self) -> None:
        if self._cache_obj is not None:
            self._cache_obj.close()
            self._cache_obj = None


async def _close_client(client: Any) -> None:
    # KopaClient.aclose also closes the cache, which the clients share: close only the HTTP side
    http = getattr(client, "_http", None)
    if http is not None:
        await http.aclose()
        client._http = None


def world_hash(spec: ClientSpec) -> str:
    if spec.backend == "live":
        return "live"
    try:
        if spec.backend == "sandbox":
            from kopa_bench.world.store import get_world

            return (spec.world or get_world()).content_hash
        import httpx

        return httpx.get(spec.backend.rstrip("/") + "/__kopa/health", timeout=5).json().get("world", "")
    except Exception as exc:  # the hash is informative; a broken world fails loudly elsewhere
        log.warning("could not read the world hash: %s", redact(str(exc)))
        return ""


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("kopa", "httpx", "pydantic", "duckdb", "evaluate", "transformers", "torch"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            pass
    try:
        from kopa_bench import __version__

        out.setdefault("kopa", __version__)
    except ImportError:
        pass
    return out


def tasks_hash(tasks: Iterable[Task]) -> str:
    blob = json.dumps([t.model_dump(mode="json") for t in tasks], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def load_run_tasks(run_dir: Path) -> list[Task]:
    path = Path(run_dir) / TASKS_JSON
    if not path.exists():
        raise RunDirError(f"{run_dir} has no {TASKS_JSON}; is it a `kopa bench run` directory?")
    return parse_tasks(json.loads(path.read_text(encoding="utf-8")), str(path))


def _merge_tasks(run_dir: Path, tasks: list[Task]) -> list[Task]:
    old = {t.id: t for t in load_run_tasks(run_dir)} if (run_dir / TASKS_JSON).exists() else {}
    for t in tasks:
        if t.id in old and old[t.id].model_dump() != t.model_dump():
            raise RunDirError(f"task {t.id} changed since {run_dir} was started; use a new --out directory")
        old[t.id] = t
    return sorted(old.values(), key=lambda t: t.id)


# ---- gold runs and scoring --------------------------------------------------------------------
class GoldCache:
    """Each task's gold program executed once (per cache), shared by concurrent episodes."""

    def __init__(self, client: Any, clock: Any = None, shared: Any = None):
        self.client, self.clock = client, clock
        # a scripted agent bound to this same client has run (or will run) the same gold program:
        # `shared(task)` returns its (run, facts), or None when it could not run it
        self.shared = shared
        self._runs: dict[str, tuple[GoldRun, list[ResolvedFact]] | Exception] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def get(self, task: Task) -> tuple[GoldRun, list[ResolvedFact]]:
        hit = self._runs.get(task.id)
        if hit is None:
            hit = await self._run_once(task)
        if isinstance(hit, Exception):
            raise hit
        return hit

    async def _run_once(self, task: Task) -> tuple[GoldRun, list[ResolvedFact]] | Exception:
        async with self._locks.setdefault(task.id, asyncio.Lock()):
            if task.id not in self._runs:
                try:
                    hit = await self.shared(task) if self.shared is not None else None
                    if hit is not None:
                        self._runs[task.id] = hit
                    else:
                        run = await execute_program(task, self.client, self.clock)
                        self._runs[task.id] = (run, compute_answer(task, run, self.clock))
                except Exception as exc:
                    self._runs[task.id] = exc
        return self._runs[task.id]


async def score_one(task: Task, ep: Episode, gold: GoldCache) -> EpisodeScore:
    run, facts = await gold.get(task)
    return score_episode(task, run, ep, facts, visible_records=ep.max_tool_records)


async def score_episodes(tasks: list[Task], episodes: list[Episode], gold: GoldCache) -> tuple[list[EpisodeScore], dict[str, str]]:
    """Scores for every episode whose task is known; plus task id -> gold failure message."""
    by_id = {t.id: t for t in tasks}
    scores, failures = [], {}
    with heap_frozen():  # the collector walks only what the batch allocates (scoring/heap.py)
        for ep in episodes:
            task = by_id.get(ep.task_id)
            if task is None:
                failures[ep.task_id] = "task not in this run's tasks.json"
                continue
            try:
                scores.append(await score_one(task, ep, gold))
            except Exception as exc:
                failures[ep.task_id] = f"gold program failed: {type(exc).__name__}: {exc}"
    return scores, failures


def score_run(run_dir: str | Path, *, world: Any = None, catalog: Any = None) -> tuple[list[EpisodeScore], dict[str, str], dict]:
    """Re-execute gold on the run's tool backend and score every finished episode.

    Returns (scores, gold failures by task id, run.json)."""
    run_dir = Path(run_dir)
    meta = json.loads((run_dir / RUN_JSON).read_text(encoding="utf-8")) if (run_dir / RUN_JSON).exists() else {}
    cfg = meta.get("config", {})
    tasks = load_run_tasks(run_dir)
    episodes = read_episodes(run_dir / EPISODES)
    cache = cfg.get("cache")
    spec = ClientSpec(cfg.get("client_backend", "sandbox"), cache=cache, cache_mode="replay" if cache else "auto",
                      world=world, catalog=catalog)

    async def go():
        client = spec.gold_client()
        try:
            return await score_episodes(tasks, episodes, GoldCache(client))
        finally:
            await _close_client(client)
            spec.close()

    scores, failures = asyncio.run(go())
    return scores, failures, meta


def _scripted_gold(backend: Any, gold_client: Any):
    """The gold runs of a scripted agent (oracle, first-call) bound to the scoring client: it
    executes exactly the program the scorer would (same client, same clock), so scoring reuses
    its run instead of executing every gold call a second time."""
    from kopa_bench.runner.scripted import ScriptedBackend

    if not isinstance(backend, ScriptedBackend) or backend._client is not gold_client:
        return None

    async def shared(task: Task) -> tuple[GoldRun, list[ResolvedFact]] | None:
        run, facts, error = await backend.gold(task)
        return None if run is None else (run, facts)  # None: the scorer runs it itself (and reports why it fails)

    return shared


def _expected_turns(task: Task) -> int:
    """Assistant turns a task takes when every call succeeds: one per gold group, plus the answer."""
    return len({s.group for s in task.program}) + 1


# ---- the runner ----------------------------------------------------------------------------------
@dataclass
class RunResult:
    out_dir: Path
    run: dict
    ran: int  # episodes run in this invocation
    skipped: int  # episodes already finished before
    scores: list[EpisodeScore]
    gold_failures: dict[str, str]
    elapsed_s: float

    @property
    def success_rate(self) -> float:
        return sum(s.success for s in self.scores) / len(self.scores) if self.scores else 0.0


async def run_benchmark_async(
    tasks: list[Task], backend_spec: str, out_dir: str | Path, *, seeds: int = 1, concurrency: int = 4,
    client_backend: str = "sandbox", cache: str | None = None, cache_mode: str = "auto", faults: str | None = None,
    max_steps: int = DEFAULT_MAX_STEPS, temperature: float | None = None, max_tool_records: int | None = DEFAULT_MAX_TOOL_RECORDS,
    max_tokens: int = 1024, backend: Any = None, world: Any = None, catalog: Any = None, progress: bool = False,
    on_episode: Callable[[Episode, EpisodeScore | None], None] | None = None, source: str = "", tool_lang: str = "both",
) -> RunResult:
    """Run every (task, seed) not yet in `out_dir/episodes.jsonl`; see the module docstring.

    `backend` may be a ready Backend (tests); otherwise `make_backend(backend_spec)` builds one.
    """
    if seeds < 1 or concurrency < 1:
        raise ValueError(f"seeds={seeds} and concurrency={concurrency} must both be at least 1")
    if not tasks:
        raise ValueError("no tasks to run; check --split / --tasks / --tasks-file / --limit")
    t_start = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(out / ".lock"))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise RunDirError(f"another process is running into {out}; wait for it or use another --out") from None
    try:
        return await _run(tasks, backend_spec, out, t_start, seeds=seeds, concurrency=concurrency, client_backend=client_backend,
                          cache=cache, cache_mode=cache_mode, faults=faults, max_steps=max_steps, temperature=temperature,
                          max_tool_records=max_tool_records, max_tokens=max_tokens, backend=backend, world=world,
                          catalog=catalog, progress=progress, on_episode=on_episode, source=source, tool_lang=tool_lang)
    finally:
        lock.release()


def _open_world_pool(clients: list[Any], concurrency: int, scripted: bool):
    """World worker processes (world/pool.py; `KOPA_WORLD_WORKERS`, default one per CPU beyond
    this one, at most 4) for concurrent episodes on the default in-process sandbox: each request
    is handed to a worker as it is sent, so the world's work (DuckDB, the generators, rendering)
    runs beside the episodes' own. Answers are the same bytes; None when it cannot help (one
    episode at a time, no worker, a sandbox with faults or its own keys or catalog, a server).
    By default only for scripted agents (oracle, first-call), whose runs are all CPU: a model's
    run waits on the model, and a starting worker only takes CPU from it (kopa perf's runner
    figure, a fake model with 100 ms latency: 0.82-0.85 N with a worker, 0.88-0.90 N without).
    Setting `KOPA_WORLD_WORKERS` asks for workers with any agent."""
    if concurrency < 2 or not (scripted or "KOPA_WORLD_WORKERS" in os.environ):
        return None
    from kopa_bench.client import KopaClient
    from kopa_bench.world.pool import WorldPool, default_workers

    eligible = [c for c in clients if isinstance(c, KopaClient) and c.default_sandbox()]
    workers = default_workers()
    if not eligible or not workers:
        return None
    pool = WorldPool(eligible[0].app.state.ctx.world, workers)
    if not any([c.use_world_pool(pool) for c in eligible]):
        pool.close()
        return None
    return pool


async def _run(tasks, backend_spec, out, t_start, *, seeds, concurrency, client_backend, cache, cache_mode, faults,
               max_steps, temperature, max_tool_records, max_tokens, backend, world, catalog, progress, on_episode, source,
               tool_lang="both"):
    temp = temperature if temperature is not None else (0.0 if seeds == 1 else SAMPLING_TEMPERATURE)
    spec = ClientSpec(client_backend, cache=cache, cache_mode=cache_mode, faults=faults, world=world, catalog=catalog)
    config = {"model": redact(backend_spec), "client_backend": redact(client_backend), "world_hash": world_hash(spec),
              "max_steps": max_steps, "temperature": temp, "max_tool_records": max_tool_records, "faults": faults,
              "seeds": seeds, "concurrency": concurrency, "cache": cache, "cache_mode": cache_mode,
              "max_tokens": max_tokens, "source": source, "tool_lang": tool_lang}
    old = json.loads((out / RUN_JSON).read_text(encoding="utf-8")) if (out / RUN_JSON).exists() else None
    if old is not None:
        diff = {k: (old["config"].get(k), config[k]) for k in _FIXED if old["config"].get(k) != config[k]}
        if diff:
            raise RunDirError(f"{out} was run with different settings {diff} (old, new); "
                              "resume with the same settings or use a new --out directory")
        config["seeds"] = max(seeds, old["config"].get("seeds", 1))
    all_tasks = _merge_tasks(out, tasks)
    _atomic_write(out / TASKS_JSON, json.dumps([t.model_dump(mode="json") for t in all_tasks], ensure_ascii=False, indent=1))
    run = {"kopa_run": 1, "config": config, "versions": versions(), "tasks_hash": tasks_hash(all_tasks),
           "n_tasks": len(all_tasks), "created": (old or {}).get("created") or datetime.now(timezone.utc).isoformat(),
           "updated": datetime.now(timezone.utc).isoformat(), "status": "running"}
    _atomic_write(out / RUN_JSON, json.dumps(run, ensure_ascii=False, indent=1))

    finished = read_episodes(out / EPISODES, repair=True)
    done = {(e.task_id, e.seed) for e in finished}
    todo = [(t, s) for s in range(seeds) for t in tasks if (t.id, s) not in done]
    if concurrency > 1:
        # Longest first: with N slots, a long episode started last leaves the other slots idle
        # at the end. A task's gold groups are a cheap estimate of the turns it takes.
        todo.sort(key=lambda ts: -_expected_turns(ts[0]))
    skipped = len(tasks) * seeds - len(todo)

    if backend is None:
        from kopa_bench.runner.backends import make_backend

        backend = make_backend(backend_spec)
    gold_client = spec.gold_client()
    if hasattr(backend, "bind"):  # scripted agents: their tasks and the client gold runs on
        backend.bind(all_tasks, gold_client)
    gold = GoldCache(gold_client, shared=_scripted_gold(backend, gold_client))
    agent_client = spec.agent_client()
    pool = _open_world_pool([gold_client, agent_client], concurrency, scripted=hasattr(backend, "bind"))
    writer = EpisodeWriter(out / EPISODES)
    sem = asyncio.Semaphore(concurrency)
    scores: list[EpisodeScore] = []
    failures: dict[str, str] = {}
    bar = _Progress(len(todo), backend_spec) if progress else None

    async def one(task: Task, seed: int) -> None:
        async with sem:
            try:
                ep = await run_episode(task, backend, agent_client, seed=seed, max_steps=max_steps, temperature=temp,
                                       max_tool_records=max_tool_records, max_tokens=max_tokens,
                                       model=redact(backend_spec), backend_label=redact(client_backend),
                                       tool_lang=tool_lang)
            except Exception as exc:  # a misconfigured task or backend: record it, keep the run going
                log.error("task %s seed %d failed: %s", task.id, seed, redact(str(exc)))
                ep = Episode(task_id=task.id, seed=seed, model=redact(backend_spec), backend=redact(client_backend),
                             stop_reason="error", errors=[redact(f"{type(exc).__name__}: {exc}")[:500]],
                             max_tool_records=max_tool_records)
            await writer.write(ep)
        score = None
        try:
            score = await score_one(task, ep, gold)
            scores.append(score)
        except Exception as exc:
            failures[task.id] = f"gold program failed: {type(exc).__name__}: {exc}"
        if bar:
            bar.advance(score)
        if on_episode:
            on_episode(ep, score)

    try:
        if bar:
            bar.start()
        await asyncio.gather(*(one(t, s) for t, s in todo))
        # episodes finished before this invocation are scored too, so the summary covers the run
        more, more_fail = await score_episodes(all_tasks, finished, gold)
        scores += more
        failures.update(more_fail)
    finally:
        if bar:
            bar.stop()
        writer.close()
        if pool is not None:
            pool.close(wait=False)
        await _close_client(agent_client)
        await _close_client(gold_client)
        spec.close()
        await backend.aclose()
    elapsed = time.perf_counter() - t_start
    run.update(status="finished", updated=datetime.now(timezone.utc).isoformat(),
               summary={"episodes": len(finished) + len(todo), "scored": len(scores),
                        "success_rate": sum(s.success for s in scores) / len(scores) if scores else None,
                        "gold_failures": failures, "last_invocation_s": round(elapsed, 3),
                        "world_workers": pool.workers if pool is not None else 0})
    _atomic_write(out / RUN_JSON, json.dumps(run, ensure_ascii=False, indent=1))
    return RunResult(out, run, len(todo), skipped, scores, failures, elapsed)


def run_benchmark(tasks: list[Task], backend_spec: str, out_dir: str | Path, **kw: Any) -> RunResult:
    """Synchronous `run_benchmark_async` (for the CLI and scripts)."""
    return asyncio.run(run_benchmark_async(tasks, backend_spec, out_dir, **kw))


class _Progress:
    """A rich progress bar with the live success rate (top layer only)."""

    def __init__(self, total: int, label: str):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self.p = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("success {task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn())
        self.t = self.p.add_task(redact(label)[:40], total=total, rate="-")
        self.n = self.ok = 0

    def start(self) -> None:
        self.p.start()

    def stop(self) -> None:
        self.p.stop()

    def advance(self, score: EpisodeScore | None) -> None:
        self.n += 1
        self.ok += bool(score and score.success)
        self.p.update(self.t, advance=1, rate=f"{self.ok / self.n:.1%} ({self.ok}/{self.n})")

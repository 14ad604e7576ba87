"""The benchmark runner: many (task, seed) episodes, concurrently, resumable, scored as they finish.

Resuming: a rerun reads episodes.jsonl, skips the (task_id, seed) pairs already there and runs
the rest (the files are described in kopa_bench/episodes/run_dir.py), including those an infra
error ended: the model server or the harness failed, so such an episode is never scored. Scoring
re-executes each task's gold program (once per task) on a fault-free client of the same tool backend.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from kopa_bench.catalog.registry import Catalog
from kopa_bench.client import KopaClient
from kopa_bench.client.redact import redact
from kopa_bench.episodes import (EPISODES, Completeness, Episode, EpisodeWriter, RunDirError, episode_run_completeness,
                                 latest_attempts, read_episodes)
from kopa_bench.episodes.run_dir import locked, merge_tasks, read_run_json, tasks_hash, versions, write_run_json
from kopa_bench.runner.agent import run_episode
from kopa_bench.runner.backends import Backend, make_backend
from kopa_bench.runner.gold_scoring import GoldCache, score_episodes, score_one
from kopa_bench.runner.run_config import RunConfig
from kopa_bench.runner.scripted import ScriptedBackend
from kopa_bench.runner.tool_clients import ClientSpec
from kopa_bench.scoring.episode_score import EpisodeScore
from kopa_bench.settings import get_settings
from kopa_bench.tasks.task_schema import Task
from kopa_bench.world.store import World

log = logging.getLogger(__name__)


@dataclass
class RunResult:
    out_dir: Path
    run: dict
    ran: int  # episodes run in this invocation
    skipped: int  # episodes already finished before
    scores: list[EpisodeScore]
    gold_failures: dict[str, str]
    elapsed_s: float
    completeness: Completeness

    @property
    def success_rate(self) -> float:
        return sum(s.success for s in self.scores) / len(self.scores) if self.scores else 0.0


class _ProgressBar:
    """The live progress bar of `kopa bench run`, with the success rate so far."""

    def __init__(self, total: int, label: str):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self.p = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("success {task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn())
        self.t = self.p.add_task(redact(label)[:40], total=total, rate="-")
        self.n = self.ok = 0

    def advance(self, score: EpisodeScore | None, *, infra: bool = False) -> None:
        if infra:  # not a model result: left out of the rate
            self.p.update(self.t, advance=1)
            return
        self.n += 1
        self.ok += bool(score and score.success)
        self.p.update(self.t, advance=1, rate=f"{self.ok / self.n:.1%} ({self.ok}/{self.n})")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def _expected_turns(task: Task) -> int:
    """Assistant turns a task takes when every call succeeds: one per gold group, plus the answer."""
    return len({s.group for s in task.program}) + 1


def _use_world_workers(clients: list[Any], concurrency: int, scripted: bool) -> int:
    """World worker processes (kopa_bench.speedups; the `KOPA_WORLD_WORKERS` setting) for
    concurrent episodes of a scripted agent on the default in-process sandbox, whose runs are all
    CPU; a model's run waits on the model, and a worker would only take CPU from it. Setting
    `KOPA_WORLD_WORKERS` asks for workers with any agent. Returns the number in use."""
    if concurrency < 2 or not (scripted or "KOPA_WORLD_WORKERS" in os.environ):
        return 0
    from kopa_bench.speedups import use_world_workers

    pool = use_world_workers([c for c in clients if isinstance(c, KopaClient)], get_settings().world_workers,
                             ordered=False)
    return pool.workers if pool is not None else 0


def _check_request(tasks: list[Task], config: RunConfig) -> None:
    """Refuse settings no run can honour, before anything is written."""
    if config.seeds < 1 or config.concurrency < 1:
        raise ValueError(f"seeds={config.seeds} and concurrency={config.concurrency} must both be at least 1")
    if not tasks:
        raise ValueError("no tasks to run; check --split / --tasks / --tasks-file / --limit")


def _open_run(out: Path, tasks: list[Task], config: RunConfig, world: World | None,
              catalog: Catalog | None) -> tuple[ClientSpec, RunConfig, dict, list[Task]]:
    """(the run's client spec, its config with the world hash, run.json as written, all its tasks);
    call it holding the folder's lock."""
    spec = ClientSpec(config.client_backend, cache=config.cache, cache_mode=config.cache_mode,
                      faults=config.faults, world=world, catalog=catalog)
    config = config.model_copy(update={"world_hash": spec.world_hash()})
    run, all_tasks = _start_run(out, tasks, config)
    return spec, config, run, all_tasks


def _start_run(out: Path, tasks: list[Task], config: RunConfig) -> tuple[dict, list[Task]]:
    """Check the settings against a run already in `out`, merge the tasks, write run.json (running)."""
    record = config.record()
    old = read_run_json(out)
    if old is not None:
        diff = config.resume_conflicts(old["config"])
        if diff:
            raise RunDirError(f"{out} was run with different settings {diff} (old, new); "
                              "resume with the same settings or use a new --out directory")
        record["seeds"] = max(config.seeds, old["config"].get("seeds", 1))
    all_tasks = merge_tasks(out, tasks)
    run = {"kopa_run": 1, "config": record, "versions": versions(), "tasks_hash": tasks_hash(all_tasks),
           "n_tasks": len(all_tasks), "created": (old or {}).get("created") or _now(), "updated": _now(),
           "status": "running"}
    write_run_json(out, run)
    return run, all_tasks


def _todo(out: Path, tasks: list[Task], config: RunConfig) -> tuple[list[Episode], list[tuple[Task, int]]]:
    """(episodes finished before, the (task, seed) pairs still to run, longest first); an
    episode an infra error ended is still to run."""
    finished = [e for e in latest_attempts(read_episodes(out / EPISODES, repair=True)) if not e.infra_error]
    done = {(e.task_id, e.seed) for e in finished}
    todo = [(t, s) for s in range(config.seeds) for t in tasks if (t.id, s) not in done]
    if config.concurrency > 1:
        # Longest first: with N slots, a long episode started last leaves the other slots idle
        # at the end. A task's gold groups are a cheap estimate of the turns it takes.
        todo.sort(key=lambda ts: -_expected_turns(ts[0]))
    return finished, todo


async def run_benchmark_async(
    tasks: list[Task], config: RunConfig, out_dir: str | Path, *, backend: Backend | None = None,
    world: World | None = None, catalog: Catalog | None = None, progress: bool = False,
    on_episode: Callable[[Episode, EpisodeScore | None], None] | None = None,
) -> RunResult:
    """Run every (task, seed) not yet in `out_dir/episodes.jsonl`; see the module docstring.

    `backend` may be a ready Backend (tests); otherwise `make_backend(config.model)` builds one.
    """
    if config.mode != "episodes":
        raise ValueError(f"mode={config.mode!r}: run_benchmark runs whole episodes; steps runs are "
                         "kopa_bench.runner.steps.run_steps")
    _check_request(tasks, config)
    t_start = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with locked(out):
        spec, config, run, all_tasks = _open_run(out, tasks, config, world, catalog)
        finished, todo = _todo(out, tasks, config)
        skipped = len(tasks) * config.seeds - len(todo)
        scores, failures, workers = await _run_episodes(all_tasks, finished, todo, config, spec, out,
                                                        backend or make_backend(config.model), progress, on_episode)
        elapsed = time.perf_counter() - t_start
        completeness = episode_run_completeness(out)
        run.update(status="finished" if completeness.complete else "incomplete", updated=_now(),
                   summary={"episodes": completeness.finished, "expected": completeness.expected,
                            "infra_errors": len(completeness.infra_errors), "scored": len(scores),
                            "success_rate": sum(s.success for s in scores) / len(scores) if scores else None,
                            "gold_failures": failures, "last_invocation_s": round(elapsed, 3),
                            "world_workers": workers})
        write_run_json(out, run)
        return RunResult(out, run, len(todo), skipped, scores, failures, elapsed, completeness)


async def _run_episodes(all_tasks: list[Task], finished: list[Episode], todo: list[tuple[Task, int]], config: RunConfig,
                        spec: ClientSpec, out: Path, backend: Backend, progress: bool,
                        on_episode: Callable[[Episode, EpisodeScore | None], None] | None,
                        ) -> tuple[list[EpisodeScore], dict[str, str], int]:
    """Run `todo`, writing and scoring each episode as it finishes, then score `finished` too
    (so the summary covers the run); returns (scores, gold failures, world workers used)."""
    model, tool_backend = redact(config.model), redact(config.client_backend)
    gold_client = spec.gold_client()
    scripted = isinstance(backend, ScriptedBackend)
    if scripted:  # scripted agents: their tasks and the client their gold runs on, then scored by those runs
        backend.bind(all_tasks, gold_client)
    gold = GoldCache(gold_client, shared=backend.shared_gold if scripted else None)
    agent_client = spec.agent_client()
    workers = _use_world_workers([gold_client, agent_client], config.concurrency, scripted=scripted)
    writer = EpisodeWriter(out / EPISODES)
    sem = asyncio.Semaphore(config.concurrency)
    scores: list[EpisodeScore] = []
    failures: dict[str, str] = {}
    bar = _ProgressBar(len(todo), config.model) if progress else None

    async def one(task: Task, seed: int) -> None:
        async with sem:
            try:
                ep = await run_episode(task, backend, agent_client, seed=seed, config=config, model=model,
                                       backend_label=tool_backend)
            except Exception as exc:  # the harness or backend crashed, not the model: keep the run going
                log.error("task %s seed %d failed: %s", task.id, seed, redact(str(exc)))
                ep = Episode(task_id=task.id, seed=seed, model=model, backend=tool_backend, stop_reason="infra_error",
                             errors=[redact(f"{type(exc).__name__}: {exc}")[:500]],
                             max_tool_records=config.max_tool_records)
            await writer.write(ep)
        score = None
        if ep.infra_error:  # says nothing about the model: not scored, run again by a rerun
            log.warning("task %s seed %d: infra error, not scored (%s)", task.id, seed, ep.errors[-1][:200] if ep.errors else "")
            if bar:
                bar.advance(None, infra=True)
            if on_episode:
                on_episode(ep, None)
            return
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
            bar.p.start()
        await asyncio.gather(*(one(t, s) for t, s in todo))
        more, more_fail = await score_episodes(all_tasks, finished, gold)
        scores += more
        failures.update(more_fail)
    finally:
        if bar:
            bar.p.stop()
        writer.close()
        await agent_client.aclose()
        await gold_client.aclose()
        spec.close()
        await backend.aclose()
    return scores, failures, workers


def run_benchmark(tasks: list[Task], config: RunConfig, out_dir: str | Path, **kw: Any) -> RunResult:
    """Synchronous `run_benchmark_async` (for the CLI and scripts)."""
    return asyncio.run(run_benchmark_async(tasks, config, out_dir, **kw))

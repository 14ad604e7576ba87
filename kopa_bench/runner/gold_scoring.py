"""Scoring a run's episodes: each task's gold program executed once, on a fault-free client of
the run's own tool backend, then every episode scored against it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from kopa_bench.catalog.registry import Catalog
from kopa_bench.episodes import EPISODES, Episode, RunDirError, latest_attempts, scan_records
from kopa_bench.episodes.run_dir import load_run_tasks, read_run_json
from kopa_bench.runner.run_config import RunConfig
from kopa_bench.runner.tool_clients import ClientSpec
from kopa_bench.scoring.episode_score import EpisodeScore, score_episode
from kopa_bench.tasks.facts import ResolvedFact, compute_answer
from kopa_bench.tasks.task_schema import Task
from kopa_bench.tasks.program import GoldRun, ToolExecutor, execute_program
from kopa_bench.world.store import World

Gold = tuple[GoldRun, list[ResolvedFact]]


class GoldCache:
    """Each task's gold program executed once (per cache), shared by concurrent episodes."""

    def __init__(self, client: ToolExecutor, clock: Any = None,
                 shared: Callable[[Task], Awaitable[Gold | None]] | None = None):
        self.client, self.clock = client, clock
        # a scripted agent bound to this same client has run (or will run) the same gold program:
        # `shared(task)` returns its (run, facts), or None when it could not run it
        self.shared = shared
        self._runs: dict[str, Gold | Exception] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def get(self, task: Task) -> Gold:
        hit = self._runs.get(task.id)
        if hit is None:
            hit = await self._run_once(task)
        if isinstance(hit, Exception):
            raise hit
        return hit

    async def _run_once(self, task: Task) -> Gold | Exception:
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
    """Scores for every episode whose task is known; plus task id -> gold failure message.
    Episodes an infra error ended are not scored: they say nothing about the model."""
    by_id = {t.id: t for t in tasks}
    scores, failures = [], {}
    for ep in episodes:
        if ep.infra_error:
            continue
        task = by_id.get(ep.task_id)
        if task is None:
            failures[ep.task_id] = "task not in this run's tasks.json"
            continue
        try:
            scores.append(await score_one(task, ep, gold))
        except Exception as exc:
            failures[ep.task_id] = f"gold program failed: {type(exc).__name__}: {exc}"
    return scores, failures


def score_run(run_dir: str | Path, *, world: World | None = None,
              catalog: Catalog | None = None) -> tuple[list[EpisodeScore], dict[str, str], dict]:
    """Re-execute gold on the run's tool backend and score every finished episode (torn lines
    and infra errors are skipped; `episode_run_completeness` says what the run lacks).

    Returns (scores, gold failures by task id, run.json)."""
    run_dir = Path(run_dir)
    meta = read_run_json(run_dir) or {}
    config = RunConfig.from_record(meta.get("config", {}))
    if config.mode != "episodes":
        raise RunDirError(f"{run_dir} is a {config.mode} run; score it with kopa_bench.runner.steps.score_steps_run "
                          "(`kopa bench score` picks the right one)")
    tasks = load_run_tasks(run_dir)
    episodes = [e for e in latest_attempts(scan_records(run_dir / EPISODES).records) if not e.infra_error]
    spec = ClientSpec(config.client_backend, cache=config.cache, cache_mode="replay" if config.cache else "auto",
                      world=world, catalog=catalog)

    async def go():
        client = spec.gold_client()
        try:
            return await score_episodes(tasks, episodes, GoldCache(client))
        finally:
            await client.aclose()
            spec.close()

    scores, failures = asyncio.run(go())
    return scores, failures, meta

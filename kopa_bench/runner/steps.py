"""Step-level runs (`kopa bench run --mode steps`): one generation per gold step position.

For position k of a task, `run_episode` itself runs the conversation: its first k assistant
turns are the gold's call groups (GoldPrefix, the oracle's own calls and call ids), their tool
results the gold run's real results (GoldResults), then the model generates turn k and the run
stops there (max_steps = k + 1). The model therefore sees exactly what the full-episode runner
would have shown it after those calls: the same system prompt, offered tools, record cap and
message rendering. After the last call group, turn k is the final answer.

The run directory is a full run's (run.json with config.mode "steps", tasks.json,
episodes.jsonl); each line is a StepEpisode keyed (task id, seed, position), appended and
fsync'd as it finishes, so a rerun after a kill resumes with the positions not yet there.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kopa_bench.catalog.registry import Catalog
from kopa_bench.client.redact import redact
from kopa_bench.client.result import ToolResult
from kopa_bench.episodes import (EPISODES, Completeness, EpisodeWriter, RunDirError, StepEpisode, check_completeness,
                                 latest_attempts, read_episodes, scan_records)
from kopa_bench.episodes.run_dir import load_run_tasks, locked, read_run_json, write_run_json
from kopa_bench.runner.agent import AgentToolClient, run_episode
from kopa_bench.runner.backends import Backend, make_backend
from kopa_bench.runner.backends.contract import AssistantTurn, turn_index
from kopa_bench.runner.benchmark import _check_request, _now, _open_run, _ProgressBar, _use_world_workers
from kopa_bench.runner.gold_scoring import Gold, GoldCache
from kopa_bench.runner.run_config import DEFAULT_MAX_TOKENS, RunConfig
from kopa_bench.runner.scripted import ScriptedBackend
from kopa_bench.runner.tool_clients import ClientSpec
from kopa_bench.scoring.steps import StepScore, call_positions, score_step
from kopa_bench.tasks.program import GoldRun, StepRun
from kopa_bench.tasks.task_schema import Task
from kopa_bench.world.store import World

log = logging.getLogger(__name__)


class GoldPrefix(Backend):
    """The first len(groups) assistant turns are the gold's call groups, written as the oracle
    writes them; later turns are `model`'s."""

    def __init__(self, model: Backend, groups: list[list[StepRun]]):
        self.model, self.groups = model, groups
        self.model_name = model.model_name

    async def generate(self, messages, tools, *, temperature=0.0, seed=None, max_tokens=DEFAULT_MAX_TOKENS) -> AssistantTurn:
        turn = turn_index(messages)
        if turn < len(self.groups):
            return AssistantTurn(content="", tool_calls=ScriptedBackend.calls_for(self.groups[turn], turn))
        return await self.model.generate(messages, tools, temperature=temperature, seed=seed, max_tokens=max_tokens)


def _call_key(tool: str, arguments: dict[str, Any] | None) -> str:
    return tool + json.dumps(arguments or {}, ensure_ascii=False, sort_keys=True, default=str)


class GoldResults:
    """A client answering the gold prefix's calls with the gold run's own results (so faults
    injected into the agent's client never hit the given calls); every other call goes to `client`."""

    def __init__(self, client: AgentToolClient, steps: list[StepRun]):
        self.client = client
        self._given: dict[str, list[ToolResult]] = {}
        for s in steps:
            if s.result is not None:
                self._given.setdefault(_call_key(s.tool, s.args), []).append(s.result)

    @property
    def backend(self) -> str:
        return self.client.backend

    @property
    def catalog(self) -> Catalog | None:
        return self.client.catalog

    @property
    def world(self) -> World | None:
        return self.client.world

    async def call(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        given = self._given.get(_call_key(tool, arguments))
        if given:
            return given.pop(0)
        return await self.client.call(tool, arguments)


async def run_step(task: Task, position: int, gold: Gold, backend: Backend, client: AgentToolClient, *,
                   seed: int = 0, config: RunConfig | None = None, model: str | None = None,
                   backend_label: str | None = None) -> StepEpisode:
    """The model's turn at `position` of `task`, after the gold's calls before it (module docstring)."""
    config = config or RunConfig()
    groups = call_positions(gold[0])
    if not 0 <= position <= len(groups):
        raise ValueError(f"{task.id} has positions 0..{len(groups)} (the last is the answer), not {position}")
    prefix = groups[:position]
    given = [s for g in prefix for s in g]
    ep = await run_episode(task, GoldPrefix(backend, prefix), GoldResults(client, given), seed=seed,
                           config=config.model_copy(update={"max_steps": position + 1}),
                           model=model or backend.model_name or type(backend).__name__, backend_label=backend_label)
    return StepEpisode(**{k: getattr(ep, k) for k in type(ep).model_fields}, position=position,
                       positions=len(groups) + 1, given_calls=len(given),
                       gold_steps=[s.step_id for s in groups[position]] if position < len(groups) else [])


class _StepBar(_ProgressBar):
    """The progress bar with the step accuracy so far."""

    def advance(self, score: StepScore | None) -> None:  # type: ignore[override]
        self.n += 1
        self.ok += bool(score and score.correct)
        self.p.update(self.t, advance=1, rate=f"{self.ok / self.n:.1%} ({self.ok}/{self.n})")


def position_keys(task_id: str, gold: GoldRun, seed: int = 0) -> list[tuple[str, int, int]]:
    """The record keys (StepEpisode.key) a steps run makes for one task and seed: one per call
    position of its gold run, and one for the answer."""
    return [(task_id, seed, k) for k in range(len(call_positions(gold)) + 1)]


@dataclass
class StepRunResult:
    out_dir: Path
    run: dict
    ran: int  # step generations run in this invocation
    skipped: int  # generations already finished before
    scores: list[StepScore]
    gold_failures: dict[str, str]
    elapsed_s: float

    @property
    def step_accuracy(self) -> float | None:
        return sum(s.correct for s in self.scores) / len(self.scores) if self.scores else None


def read_step_records(run_dir: Path, *, repair: bool = False) -> list[StepEpisode]:
    return read_episodes(Path(run_dir) / EPISODES, repair=repair, model=StepEpisode)


async def _golds(tasks: list[Task], gold: GoldCache) -> tuple[dict[str, Gold], dict[str, str]]:
    async def one(t: Task) -> tuple[str, Gold | Exception]:
        try:
            return t.id, await gold.get(t)
        except Exception as exc:  # a task whose gold fails has no positions; reported, not run
            return t.id, exc

    got = dict(await asyncio.gather(*(one(t) for t in tasks)))
    failures = {tid: f"gold program failed: {type(g).__name__}: {g}" for tid, g in got.items() if isinstance(g, Exception)}
    return {tid: g for tid, g in got.items() if not isinstance(g, Exception)}, failures


def _scores(tasks: list[Task], records: list[StepEpisode], golds: dict[str, Gold],
            failures: dict[str, str]) -> list[StepScore]:
    by_id = {t.id: t for t in tasks}
    out = []
    for r in records:
        task = by_id.get(r.task_id)
        if task is None:
            failures[r.task_id] = "task not in this run's tasks.json"
        elif r.task_id in golds:
            try:
                out.append(score_step(task, golds[r.task_id][0], r, golds[r.task_id][1]))
            except ValueError as exc:
                failures[r.task_id] = str(exc)
    return out


async def run_steps_async(
    tasks: list[Task], config: RunConfig, out_dir: str | Path, *, backend: Backend | None = None,
    world: World | None = None, catalog: Catalog | None = None, progress: bool = False,
    on_step: Callable[[StepEpisode, StepScore | None], None] | None = None,
) -> StepRunResult:
    """Run every (task, seed, position) not yet in `out_dir/episodes.jsonl`; see the module docstring."""
    if config.mode != "steps":
        raise ValueError(f"run_steps needs mode='steps', got {config.mode!r}")
    _check_request(tasks, config)
    t_start = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with locked(out):
        spec, config, run, all_tasks = _open_run(out, tasks, config, world, catalog)
        # an infra error is the harness's or the model server's, not the model's: rerun it, score only the rest
        finished = [r for r in latest_attempts(read_step_records(out, repair=True), key=lambda r: r.key)
                    if not r.infra_error]
        ran, total, scores, failures, workers = await _run_steps(
            tasks, all_tasks, finished, config, spec, out, backend or make_backend(config.model), progress, on_step)
        elapsed = time.perf_counter() - t_start
        run.update(status="finished", updated=_now(),
                   summary={"steps": len(finished) + ran, "scored": len(scores),
                            "step_accuracy": sum(s.correct for s in scores) / len(scores) if scores else None,
                            "gold_failures": failures, "last_invocation_s": round(elapsed, 3),
                            "world_workers": workers})
        write_run_json(out, run)
        return StepRunResult(out, run, ran, total - ran, scores, failures, elapsed)


async def _run_steps(tasks: list[Task], all_tasks: list[Task], finished: list[StepEpisode], config: RunConfig,
                     spec: ClientSpec, out: Path, backend: Backend, progress: bool,
                     on_step: Callable[[StepEpisode, StepScore | None], None] | None,
                     ) -> tuple[int, int, list[StepScore], dict[str, str], int]:
    """Run the missing positions of `tasks`, writing and scoring each record as it finishes, then
    score `finished` too; returns (run now, positions selected in all, scores, gold failures, workers)."""
    model, tool_backend = redact(config.model), redact(config.client_backend)
    gold_client = spec.gold_client()
    scripted = isinstance(backend, ScriptedBackend)
    if scripted:
        backend.bind(all_tasks, gold_client)
    gold = GoldCache(gold_client, shared=backend.shared_gold if scripted else None)
    agent_client = spec.agent_client()
    workers = _use_world_workers([gold_client, agent_client], config.concurrency, scripted=scripted)
    writer = EpisodeWriter(out / EPISODES)
    sem = asyncio.Semaphore(config.concurrency)
    scores: list[StepScore] = []
    bar = None
    try:
        golds, failures = await _golds(all_tasks, gold)
        done = {r.key for r in finished}
        selected = [(t, s, k) for s in range(config.seeds) for t in tasks if t.id in golds
                    for _, _, k in position_keys(t.id, golds[t.id][0], s)]
        todo = [(t, s, k) for t, s, k in selected if (t.id, s, k) not in done]
        bar = _StepBar(len(todo), config.model + " steps") if progress else None

        async def one(task: Task, seed: int, position: int) -> None:
            async with sem:
                try:
                    rec = await run_step(task, position, golds[task.id], backend, agent_client, seed=seed,
                                         config=config, model=model, backend_label=tool_backend)
                except Exception as exc:  # a misconfigured task or backend: record it, keep the run going
                    log.error("task %s seed %d position %d failed: %s", task.id, seed, position, redact(str(exc)))
                    groups = call_positions(golds[task.id][0])
                    rec = StepEpisode(task_id=task.id, seed=seed, model=model, backend=tool_backend, stop_reason="error",
                                      errors=[redact(f"{type(exc).__name__}: {exc}")[:500]], position=position,
                                      positions=len(groups) + 1, max_tool_records=config.max_tool_records)
                await writer.write(rec)
            score = None
            if rec.infra_error:
                if bar:
                    bar.advance(None)
                return
            try:
                score = score_step(task, golds[task.id][0], rec, golds[task.id][1])
                scores.append(score)
            except Exception as exc:
                failures[task.id] = f"step scoring failed: {type(exc).__name__}: {exc}"
            if bar:
                bar.advance(score)
            if on_step:
                on_step(rec, score)

        if bar:
            bar.p.start()
        await asyncio.gather(*(one(t, s, k) for t, s, k in todo))
        scores += _scores(all_tasks, finished, golds, failures)
    finally:
        if bar:
            bar.p.stop()
        writer.close()
        await agent_client.aclose()
        await gold_client.aclose()
        spec.close()
        await backend.aclose()
    return len(todo), len(selected), scores, failures, workers


def run_steps(tasks: list[Task], config: RunConfig, out_dir: str | Path, **kw: Any) -> StepRunResult:
    """Synchronous `run_steps_async` (for the CLI and scripts)."""
    return asyncio.run(run_steps_async(tasks, config, out_dir, **kw))


def steps_run_completeness(run_dir: str | Path) -> Completeness:
    """A steps run folder: every position of every task and seed. A (task, seed) with no record
    yet counts as one missing id (its positions are known only from its gold run)."""
    run_dir = Path(run_dir)
    seeds = int(((read_run_json(run_dir) or {}).get("config") or {}).get("seeds", 1) or 1)
    scan = scan_records(run_dir / EPISODES, model=StepEpisode)
    attempts = latest_attempts(scan.records, key=lambda r: r.key)
    positions = {(r.task_id, r.seed): r.positions for r in attempts}
    key = lambda tid, seed, k: f"{tid} seed {seed} position {k}"  # noqa: E731
    expected = [key(t.id, s, k) if (t.id, s) in positions else f"{t.id} seed {s} (no step yet)"
                for t in load_run_tasks(run_dir) for s in range(seeds) for k in range(positions.get((t.id, s), 1))]
    return check_completeness(
        expected, [key(r.task_id, r.seed, r.position) for r in attempts if not r.infra_error],
        infra_errors={key(r.task_id, r.seed, r.position): redact(r.errors[-1] if r.errors else "")
                      for r in attempts if r.infra_error},
        torn_lines=scan.torn_lines, unit="steps", source=str(run_dir / EPISODES))


def run_mode(run_dir: str | Path) -> str:
    """'episodes' or 'steps': how the run in `run_dir` was made."""
    meta = read_run_json(Path(run_dir)) or {}
    return meta.get("config", {}).get("mode", "episodes")


def score_steps_run(run_dir: str | Path, *, world: World | None = None,
                    catalog: Catalog | None = None) -> tuple[list[StepScore], dict[str, str], dict]:
    """Re-execute gold on the run's tool backend and score every finished step record.

    Returns (scores, gold failures by task id, run.json)."""
    run_dir = Path(run_dir)
    meta = read_run_json(run_dir) or {}
    if run_mode(run_dir) != "steps":
        raise RunDirError(f"{run_dir} is not a steps run (config.mode is {run_mode(run_dir)!r}); score it as episodes")
    config = RunConfig.from_record(meta.get("config", {}))
    tasks = load_run_tasks(run_dir)
    records = [r for r in latest_attempts(read_step_records(run_dir), key=lambda r: r.key) if not r.infra_error]
    spec = ClientSpec(config.client_backend, cache=config.cache, cache_mode="replay" if config.cache else "auto",
                      world=world, catalog=catalog)
    wanted = {r.task_id for r in records}

    async def go():
        client = spec.gold_client()
        try:
            return await _golds([t for t in tasks if t.id in wanted], GoldCache(client))
        finally:
            await client.aclose()
            spec.close()

    golds, failures = asyncio.run(go())
    return _scores(tasks, records, golds, failures), failures, meta

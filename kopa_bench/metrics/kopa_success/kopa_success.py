"""KOPA-Bench success: `evaluate` wrapper over kopa_bench.scoring (see README.md).

predictions: episode JSON strings (lines of a run's episodes.jsonl); the lines of a steps run
             (`kopa bench run --mode steps`, records with a `position`) are scored as steps and
             summarised as `kopa bench score --json` does for such a run (`step_accuracy`, ...)
references:  rows of the kopa-bench `tasks` config exactly as `datasets.load_dataset` returns them,
             or JSON strings: {"task": <task or row>, "gold": <GoldRun>} (gold optional), a bare task
             or a row. Without `gold` the gold program is re-executed on the in-process sandbox.
"""

import asyncio
import json
import logging

import datasets
import evaluate

from kopa_bench.episodes import Episode, StepEpisode
from kopa_bench.scoring.episode_score import score_episode
from kopa_bench.scoring.report import summarize_scores
from kopa_bench.scoring.steps import score_step, summarize_step_scores
from kopa_bench.tasks.dataset_row import ROW_SCHEMA, row_to_task
from kopa_bench.tasks.facts import compute_answer
from kopa_bench.tasks.task_schema import Task
from kopa_bench.tasks.program import GoldRun, execute_program

log = logging.getLogger(__name__)

_DESCRIPTION = "KOPA-Bench success: every fact of the answer stated and grounded in a tool result the agent received; plus pass@k, pass^k and per-axis means."
_KWARGS = """
Args:
    predictions: list of Episode JSON strings.
    references: list of kopa-bench `tasks` rows as `load_dataset` returns them (dicts), or of JSON
        strings: {"task": {...}, "gold": {...}}, a task object or a row.
    n_boot: bootstrap resamples for CIs (default 1000).
Returns:
    the same object as `kopa bench score --json`: success_rate, pass_at_k, pass_hat_k, response,
    grounded, action_precision, action_recall, data_flow, state, efficiency, breakdowns, ...;
    for the records of a steps run: step_accuracy (+ CI), call_step_accuracy, answer_accuracy,
    failures and breakdowns by position, shape, domain, platform and error kind.
"""
_CITATION = "KOPA-Bench (2026)."


def _row_features() -> dict:
    """The `tasks` row as `evaluate` features. evaluate refuses None for a `string` Value, and
    held_out_platform is null on most rows: `large_string` holds the same text and lets null through."""
    features = datasets.Features.from_arrow_schema(ROW_SCHEMA)
    return {name: (datasets.Value("large_string") if name == "held_out_platform" else feature)
            for name, feature in features.items()}


def _task(obj: dict) -> Task:
    """A Task from a dataset row (program/answer as JSON strings, facts with `expected`) or a task object."""
    if isinstance(obj.get("program"), str) or "dataset_version" in obj:
        return row_to_task(obj)
    return Task.model_validate(obj)


class KopaSuccess(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION, citation=_CITATION, inputs_description=_KWARGS,
            features=[datasets.Features({"predictions": datasets.Value("string"), "references": datasets.Value("string")}),
                      datasets.Features({"predictions": datasets.Value("string"), "references": _row_features()})],
        )

    def _compute(self, predictions, references, n_boot=1000):
        gold_cache = {}
        scores = []
        kinds = {"position" in json.loads(p) for p in predictions}
        if len(kinds) > 1:
            raise ValueError("predictions mix episodes and step records (lines with a `position`); "
                             "score a full run and a steps run separately")
        steps = kinds == {True}
        for pred, ref in zip(predictions, references):
            obj = json.loads(ref) if isinstance(ref, str) else ref
            task = _task(obj["task"] if "task" in obj else obj)
            if task.id not in gold_cache:
                gold = obj.get("gold") if "task" in obj else None
                gold = GoldRun.model_validate(gold) if gold else _execute_gold(task, _world_hash(obj))
                gold_cache[task.id] = (gold, compute_answer(task, gold))
            gold, facts = gold_cache[task.id]
            if steps:
                scores.append(score_step(task, gold, StepEpisode.model_validate_json(pred), facts))
            else:
                ep = Episode.model_validate_json(pred)
                scores.append(score_episode(task, gold, ep, facts, visible_records=ep.max_tool_records))
        return summarize_step_scores(scores, n_boot=n_boot) if steps else summarize_scores(scores, n_boot=n_boot)


def _world_hash(obj: dict) -> str | None:
    row = obj.get("task") if "task" in obj else obj
    return row.get("world_hash") if isinstance(row, dict) else None


def _execute_gold(task, world_hash=None):
    from kopa_bench.client import KopaClient

    async def go():
        client = KopaClient("sandbox")
        try:
            here = client.world.content_hash
            if world_hash and here != world_hash:
                log.warning("task %s: the dataset row was built on world %s, this sandbox's world is %s; its gold is "
                            "re-executed here, so the scores follow this world, not the row's `expected` values",
                            task.id, world_hash[:12], here[:12])
            return await execute_program(task, client)
        finally:
            await client.aclose()

    return asyncio.run(go())

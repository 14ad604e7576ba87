"""The scorer's mutation audit: real errors in an oracle trajectory lower the axis they break, harmless variants change nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kopa_bench.runner.scripted import answer_text
from kopa_bench.scoring.audit import KINDS, audit_task, mutants, oracle_calls, summarise
from kopa_bench.tasks.facts import compute_answer
from kopa_bench.tasks.program import execute_program_sync
from kopa_bench.tasks.task_schema import Task
from kopa_bench.testing.fake_client import FakeClient

GOLDEN = Path(__file__).parent / "data" / "scorer_golden"


def _gold(name: str):
    case = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    task = Task.model_validate(case["task"])
    gold = execute_program_sync(task, FakeClient(case["world"]), clock=case["clock"])
    return task, gold, compute_answer(task, gold)


@pytest.mark.parametrize("name", ["air_correct", "apt_parallel_swapped", "i21_f7_swapped_sources",
                                  "i21_f8_list_of_references", "i21_f9_nested_transform", "i21_f5_bfcl_punctuation"])
def test_every_mutant_is_judged_right(name: str) -> None:
    task, gold, facts = _gold(name)
    base, results = audit_task(task, gold, facts, answer_text)
    assert base["success"] is True and base["action_recall"] == base["action_precision"] == 1.0
    assert results, "no mutants"
    wrong = [r for r in results if not r.caught]
    assert not wrong, [(r.kind, r.where, r.changed) for r in wrong]


def test_mutant_kinds_cover_the_issue() -> None:
    task, gold, _ = _gold("i21_f8_list_of_references")
    kinds = {m.kind for m in mutants(task, gold)}
    # counts have no other record to swap in, so no swapped_source here (air_correct has one)
    assert {"wrong_value", "extra_argument", "type_change", "dropped_call", "extra_call", "reordered_parallel",
            "text_punctuation"} <= kinds
    task, gold, _ = _gold("i21_f5_bfcl_punctuation")  # 'Washington state': free text with a space and case
    assert {"text_case", "text_space", "text_punctuation"} <= {m.kind for m in mutants(task, gold)}
    task, gold, _ = _gold("air_correct")
    assert "swapped_source" in {m.kind for m in mutants(task, gold)}


def test_oracle_calls_are_the_gold_calls_one_turn_per_group() -> None:
    task, gold, _ = _gold("i21_f8_list_of_references")
    calls = oracle_calls(gold)
    assert [c.tool for c in calls] == [r.tool for r in gold.executed]
    assert [c.turn for c in calls] == [0, 0, 0, 1]


def test_summary_rates() -> None:
    task, gold, facts = _gold("i21_f7_swapped_sources")
    _, results = audit_task(task, gold, facts, answer_text)
    rep = summarise(results, 1, 0.1, 0.1, [], {})
    assert rep.real_error_kill_rate == 1.0 and rep.harmless_change_rate == 0.0
    assert [r.kind for r in rep.kinds] == list(KINDS) and sum(r.n for r in rep.kinds) == len(results)


@pytest.mark.slow
def test_audit_of_every_test_and_dev_task() -> None:
    from kopa_bench.client import KopaClient
    from kopa_bench.scoring.audit import audit_tasks_sync
    from kopa_bench.tasks.task_schema import load_tasks

    tasks = load_tasks("test") + load_tasks("dev")
    rep = audit_tasks_sync(tasks, KopaClient("sandbox"), answer_text)
    assert rep.n_tasks == len(tasks) == 177 and not rep.gold_errors and not rep.oracle_not_perfect
    assert rep.real_error_kill_rate == 1.0 and rep.harmless_change_rate == 0.0, rep.failures[:10]
    assert rep.cpu_seconds < 60

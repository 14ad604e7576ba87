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
                                  "i21_f8_list_of_references", "i21_f9_nested_transform", "i21_f5_bfcl_punctuation",
                                  "format_each_pick_flows_on", "format_pages_every_page", "format_picks_wrong_pick_flows"])
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
            "text_punctuation", "echoed_results"} <= kinds
    task, gold, _ = _gold("i21_f5_bfcl_punctuation")  # 'Washington state': free text with a space and case
    assert {"text_case", "text_space", "text_punctuation"} <= {m.kind for m in mutants(task, gold)}
    task, gold, _ = _gold("air_correct")
    assert "swapped_source" in {m.kind for m in mutants(task, gold)}


def test_format_2_constructs_are_mutated() -> None:
    """for_each expansions, pages and named picks get the real errors and the harmless variants too."""
    task, gold, _ = _gold("format_each_pick_flows_on")
    each = {m.kind for m in mutants(task, gold) if m.format2}
    assert {"wrong_value", "type_change", "extra_argument", "dropped_call", "reordered_parallel", "swapped_source"} <= each
    swapped = [m.where for m in mutants(task, gold) if m.kind == "swapped_source" and "[" in m.where.split(".")[0]]
    assert swapped, "no expansion read another record than its element's"
    task, gold, _ = _gold("format_pages_every_page")
    pages = {m.kind for m in mutants(task, gold) if m.format2}
    assert {"wrong_value", "dropped_call", "paging", "merged_pages"} <= pages
    merged = next(m for m in mutants(task, gold) if m.kind == "merged_pages")
    assert len(merged.calls) == len(oracle_calls(gold)) - len(gold.step("s1").expansions) + 1
    task, gold, _ = _gold("format_picks_wrong_pick_flows")
    assert any(m.kind == "swapped_source" and ".picks." in m.where for m in mutants(task, gold))


def test_merged_pages_changes_only_efficiency() -> None:
    task, gold, facts = _gold("format_pages_every_page")
    _, results = audit_task(task, gold, facts, answer_text)
    merged = next(r for r in results if r.kind == "merged_pages")
    assert merged.caught and merged.changed == ["efficiency"]


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
    assert rep.n_tasks == len(tasks) and not rep.gold_errors and not rep.oracle_not_perfect
    assert rep.real_error_kill_rate == 1.0 and rep.harmless_change_rate == 0.0, rep.failures[:10]
    assert rep.cpu_seconds < 60
    rows = {r.kind: r for r in rep.kinds}
    # the format 2.0 tasks (for_each, pages, named picks) are mutated by every kind that applies to them
    assert all(rows[k].n_format2 > 0 for k in ("wrong_value", "type_change", "extra_argument", "dropped_call",
                                               "swapped_source", "reordered_parallel", "paging", "merged_pages"))

"""The kopa-bench dataset folder: deterministic build, load_dataset round-trip, expected values that
stand alone, a card that documents every key, publish plan."""

import json
import re

import pytest

from builders.kopa_bench_dataset import build
from builders.publish import plan_operations, publish
from kopa_bench.tasks import load_tasks
from kopa_bench.tasks.dataset_row import expected_facts, row_to_task


@pytest.fixture(scope="module")
def built(tmp_path_factory, world):
    a = tmp_path_factory.mktemp("a")
    b = tmp_path_factory.mktemp("b")
    return build(a, world=world), build(b, world=world), a


def _rows(folder, split):
    from datasets import load_dataset

    # a private cache: the shared HF cache may hold an older build of a same-named folder
    return load_dataset(str(folder), "tasks", split=split, cache_dir=str(folder / ".hf_cache"))


def test_build_is_deterministic(built):
    info_a, info_b, _ = built
    assert info_a["hash"] == info_b["hash"]
    assert info_a["files"] == info_b["files"]


def test_load_dataset_round_trips_every_field(built):
    from datasets import load_dataset

    _, _, folder = built
    for split in ("test", "dev"):
        expected = {t.id: t for t in load_tasks(split)}
        ds = _rows(folder, split)
        assert len(ds) == len(expected)
        for row in ds:
            task = row_to_task(row)
            assert task.model_dump(mode="json") == expected[task.id].model_dump(mode="json")
            assert row["dataset_version"] == info_version(folder)
    tools = load_dataset(str(folder), "tools", split="catalog", cache_dir=str(folder / ".hf_cache"))
    assert len(tools) >= 1 and json.loads(tools[0]["schema"])["type"] == "function"


def info_version(folder):
    return json.loads((folder / "build_info.json").read_text())["version"]


def test_card_declares_configs_and_licence(built):
    _, _, folder = built
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and "config_name: tasks" in card and "config_name: tools" in card
    assert "KOGL" in card and "{{" not in card
    assert (folder / "CHANGELOG.md").exists()


def test_every_fact_carries_its_gold_value_from_the_recorded_world(built, world, client):
    """`expected` is what the gold program gives in the world whose hash the rows record, re-executed here."""
    from kopa_bench.tasks import compute_answer, execute_program_sync

    info, _, folder = built
    assert info["world"]["content_hash"] == world.content_hash
    assert info["world"]["clock"] == world.clock.now().isoformat() and info["world"]["seed"]
    for split in ("test", "dev"):
        rows = _rows(folder, split)
        assert set(rows["world_hash"]) == {world.content_hash}
        for row in rows:
            facts = json.loads(row["answer"])
            assert all("expected" in f and "value" in f for f in facts), row["id"]  # the reference stays beside it
            assert [f.value for f in expected_facts(row)] == [f["expected"] for f in facts]
    # re-executing the gold of a sample of dev rows gives the stored values
    for row in list(_rows(folder, "dev"))[:8]:
        task = row_to_task(row)
        gold = execute_program_sync(task, client, clock=world.clock)
        assert [f.value for f in compute_answer(task, gold, clock=world.clock)] == [f["expected"] for f in json.loads(row["answer"])]


def test_expected_values_check_an_answer_without_the_world(built):
    """The card's recipe: fact_in_text on `expected` (no world, no package data beyond the row)."""
    from kopa_bench.scoring.normalize import fact_in_text

    _, _, folder = built
    row = _rows(folder, "dev")[0]
    facts = json.loads(row["answer"])
    gold_answer = " / ".join(f"{f['description']}: {f['expected']}{f.get('unit') or ''}" for f in facts)
    assert all(fact_in_text({**f, "value": f["expected"]}, gold_answer) for f in facts)
    assert not all(fact_in_text({**f, "value": f["expected"]}, "모르겠습니다") for f in facts)


def test_card_documents_every_key_the_id_pattern_and_the_world(built, world):
    from kopa_bench.tasks.dataset_row import ROW_SCHEMA
    from kopa_bench.tasks.task_schema import Condition, Fact, Near, Pick, Step

    _, _, folder = built
    card = (folder / "README.md").read_text(encoding="utf-8")
    keys = set(ROW_SCHEMA.names) | {"expected"}
    for model in (Step, Pick, Near, Condition, Fact):
        keys |= set(model.model_fields)
    undocumented = sorted(k for k in keys if f"`{k}`" not in card and f"| {k} |" not in card)
    assert not undocumented, f"the card does not document {undocumented}"
    for k in ("aliases", "context", "note", "match_ignore"):
        assert f"| {k} |" in card
    # the id pattern the card states is the one the ids follow
    assert "`kopa-<split>-<domain>-<nnn>`" in card and "kopa-test-001" not in card
    for split in ("test", "dev"):
        for t in load_tasks(split):
            assert re.fullmatch(rf"kopa-{split}-{t.domain}-\d{{3}}", t.id), t.id
    assert world.content_hash in card and "2026-11-30T09:00:00+09:00" in card
    assert "Without KOPA's world" in card and "With KOPA's world" in card


def test_publish_sends_one_commit_with_every_file(built):
    _, _, folder = built
    sent = {}

    class FakeApi:
        def create_repo(self, repo_id, **kw):
            sent["repo"] = (repo_id, kw)

        def create_commit(self, **kw):
            sent["commit"] = kw

            class C:
                commit_url = "https://hub.example/commit/1"

            return C()

    url = publish(folder, "kopa/kopa-bench", api=FakeApi())
    assert url.endswith("/commit/1")
    assert sent["repo"][0] == "kopa/kopa-bench" and sent["repo"][1]["repo_type"] == "dataset"
    paths = sorted(op.path_in_repo for op in sent["commit"]["operations"])
    assert paths == sorted(op.path_in_repo for op in plan_operations(folder))
    assert "README.md" in paths and "tasks/test-00000-of-00001.parquet" in paths
    with pytest.raises(ValueError, match="ORG/NAME"):
        publish(folder, "no-slash", api=FakeApi())

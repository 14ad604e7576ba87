"""The kopa-bench dataset folder: deterministic build, load_dataset round-trip, publish plan."""

import json

import pytest

from builders.kopa_bench_dataset import build, row_to_task
from builders.publish import plan_operations, publish
from kopa_bench.tasks import load_tasks


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    a = tmp_path_factory.mktemp("a")
    b = tmp_path_factory.mktemp("b")
    return build(a), build(b), a


def test_build_is_deterministic(built):
    info_a, info_b, _ = built
    assert info_a["hash"] == info_b["hash"]
    assert info_a["files"] == info_b["files"]


def test_load_dataset_round_trips_every_field(built):
    from datasets import load_dataset

    _, _, folder = built
    for split in ("test", "dev"):
        expected = {t.id: t for t in load_tasks(split)}
        # a private cache: the shared HF cache may hold an older build of a same-named folder
        ds = load_dataset(str(folder), "tasks", split=split, cache_dir=str(folder / ".hf_cache"))
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

"""The batch runner resumes: no episode lost or duplicated after a truncation or a kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.limits import HANG_S

from kopa_bench.episodes import EPISODES, RunDirError, read_episodes
from kopa_bench.runner.benchmark import run_benchmark
from kopa_bench.runner.run_config import RunConfig
from kopa_bench.tasks import parse_tasks

FIXTURE = Path(__file__).parent / "data" / "tasks_fixture.json"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tasks():
    return parse_tasks(json.loads(FIXTURE.read_text(encoding="utf-8")))


def _pairs(out: Path) -> Counter:
    return Counter((e.task_id, e.seed) for e in read_episodes(out / EPISODES))


def test_truncated_file_resumes(tasks, tmp_path, world, catalog) -> None:
    kw = dict(world=world, catalog=catalog)
    config = RunConfig(model="oracle", seeds=2, concurrency=3)
    res = run_benchmark(tasks, config, tmp_path, **kw)
    assert res.ran == 6 and res.success_rate == 1.0
    path = tmp_path / EPISODES
    lines = path.read_bytes().splitlines(keepends=True)
    # lose the last two episodes and leave a torn half line, as a crash mid-write would
    path.write_bytes(b"".join(lines[:4]) + lines[4][: len(lines[4]) // 2])
    assert len(read_episodes(path)) == 4  # the torn line is ignored
    res = run_benchmark(tasks, config, tmp_path, **kw)
    assert res.ran == 2 and res.skipped == 4
    pairs = _pairs(tmp_path)
    assert len(pairs) == 6 and set(pairs.values()) == {1}
    assert path.read_bytes().endswith(b"\n") and len(path.read_bytes().splitlines()) == 6
    assert res.run["summary"]["scored"] == 6 and res.run["summary"]["success_rate"] == 1.0
    # a third run has nothing left to do
    assert run_benchmark(tasks, config, tmp_path, **kw).ran == 0 and len(_pairs(tmp_path)) == 6
    # more seeds resume too; changed settings refuse to mix
    assert run_benchmark(tasks, RunConfig(model="oracle", seeds=3, concurrency=3), tmp_path, **kw).ran == 3
    with pytest.raises(RunDirError, match="different settings"):
        run_benchmark(tasks, RunConfig(model="oracle", seeds=2, concurrency=3, max_steps=3), tmp_path, **kw)
    meta = json.loads((tmp_path / "run.json").read_text())
    assert meta["config"]["model"] == "oracle" and meta["config"]["world_hash"] == world.content_hash
    assert meta["config"]["temperature"] == 0.7  # sampling when seeds > 1


SLOW_RUN = textwrap.dedent("""
    import asyncio, json, sys
    from kopa_bench.runner.benchmark import run_benchmark
    from kopa_bench.runner.run_config import RunConfig
    from kopa_bench.runner.scripted import OracleBackend
    from kopa_bench.tasks import parse_tasks
    from kopa_bench.world.store import get_world

    class Slow(OracleBackend):
        async def generate(self, *a, **k):
            await asyncio.sleep(0.15)
            return await super().generate(*a, **k)

    tasks = parse_tasks(json.load(open(sys.argv[1], encoding="utf-8")))
    run_benchmark(tasks, RunConfig(model="oracle", seeds=4, concurrency=2), sys.argv[2], backend=Slow("oracle"),
                  world=get_world(path=sys.argv[3]))
""")


def test_kill_9_then_resume(tasks, tmp_path, world, catalog) -> None:
    out = tmp_path / "run"
    script = tmp_path / "slow_run.py"
    script.write_text(SLOW_RUN, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, str(script), str(FIXTURE), str(out), str(world.path)], env=env, cwd=ROOT)
    try:
        deadline = time.time() + HANG_S
        while time.time() < deadline:
            path = out / EPISODES
            if path.exists() and path.read_bytes().count(b"\n") >= 3:
                break
            if proc.poll() is not None:
                pytest.fail(f"the run ended before it could be killed (rc {proc.returncode})")
            time.sleep(0.05)
        else:
            pytest.fail("no episodes were written within 120 s")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    before = _pairs(out)
    assert 3 <= sum(before.values()) < 12 and set(before.values()) == {1}
    res = run_benchmark(tasks, RunConfig(model="oracle", seeds=4, concurrency=2), out, world=world, catalog=catalog)
    after = _pairs(out)
    assert len(after) == 12 and set(after.values()) == {1}  # nothing lost, nothing twice
    assert res.ran == 12 - sum(before.values()) and res.success_rate == 1.0


def test_run_dir_written_before_runconfig_resumes(tasks, tmp_path, world, catalog) -> None:
    """A run.json as the runner wrote it before RunConfig existed: same `config` keys, so the run
    resumes with the same settings, refuses changed ones, and is rewritten with the keys in order."""
    old = json.loads((Path(__file__).parent / "data" / "run_json_before_runconfig.json").read_text(encoding="utf-8"))
    old["config"]["world_hash"] = world.content_hash  # the hash follows the world's generator source
    (tmp_path / "run.json").write_text(json.dumps(old), encoding="utf-8")
    with pytest.raises(RunDirError, match="different settings.*max_steps"):
        run_benchmark(tasks, RunConfig(model="oracle", concurrency=2, max_steps=3), tmp_path, world=world, catalog=catalog)
    res = run_benchmark(tasks, RunConfig(model="oracle", concurrency=2), tmp_path, world=world, catalog=catalog)
    assert res.ran == 3 and res.success_rate == 1.0
    # settings added since are appended with their defaults (a run.json that predates `mode` was an episodes run)
    assert list(res.run["config"]) == [*old["config"], "mode"] and res.run["created"] == old["created"]
    assert res.run["config"]["mode"] == "episodes"
    assert {k: res.run["config"][k] for k in RunConfig.frozen_on_resume() if k != "mode"} == \
           {k: old["config"][k] for k in RunConfig.frozen_on_resume() if k != "mode"}

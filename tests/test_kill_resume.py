"""Nothing lost: kill -9 a `kopa bench run` and a `kopa edge synth` mid-way, rerun, compare;
DuckDB files shared between processes never corrupt (one cache writer, read-only readers,
the world opened read-only by several processes at once)."""

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

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).parent / "data" / "tasks_fixture.json"
PY = sys.executable


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _kopa(*args: str) -> list[str]:
    return [PY, "-m", "kopa_bench.cli", *args]


def _kill_when(proc: subprocess.Popen, ready, timeout: float = HANG_S) -> None:
    try:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if ready():
                break
            if proc.poll() is not None:
                pytest.fail(f"the process ended before it could be killed (rc {proc.returncode})")
            time.sleep(0.05)
        else:
            pytest.fail(f"not ready to kill within {timeout} s")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_kill_9_bench_run_then_resume(tmp_path, world) -> None:
    from kopa_bench.episodes import EPISODES, read_episodes

    out = tmp_path / "run"
    seeds = 6
    cmd = _kopa("bench", "run", "--model", "oracle", "--tasks-file", str(FIXTURE), "--seeds", str(seeds),
                "--concurrency", "2", "--faults", "0.6:slow", "--out", str(out), "--no-progress")
    proc = subprocess.Popen(cmd, env=_env(), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _kill_when(proc, lambda: _lines(out / EPISODES) >= 3)
    before = Counter((e.task_id, e.seed) for e in read_episodes(out / EPISODES))
    total = 3 * seeds
    assert 3 <= sum(before.values()) < total and set(before.values()) == {1}
    done = subprocess.run(cmd, env=_env(), cwd=ROOT, capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 0, done.stderr[-2000:]
    eps = read_episodes(out / EPISODES)
    after = Counter((e.task_id, e.seed) for e in eps)
    assert len(after) == total and set(after.values()) == {1}  # nothing lost, nothing twice
    assert all(before_pair in after for before_pair in before)
    assert (out / EPISODES).read_bytes().endswith(b"\n")
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run["status"] == "finished" and run["summary"]["episodes"] == total and run["summary"]["scored"] == total
    assert f"{total - sum(before.values())} episodes run, {sum(before.values())} already finished" in done.stdout


def _children(pid: int) -> set[int]:
    out = set()
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    if int(f.read().rsplit(") ", 1)[1].split()[1]) == pid:
                        out.add(int(d))
            except (OSError, IndexError, ValueError):
                pass
    return out


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(") ", 1)[1].startswith("Z")  # exited, waiting for init to reap it
    except OSError:
        return True


def test_kill_9_bench_run_with_world_workers_then_resume(tmp_path) -> None:
    """The runner's world worker processes (KOPA_WORLD_WORKERS) die with a killed run, and the
    rerun (with workers again) completes it: nothing lost, nothing twice."""
    from kopa_bench.episodes import EPISODES, read_episodes

    out = tmp_path / "run"
    seeds = 200  # 600 episodes, ~3 s: time to be killed mid-way on a fast machine too
    env = {**_env(), "KOPA_WORLD_WORKERS": "1"}
    cmd = _kopa("bench", "run", "--model", "oracle", "--tasks-file", str(FIXTURE), "--seeds", str(seeds),
                "--concurrency", "4", "--out", str(out), "--no-progress")
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    workers: set[int] = set()

    def ready() -> bool:
        workers.update(p for p in _children(proc.pid) if "multiprocessing" in open(f"/proc/{p}/cmdline").read())
        return bool(workers) and _lines(out / EPISODES) >= 3

    _kill_when(proc, ready)
    deadline = time.time() + HANG_S
    while not all(_gone(p) for p in workers) and time.time() < deadline:
        time.sleep(0.1)
    assert all(_gone(p) for p in workers), f"world workers {workers} outlived the killed run"
    before = Counter((e.task_id, e.seed) for e in read_episodes(out / EPISODES))
    total = 3 * seeds
    assert 3 <= sum(before.values()) < total and set(before.values()) == {1}
    done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 0, done.stderr[-2000:]
    after = Counter((e.task_id, e.seed) for e in read_episodes(out / EPISODES))
    assert len(after) == total and set(after.values()) == {1}
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run["summary"]["scored"] == total and run["summary"]["success_rate"] == 1.0
    assert run["summary"]["world_workers"] == 1


@pytest.mark.slow  # an EDGE verification and synthesis in subprocesses: minutes
def test_kill_9_edge_synth_then_resume(tmp_path) -> None:
    edge = tmp_path / "edge"
    # a small verification (one coverage probe per arm, first record only, no decision phase): this test
    # is about synth
    r = subprocess.run(_kopa("edge", "verify", "--out", str(edge), "--iterations", "2", "--paths", "50",
                             "--min-probes", "1", "--record-tries", "1", "--decide-probes", "0"),
                       env=_env(), cwd=ROOT, capture_output=True, text=True, timeout=HANG_S)
    if r.returncode != 0 or not (edge / "verified.json").exists():
        pytest.skip(f"`kopa edge verify` not ready: {r.stderr[-500:]}")
    per_shape = 200
    # one trajectory per file: the first file appears after the first trajectory, long before the run ends,
    # so the kill lands mid-way however busy the machine is (with 50 a file, a small graph wrote its only file last)
    cmd = _kopa("edge", "synth", "--out", str(edge), "--per-shape", str(per_shape), "--dataset", str(tmp_path / "ds"),
                "--chunk", "1")
    proc = subprocess.Popen(cmd, env=_env(), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    traj = edge / "trajectories"
    _kill_when(proc, lambda: (traj / "traj-00000.jsonl").exists())
    before = {json.loads(l)["id"] for p in traj.glob("traj-*.jsonl") for l in p.read_text(encoding="utf-8").splitlines()}
    assert before and not (traj / "synth_audit.json").exists()  # really killed mid-way
    done = subprocess.run(cmd, env=_env(), cwd=ROOT, capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(l) for p in sorted(traj.glob("traj-*.jsonl")) for l in p.read_text(encoding="utf-8").splitlines()]
    ids = Counter(r["id"] for r in rows)
    assert set(ids.values()) == {1}, [i for i, n in ids.items() if n > 1][:5]  # nothing twice
    assert before <= set(ids)  # nothing lost
    assert len(Counter(r["program_key"] for r in rows)) == len(rows)
    audit = json.loads((traj / "synth_audit.json").read_text(encoding="utf-8"))
    assert audit["resumed"] == len(before) and audit["total"] == len(rows)
    assert all(n <= per_shape for n in audit["per_shape"].values()), audit["per_shape"]
    # the same synthesis, never interrupted, yields as many trajectories per shape
    clean = tmp_path / "clean"
    (clean).mkdir()
    (clean / "verified.json").write_bytes((edge / "verified.json").read_bytes())
    ref = subprocess.run(_kopa("edge", "synth", "--out", str(clean), "--per-shape", str(per_shape), "--dataset",
                               str(tmp_path / "ds2")), env=_env(), cwd=ROOT, capture_output=True, text=True, timeout=HANG_S)
    assert ref.returncode == 0, ref.stderr[-2000:]
    clean_audit = json.loads((clean / "trajectories" / "synth_audit.json").read_text(encoding="utf-8"))
    assert audit["per_shape"] == clean_audit["per_shape"]
    assert not list(traj.glob("*.tmp"))


# ---- DuckDB files shared by processes ---------------------------------------------------------------
HOLD_WRITER = textwrap.dedent("""
    import sys, time
    from kopa_bench.client.cache import ReplayCache
    c = ReplayCache(sys.argv[1], mode="record")
    print("ready", flush=True)
    time.sleep(float(sys.argv[2]))
    c.close()
""")

READ_ALL = textwrap.dedent("""
    import json, sys
    from kopa_bench.client.cache import ReplayCache
    c = ReplayCache(sys.argv[1], mode="replay")
    n = 0
    for _ in range(50):
        for i in range(int(sys.argv[2])):
            r = c.get("airkorea_getCtprvnRltmMesureDnsty", {"sidoName": f"s{i}"})
            assert r is not None and r.ok and r.records[0]["i"] == str(i)
            n += 1
    c.close()
    print(n)
""")


def _put_rows(path: Path, n: int) -> None:
    from kopa_bench.client import ReplayCache, ToolResult

    c = ReplayCache(path, mode="record")
    for i in range(n):
        c.put(ToolResult(tool="airkorea_getCtprvnRltmMesureDnsty", arguments={"sidoName": f"s{i}"}, ok=True,
                         records=[{"i": str(i)}]))
    assert len(c) == n
    c.close()


def test_cache_one_writer_many_readers(tmp_path) -> None:
    from kopa_bench.client import ReplayCache

    path = tmp_path / "cache.duckdb"
    _put_rows(path, 20)
    # a writer in another process: a second writer gets a clear error, not a corrupt file
    holder = subprocess.Popen([PY, "-c", HOLD_WRITER, str(path), "30"], env=_env(), cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(RuntimeError, match="being written by another process"):
            ReplayCache(path, mode="auto")
        with pytest.raises(RuntimeError, match="open for writing by another process"):
            ReplayCache(path, mode="replay")
    finally:
        holder.kill()
        holder.wait(10)
    # readers run concurrently once no one writes
    readers = [subprocess.Popen([PY, "-c", READ_ALL, str(path), "20"], env=_env(), cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=HANG_S) for p in readers]
    assert [p.returncode for p in readers] == [0, 0, 0], [o[1][-800:] for o in outs]
    assert [o[0].strip() for o in outs] == ["1000"] * 3
    # and the file is intact for the next writer (the killed holder left a stale lock file only)
    c = ReplayCache(path, mode="auto")
    assert len(c) == 20
    c.close()


WORLD_READER = textwrap.dedent("""
    import sys
    import duckdb
    con = duckdb.connect(sys.argv[1], read_only=True)
    total = 0
    for _ in range(30):
        total += con.execute("SELECT count(*) FROM information_schema.tables").fetchone()[0]
    from kopa_bench.world.store import get_world
    w = get_world(path=sys.argv[1])
    print(total, w.content_hash)
""")


def test_world_opens_read_only_in_many_processes(world) -> None:
    procs = [subprocess.Popen([PY, "-c", WORLD_READER, str(world.path)], env=_env(), cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outs = [p.communicate(timeout=HANG_S) for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, [o[1][-800:] for o in outs]
    assert len({o[0].strip() for o in outs}) == 1 and world.content_hash in outs[0][0]


def test_kill_9_steps_run_then_resume(tmp_path) -> None:
    """`--mode steps`: kill -9 mid-way, rerun: every (task, seed, position) once, nothing lost."""
    from kopa_bench.runner.steps import read_step_records

    out = tmp_path / "run"
    seeds = 4  # 3 fixture tasks, 9 positions each seed
    cmd = _kopa("bench", "run", "--model", "oracle", "--mode", "steps", "--tasks-file", str(FIXTURE), "--seeds",
                str(seeds), "--concurrency", "2", "--faults", "0.6:slow", "--out", str(out), "--no-progress")
    proc = subprocess.Popen(cmd, env=_env(), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _kill_when(proc, lambda: _lines(out / "episodes.jsonl") >= 3)
    before = Counter(r.key for r in read_step_records(out))
    total = 9 * seeds
    assert 3 <= sum(before.values()) < total and set(before.values()) == {1}
    done = subprocess.run(cmd, env=_env(), cwd=ROOT, capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 0, done.stderr[-2000:]
    after = Counter(r.key for r in read_step_records(out))
    assert len(after) == total and set(after.values()) == {1}  # nothing lost, nothing twice
    assert set(before) <= set(after) and (out / "episodes.jsonl").read_bytes().endswith(b"\n")
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run["summary"]["steps"] == run["summary"]["scored"] == total and run["summary"]["step_accuracy"] == 1.0
    assert f"{total - sum(before.values())} steps run, {sum(before.values())} already finished" in done.stdout

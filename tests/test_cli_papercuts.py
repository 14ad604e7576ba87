"""What a newcomer meets first on the command line: bad input gets one line naming the bad value
and the fix (never a traceback), and the commands say what they do."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kopa_bench.cli import app, bench_cmd, sandbox_cmd
from kopa_bench.episodes.run_dir import versions

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "data" / "tasks_fixture.json"


@pytest.fixture(autouse=True)
def _small_world(monkeypatch, world, catalog):
    monkeypatch.setattr(bench_cmd, "CLIENT_DEFAULTS", {"world": world, "catalog": catalog})


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def one_error_line(res) -> str:
    assert res.exit_code == 2, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in res.output, res.output
    return lines[0]


@pytest.mark.parametrize("command", [
    ["bench", "run", "--model", "oracle", "--out", "unused", "--split", "train", "--no-progress"],
    ["bench", "stats", "--split", "train"],
    ["bench", "check-data", "--split", "train"],
    ["bench", "check-data", "--split", "validation"],
])
def test_unknown_split_is_one_line_naming_the_valid_ones(command, tmp_path) -> None:
    line = one_error_line(invoke(*[str(tmp_path / c) if c == "unused" else c for c in command]))
    assert f"unknown split '{command[command.index('--split') + 1]}'; valid splits: dev, test" in line
    assert not (tmp_path / "unused").exists()


def test_score_of_a_missing_folder_says_it_does_not_exist(tmp_path) -> None:
    for cmd in ("score", "recovery"):
        line = one_error_line(invoke("bench", cmd, tmp_path / "nope"))
        assert f"{tmp_path / 'nope'} does not exist" in line and "tasks.json" not in line
    assert "does not exist" in invoke("bench", "report", tmp_path / "nope", "--out", tmp_path / "r").output


def test_unknown_task_id_is_named_with_how_to_list_the_valid_ones(tmp_path) -> None:
    line = one_error_line(invoke("bench", "run", "--model", "oracle", "--split", "dev", "--tasks", "kopa-dev-nope",
                                 "--out", tmp_path / "r", "--no-progress"))
    assert "unknown task id kopa-dev-nope (not in split 'dev')" in line and "kopa bench stats --split dev --ids" in line
    line = one_error_line(invoke("bench", "run", "--model", "oracle", "--tasks-file", FIXTURE, "--tasks", "a,kopa-fixture-001,b",
                                 "--out", tmp_path / "r", "--no-progress"))
    assert "unknown task ids a, b" in line and f"kopa bench stats --tasks-file {FIXTURE} --ids" in line
    listed = invoke("bench", "stats", "--tasks-file", FIXTURE, "--ids")
    assert listed.exit_code == 0 and listed.output.split() == [t["id"] for t in json.loads(FIXTURE.read_text(encoding="utf-8"))]
    dev = invoke("bench", "stats", "--split", "dev", "--ids").output.split()
    assert dev and all(i.startswith("kopa-dev-") for i in dev)


def test_gold_failures_are_named_by_score(tmp_path) -> None:
    out = tmp_path / "run"
    assert invoke("bench", "run", "--model", "oracle", "--tasks-file", FIXTURE, "--out", out, "--no-progress").exit_code == 0
    tasks = json.loads((out / "tasks.json").read_text(encoding="utf-8"))
    (out / "tasks.json").write_text(json.dumps(tasks[1:], ensure_ascii=False), encoding="utf-8")
    res = invoke("bench", "score", out, "--n-boot", 10)
    gone = tasks[0]["id"]
    assert f"gold failed for {gone}: task not in this run's tasks.json" in res.output


def test_sandbox_serve_prints_its_url_and_key(monkeypatch) -> None:
    import uvicorn

    served = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.update(kw))
    res = invoke("sandbox", "serve", "--port", 8123)
    assert res.exit_code == 0, res.output
    assert served["port"] == 8123
    assert "http://127.0.0.1:8123" in res.output and "service key: KOPA-SANDBOX" in res.output
    banner = sandbox_cmd.serve_banner("0.0.0.0", 9000, {"k2", "k1"}, "0.2:quota")
    assert "http://localhost:9000" in banner and "service key: k1, k2" in banner and "fault injection: 0.2:quota" in banner


def test_run_json_records_llama_cpp_python_when_installed() -> None:
    try:
        installed = metadata.version("llama-cpp-python")
    except metadata.PackageNotFoundError:
        installed = None
    v = versions()
    assert "python" in v and v.get("llama-cpp-python") == installed


def test_run_json_records_llama_cpp_python_beside_torch(monkeypatch) -> None:
    from kopa_bench.episodes import run_dir

    real = metadata.version
    monkeypatch.setattr(run_dir.metadata, "version", lambda pkg: "0.3.99" if pkg == "llama-cpp-python" else real(pkg))
    assert versions()["llama-cpp-python"] == "0.3.99"


def test_docs_say_how_to_pick_the_space_port_and_that_tests_install_chromium() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "GRADIO_SERVER_PORT=" in readme and "python space/app.py" in readme
    script = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    install = script.index("apt-get install")
    assert 'echo "installing chromium and chromium-driver with apt-get' in script[:install]

"""Secrets never written: a planted key, used in live mode against a loopback sandbox, appears in
no log (DEBUG), trajectory, run file, score, report, replay cache (file bytes and rows), EDGE
output or dataset file — neither raw nor URL-encoded."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from tests.limits import HANG_S

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).parent / "data" / "tasks_fixture.json"
KEY = "FAKEKEY-7f3a9c1e-SECRET+="  # "+" and "=" make the URL-encoded forms differ
FORMS = {KEY, quote(KEY, safe=""), quote_plus(KEY), quote(KEY), "FAKEKEY-7f3a9c1e-SECRET"}

# Runs the `kopa` CLI in live mode, its base URLs pointed at the loopback sandbox.
LIVE = textwrap.dedent("""
    import sys
    from kopa_bench.client.executor import KopaClient
    port = int(sys.argv[1])
    def base_url(self, ref):
        return f"http://127.0.0.1:{port}{ref.platform.sandbox_prefix}"
    KopaClient.base_url = base_url
    import edge_synth.env, edge_synth.pipeline
    def make_client(backend="sandbox", world=None, faults=None, catalog=None):
        return KopaClient("live", catalog=catalog, world=world)
    edge_synth.env.make_client = edge_synth.pipeline.make_client = make_client
    from kopa_bench.cli import app
    try:
        app(args=sys.argv[2:], standalone_mode=False)
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise
""")

CACHE_AND_DATASET = textwrap.dedent("""
    import asyncio, logging, sys
    from kopa_bench.client.redact import install_log_redaction
    logging.basicConfig(level=logging.DEBUG, filename=sys.argv[3], format="%(levelname)s %(name)s: %(message)s")
    install_log_redaction()
    from kopa_bench.client import KopaClient, ReplayCache
    port = int(sys.argv[1])
    KopaClient.base_url = lambda self, ref: f"http://127.0.0.1:{port}{ref.platform.sandbox_prefix}"
    cache = ReplayCache(sys.argv[2], mode="record")
    c = KopaClient("live", cache=cache, max_retries=0)
    async def go():
        out = []
        out.append(await c.call("airkorea_getCtprvnRltmMesureDnsty", {"sidoName": "서울", "ver": "1.3"}))
        out.append(await c.call("juso_addrLinkApi", {"keyword": "세종대로 110"}))
        out.append(await c.call("ecos_StatisticItemList", {"START": 1, "END": 10, "STAT_CODE": "731Y001"}))
        out.append(await c.call("airkorea_getCtprvnRltmMesureDnsty", {"sidoName": "서울", "numOfRows": -5}))
        logging.getLogger("kopa_bench.test").debug("results: %s", [r.model_dump_json() for r in out])
        await c.aclose()
        return out
    res = asyncio.run(go())
    assert res[0].ok and res[1].ok and res[2].ok, [r.error for r in res]
    from builders.kopa_bench_dataset import build
    build(sys.argv[4])
    print("ok")
""")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    import httpx

    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    fh = open(log, "wb")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "kopa_bench.cli", "-v", "sandbox", "serve", "--port", str(port),
                             "--keys", KEY], env=env, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + HANG_S
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/__kopa/health", timeout=1)
                break
            except httpx.HTTPError:
                if proc.poll() is not None or time.time() > deadline:
                    pytest.fail(f"sandbox server did not start: {log.read_text()[-1000:]}")
                time.sleep(0.3)
        yield port, log
    finally:
        proc.terminate()
        proc.wait(10)
        fh.close()


def _env_with_key(tmp_path: Path) -> dict:
    from kopa_bench.catalog import get_catalog

    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp_path)}
    for p in get_catalog().platforms.values():
        env[p.key_env] = KEY
    return env


def _scan(root: Path) -> list[str]:
    hits = []
    for p in sorted(root.rglob("*")):
        if not p.is_file():
            continue
        data = p.read_bytes()
        for form in FORMS:
            if form.encode() in data:
                hits.append(f"{p}: {form!r}")
    return hits


@pytest.mark.slow  # every artefact-writing command in subprocesses: minutes
def test_key_never_written(tmp_path, live_server) -> None:
    port, server_log = live_server
    env = _env_with_key(tmp_path)
    run_dir, report = tmp_path / "run", tmp_path / "report"
    live = tmp_path / "live_cli.py"
    live.write_text(LIVE, encoding="utf-8")

    def kopa(*args: str, log: str) -> subprocess.CompletedProcess:
        with open(tmp_path / log, "wb") as fh:
            r = subprocess.run([sys.executable, str(live), str(port), "-v", *args], env=env, cwd=ROOT,
                               stdout=fh, stderr=subprocess.STDOUT, timeout=HANG_S)
        assert r.returncode == 0, (tmp_path / log).read_text(errors="replace")[-3000:]
        return r

    # the benchmark, live (= the loopback server), recording a replay cache; then score and report
    kopa("bench", "run", "--model", "oracle", "--tasks-file", str(FIXTURE), "--out", str(run_dir), "--backend", "live",
         "--cache", str(tmp_path / "bench_cache.duckdb"), "--cache-mode", "record", "--seeds", "2", "--no-progress",
         log="bench_run.log")
    kopa("bench", "score", str(run_dir), "--json", "--scores-out", str(tmp_path / "scores.jsonl"), log="bench_score.log")
    kopa("bench", "report", str(run_dir), "--out", str(report), "--n-boot", "50", log="bench_report.log")
    eps = (run_dir / "episodes.jsonl").read_text(encoding="utf-8")
    assert eps.count("\n") == 6 and '"ok":true' in eps  # the calls really went through with the key
    assert "HTTP Request" in (tmp_path / "bench_run.log").read_text(errors="replace")  # DEBUG logging was on

    # EDGE on the live client (verify + synth + its dataset)
    edge = tmp_path / "edge"
    kopa("edge", "verify", "--out", str(edge), "--iterations", "1", "--paths", "30", log="edge_verify.log")
    kopa("edge", "synth", "--out", str(edge), "--per-shape", "10", "--dataset", str(tmp_path / "edge_ds"), log="edge_synth.log")

    # the replay cache and the kopa-bench dataset builder, in one more process with a DEBUG log file
    cache = tmp_path / "cache.duckdb"
    r = subprocess.run([sys.executable, "-c", CACHE_AND_DATASET, str(port), str(cache), str(tmp_path / "cache.log"),
                        str(tmp_path / "dataset")], env=env, cwd=ROOT, capture_output=True, text=True, timeout=HANG_S)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-3000:]
    import duckdb

    con = duckdb.connect(str(cache), read_only=True)
    rows = con.execute("SELECT * FROM calls").fetchall()
    con.close()
    assert len(rows) == 3  # the argument error never left the client, so it is not cached
    (tmp_path / "cache_rows.json").write_text(json.dumps(rows, ensure_ascii=False, default=str), encoding="utf-8")
    bench_cache = tmp_path / "bench_cache.duckdb"
    con = duckdb.connect(str(bench_cache), read_only=True)
    (tmp_path / "bench_cache_rows.json").write_text(json.dumps(con.execute("SELECT * FROM calls").fetchall(),
                                                               ensure_ascii=False, default=str), encoding="utf-8")
    con.close()

    assert list(tmp_path.rglob("*.parquet")), "the dataset builders wrote nothing"
    hits = _scan(tmp_path)
    assert not hits, hits[:20]
    # the planted key is reachable: the scan would have found it had it been written
    probe = tmp_path / "probe.txt"
    probe.write_text(f"x {quote(KEY, safe='')} y", encoding="utf-8")
    found = _scan(tmp_path)
    assert found and all(h.startswith(f"{probe}: ") for h in found)


# ---- a key with URL-reserved characters, carried in the URL path (ECOS, Seoul) ---------------------
SLASH_KEY = "ab/c+d=e%f"
SLASH_FORMS = {SLASH_KEY, quote(SLASH_KEY, safe=""), quote(SLASH_KEY), quote_plus(SLASH_KEY),
               quote(SLASH_KEY, safe="").lower()}
PATH_KEY_CALLS = [
    ("ecos_StatisticItemList", {"START": 1, "END": 10, "STAT_CODE": "731Y001"}),
    ("ecos_KeyStatisticList", {"START": 1, "END": 5}),
    ("seoul_SearchInfoBySubwayNameService", {"START_INDEX": 1, "END_INDEX": 5, "STATION_NM": "강남"}),
    ("seoul_subway_realtimeStationArrival", {"START_INDEX": 0, "END_INDEX": 5, "statnNm": "강남"}),
    ("airkorea_getCtprvnRltmMesureDnsty", {"sidoName": "서울", "ver": "1.3"}),  # key in the query string
]


def _calls_with_key(client) -> list:
    import asyncio

    async def go():
        out = [await client.call(tool, args) for tool, args in PATH_KEY_CALLS]
        await client.aclose()
        return out

    return asyncio.run(go())


def _assert_no_slash_key(text: str) -> None:
    leaked = [f for f in SLASH_FORMS if f in text]
    assert not leaked, leaked


def test_ecos_sends_the_key_as_one_encoded_segment(catalog) -> None:
    from kopa_bench.protocols import ecos

    ref = catalog.get("ecos_StatisticItemList")
    spec = ecos.build_request(ref, {"START": 1, "END": 10, "STAT_CODE": "731Y001"}, SLASH_KEY, "http://h/ecos")
    assert spec.url == "http://h/ecos/StatisticItemList/ab%2Fc%2Bd%3De%25f/json/kr/1/10/731Y001"
    # the sandbox key is unchanged on the wire
    spec = ecos.build_request(ref, {"START": 1, "END": 10, "STAT_CODE": "731Y001"}, "KOPA-SANDBOX", "http://h/ecos")
    assert spec.url == "http://h/ecos/StatisticItemList/KOPA-SANDBOX/json/kr/1/10/731Y001"


@pytest.mark.parametrize("direct", [True, False], ids=["direct-asgi", "httpx-asgi"])
def test_path_key_with_reserved_characters_in_process(world, catalog, direct) -> None:
    from kopa_bench.client import KopaClient
    from kopa_bench.client.transport import HTTPXTransport
    from kopa_bench.sandbox import create_app

    app = create_app(world=world, catalog=catalog, keys={SLASH_KEY})
    res = _calls_with_key(KopaClient(catalog=catalog, world=world, app=app, keys={"*": SLASH_KEY},
                                     max_retries=0,
                                     transport=None if direct else HTTPXTransport(app=app)))
    assert all(r.ok for r in res), [(r.tool, r.error) for r in res]
    assert all(r.records for r in res)
    for r in res:
        _assert_no_slash_key(r.model_dump_json())
    # the key is checked whole: its first path piece alone is refused
    bad = _calls_with_key(KopaClient(catalog=catalog, world=world, app=app, keys={"*": "ab/c"},
                                     max_retries=0,
                                     transport=None if direct else HTTPXTransport(app=app)))
    assert [r.error.type if r.error else None for r in bad] == ["auth"] * len(PATH_KEY_CALLS)


def test_path_key_with_reserved_characters_over_uvicorn(world, catalog) -> None:
    """A real server (uvicorn, h11) decodes the raw path the same way."""
    import threading

    import uvicorn

    from kopa_bench.client import KopaClient
    from kopa_bench.sandbox import create_app

    port = _free_port()
    app = create_app(world=world, catalog=catalog, keys={SLASH_KEY})
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.time() + HANG_S
        while not server.started:
            assert time.time() < deadline and thread.is_alive(), "uvicorn did not start"
            time.sleep(0.05)
        res = _calls_with_key(KopaClient(f"http://127.0.0.1:{port}", catalog=catalog, keys={"*": SLASH_KEY},
                                         max_retries=0))
    finally:
        server.should_exit = True
        thread.join(10)
    assert all(r.ok for r in res), [(r.tool, r.error) for r in res]
    for r in res:
        _assert_no_slash_key(r.model_dump_json())


def test_redaction_removes_reserved_character_key_in_every_form() -> None:
    from kopa_bench.client.redact import redact, register_secret

    register_secret(SLASH_KEY)
    text = " | ".join(sorted(SLASH_FORMS)) + " | serviceKey=" + quote_plus(SLASH_KEY) + "&x=1 | /ecos/S/" \
        + quote(SLASH_KEY, safe="") + "/json"
    out = redact(text)
    _assert_no_slash_key(out)
    assert out.count("***") >= len(SLASH_FORMS) + 2

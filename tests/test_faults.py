"""Fault injection, per kind and protocol family, and what the client makes of each.

Transient kinds (timeout, server_error, truncated, malformed; data.go.kr per-second 23; HTTP
429 rate limits) are retried with bounded exponential backoff; quota and key failures surface at
once as typed errors. A benchmark run with 20% faults finishes every episode and every injected
fault is accounted for in the trajectories.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from kopa_bench.client import KopaClient
from kopa_bench.sandbox import FaultConfig
from kopa_bench.sandbox.faults import FAULT_KINDS

FIXTURE = Path(__file__).parent / "data" / "tasks_fixture.json"
MAX_RETRIES = 3
CLIENT_TIMEOUT = 0.25  # the client gives up well before the `timeout` fault's stall ends
# every other kind gets a time-out no busy machine reaches, so a slow world query is never a spurious fault
UNHURRIED_TIMEOUT = 30.0
STALL = 3.0

# one call per protocol family (tool, arguments that succeed without faults)
FAMILIES = {
    "data_go_kr": ("airkorea_getCtprvnRltmMesureDnsty", {"sidoName": "경기", "ver": "1.3", "numOfRows": 20}),
    "stanregincd": ("mois_getStanReginCdList", {"locatadd_nm": "서울특별시 마포구"}),
    "juso": ("juso_addrLinkApi", {"keyword": "세종대로 110"}),
    "vworld": ("vworld_getcoord", {"address": "서울특별시 중구 태평로1가 807", "type": "PARCEL"}),
    "ecos": ("ecos_StatisticItemList", {"START": 1, "END": 100, "STAT_CODE": "731Y001"}),
    "kosis": ("kosis_statisticsParameterData", {"orgId": "101", "tblId": "DT_1B040A3", "itmId": "T20", "objL1": "11",
                                                "prdSe": "M", "newEstPrdCnt": 1}),
    "law": ("law_lawSearch", {"query": "도로교통법"}),
    "neis": ("assembly_nwvrqwxyaytdsfvhu", {"ORIG_NM": "서울 강남구병"}),
    "odcloud": ("nts_status", {"b_no": "1208147521"}),
    "seoul": ("seoul_SearchInfoBySubwayNameService", {"STATION_NM": "강남", "START_INDEX": 1, "END_INDEX": 10}),
    "seoul_subway": ("seoul_subway_realtimeStationArrival", {"statnNm": "강남", "START_INDEX": 0, "END_INDEX": 20}),
}
# Platforms without a quota code of their own: juso's search answers -999 (system error), law and
# odcloud a 429 (retried, then reported as quota). Only data.go.kr has a separate per-second code.
QUOTA_RETRIED = {"law", "odcloud"}
QUOTA_AS_TRANSIENT = {"juso"}
PER_SECOND_RETRIED = {"data_go_kr", "stanregincd"}


def _client(world, catalog, kind: str | None, rate: float = 1.0, seed: int = 0) -> KopaClient:
    faults = FaultConfig(rate=rate, kinds=(kind,) if kind else FAULT_KINDS, seed=seed, timeout_s=STALL, slow_s=0.05)
    timeout = CLIENT_TIMEOUT if kind in (None, "timeout") else UNHURRIED_TIMEOUT
    return KopaClient(world=world, catalog=catalog, faults=faults, timeout=timeout,
                      max_retries=MAX_RETRIES, backoff_s=0.005)


def _call(client: KopaClient, tool: str, args: dict):
    async def go():
        try:
            return await client.call(tool, args)
        finally:
            await client.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_works_without_faults(family, world, catalog) -> None:
    tool, args = FAMILIES[family]
    r = _call(KopaClient(world=world, catalog=catalog), tool, args)
    assert r.ok and r.attempts == 1, (family, r.error)


@pytest.mark.parametrize("kind", FAULT_KINDS)
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_fault_kind_per_family(family, kind, world, catalog) -> None:
    tool, args = FAMILIES[family]
    client = _client(world, catalog, kind)
    t0 = time.perf_counter()
    r = _call(client, tool, args)
    elapsed = time.perf_counter() - t0
    injected = client.app.state.ctx.faults.injected
    every = MAX_RETRIES + 1
    if kind == "slow":  # late but correct
        assert r.ok and r.attempts == 1 and r.error is None
        assert injected == {"slow": 1}
        return
    assert not r.ok and r.error is not None, (family, kind)
    assert r.error.message and tool in r.error.message  # names the call, says what to do
    assert sum(injected.values()) == r.attempts  # every attempt met the fault, none lost
    if kind == "key":
        assert (r.error.type, r.attempts) == ("auth", 1)
        assert "key" in r.error.message.lower()
    elif kind == "quota":
        if family in QUOTA_AS_TRANSIENT:
            assert (r.error.type, r.attempts) == ("transient", every)
        elif family in QUOTA_RETRIED:
            assert (r.error.type, r.attempts) == ("quota", every)
        else:
            assert (r.error.type, r.attempts) == ("quota", 1)
            assert "quota" in r.error.message.lower()
    elif kind == "per_second":
        if family in PER_SECOND_RETRIED:
            assert (r.error.type, r.result_code, r.attempts) == ("quota", "23", every)
        elif family in QUOTA_AS_TRANSIENT:
            assert (r.error.type, r.attempts) == ("transient", every)
        elif family in QUOTA_RETRIED:
            assert (r.error.type, r.attempts) == ("quota", every)
        else:  # one shared limit code: surfaced at once
            assert (r.error.type, r.attempts) == ("quota", 1)
    else:  # timeout, server_error, truncated, malformed: retried, then a transient error
        assert (r.error.type, r.attempts) == ("transient", every), (r.error, r.result_code)
        assert r.error.retryable
        if kind == "timeout":
            assert r.result_code == "TIMEOUT"
            # the client's time-out, not the server's stall, bounds the call
            assert elapsed < STALL, elapsed


@pytest.mark.parametrize("family", ["data_go_kr", "ecos", "seoul", "juso"])
def test_transient_faults_recover_by_retry(family, world, catalog) -> None:
    tool, args = FAMILIES[family]
    kinds = ("server_error", "truncated", "malformed", "timeout")
    faults = FaultConfig(rate=0.5, kinds=kinds, seed=7, timeout_s=STALL)
    client = KopaClient(world=world, catalog=catalog, faults=faults, timeout=CLIENT_TIMEOUT, max_retries=6,
                        backoff_s=0.001)

    async def go():
        try:
            return [await client.call(tool, args) for _ in range(12)]
        finally:
            await client.aclose()

    results = asyncio.run(go())
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    assert any(r.attempts > 1 for r in results)
    injected = sum(client.app.state.ctx.faults.injected.values())
    assert injected == sum(r.attempts - 1 for r in results)


def test_backoff_is_bounded_and_exponential(world, catalog, monkeypatch) -> None:
    import kopa_bench.client.executor as ex

    sleeps: list[float] = []
    real_sleep = asyncio.sleep

    async def fake_sleep(s, *a, **k):
        sleeps.append(s)
        await real_sleep(0)

    monkeypatch.setattr(ex.asyncio, "sleep", fake_sleep)
    client = KopaClient(world=world, catalog=catalog, faults=FaultConfig(rate=1.0, kinds=("server_error",)),
                        max_retries=6, backoff_s=1.0)
    r = _call(client, *FAMILIES["data_go_kr"])
    assert r.attempts == 7 and sleeps == [1.0, 2.0, 4.0, ex.MAX_BACKOFF_S, ex.MAX_BACKOFF_S, ex.MAX_BACKOFF_S]


def test_fault_config_parse_and_validation() -> None:
    cfg = FaultConfig.parse("0.2:quota,timeout")
    assert cfg.rate == 0.2 and cfg.kinds == ("quota", "timeout")
    assert FaultConfig.parse("0.5").kinds == FAULT_KINDS
    with pytest.raises(ValueError, match="unknown fault kind"):
        FaultConfig.parse("0.2:bogus")
    with pytest.raises(ValueError, match="within"):
        FaultConfig(rate=1.5)
    with pytest.raises(ValueError, match="RATE"):
        FaultConfig.parse("lots")


# ---- a whole benchmark run under faults -----------------------------------------------------------
def test_benchmark_with_faults_loses_nothing(world, catalog, tmp_path, monkeypatch) -> None:
    from kopa_bench.episodes import EPISODES, read_episodes
    from kopa_bench.runner.benchmark import run_benchmark
    from kopa_bench.runner.run_config import RunConfig
    from kopa_bench.runner.tool_clients import ClientSpec
    from kopa_bench.scoring.recovery import summarize_recovery
    from kopa_bench.tasks import parse_tasks

    tasks = parse_tasks(json.loads(FIXTURE.read_text(encoding="utf-8")))
    clients: list[KopaClient] = []

    def agent_client(self, seed: int = 0):  # small time-outs so `timeout` faults stay cheap
        c = KopaClient(self.backend, world=self.world, catalog=self.catalog, timeout=CLIENT_TIMEOUT, backoff_s=0.005,
                       faults=FaultConfig(rate=0.2, seed=3, timeout_s=STALL, slow_s=0.02))
        clients.append(c)
        return c

    monkeypatch.setattr(ClientSpec, "agent_client", agent_client)
    seeds = 8
    res = run_benchmark(tasks, RunConfig(model="oracle", seeds=seeds, concurrency=4, faults="0.2"), tmp_path, world=world,
                        catalog=catalog)
    eps = read_episodes(tmp_path / EPISODES)
    assert res.ran == len(tasks) * seeds and len(eps) == len(tasks) * seeds
    assert len({(e.task_id, e.seed) for e in eps}) == len(eps)  # nothing duplicated
    assert all(e.stop_reason == "answer" and e.final_answer for e in eps)
    assert res.run["summary"]["scored"] == len(eps)
    injected = clients[0].app.state.ctx.faults.injected
    failed_attempts = sum(c.result.attempts - (1 if c.result.ok else 0) for e in eps for c in e.calls if c.result)
    assert failed_attempts == sum(n for k, n in injected.items() if k != "slow")  # every fault is in a trajectory
    assert sum(injected.values()) > 0 and failed_attempts > 0
    for e in eps:
        for c in e.calls:
            if c.result is not None and not c.result.ok:
                assert c.result.error is not None and c.result.error.type in {"transient", "quota", "auth"}
    rec = summarize_recovery(eps)
    assert rec["faults"] == failed_attempts
    assert rec["seen"] == sum(1 for e in eps for c in e.calls if c.result is not None and not c.result.ok)
    if rec["seen"]:
        assert rec["retried"] > 0  # the oracle repeats a failed call
    assert res.success_rate >= 0.5


def test_recovery_score_counts() -> None:
    from kopa_bench.client import ToolErrorInfo, ToolResult
    from kopa_bench.episodes import CallRecord, Episode
    from kopa_bench.scoring.recovery import score_recovery

    def rec(i, tool, ok, attempts=1, etype="transient"):
        err = None if ok else ToolErrorInfo(type=etype, message="x")
        return CallRecord(id=str(i), tool=tool, arguments={"a": 1},
                          result=ToolResult(tool=tool, ok=ok, attempts=attempts, error=err))

    ep = Episode(task_id="t", calls=[rec(0, "a", True, 3), rec(1, "b", False, 4), rec(2, "b", False, 1, "quota"),
                                     rec(3, "c", True), rec(4, "d", False, 1, "auth")],
                 final_answer="d 조회는 인증 오류로 실패했습니다.")
    s = score_recovery(ep)
    assert (s.faults, s.client_retries, s.seen) == (2 + 4 + 1 + 1, 2 + 3, 3)
    assert (s.retried, s.rerouted, s.recovered, s.unrecovered, s.explained) == (1, 1, 0, 3, True)

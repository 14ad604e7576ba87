"""EDGE: candidates, verification posterior, Thompson sampling, shapes, export, decontamination,
dataset round trip, resumable synthesis. Runs on a FakeClient (no world build)."""

from __future__ import annotations

import asyncio
import json
import random
import re

import pytest

from kopa_bench.catalog import get_catalog
from kopa_bench.testing.fake_client import FakeClient

AK = "airkorea_"
TM = AK + "getTMStdrCrdnt"
NEAR = AK + "getNearbyMsrstnList"
RT = AK + "getMsrstnAcctoRltmMesureDnsty"
CTP = AK + "getCtprvnRltmMesureDnsty"
LST = AK + "getMsrstnList"


class _Sub:
    def __init__(self, cat, names):
        self._c, self._n = cat, set(names)

    def __iter__(self):
        return (r for r in self._c if r.op.tool in self._n)

    def __len__(self):
        return len(self._n)

    def __contains__(self, n):
        return n in self._n

    def get(self, n):
        return self._c.get(n)


@pytest.fixture(scope="module")
def cat():
    return _Sub(get_catalog(), [TM, NEAR, RT, CTP, LST])


def fake():
    recs_tm = [{"sidoName": "서울특별시", "sggName": "종로구", "umdName": "혜화동", "tmX": "200420.3", "tmY": "453527.7"}]
    recs_near = [{"stationName": "종로구", "addr": "서울 종로구 종로35가길 19", "tm": "1.2"},
                 {"stationName": "중구", "addr": "서울 중구 덕수궁길 15", "tm": "2.0"}]
    recs_rt = [{"dataTime": "2026-11-30 09:00", "pm10Value": "31", "pm25Value": "12", "pm10Grade": "1", "khaiValue": "55"}]
    recs_ctp = [{"stationName": "종로구", "sidoName": "서울", "dataTime": "2026-11-30 09:00", "pm10Value": "31", "pm25Value": "12"},
                {"stationName": "중구", "sidoName": "서울", "dataTime": "2026-11-30 09:00", "pm10Value": "40", "pm25Value": "20"}]
    recs_lst = [{"stationName": "종로구", "addr": "서울 종로구", "dmX": "37.57", "dmY": "126.99", "year": "2000"},
                {"stationName": "중구", "addr": "서울 중구", "dmX": "37.56", "dmY": "126.97", "year": "2001"}]
    c = FakeClient(default="nodata")
    c.add(TM, {}, recs_tm)
    c.add(NEAR, {}, recs_near)
    for i, st in enumerate(("종로구", "중구")):  # each station has its own readings
        c.add(RT, {"stationName": st}, [{**recs_rt[0], "pm10Value": str(31 + 9 * i)}])
    c.add(CTP, {}, recs_ctp)
    # another province has its own stations (a comparison of two provinces reads different ones)
    c.add(CTP, {"sidoName": "부산"}, [{**recs_ctp[0], "stationName": "광복동", "sidoName": "부산", "pm10Value": "45"}])
    c.add(RT, {"stationName": "광복동"}, [{**recs_rt[0], "pm10Value": "45"}])
    c.add(LST, {}, recs_lst)
    return c


def test_candidates_find_airkorea_chain(cat, tmp_path):
    from edge_synth.candidates import build_candidate_graph, load_graph, save_graph

    g = build_candidate_graph(cat)
    b = {(x["from_field"], x["to_param"], x["transform"]) for x in g.edges[TM, NEAR]["bindings"]}
    assert ("tmX", "tmX", "identity") in b and ("tmY", "tmY", "identity") in b
    assert any(x["to_param"] == "stationName" for x in g.edges[NEAR, RT]["bindings"])
    assert any(x["transform"] == "sido_short" for x in g.edges[TM, CTP]["bindings"])
    save_graph(g, tmp_path / "g.json")
    g2 = load_graph(tmp_path / "g.json")
    assert set(g2.edges) == set(g.edges)


def test_posterior_structural_vs_environmental():
    from edge_synth.bandit import Arm, update
    from edge_synth.verify_config import VerifyConfig

    cfg = VerifyConfig()
    a, b, c = (Arm("a", "b", None, 2.0, 2.0) for _ in range(3))
    update(a, "success", cfg)
    update(b, "argument", cfg)
    update(c, "transient", cfg)
    assert a.mean > 0.5 > c.mean > b.mean
    assert (0.5 - b.mean) > 3 * (0.5 - c.mean)


def test_insensitive_success_counts_against_the_binding():
    from edge_synth.bandit import Arm, update
    from edge_synth.verify_config import VerifyConfig

    cfg = VerifyConfig()
    good, ignored = Arm("a", "b", None, 2.0, 2.0), Arm("a", "b", None, 2.0, 2.0)
    update(good, "success", cfg, sensitive=True)
    update(ignored, "success", cfg, sensitive=False)  # another upstream value, same B answer
    assert good.mean > 0.5 > ignored.mean
    assert good.meaningful and not ignored.meaningful


def _verify(cat, iterations=6):
    from edge_synth.candidates import build_candidate_graph
    from edge_synth.env import ProbeExecutor
    from edge_synth.bootstrap import bootstrap_samples
    from edge_synth.seeds import SeedSampler
    from edge_synth.verify import Verifier
    from edge_synth.verify_config import VerifyConfig

    ex = ProbeExecutor(fake())
    sampler = SeedSampler(cat, seed=0)
    g = build_candidate_graph(cat)
    asyncio.run(bootstrap_samples(ex, sampler, cat, rounds=2, per_tool=2))
    v = Verifier(g, ex, sampler, VerifyConfig(iterations=iterations, paths_per_iter=40, seed=0))
    asyncio.run(v.run())
    return g, v, ex, sampler


def test_thompson_sampling_verifies_and_prunes(cat):
    from edge_synth.bandit import binding_set, sample_theta

    g, v, _, _ = _verify(cat)
    vg = v.verified_graph()
    assert vg.has_edge(TM, NEAR) and vg.has_edge(NEAR, RT)
    assert v.executions > 0
    # Thompson sampling ranks a confidently good edge first, and still explores an uncertain one
    for aid, arm in v.arms.items():
        arm.pruned = False
        arm.alpha, arm.beta = ((60.0, 1.0) if (arm.src, arm.dst) == (TM, NEAR) else
                               (1.0, 1.0) if (arm.src, arm.dst) == (NEAR, RT) else (1.0, 60.0))
    firsts = []
    for _ in range(200):
        theta = sample_theta(v.np_rng, v.arms)
        firsts.append(max(v.edge_arms, key=lambda e: binding_set(v.arms, v.edge_arms[e], theta)[1]))
    assert firsts.count((TM, NEAR)) > 100
    assert 0 < firsts.count((NEAR, RT)) < 100
    assert all(x["posterior"] >= v.cfg.viable for *_, d in vg.edges(data=True) for x in d["bindings"])


@pytest.fixture(scope="module")
def synth_env(cat):
    g, v, ex, sampler = _verify(cat)

    class E:
        pass

    e = E()
    e.catalog, e.executor, e.sampler = cat, ex, sampler
    return v.verified_graph(), e


def test_walks_produce_every_shape_and_rl_rows_validate(synth_env):
    from kopa_bench.tasks import Task
    from edge_synth.export import rl_task, sft_messages
    from edge_synth.queries import make_query
    from edge_synth.shapes import SHAPES, Synthesizer

    vg, e = synth_env
    syn = Synthesizer(vg, e.catalog, e.sampler, e.executor, seed=0)
    got = {}
    for shape in SHAPES:
        for i in range(200):  # a comparison needs two provinces with their own stations (2 of 18)
            t = asyncio.run(syn.build(shape, f"t-{shape}-{i}"))
            if t is not None:
                got[shape] = t
                break
    assert set(got) == set(SHAPES), set(SHAPES) - set(got)
    for shape, t in got.items():
        t["query"], t["register"] = make_query(t, e.catalog, random.Random(0))
        assert 2 <= t["n_calls"] <= 8
        row = rl_task(t)
        Task.model_validate(row)
        msgs = sft_messages(t, e.catalog)
        assert msgs[1]["role"] == "user" and msgs[-1]["role"] == "assistant"
        assert any(m.get("tool_calls") for m in msgs)


def test_decontamination_drops_planted_duplicate(synth_env):
    from kopa_bench.tasks import Task
    from edge_synth.export import Decontaminator, rl_task
    from edge_synth.queries import make_query
    from edge_synth.shapes import Synthesizer

    vg, e = synth_env
    syn = Synthesizer(vg, e.catalog, e.sampler, e.executor, seed=0)
    t = next(x for x in (asyncio.run(syn.build("sequential", f"d{i}")) for i in range(30)) if x)
    t["query"], t["register"] = make_query(t, e.catalog, random.Random(1))
    bench = Task.model_validate({**rl_task(t), "id": "kopa-test-999", "split": "test", "query": "완전히 다른 질문입니다 정말로"})
    d = Decontaminator([bench])
    assert d.check(t["task"]["program"], t["query"]) == "program_match"
    other = Task.model_validate({**rl_task(t), "id": "kopa-dev-1", "program": [{**bench.program[0].model_dump(), "args": {"umdName": "없는동"}}],
                                 "answer": [{"id": "f1", "description": "x", "value": "$s1.total_count"}]})
    d2 = Decontaminator([other.model_copy(update={"query": t["query"]})])
    assert d2.check(t["task"]["program"], t["query"]) == "query_overlap"
    assert Decontaminator([]).check(t["task"]["program"], t["query"]) is None


def test_resume_and_dataset_roundtrip(synth_env, tmp_path):
    from builders.edge_dataset import build_dataset, graph_rows
    from edge_synth.export import Decontaminator
    from edge_synth.synth import load_trajectories, synthesize

    vg, e = synth_env
    out = tmp_path / "traj"
    # every executable trajectory (plausible=None): the five-tool fixture has too few plausible
    # ones to fill both dataset splits; the plausibility checks have their own tests
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(synthesize(vg, e, out, n_per_shape=4, chunk=3, decon=Decontaminator([]), stop_after=7, plausible=None))
    partial = load_trajectories(out)
    asyncio.run(synthesize(vg, e, out, n_per_shape=4, chunk=3, decon=Decontaminator([]), plausible=None))
    full = load_trajectories(out)
    ids = [r["id"] for r in full]
    assert len(ids) == len(set(ids)) and len(full) >= len(partial)
    assert {r["id"] for r in partial} <= set(ids)
    fresh = tmp_path / "fresh"
    asyncio.run(synthesize(vg, e, fresh, n_per_shape=4, chunk=3, decon=Decontaminator([]), plausible=None))
    assert [r["id"] for r in load_trajectories(fresh)] == ids

    m1 = build_dataset(full, graph_rows(vg), tmp_path / "ds1", seed=0)
    m2 = build_dataset(full, graph_rows(vg), tmp_path / "ds2", seed=0)
    assert m1["hash"] == m2["hash"]
    import datasets

    ds = datasets.load_dataset(str(tmp_path / "ds1"), "rl", cache_dir=str(tmp_path / "hfc"))
    n = sum(len(ds[s]) for s in ds)
    assert n == len(full)
    from kopa_bench.tasks import Task

    Task.model_validate(json.loads(ds["train"][0]["task"]))
    g = datasets.load_dataset(str(tmp_path / "ds1"), "graph", split="train", cache_dir=str(tmp_path / "hfc"))
    assert len(g) == vg.number_of_edges()


def test_synthesis_keeps_only_plausible_requests_and_resumes(synth_env, tmp_path):
    from edge_synth.export import Decontaminator
    from edge_synth.synth import load_trajectories, synthesize

    vg, e = synth_env
    out = tmp_path / "plausible"
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(synthesize(vg, e, out, n_per_shape=3, chunk=2, decon=Decontaminator([]), stop_after=3))
    a = asyncio.run(synthesize(vg, e, out, n_per_shape=3, chunk=2, decon=Decontaminator([])))
    rows = load_trajectories(out)
    assert rows and len({r["id"] for r in rows}) == len(rows)
    assert any(k.startswith("implausible_") for k in a), a  # the fixture's TM-coordinate subjects, at least
    rejected = [json.loads(x) for x in (out / "rejected.jsonl").read_text().splitlines()]
    assert any(r["reason"] == "implausible_opaque_subject" for r in rejected)
    assert not [r["query"] for r in rows if re.search(r"TM [XY]좌표|경도|위도", r["query"])]
    fresh = tmp_path / "fresh"
    asyncio.run(synthesize(vg, e, fresh, n_per_shape=3, chunk=2, decon=Decontaminator([])))
    assert [r["id"] for r in load_trajectories(fresh)] == [r["id"] for r in rows]  # deterministic


def test_llm_paraphraser_against_local_fake_server():
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    from edge_synth.queries import paraphrase_llm

    class H(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            assert body["messages"][-1]["content"] == "원문"
            out = json.dumps({"choices": [{"message": {"content": "바꾼 문장"}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *a):
            pass

    srv = HTTPServer(("127.0.0.1", 0), H)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    try:
        assert paraphrase_llm("원문", f"http://127.0.0.1:{srv.server_port}/v1", "m") == "바꾼 문장"
        assert paraphrase_llm("원문", "http://127.0.0.1:1/v1", "m", timeout=1, max_retries=0) == "원문"
    finally:
        srv.shutdown()


def test_sft_config_trains_with_trl_as_loaded(synth_env, tmp_path, monkeypatch):
    """The `sft` config is TRL's conversational format: `load_dataset` gives real lists (messages with
    tool_calls, platforms) and `trl.SFTTrainer` trains 2 steps on it as loaded, as does train/sft.py."""
    import datasets
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    from builders.edge_dataset import build_dataset, graph_rows
    from edge_synth.export import Decontaminator
    from edge_synth.synth import load_trajectories, synthesize
    from kopa_bench.testing.tiny_model import build_tiny_model

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    vg, e = synth_env
    asyncio.run(synthesize(vg, e, tmp_path / "traj", n_per_shape=2, chunk=3, decon=Decontaminator([]), plausible=None))  # the small fixture: not the plausibility filter under test
    trajectories = load_trajectories(tmp_path / "traj")
    folder = tmp_path / "edge-trajectories"
    build_dataset(trajectories, graph_rows(vg), folder, seed=0)
    sft = datasets.load_dataset(str(folder), "sft", split="train", cache_dir=str(tmp_path / "hfc"))
    assert len(sft) >= 2

    by_id = {t["id"]: t for t in trajectories}
    for row in sft:
        assert isinstance(row["platforms"], list) and row["platforms"] == by_id[row["id"]]["platforms"]
        msgs = row["messages"]
        assert isinstance(msgs, list) and [m["role"] for m in msgs[:2]] == ["system", "user"]
        assert msgs[-1]["role"] == "assistant" and msgs[-1]["content"] and not msgs[-1]["tool_calls"]
        calls = [c for m in msgs if m["role"] == "assistant" for c in (m["tool_calls"] or [])]
        assert len(calls) == row["n_calls"] or row["shape"] == "conditional"  # an untaken branch is not called
        for c in calls:
            assert c["type"] == "function" and isinstance(json.loads(c["function"]["arguments"]), dict)
        # every call is answered by a tool message naming it
        answered = {m["tool_call_id"]: m["name"] for m in msgs if m["role"] == "tool"}
        assert {c["id"]: c["function"]["name"] for c in calls} == answered
        offered = [t["function"]["name"] for t in json.loads(row["tools"])]
        assert offered == by_id[row["id"]]["task"]["tools"] and {c["function"]["name"] for c in calls} <= set(offered)

    model_dir = build_tiny_model(tmp_path / "tiny")
    tok = AutoTokenizer.from_pretrained(str(model_dir))
    model = AutoModelForCausalLM.from_pretrained(str(model_dir))
    args = SFTConfig(output_dir=str(tmp_path / "o"), max_steps=2, per_device_train_batch_size=1, learning_rate=1e-3,
                     max_length=8192, assistant_only_loss=True, use_cpu=True, bf16=False, report_to="none",
                     save_strategy="no", logging_steps=1, seed=0)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    trainer = SFTTrainer(model=model, args=args, train_dataset=sft, processing_class=tok)
    # TRL rendered the tool calls and tool results through the chat template, and labels the calls
    first = trainer.train_dataset[0]
    text = tok.decode(first["input_ids"])
    assert "<tool_call>" in text and "<tool_response>" in text and "# Tools" in text
    labelled = tok.decode([t for t, lab in zip(first["input_ids"], first["labels"]) if lab != -100])
    assert "<tool_call>" in labelled and "<tool_response>" not in labelled
    trainer.train()
    assert trainer.state.global_step == 2
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    assert len(losses) == 2 and all(l == l and l > 0 for l in losses)  # finite, not NaN
    assert any(not torch_equal(p, before[n]) for n, p in model.named_parameters())

    # train/sft.py reads the same folder and config without any conversion
    from train.sft import build_trainer, parse_args

    script_args, training_args, model_args = parse_args([
        "--config", "train/recipes/tiny-cpu/sft.yaml", "--dataset_name", str(folder), "--dataset_config", "sft",
        "--output_dir", str(tmp_path / "o2"), "--max_steps", "2", "--per_device_train_batch_size", "1"])
    t2 = build_trainer(script_args, training_args, model_args)
    assert len(t2.train_dataset) == len(sft)
    t2.train()
    assert t2.state.global_step == 2


def torch_equal(a, b) -> bool:
    import torch

    return torch.equal(a.detach(), b)

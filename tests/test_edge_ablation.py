"""EDGE's unverified-graph ablation: walks kept as they come (`keep_failures`), on a tiny graph whose
second link binds a field whose values never match, and `kopa edge synth --graph candidates
--keep-failures --trajectories DIR`. Runs on the FakeClient fixture of tests/test_edge.py."""

from __future__ import annotations

import asyncio
import json

import networkx as nx
import pytest
from typer.testing import CliRunner

from kopa_bench.catalog import get_catalog
from tests.test_edge import CTP, LST, NEAR, RT, TM, _Sub, fake

NOTHING = "결과가 없었"  # edge_synth.answers: the closing answer of a walk that found nothing


@pytest.fixture(scope="module")
def cat():
    return _Sub(get_catalog(), [TM, NEAR, RT, CTP, LST])


@pytest.fixture(scope="module")
def candidates(cat):
    from edge_synth.candidates import build_candidate_graph

    return build_candidate_graph(cat)


@pytest.fixture(scope="module")
def broken(candidates):
    """TM -> NEAR by the coordinates (connects), NEAR -> RT by the station's address into
    stationName: a link no verification would keep, since no station is named by its address."""
    g = nx.DiGraph()
    for n in (TM, NEAR, RT):
        g.add_node(n, **candidates.nodes[n])
    g.add_edge(TM, NEAR, **candidates.edges[TM, NEAR])
    (good,) = candidates.edges[NEAR, RT]["bindings"]
    assert good["from_field"] == "stationName"
    g.add_edge(NEAR, RT, **{**candidates.edges[NEAR, RT],
                            "bindings": [{**good, "from_field": "addr", "from_kind": "address"}]})
    return g


class Env:
    """What synthesize needs of an EdgePipeline: catalog, sampler, executor."""

    def __init__(self, cat, default: str):
        from edge_synth.bootstrap import bootstrap_samples
        from edge_synth.env import ProbeExecutor
        from edge_synth.seeds import SeedSampler

        client = fake()
        client.default = default  # "error": a call nothing answers is an argument error
        client.routes = [r for r in client.routes if not (r.tool == RT and not r.args)]  # RT knows its stations only
        self.catalog, self.executor, self.sampler = cat, ProbeExecutor(client), SeedSampler(cat, seed=0)
        asyncio.run(bootstrap_samples(self.executor, self.sampler, cat, rounds=2, per_tool=2))


def builds(g, env, keep: bool, n: int = 20) -> dict[str, dict | None]:
    from edge_synth.shapes import Synthesizer

    syn = Synthesizer(g, env.catalog, env.sampler, env.executor, seed=0, keep_failures=keep)
    return {f"t{i}": asyncio.run(syn.build("sequential", f"t{i}")) for i in range(n)}


@pytest.mark.parametrize("default", ["nodata", "error"])
def test_failed_walks_are_kept_only_when_asked(default, cat, broken) -> None:
    """The same attempts with and without keep_failures: the walks that succeed are the same; the
    ones through the broken link are rejected (None) as before, or kept with a `failure`."""
    env = Env(cat, default)
    strict, kept = builds(broken, env, keep=False), builds(broken, env, keep=True)
    failed = {tid for tid, t in kept.items() if t is not None and t.get("failure")}
    assert failed and len(failed) < len(kept)  # the fixture has both kinds of walk
    for tid, t in kept.items():
        if tid in failed:
            assert strict[tid] is None
            assert [s["tool"] for s in t["task"]["program"]] == [NEAR, RT]  # through the broken link
            assert t["n_calls"] == 2 and len(t["run"].executed) == 2
            assert t["facts"] and all(f["tool"] == RT and f["resolved"] is None for f in t["facts"])
        else:
            assert t is not None and strict[tid] is not None and "failure" not in t
            assert t["task"] == strict[tid]["task"] and t["facts"] == strict[tid]["facts"]
    for tid in failed:
        t = kept[tid]
        last = t["run"].executed[-1]
        assert last.tool == RT and last.args["stationName"].startswith("서울 ")  # an address, not a station
        if default == "error":  # the call failed: the run stopped there, the error result kept
            assert not last.ok and last.result.error.type == "argument"
            assert t["run"].stopped and t["failure"] == t["run"].stopped and "step s2" in t["failure"]
        else:  # the call answered nothing: the run completed, the data did not answer
            assert last.ok and last.records == [] and t["run"].stopped is None
            assert t["failure"] == "a step returned no usable records"


@pytest.mark.parametrize("default", ["nodata", "error"])
def test_synthesize_keeps_failures_as_rows_and_counts_them(default, cat, broken, tmp_path) -> None:
    from edge_synth.export import Decontaminator
    from edge_synth.synth import load_trajectories, synthesize

    env = Env(cat, default)
    kw = dict(n_per_shape=6, chunk=3, decon=Decontaminator([]), plausible=None, shapes=["sequential"])
    audit = asyncio.run(synthesize(broken, env, tmp_path / "kept", keep_failures=True, **kw))
    rows = load_trajectories(tmp_path / "kept")
    bad = [r for r in rows if "failure" in r]
    assert bad and len(bad) < len(rows)
    on_disk = json.loads((tmp_path / "kept" / "synth_audit.json").read_text(encoding="utf-8"))
    assert audit["kept_failures"] == on_disk["kept_failures"] == len(bad)
    for r in bad:
        msgs = r["messages"]
        assert msgs[-1]["role"] == "assistant" and NOTHING in msgs[-1]["content"] and not msgs[-1].get("tool_calls")
        assert msgs[-1]["content"].endswith(("없었어.", "없었습니다."))
        calls = [c for m in msgs if m["role"] == "assistant" for c in (m.get("tool_calls") or [])]
        assert [c["function"]["name"] for c in calls] == [NEAR, RT]
        last_tool = [m for m in msgs if m["role"] == "tool"][-1]
        assert last_tool["name"] == RT
        if default == "error":  # the model is shown the error result it got
            assert "no canned result" in last_tool["content"] and r["failure"].startswith("task edge-sequential-")
        assert r["query"] and r["n_calls"] == 2
    for r in rows:
        if "failure" not in r:
            assert NOTHING not in r["messages"][-1]["content"]

    strict = asyncio.run(synthesize(broken, env, tmp_path / "strict", **kw))
    rows = load_trajectories(tmp_path / "strict")
    assert rows and not [r for r in rows if "failure" in r or NOTHING in r["messages"][-1]["content"]]
    assert "kept_failures" not in strict and strict["failed_build"] > 0
    rejected = [json.loads(x) for x in (tmp_path / "strict" / "rejected.jsonl").read_text().splitlines()]
    kept_ids = {r["id"] for r in bad}
    assert kept_ids <= {x["id"] for x in rejected if x["reason"] == "failed_build"}  # the same walks, rejected


# -- kopa edge synth --graph candidates --keep-failures --trajectories DIR --------------------------

@pytest.fixture()
def edge_cli(cat, candidates, tmp_path, monkeypatch):
    """An EDGE folder holding the fixture's candidate graph (no verified.json), with the pipeline on
    the fixture's tools and FakeClient, and synthesize spied on (every executable request kept: the
    five-tool fixture has few plausible ones)."""
    import edge_synth.pipeline as pipeline
    import edge_synth.synth as synth
    from edge_synth.candidates import save_graph

    out = tmp_path / "edge"
    out.mkdir()
    save_graph(candidates, out / "candidates.json")
    real_pipeline, real_synth = pipeline.EdgePipeline, synth.synthesize
    seen: list[dict] = []

    client = fake()

    async def aclose() -> None:  # the pipeline closes its client when done
        pass

    client.aclose = aclose

    def pipe(**kw):
        return real_pipeline(catalog=cat, client=client, **kw)

    async def spy(vg, e, out_dir, *a, **kw):
        seen.append({"graph": vg, "out_dir": out_dir, **kw})
        return await real_synth(vg, e, out_dir, *a, **{**kw, "plausible": None})

    monkeypatch.setattr(pipeline, "EdgePipeline", pipe)
    monkeypatch.setattr(synth, "synthesize", spy)
    return out, seen


def test_cli_synth_walks_the_candidate_graph_keeping_failures(edge_cli, candidates, tmp_path) -> None:
    from edge_synth.synth import load_trajectories
    from kopa_bench.cli import app

    out, seen = edge_cli
    traj = tmp_path / "unverified"
    res = CliRunner().invoke(app, ["edge", "synth", "--out", str(out), "--graph", "candidates", "--keep-failures",
                                   "--trajectories", str(traj), "--per-shape", "2", "--dataset", str(tmp_path / "ds")])
    assert res.exit_code == 0, res.output
    (call,) = seen
    assert call["keep_failures"] is True and call["out_dir"] == traj
    assert set(call["graph"].edges) == set(candidates.edges)
    rows = load_trajectories(traj)
    assert rows and not (out / "trajectories").exists()  # --trajectories, not the default folder
    bad = [r for r in rows if "failure" in r]
    assert bad and all(NOTHING in r["messages"][-1]["content"] for r in bad)
    assert json.loads((traj / "synth_audit.json").read_text())["kept_failures"] == len(bad)
    # the dataset is built from the kept rows, failures included
    manifest = json.loads((tmp_path / "ds" / "MANIFEST.json").read_text())
    assert sum(manifest["counts"].values()) == len(rows) and manifest["hash"] in res.output

    # the default is still the verified graph, without failures, into out/trajectories
    res = CliRunner().invoke(app, ["edge", "synth", "--out", str(out), "--per-shape", "2"])
    assert res.exit_code == 2 and "verified.json" in "".join(res.output.split()) and "kopa edge verify" in res.output


def test_cli_synth_names_a_bad_graph_and_a_missing_candidate_graph(edge_cli, tmp_path) -> None:
    from kopa_bench.cli import app

    out, seen = edge_cli
    res = CliRunner().invoke(app, ["edge", "synth", "--out", str(out), "--graph", "verifed"])
    said = " ".join(res.output.split())
    assert res.exit_code == 2 and "verifed" in said and "verified or candidates" in said, res.output
    empty = tmp_path / "empty"
    empty.mkdir()
    res = CliRunner().invoke(app, ["edge", "synth", "--out", str(empty), "--graph", "candidates"])
    assert res.exit_code == 2 and "candidates.json" in "".join(res.output.split()) and "kopa edge graph" in res.output
    assert seen == []  # nothing was synthesized


def test_a_failure_answer_names_the_last_call_made_not_the_last_planned(cat) -> None:
    """A walk TM -> NEAR -> RT whose first call answers nothing stops before NEAR: its closing
    answer says what was looked up (the TM coordinates), not the station readings never asked for."""
    from edge_synth.answers import answer_text
    from edge_synth.queries import topic
    from kopa_bench.tasks import Task
    from kopa_bench.tasks.program import execute_program
    from kopa_bench.testing.fake_client import FakeClient

    program = [{"id": "s1", "tool": TM, "args": {"umdName": "없는동"}, "group": 0},
               {"id": "s2", "tool": NEAR, "args": {"tmX": "$s1.items[0].tmX", "tmY": "$s1.items[0].tmY"}, "group": 1},
               {"id": "s3", "tool": RT, "args": {"stationName": "$s2.items[0].stationName"}, "group": 2}]
    draft = {"id": "t", "split": "dev", "query": "(draft)", "domain": "district", "platforms": ["airkorea"],
             "shape": "sequential", "difficulty": "easy", "tools": [TM, NEAR, RT, CTP, LST], "program": program,
             "answer": [{"id": "f0", "description": "draft", "value": "$s1.total_count", "kind": "number"}]}
    run = asyncio.run(execute_program(Task.model_validate(draft), FakeClient([]), partial=True))
    assert [s.tool for s in run.executed] == [TM] and run.stopped
    traj = {"task": draft, "run": run, "facts": [], "failure": run.stopped}
    for register in ("banmal", "jondae"):
        said = answer_text(traj, cat, register)
        assert NOTHING in said and topic(cat, TM) in said and topic(cat, RT) not in said, said

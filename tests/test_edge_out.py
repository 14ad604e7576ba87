"""One EDGE output folder (setting KOPA_EDGE_OUT): the `kopa edge` commands, the edge-trajectories
builder and the Space's EDGE tab all default to it."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def edge_out(tmp_path, monkeypatch):
    out = tmp_path / "edge-here"
    monkeypatch.setenv("KOPA_EDGE_OUT", str(out))
    monkeypatch.syspath_prepend(str(ROOT / "space"))
    return out


def test_default_is_one_folder(monkeypatch):
    from kopa_bench.settings import get_settings

    monkeypatch.delenv("KOPA_EDGE_OUT", raising=False)
    assert get_settings().edge_out == Path("out/edge")


def test_cli_and_space_read_the_same_place(edge_out):
    from kopa_bench.cli import app
    from kopa_bench.cli.edge_cmd import edge_out as cli_out
    from kopa_space.edge_tab import default_paths, load_edge

    assert cli_out(None) == edge_out
    graph, stats = default_paths()
    assert Path(graph) == edge_out / "verified.json" and Path(stats) == edge_out / "verify_summary.json"

    # with nothing there yet, the CLI names the folder it looked in and the command that fills it
    res = CliRunner().invoke(app, ["edge", "stats"])
    assert res.exit_code == 2
    said = " ".join(res.output.split())
    assert str(edge_out / "candidates.json") in "".join(res.output.split())  # Rich may wrap the long path
    assert "does not exist" in said and "kopa edge verify" in said
    res = CliRunner().invoke(app, ["edge", "synth"])
    assert res.exit_code == 2 and str(edge_out / "verified.json") in "".join(res.output.split())

    # what `kopa edge verify` writes there (its own writer) is what the Space shows by default
    from edge_synth.candidates import save_graph

    g = nx.DiGraph()
    g.add_node("airkorea_getTMStdrCrdnt", platform="data_go_kr", domain="district")
    g.add_node("airkorea_getNearbyMsrstnList", platform="data_go_kr", domain="district")
    g.add_edge("airkorea_getTMStdrCrdnt", "airkorea_getNearbyMsrstnList", posterior=0.9, prior=0.5, cross_domain=False,
               bindings=[{"from_field": "tmX", "to_param": "tmX"}])
    edge_out.mkdir(parents=True)
    save_graph(g, edge_out / "verified.json")
    (edge_out / "verify_summary.json").write_text('{"verified_edges": 1}', encoding="utf-8")
    fig, _, _, stats_json, note, _, _ = load_edge(graph, stats, "(all)", "(all)", 0)
    assert fig is not None and "2 tools, 1 verified links" in note and stats_json == {"verified_edges": 1}


def test_dataset_builder_reads_the_same_place(edge_out, monkeypatch, tmp_path):
    """`kopa data build edge-trajectories` runs (or resumes) the EDGE run in KOPA_EDGE_OUT."""
    import edge_synth.pipeline as pipeline
    from builders.edge_dataset import build

    seen = []

    class Stop(Exception):
        pass

    def fake_verify(run, *a, **kw):  # the builder's first step when the folder has no verified.json
        seen.append(Path(run))
        raise Stop

    monkeypatch.setattr(pipeline, "run_graph_and_verify", fake_verify)
    with pytest.raises(Stop):
        build(tmp_path / "dataset")
    assert seen == [edge_out]

"""EDGE tab: the verified tool graph (node-link JSON from edge_synth) and synthesis statistics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gradio as gr
import networkx as nx

from .errors import explain
from .graphs import tool_graph_figure
from kopa_bench.settings import get_settings

ALL = "(all)"
EDGE_HEADERS = ["from tool", "to tool", "bindings (field → param [transform])", "posterior", "prior", "cross-domain"]


def default_paths() -> tuple[str, str]:
    """The verified graph and its summary in the EDGE output folder `kopa edge verify` writes (KOPA_EDGE_OUT)."""
    out = get_settings().edge_out
    return str(out / "verified.json"), str(out / "verify_summary.json")


def read_graph(path: str) -> nx.DiGraph:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    # networkx >= 3.4 writes "edges" by default; edge_synth writes "links".
    key = "links" if "links" in data else "edges"
    g = nx.node_link_graph(data, directed=True, edges=key)
    for n, d in g.nodes(data=True):  # older graphs may lack attributes: derive from the tool name
        d.setdefault("platform", str(n).split("_", 1)[0])
        d.setdefault("domain", "?")
    return g


def _flatten(d: Any, prefix: str = "") -> list[list[str]]:
    rows = []
    if isinstance(d, dict):
        for k, v in d.items():
            rows += _flatten(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(d, list) and len(d) > 8:
        rows.append([prefix, f"[{len(d)} items]"])
    else:
        rows.append([prefix, json.dumps(d, ensure_ascii=False) if not isinstance(d, str) else d])
    return rows


def load_edge(graph_path: str, stats_path: str, platform: str, domain: str, min_posterior: float):
    notes: list[str] = []
    fig, edge_rows, choices_p, choices_d = None, [], [ALL], [ALL]
    if not graph_path or not Path(graph_path).is_file():
        notes.append(f"**검증된 도구 그래프가 아직 없습니다.** / No verified tool graph at `{graph_path or '(empty)'}`. "
                     "Build one with `kopa edge verify` (it writes the folder `KOPA_EDGE_OUT`, default `out/edge`, that this tab reads) "
                     "or point the box above to a node-link JSON.")
    else:
        try:
            g = read_graph(graph_path)
            choices_p += sorted({str(d["platform"]) for _, d in g.nodes(data=True)})
            choices_d += sorted({str(d["domain"]) for _, d in g.nodes(data=True)})
            keep = [n for n, d in g.nodes(data=True)
                    if (platform in (None, ALL) or str(d["platform"]) == platform) and (domain in (None, ALL) or str(d["domain"]) == domain)]
            # An edge stays when either end matches, so a platform's links to others remain visible.
            sub = nx.DiGraph()
            keep_set = set(keep)
            for u, v, d in g.edges(data=True):
                post = d.get("posterior")
                if (u in keep_set or v in keep_set) and (post is None or post >= (min_posterior or 0)):
                    sub.add_node(u, **g.nodes[u])
                    sub.add_node(v, **g.nodes[v])
                    sub.add_edge(u, v, **d)
            # Tools without a verified link are listed in the count but not drawn (they only add clutter).
            fig = tool_graph_figure(sub)
            for u, v, d in sorted(sub.edges(data=True), key=lambda e: -(e[2].get("posterior") or e[2].get("prior") or 0)):
                binds = "; ".join(f"{b.get('from_field')} → {b.get('to_param')}" + (f" [{b['transform']}]" if b.get("transform") else "")
                                  for b in (d.get("bindings") or [])[:4])
                edge_rows.append([u, v, binds, d.get("posterior"), d.get("prior"), d.get("cross_domain")])
            notes.append(f"{g.number_of_nodes()} tools, {g.number_of_edges()} verified links; {len(keep)} tools match the filter, "
                         f"{sub.number_of_nodes()} of them (with their partners) drawn with {sub.number_of_edges()} links.")
        except Exception as exc:
            notes.append(explain(exc))
    stats_rows, stats = [], {}
    if stats_path and Path(stats_path).is_file():
        try:
            stats = json.loads(Path(stats_path).read_text(encoding="utf-8"))
            stats_rows = _flatten(stats)
        except Exception as exc:
            notes.append(explain(exc))
    else:
        notes.append(f"No synthesis statistics at `{stats_path or '(empty)'}` (`kopa edge verify` writes them beside the graph).")
    return (fig, gr.update(value=edge_rows, headers=EDGE_HEADERS), gr.update(value=stats_rows, headers=["statistic", "value"]),
            stats, "\n\n".join(notes), gr.update(choices=choices_p), gr.update(choices=choices_d))


def build_edge_tab(demo: gr.Blocks) -> None:
    gpath, spath = default_paths()
    gr.Markdown("EDGE synthesises training trajectories from a **verified tool graph**: an edge A → B means an output "
                "field of A was shown, by real calls, to work as an input of B.")
    with gr.Row():
        graph_path = gr.Textbox(value=gpath, label="Verified graph (node-link JSON)", scale=3)
        stats_path = gr.Textbox(value=spath, label="Synthesis statistics (JSON)", scale=3)
        load = gr.Button("Load", scale=1)
    with gr.Row():
        platform = gr.Dropdown([ALL], value=ALL, label="Platform")
        domain = gr.Dropdown([ALL], value=ALL, label="Domain")
        min_post = gr.Slider(0, 1, value=0, step=0.05, label="Min posterior")
    note = gr.Markdown(elem_id="kopa-edge-note")
    fig = gr.Plot(label="Tool graph")
    edges = gr.Dataframe(headers=EDGE_HEADERS, interactive=False, wrap=True, max_height=300)
    with gr.Row():
        stats_table = gr.Dataframe(headers=["statistic", "value"], interactive=False, max_height=300)
        stats_json = gr.JSON(label="stats.json")
    ins = [graph_path, stats_path, platform, domain, min_post]
    outs = [fig, edges, stats_table, stats_json, note, platform, domain]
    load.click(load_edge, ins, outs, api_name="edge")
    for c in (platform, domain, min_post):
        c.change(load_edge, ins, outs, api_name=False)
    demo.load(load_edge, ins, outs, api_name=False)

"""Drawings: a task's gold program (calls -> references) and the EDGE tool graph.

matplotlib runs headless (Agg); figures are returned to Gradio's gr.Plot and closed by it.
Korean labels need a CJK font; the first installed one of FONT_CANDIDATES is used.
"""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402
from matplotlib import font_manager  # noqa: E402

FONT_CANDIDATES = ("Noto Sans CJK KR", "Noto Sans KR", "NanumGothic", "Noto Sans CJK JP", "Droid Sans Fallback")
_font_done = False


def _use_cjk_font() -> None:
    global _font_done
    if _font_done:
        return
    names = {f.name for f in font_manager.fontManager.ttflist}
    for cand in FONT_CANDIDATES:
        if cand in names:
            plt.rcParams["font.family"] = [cand, "DejaVu Sans"]
            break
    _font_done = True


def program_graph(task) -> nx.DiGraph:
    """Steps as nodes, one edge per reference (labelled with the argument it feeds)."""
    from kopa_bench.tasks.refs import iter_refs

    g = nx.DiGraph()
    for s in task.program:
        g.add_node(s.id, tool=s.tool, group=s.group, conditional=s.condition is not None, pick=s.pick is not None)
    for s in task.program:
        for arg, expr in s.args.items():
            for ref in iter_refs(expr):
                if g.has_edge(ref.step, s.id):
                    g[ref.step][s.id]["args"].append(arg)
                else:
                    g.add_edge(ref.step, s.id, args=[arg], path=ref.raw)
        if s.condition is not None:
            for ref in iter_refs([s.condition.ref, s.condition.value]):
                g.add_edge(ref.step, s.id, args=["if"], path=ref.raw)
    return g


def program_figure(task):
    _use_cjk_font()
    g = program_graph(task)
    # Layered left-to-right by group: independent calls of one group stack vertically.
    groups: dict[int, list[str]] = {}
    for n, d in g.nodes(data=True):
        groups.setdefault(d["group"], []).append(n)
    pos = {}
    for x, grp in enumerate(sorted(groups)):
        members = groups[grp]
        for i, n in enumerate(members):
            pos[n] = (x, (len(members) - 1) / 2 - i)
    width = max(6, 3.2 * len(groups))
    fig, ax = plt.subplots(figsize=(width, max(2.8, 1.3 * max(len(m) for m in groups.values()))))
    colors = ["#f6c177" if d["conditional"] else "#9ccfd8" for _, d in g.nodes(data=True)]
    nx.draw_networkx_nodes(g, pos, ax=ax, node_color=colors, node_size=1600, edgecolors="#333")
    nx.draw_networkx_labels(g, pos, ax=ax, labels={n: n for n in g}, font_weight="bold")
    for n, (x, y) in pos.items():
        tool = g.nodes[n]["tool"]
        ax.text(x, y - 0.32, tool.split("_", 1)[-1], ha="center", va="top", fontsize=8)
        ax.text(x, y + 0.3, tool.split("_", 1)[0], ha="center", va="bottom", fontsize=7, color="#555")
    nx.draw_networkx_edges(g, pos, ax=ax, arrows=True, arrowsize=18, node_size=1600, edge_color="#555")
    nx.draw_networkx_edge_labels(g, pos, ax=ax, font_size=7,
                                 edge_labels={(u, v): ", ".join(d["args"]) for u, v, d in g.edges(data=True)})
    ax.set_title(f"{task.id} · {task.shape}", fontsize=10)
    ax.axis("off")
    ax.margins(0.25, 0.35)
    fig.tight_layout()
    return fig


def program_mermaid(task) -> str:
    g = program_graph(task)
    lines = ["```mermaid", "flowchart LR"]
    for n, d in g.nodes(data=True):
        shape = ("{{", "}}") if d["conditional"] else ("[", "]")
        lines.append(f'  {n}{shape[0]}"{n}: {d["tool"]}"{shape[1]}')
    for u, v, d in g.edges(data=True):
        lines.append(f'  {u} -->|{", ".join(d["args"])}| {v}')
    lines.append("```")
    return "\n".join(lines)


def tool_graph_figure(g: nx.DiGraph, color_by: str = "platform", max_nodes: int = 120):
    """The EDGE tool graph: tools as nodes (coloured by platform), verified links as edges."""
    _use_cjk_font()
    if g.number_of_nodes() > max_nodes:  # keep the best-connected part readable
        keep = sorted(g.nodes, key=lambda n: g.degree(n), reverse=True)[:max_nodes]
        g = g.subgraph(keep).copy()
    fig, ax = plt.subplots(figsize=(11, 7.5))
    if g.number_of_nodes() == 0:
        ax.text(0.5, 0.5, "no nodes match the filter", ha="center", va="center")
        ax.axis("off")
        return fig
    cats = sorted({str(d.get(color_by, "?")) for _, d in g.nodes(data=True)})
    cmap = plt.get_cmap("tab20")
    col = {c: cmap(i % 20) for i, c in enumerate(cats)}
    pos = nx.spring_layout(g, seed=7, k=1.4 / max(1, g.number_of_nodes()) ** 0.5)
    nx.draw_networkx_nodes(g, pos, ax=ax, node_size=260, node_color=[col[str(d.get(color_by, "?"))] for _, d in g.nodes(data=True)])
    nx.draw_networkx_edges(g, pos, ax=ax, arrows=True, arrowsize=10, alpha=0.5, node_size=260)
    nx.draw_networkx_labels(g, pos, ax=ax, font_size=6, labels={n: str(n).split("_", 1)[-1] for n in g})
    for c in cats:
        ax.scatter([], [], color=col[c], label=c)
    ax.legend(loc="upper left", fontsize=7, frameon=False, title=color_by)
    ax.axis("off")
    fig.tight_layout()
    return fig


def bar_figure(groups: dict[str, dict[str, dict[str, Any]]], title: str, metric: str = "success"):
    """Grouped bars: one bar per (group value, model), with CI whiskers when present."""
    _use_cjk_font()
    models = list(groups)
    cats = sorted({c for per in groups.values() for c in per})
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(cats) * max(1, len(models)) ** 0.5), 3.6))
    if not cats:
        ax.text(0.5, 0.5, f"no {title} breakdown in these results", ha="center", va="center")
        ax.axis("off")
        return fig
    w = 0.8 / max(1, len(models))
    for i, m in enumerate(models):
        xs, ys, lo, hi = [], [], [], []
        for j, c in enumerate(cats):
            s = groups[m].get(c, {}).get(metric)
            if not s:
                continue
            xs.append(j + i * w - 0.4 + w / 2)
            ys.append(s["mean"])
            lo.append(max(0.0, s["mean"] - s.get("ci_low", s["mean"])))
            hi.append(max(0.0, s.get("ci_high", s["mean"]) - s["mean"]))
        ax.bar(xs, ys, width=w, label=m, yerr=[lo, hi], capsize=2)
    ax.set_xticks(range(len(cats)), cats, rotation=20, fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(metric)
    ax.set_title(f"{metric} by {title}", fontsize=10)
    ax.legend(fontsize=7, frameon=False)
    fig.tight_layout()
    return fig

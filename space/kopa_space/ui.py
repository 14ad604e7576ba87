"""build_demo(): the four tabs in one Blocks. Nothing heavy happens until a tab asks for it."""

from __future__ import annotations

import gradio as gr

from .agent_tab import build_agent_tab
from .bench_tab import build_bench_tab
from .edge_tab import build_edge_tab
from .leaderboard_tab import build_leaderboard_tab

TITLE = "KOPA · Korean public API agents"
# Table headers break between words, never inside one (Gradio's wrapping breaks anywhere).
CSS = "table th, table th span { word-break: keep-all; overflow-wrap: normal; hyphens: none; }"
INTRO = ("**KOPA** measures and trains LLM agents that chain calls to Korean public open APIs "
         "(data.go.kr and friends). Tool calls run against an embedded sandbox that reproduces each API's protocol, "
         "or against the real APIs with your own key.")


def build_demo() -> gr.Blocks:
    with gr.Blocks(title=TITLE) as demo:
        gr.Markdown(f"# {TITLE}\n{INTRO}")
        with gr.Tabs():
            with gr.Tab("Agent", id="agent"):
                build_agent_tab()
            with gr.Tab("Benchmark", id="benchmark"):
                build_bench_tab(demo)
            with gr.Tab("Leaderboard", id="leaderboard"):
                build_leaderboard_tab(demo)
            with gr.Tab("EDGE", id="edge"):
                build_edge_tab(demo)
    demo.queue(default_concurrency_limit=4)
    return demo

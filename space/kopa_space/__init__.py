"""The KOPA Gradio Space: agent trace viewer, task explorer, leaderboard and EDGE graph."""

from .ui import CSS, build_demo

__all__ = ["CSS", "build_demo"]

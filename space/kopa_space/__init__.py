"""The KOPA Gradio Space: agent trace viewer, task explorer, leaderboard and EDGE graph."""

from .ui import build_demo

__all__ = ["build_demo"]

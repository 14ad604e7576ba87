"""Leaderboard tab: score files / run folders -> sortable table with CIs, plots by shape and domain."""

from __future__ import annotations

import os

import gradio as gr

from . import bfcl_board
from .errors import explain
from .graphs import bar_figure
from .results import breakdown, discover, load_result, table
from kopa_bench.settings import get_settings

DEFAULT_DIRS = ("results", "runs")


def default_results_dir() -> str:
    env = get_settings().space_results
    if env:
        return str(env)
    return next((d for d in DEFAULT_DIRS if os.path.isdir(d)), DEFAULT_DIRS[0])


def build_leaderboard(folder: str, uploads: list | None):
    paths = list(discover(folder)) if folder else []
    for u in uploads or []:
        paths.append(getattr(u, "name", u))
    paths = [p for p in paths if not bfcl_board.is_bfcl(p)]  # shown in the BFCL table below
    results, problems = [], []
    for p in paths:
        try:
            results.append(load_result(p))
        except Exception as exc:
            problems.append(f"- `{os.path.basename(str(p))}`: {exc}")
    if not results:
        msg = (f"**결과 파일이 없습니다.** / No results found in `{folder or '(none)'}`. This table loads the JSON of "
               "`kopa bench score RUN --json > results/<model>.json` (like the repo's `docs/results/*.score.json`), "
               "`kopa bench run --out results/<model>` folders (scored here) and `scores.jsonl` files "
               "(`kopa bench score RUN --scores-out`). Set the folder above or with `KOPA_SPACE_RESULTS`, or upload files.")
        if problems:
            msg += "\n\n" + "\n".join(problems)
        return gr.update(value=[], headers=["model"]), msg, None, None
    headers, rows = table(results)
    msg = f"{len(results)} result set(s); sort by clicking a column header. Values are means of per-task means with 95% bootstrap CIs."
    partial = [r for r in results if r.status.startswith("INCOMPLETE")]
    if partial:
        msg += (f"\n\n**{len(partial)} incomplete run(s)** ({', '.join(r.model for r in partial)}): episodes missing or "
                "torn, or ended by infra errors (the model server or harness failed); their numbers cover only what "
                "finished. Rerun the `kopa bench run` command to complete them.")
    if any(r.completeness is None for r in results):
        msg += "\n\n`run` = *not recorded*: a score file written before runs were checked for completeness."
    if problems:
        msg += "\n\nSkipped:\n" + "\n".join(problems)
    return (gr.update(value=rows, headers=headers), msg,
            bar_figure(breakdown(results, "shape"), "shape"), bar_figure(breakdown(results, "domain"), "domain"))


def build_bfcl_board(folder: str, uploads: list | None):
    """The BFCL v4 table (BFCL score / leaderboard files in the same folder and uploads)."""
    paths = list(bfcl_board.discover(folder)) if folder else []
    paths += [getattr(u, "name", u) for u in uploads or [] if bfcl_board.is_bfcl(getattr(u, "name", u))]
    rows = bfcl_board.collect(paths)
    if not rows:
        return (gr.update(value=[], headers=["model"]),
                bfcl_board.NOTE + "\n\nNo BFCL results here: `kopa bfcl score RUN --json > results/bfcl-<model>-<category>.json` "
                "or `kopa bfcl report RUNS... --out results/`.")
    headers, table_rows = bfcl_board.table(rows)
    return gr.update(value=table_rows, headers=headers), bfcl_board.NOTE


def _safe_bfcl(folder, uploads):
    try:
        return build_bfcl_board(folder, uploads)
    except Exception as exc:
        return gr.update(value=[]), explain(exc)


def _safe(folder, uploads):
    try:
        return build_leaderboard(folder, uploads)
    except Exception as exc:
        return gr.update(value=[]), explain(exc), None, None


def build_leaderboard_tab(demo: gr.Blocks) -> None:
    with gr.Row():
        folder = gr.Textbox(value=default_results_dir, label="Results folder (score JSON files or run folders)", scale=3)
        uploads = gr.File(label="…or upload score files", file_count="multiple", file_types=[".json", ".jsonl"], scale=2)
        refresh = gr.Button("Load", scale=1)
    note = gr.Markdown(elem_id="kopa-lb-note")
    board = gr.Dataframe(interactive=False, wrap=True, elem_id="kopa-leaderboard")
    with gr.Row():
        by_shape = gr.Plot(label="Success by shape")
        by_domain = gr.Plot(label="Success by domain")
    outs = [board, note, by_shape, by_domain]
    refresh.click(_safe, [folder, uploads], outs, api_name="leaderboard")
    uploads.change(_safe, [folder, uploads], outs, api_name=False)
    demo.load(_safe, [folder, uploads], outs, api_name=False)
    gr.Markdown("### BFCL v4 — Berkeley Function Calling Leaderboard (not KOPA-Bench)")
    bfcl_note = gr.Markdown(elem_id="kopa-bfcl-note")
    bfcl_table = gr.Dataframe(interactive=False, wrap=True, elem_id="kopa-bfcl-leaderboard")
    bfcl_outs = [bfcl_table, bfcl_note]
    refresh.click(_safe_bfcl, [folder, uploads], bfcl_outs, api_name="bfcl_leaderboard")
    uploads.change(_safe_bfcl, [folder, uploads], bfcl_outs, api_name=False)
    demo.load(_safe_bfcl, [folder, uploads], bfcl_outs, api_name=False)

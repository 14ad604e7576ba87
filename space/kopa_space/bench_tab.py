"""Benchmark tab: browse tasks by domain, platform and shape; see a task's gold program."""

from __future__ import annotations

import json

import gradio as gr

from .errors import explain
from .graphs import program_figure, program_mermaid
from .session import load_space_tasks

ALL = "(all)"
HEADERS = ["id", "split", "domain", "shape", "difficulty", "platforms", "calls", "query"]


def _tasks_or_message():
    try:
        return load_space_tasks(), ""
    except Exception as exc:
        return [], explain(exc)


def filter_tasks(domain: str, platform: str, shape: str, split: str, text: str):
    tasks, err = _tasks_or_message()
    rows = []
    for t in tasks:
        if domain not in (None, ALL) and t.domain != domain:
            continue
        if platform not in (None, ALL) and platform not in t.platforms:
            continue
        if shape not in (None, ALL) and t.shape != shape:
            continue
        if split not in (None, ALL) and t.split != split:
            continue
        if text and text.strip() and text.strip().lower() not in f"{t.id} {t.query} {t.gloss}".lower():
            continue
        rows.append([t.id, t.split, t.domain, t.shape, t.difficulty, ", ".join(t.platforms), t.n_calls, t.query])
    if err:
        note = err
    elif not tasks:
        note = ("**아직 벤치마크 과제가 없습니다.** / No benchmark tasks yet: the test/dev splits are empty. "
                "Set `KOPA_SPACE_TASKS=path/to/tasks.json` to browse a task file.")
    else:
        note = f"{len(rows)} of {len(tasks)} tasks"
    ids = [r[0] for r in rows]
    return gr.update(value=rows, headers=HEADERS), note, gr.update(choices=ids, value=ids[0] if ids else None)


def show_task(task_id: str | None):
    if not task_id:
        return None, "", "", {}
    try:
        task = next(t for t in load_space_tasks() if t.id == task_id)
        head = (f"### {task.id}\n**{task.query}**\n\n_{task.gloss}_\n\n"
                f"domain `{task.domain}` · shape `{task.shape}` · difficulty `{task.difficulty}` · "
                f"platforms {', '.join(task.platforms)} · tools offered {len(task.tools)}\n\n"
                + "**facts**: " + "; ".join(f"{f.id} {f.description}" for f in task.answer))
        return program_figure(task), head, program_mermaid(task), json.loads(task.model_dump_json())
    except Exception as exc:
        return None, explain(exc), "", {}


def _choices(attr: str) -> list[str]:
    tasks, _ = _tasks_or_message()
    vals = set()
    for t in tasks:
        v = getattr(t, attr)
        vals.update(v if isinstance(v, list) else [v])
    return [ALL, *sorted(map(str, vals))]


def build_bench_tab(demo: gr.Blocks) -> None:
    with gr.Row():
        domain = gr.Dropdown(_choices("domain"), value=ALL, label="Domain")
        platform = gr.Dropdown(_choices("platforms"), value=ALL, label="Platform")
        shape = gr.Dropdown(_choices("shape"), value=ALL, label="Shape")
        split = gr.Dropdown([ALL, "test", "dev"], value=ALL, label="Split")
        text = gr.Textbox(label="Search", placeholder="혜화동 / PM10 / kopa-test-0")
    note = gr.Markdown(elem_id="kopa-bench-note")
    table = gr.Dataframe(headers=HEADERS, interactive=False, wrap=True, max_height=320, elem_id="kopa-bench-table")
    pick = gr.Dropdown([], label="Task", elem_id="kopa-bench-pick")
    with gr.Row():
        with gr.Column(scale=3):
            fig = gr.Plot(label="Gold program (calls → references)")
        with gr.Column(scale=2):
            head = gr.Markdown()
            mermaid = gr.Markdown()
    with gr.Accordion("Task JSON", open=False):
        raw = gr.JSON()

    filters = [domain, platform, shape, split, text]
    for f in filters:
        f.change(filter_tasks, filters, [table, note, pick], api_name=False)
    demo.load(filter_tasks, filters, [table, note, pick], api_name=False)

    def _select(evt: gr.SelectData, rows):
        try:
            return gr.update(value=rows.iloc[evt.index[0], 0])
        except Exception:
            return gr.update()

    table.select(_select, table, pick, api_name=False)
    pick.change(show_task, pick, [fig, head, mermaid, raw], api_name="show_task")

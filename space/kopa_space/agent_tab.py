"""Agent tab: run a model on a request or a benchmark task and watch every tool call live."""

from __future__ import annotations

from datetime import datetime

import gradio as gr
import pandas as pd

from . import events as ev
from .errors import UserFacingError, explain, explain_runner_errors
from .session import MODEL_KINDS, SCRIPTED, ModelChoice, find_task, free_task, get_backend, load_space_tasks, make_client, platform_ids
from .trace import COMPARE_HEADERS, FLOW_HEADERS, ChatTrace, compare_rows, flow_rows, score_markdown, trace_json

SOURCE_TASK = "benchmark task"
SOURCE_FREE = "my own request"
EXAMPLE_QUERY = "서울 혜화동에서 가장 가까운 측정소의 지금 미세먼지 농도 알려줘"


def task_choices() -> list[tuple[str, str]]:
    try:
        tasks = load_space_tasks()
    except Exception:  # shown in the benchmark tab; here the list is just empty
        return []
    return [(f"{t.id} · {t.split} · {t.shape} · {t.query[:40]}", t.id) for t in tasks]


def _frame(rows: list, headers: list[str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=headers)


def _empty_outputs(chat: list, md: str):
    return chat, md, _frame([], COMPARE_HEADERS), _frame([], FLOW_HEADERS), {}


async def run_agent(source: str, task_id: str | None, query: str, platforms: list[str] | None, model_kind: str,
                    model_target: str, endpoint_model: str, tool_backend: str, api_key: str, max_steps: float):
    """Gradio generator: yields (chat, score markdown, gold-vs-model rows, data-flow rows, trace JSON)."""
    try:
        spec = ModelChoice(model_kind, model_target, endpoint_model).spec()
        scored = source == SOURCE_TASK
        if scored:
            if not task_id:
                raise UserFacingError("**과제를 고르세요.**\n\nPick a benchmark task first.")
            task = find_task(task_id)
        else:
            if not (query or "").strip():
                raise UserFacingError("**요청을 입력하세요.**\n\nType a request first.")
            if spec in SCRIPTED:
                raise UserFacingError("**스크립트 oracle은 벤치마크 과제만 풀 수 있습니다.**\n\n"
                                      "The scripted oracle only knows benchmark tasks; pick a task or a real model.")
            task = free_task(query.strip(), platforms or None)
        # Clients are built here so a missing key fails before anything starts; the key itself
        # stays in this call's locals and is never written to state, logs or outputs.
        client = make_client(tool_backend, api_key)
        gold_client = make_client(tool_backend, api_key)
    except Exception as exc:
        yield _empty_outputs([], explain(exc))
        return

    chat = ChatTrace(task.query, set(task.tools))
    steps = max(1, min(int(max_steps or 8), 24))

    async def job(emit):
        from kopa_bench.runner.agent import run_episode
        from kopa_bench.runner.run_config import RunConfig
        from kopa_bench.scoring import score_episode
        from kopa_bench.tasks import compute_answer, execute_program
        from kopa_bench.clock import KST, WorldClock

        try:
            backend, owned = await get_backend(spec, task, gold_client)
        except Exception as exc:
            raise _ModelLoadError(exc) from exc
        try:
            try:
                episode = await run_episode(task, ev.InstrumentedBackend(backend, emit), ev.InstrumentedClient(client, emit),
                                            seed=0, config=RunConfig(max_steps=steps), model=spec,
                                            backend_label=tool_backend)
            except Exception as exc:  # tool errors are results, so what escapes is the model failing mid-run
                raise _ModelLoadError(exc) from exc
            if not scored or episode.infra_error:  # a failed model server says nothing about the model
                return episode, None, None
            emit(ev.Event("scoring"))
            clock = WorldClock(datetime.now(KST)) if tool_backend == "live" else WorldClock()
            try:
                gold = await execute_program(task, gold_client, clock=clock)
                facts = compute_answer(task, gold, clock=clock)
            except Exception as exc:  # keep the trace; say why there is no score
                return episode, None, explain(exc)
            score = score_episode(task, gold, episode, facts, visible_records=episode.max_tool_records)
            return episode, gold, score
        finally:
            if owned:
                await backend.aclose()
            await client.aclose()
            await gold_client.aclose()

    status = "running…"
    yield _empty_outputs(chat.messages, status)
    async for e in ev.stream(job):
        if e.kind == ev.MODEL_START:
            chat.model_start(e.data["turn"])
        elif e.kind == ev.ASSISTANT:
            chat.assistant(e.data["turn"], e.data["assistant"])
        elif e.kind == ev.CALL_START:
            chat.call_start(e.data["seq"], e.data["tool"], e.data["arguments"])
        elif e.kind == ev.CALL_END:
            chat.call_end(e.data["seq"], e.data["tool"], e.data["result"])
        elif e.kind == "scoring":
            status = "scoring against the gold program…"
        elif e.kind == ev.FAILED:
            err = e.data["error"]
            if isinstance(err, _ModelLoadError):
                md = explain(err.inner, context="model")
            else:
                md = explain(err)
            chat.note(md)
            yield _empty_outputs(chat.messages, md)
            return
        elif e.kind == ev.DONE:
            episode, gold, score = e.data["value"]
            chat.final(episode)
            # a model that stopped the run (endpoint down, server error) is said above the score too
            stopped = explain_runner_errors(episode.errors) + "\n\n" if episode.infra_error else ""
            if score is None or isinstance(score, str):
                md = stopped + (score or "")
                md += f"\n\n<sub>{episode.steps} turns · {len(episode.calls)} calls · {episode.timings.total_s:.1f} s · not scored</sub>"
                yield chat.messages, md, _frame([], COMPARE_HEADERS), _frame([], FLOW_HEADERS), trace_json(task.id, episode, None)
            else:
                yield (chat.messages, stopped + score_markdown(score, episode), _frame(compare_rows(task, gold, episode, score), COMPARE_HEADERS),
                       _frame(flow_rows(score), FLOW_HEADERS), trace_json(task.id, episode, score))
            return
        yield chat.messages, status, gr.update(), gr.update(), gr.update()


class _ModelLoadError(Exception):
    """Marks a failure while building or running the model, so the message talks about the model."""

    def __init__(self, inner: BaseException):
        super().__init__(str(inner))
        self.inner = inner


def build_agent_tab() -> None:
    gr.Markdown("Watch an agent chain Korean public API calls. Each ⚙ block is one call: its arguments, "
                "then the API's normalised response. / 에이전트가 공공 API를 연쇄 호출하는 과정을 실시간으로 봅니다.")
    with gr.Row():
        with gr.Column(scale=2):
            source = gr.Radio([SOURCE_TASK, SOURCE_FREE], value=SOURCE_TASK, label="Request")
            choices = task_choices()
            task_id = gr.Dropdown(choices, value=choices[0][1] if choices else None, label="Benchmark task (dev/test)",
                                  allow_custom_value=False, elem_id="kopa-task")
            query = gr.Textbox(label="요청 / request (Korean)", placeholder=EXAMPLE_QUERY, visible=False, lines=2)
            platforms = gr.Dropdown(platform_ids(), multiselect=True, label="Platforms offered (empty = all)", visible=False)
        with gr.Column(scale=2):
            model_kind = gr.Dropdown([(v, k) for k, v in MODEL_KINDS.items()], value="oracle", label="Model")
            model_target = gr.Textbox(label="Folder / Hub id / endpoint URL", visible=False,
                                      placeholder="./runs/grpo/final · Qwen/Qwen2.5-0.5B-Instruct · http://127.0.0.1:8000/v1")
            endpoint_model = gr.Textbox(label="Model name on the endpoint", visible=False)
        with gr.Column(scale=1):
            tool_backend = gr.Radio(["sandbox", "live"], value="sandbox", label="APIs",
                                    info="sandbox: embedded replica · live: real APIs with your key")
            api_key = gr.Textbox(label="data.go.kr service key", type="password", visible=False,
                                 info="used for this run only; never stored or logged")
            max_steps = gr.Slider(1, 24, value=8, step=1, label="Max turns")
    run = gr.Button("Run ▶", variant="primary", elem_id="kopa-run")
    with gr.Row():
        with gr.Column(scale=3):
            chatbot = gr.Chatbot(label="Trace", height=600, elem_id="kopa-trace", group_consecutive_messages=False)
        with gr.Column(scale=2):
            score_md = gr.Markdown(elem_id="kopa-score")
            with gr.Accordion("Episode JSON", open=False):
                trace = gr.JSON(label="trace")
    with gr.Row():
        compare = gr.Dataframe(headers=COMPARE_HEADERS, label="Gold program vs model calls", wrap=True, interactive=False,
                               scale=3, column_widths=["10%", "35%", "9%", "35%", "11%"])
        flow = gr.Dataframe(headers=FLOW_HEADERS, label="Data flow per argument", wrap=True, interactive=False, scale=2,
                            column_widths=["30%", "30%", "8%", "32%"])

    source.change(lambda s: (gr.update(visible=s == SOURCE_TASK), gr.update(visible=s == SOURCE_FREE), gr.update(visible=s == SOURCE_FREE)),
                  source, [task_id, query, platforms], api_name=False)
    model_kind.change(lambda k: (gr.update(visible=k in ("local", "hub", "openai")), gr.update(visible=k == "openai")),
                      model_kind, [model_target, endpoint_model], api_name=False)
    tool_backend.change(lambda b: gr.update(visible=b == "live", value=""), tool_backend, api_key, api_name=False)
    run.click(run_agent, [source, task_id, query, platforms, model_kind, model_target, endpoint_model, tool_backend, api_key, max_steps],
              [chatbot, score_md, compare, flow, trace], api_name="run_agent", concurrency_limit=4)

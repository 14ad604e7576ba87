"""GRPO reward functions: `(completions, **columns) -> list[float | None]`, looked up by name.

Every reward that judges *what the agent did* is a view of the benchmark's own scorer
(`kopa_bench.scoring.score_episode`), so training optimises exactly what KOPA-Bench measures:
the episode is rebuilt from the environment's executed calls (or, without an environment, from
the tool messages in the completion) and scored against the task's gold run once per rollout;
each reward then reads one axis of that EpisodeScore. Only `format` is local: the benchmark
has no format axis.

Columns arrive in the KOPA task schema (id, query, tools/program/answer as JSON strings, ...).
`None` means "not applicable" (e.g. data_flow on a task without edges); TRL ignores it.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Callable

from train.environment import EnvSettings, decode_list, shared_client

log = logging.getLogger(__name__)

RewardFunc = Callable[..., list[float | None]]

# -- task and gold --------------------------------------------------------------------------

_TASK_FIELDS = ("id", "version", "split", "query", "gloss", "domain", "tags", "platforms", "shape", "difficulty",
                "held_out_platform", "tools", "program", "answer")
_JSON_FIELDS = ("tags", "platforms", "tools", "program", "answer")
_TASKS: dict[tuple, Any] = {}
_DEFAULT_SETTINGS = EnvSettings()


def set_default_settings(settings: EnvSettings) -> None:
    """Backend used for gold runs when a reward gets no `environments` (offline scoring of completions)."""
    global _DEFAULT_SETTINGS
    _DEFAULT_SETTINGS = settings
_GOLD: dict[tuple, tuple] = {}


def task_from_row(row: dict[str, Any]):
    """A validated `kopa_bench.tasks.Task` from one dataset row (JSON-string columns decoded)."""
    from kopa_bench.tasks import Task
    from kopa_bench.tasks.dataset_row import answer_spec

    key = (row.get("id"), str(row.get("program")), str(row.get("answer")))
    if key not in _TASKS:
        data = {}
        # EDGE `rl` rows (builders/edge_dataset.py) have no difficulty/gloss/tags columns; they carry the
        # whole Task as JSON in `task`. Its fields are the base; the row's own columns still win.
        embedded = row.get("task")
        if isinstance(embedded, str) and embedded:
            embedded = json.loads(embedded)
        if isinstance(embedded, dict):
            data.update({f: embedded[f] for f in _TASK_FIELDS if embedded.get(f) is not None})
        for f in _TASK_FIELDS:
            if f in row and row[f] is not None:
                data[f] = decode_list(row[f]) if f in _JSON_FIELDS else row[f]
        data.setdefault("split", "dev")
        if "answer" in data:  # kopa-bench rows (>= 1.1.0) carry each fact's build-time `expected` value
            data["answer"] = answer_spec(data["answer"])
        _TASKS[key] = Task.model_validate(data)
    return _TASKS[key]


def gold_for(task, client) -> tuple:
    """(GoldRun, facts) for a task, executed once per process and client (the world is deterministic)."""
    from kopa_bench.tasks import compute_answer, execute_program_sync

    key = (id(client), task.id, json.dumps([s.model_dump() for s in task.program], sort_keys=True, default=str))
    if key not in _GOLD:
        gold = execute_program_sync(task, client)
        _GOLD[key] = (gold, compute_answer(task, gold))
    return _GOLD[key]


# -- episodes from completions ------------------------------------------------------------------

def _messages(completion: Any) -> list[dict[str, Any]]:
    if isinstance(completion, str):
        return [{"role": "assistant", "content": completion}]
    return list(completion or [])


def final_answer(completion: Any) -> str:
    """Content of the last assistant message that makes no tool call ('' if the episode never answered)."""
    msgs = _messages(completion)
    if msgs and msgs[-1].get("role") == "assistant" and not msgs[-1].get("tool_calls"):
        content = msgs[-1].get("content") or ""
        if isinstance(content, list):
            content = " ".join(p.get("text", "") for p in content if isinstance(p, dict))
        return content
    return ""


def _tool_calls(msg: dict[str, Any]) -> list[tuple[str, Any]]:
    out = []
    for tc in msg.get("tool_calls") or []:
        fn = tc.get("function", tc) if isinstance(tc, dict) else {}
        args = fn.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except json.JSONDecodeError:
                pass
        out.append((fn.get("name") or "", args))
    return out


def _result_from_view(tool: str, args: dict, content: Any):
    """Rebuild a ToolResult from the JSON a tool message showed the model (ToolResult.for_model)."""
    from kopa_bench.client import ToolErrorInfo, ToolResult

    try:
        view = json.loads(content) if isinstance(content, str) else content
    except json.JSONDecodeError:
        view = None
    if not isinstance(view, dict):
        return ToolResult(tool=tool, arguments=args, ok=False, error=ToolErrorInfo(type="parse", message=str(content)[:200]))
    if "error" in view:
        err = view["error"] if isinstance(view["error"], dict) else {"message": str(view["error"])}
        kind = err.get("type") if err.get("type") in ToolErrorInfo.model_fields["type"].annotation.__args__ else "platform"
        return ToolResult(tool=tool, arguments=args, ok=False, error=ToolErrorInfo(type=kind, message=str(err.get("message", ""))))
    return ToolResult(tool=tool, arguments=args, ok=True, result_code=str(view.get("resultCode", "")),
                      result_msg=str(view.get("resultMsg", "")), total_count=view.get("totalCount"),
                      records=list(view.get("items") or []))


def calls_from_completion(completion: Any) -> list:
    """CallRecords from the completion's own tool_calls + tool messages (when no environment is at hand)."""
    from kopa_bench.episodes import CallRecord

    msgs = _messages(completion)
    calls: list[CallRecord] = []
    turn = 0
    for i, msg in enumerate(msgs):
        if msg.get("role") != "assistant":
            continue
        pending = _tool_calls(msg)
        responses = []
        for nxt in msgs[i + 1:]:
            if nxt.get("role") != "tool":
                break
            responses.append(nxt)
        for k, (name, args) in enumerate(pending):
            ok_args = args if isinstance(args, dict) else None
            rec = CallRecord(id=f"call_{len(calls)}", turn=turn, tool=name, arguments=ok_args,
                             raw_arguments=args if isinstance(args, str) else json.dumps(args, ensure_ascii=False, default=str))
            if ok_args is None:
                rec.error_kind = "parse"
            elif k < len(responses):
                rec.result = _result_from_view(name, ok_args, responses[k].get("content"))
                if rec.result.error is not None:
                    rec.error_kind = rec.result.error.type if rec.result.error.type in ("unknown_tool", "argument") else "platform"
            calls.append(rec)
        turn += 1
    return calls


def _rows(n: int, columns: dict[str, Any]) -> list[dict[str, Any]]:
    keys = [k for k, v in columns.items() if isinstance(v, list) and len(v) == n and k != "environments"]
    return [{k: columns[k][i] for k in keys} for i in range(n)]


def score_completions(completions: list, **columns: Any) -> list:
    """EpisodeScore (or None when the row is not a KOPA task) for every completion, via the benchmark scorer.

    With `environments` (TRL passes the rollout's environment instances) the executed calls are
    the environment's record; scores are cached on the instance so several rewards share one scoring.
    """
    from kopa_bench.episodes import Episode
    from kopa_bench.scoring import score_episode

    envs = columns.get("environments") or [None] * len(completions)
    out = []
    for completion, row, env in zip(completions, _rows(len(completions), columns), envs, strict=True):
        if not row.get("program") or not row.get("answer"):
            out.append(None)
            continue
        answer = final_answer(completion)
        cache = getattr(env, "_score_cache", None)
        if cache is not None and answer in cache:
            out.append(cache[answer])
            continue
        task = task_from_row(row)
        if env is not None and hasattr(env, "_calls"):
            client, calls = env._client, list(env._calls)
        else:
            client, calls = shared_client(_DEFAULT_SETTINGS), calls_from_completion(completion)
        gold, facts = gold_for(task, client)
        stop = "answer" if answer else "step_limit"
        episode = Episode(task_id=task.id, model="grpo", calls=calls, final_answer=answer, messages=_messages(completion),
                          steps=sum(m.get("role") == "assistant" for m in _messages(completion)), stop_reason=stop)
        score = score_episode(task, gold, episode, facts)
        if cache is not None:
            cache[answer] = score
        out.append(score)
    return out


# -- the rewards ----------------------------------------------------------------------------

def format_reward(completions: list, **columns: Any) -> list[float | None]:
    """Half for well-formed calls (parsed, offered tool, JSON-object arguments), half for a final
    answer with no stray call markup. 1.0 = every call parseable and a clean answer."""
    from kopa_bench.runner.parsing import parse_assistant_output

    rows = _rows(len(completions), columns)
    out: list[float | None] = []
    for completion, row in zip(completions, rows, strict=True):
        offered = set(decode_list(row.get("tools"))) if row.get("tools") else None
        msgs = [m for m in _messages(completion) if m.get("role") == "assistant"]
        calls = [c for m in msgs for c in _tool_calls(m)]
        good = sum(1 for name, args in calls if isinstance(args, dict) and (offered is None or name in offered))
        # A call the trainer's parser missed still shows up in the text: that is malformed output.
        stray = sum(len(parse_assistant_output(m.get("content") or "").tool_calls) for m in msgs)
        calls_ok = good / (len(calls) + stray) if (calls or stray) else 1.0
        answer = final_answer(completion)
        answer_ok = 1.0 if answer.strip() and not parse_assistant_output(answer).tool_calls and "<tool_call>" not in answer else 0.0
        out.append(0.5 * calls_ok + 0.5 * answer_ok)
    return out


def _axis(fn: Callable[[Any], float | None]) -> RewardFunc:
    def reward(completions: list, **columns: Any) -> list[float | None]:
        return [None if s is None else fn(s) for s in score_completions(completions, **columns)]
    return reward


def _f1(p: float, r: float) -> float:
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


action_reward = _axis(lambda s: _f1(s.action_precision, s.action_recall))
action_reward.__doc__ = "F1 of the scorer's ACTION precision/recall: calls matched to gold steps (tool + arguments)."
data_flow_reward = _axis(lambda s: s.data_flow)
data_flow_reward.__doc__ = "Scorer DATA FLOW: share of gold edges fed from the agent's own upstream results (None: no edges)."
grounded_reward = _axis(lambda s: s.grounded)
grounded_reward.__doc__ = "Scorer GROUNDED: share of answer facts stated AND present in results the agent received."
response_reward = _axis(lambda s: s.response)
response_reward.__doc__ = "Scorer RESPONSE: share of answer facts stated in the final answer."
success_reward = _axis(lambda s: float(s.success))
success_reward.__doc__ = "Scorer success: 1.0 when every fact is stated and grounded."
state_reward = _axis(lambda s: s.state)
state_reward.__doc__ = "Scorer STATE: share of the records the gold needed that the agent received (None: none needed)."
tool_error_penalty = _axis(lambda s: -sum(s.errors.values()) / s.n_calls if s.n_calls else 0.0)
tool_error_penalty.__doc__ = "Minus the share of calls that failed (parse, unknown tool, argument, platform errors); in [-1, 0]."
# distinct calls: one call may cover several pages of a paged gold step
needless_call_penalty = _axis(lambda s: -min(1.0, max(0, s.n_calls - len(set(s.matched.values()))) / max(s.n_gold_calls, 1)))
needless_call_penalty.__doc__ = "Minus the calls that matched no gold step, per gold call, capped at 1; in [-1, 0]."

for _name, _fn in [("action_reward", action_reward), ("data_flow_reward", data_flow_reward),
                   ("grounded_reward", grounded_reward), ("response_reward", response_reward),
                   ("success_reward", success_reward), ("state_reward", state_reward),
                   ("tool_error_penalty", tool_error_penalty), ("needless_call_penalty", needless_call_penalty)]:
    _fn.__name__ = _fn.__qualname__ = _name  # TRL logs rewards under the function's __name__

REWARDS: dict[str, RewardFunc] = {
    "format": format_reward,
    "action": action_reward,
    "data_flow": data_flow_reward,
    "grounded": grounded_reward,
    "response": response_reward,
    "success": success_reward,
    "state": state_reward,
    "tool_errors": tool_error_penalty,
    "needless_calls": needless_call_penalty,
}


def get_reward_funcs(names: list[str]) -> list[RewardFunc]:
    """Reward functions by registry name; an unknown name raises with the valid ones listed."""
    bad = [n for n in names if n not in REWARDS]
    if bad:
        raise ValueError(f"unknown reward function(s) {bad}; valid names: {sorted(REWARDS)}")
    return [REWARDS[n] for n in names]

"""Scripted BFCL agents that check the pipeline, not a model.

replay          plays BFCL's possible answers: the first allowed value of every parameter
                (optional ones left out when BFCL allows it), the ground-truth calls of each
                multi-turn turn in one step, and no call on irrelevance entries. Through the real
                checker it must score 100% on every category; less means the pipeline is broken.
wrong-function  the replay with one call's function swapped: another offered function, or a
                made-up one when there is no other (irrelevance entries: it calls a function).
wrong-value     the replay with one argument changed to a value BFCL does not allow, or an
                argument added where the call has none (irrelevance entries: it calls a function).

They are ordinary backends (``generate(messages, tools)``); the runner tells them which entry,
turn and step they are answering through :data:`CURRENT`, as a model learns it from the prompt.
"""

from __future__ import annotations

import ast
import contextvars
import copy
from dataclasses import dataclass, field
from typing import Any, Callable

from kopa_bench.runner.backends.contract import AssistantTurn, Backend, BackendError, turn_index
from kopa_bench.runner.parsing import ParsedCall, call_id

from kopa_bench.bfcl.categories import Category
from kopa_bench.bfcl.data import Entry


@dataclass
class EntryContext:
    entry: Entry
    category: Category
    names: dict[str, str]  # BFCL name -> the name offered to the model
    functions: list[dict]  # function docs offered now (multi-turn: grows on a miss_func turn)
    turn: int = 0
    step: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


CURRENT: contextvars.ContextVar[EntryContext | None] = contextvars.ContextVar("kopa_bfcl_entry", default=None)

Call = tuple[str, dict[str, Any]]  # (BFCL function name, arguments)


# ---- reading BFCL's answers ---------------------------------------------------------------------
def _schema(functions: list[dict], name: str) -> dict:
    for f in functions:
        if f["name"] == name:
            return f.get("parameters", {}).get("properties", {})
    return {}


def _required(functions: list[dict], name: str) -> list[str]:
    for f in functions:
        if f["name"] == name:
            return f.get("parameters", {}).get("required", [])
    return []


def _first(options: list, schema: dict, required: bool = False) -> tuple[bool, Any]:
    """(present, value): left out when BFCL allows that ("" among the options) and the function
    does not require it (some answers list an optional parameter the function lacks), else the
    first allowed value."""
    if "" in options and not required:
        return False, None
    for opt in options:
        if opt != "":
            return True, _value(opt, schema)
    return False, None


def _value(opt: Any, schema: dict) -> Any:
    """A value for one option; dict options hold option lists per key (BFCL's dict_checker)."""
    kind = schema.get("type")
    if kind == "dict" and isinstance(opt, dict):
        props = schema.get("properties", {})
        out = {}
        for k, v in opt.items():
            present, val = _first(v if isinstance(v, list) else [v], props.get(k, {}))
            if present:
                out[k] = val
        return out
    if kind == "array" and isinstance(opt, list) and schema.get("items", {}).get("type") == "dict":
        return [_value(d, schema["items"]) if isinstance(d, dict) else d for d in opt]
    return copy.deepcopy(opt)


def ast_answer_calls(entry: Entry) -> list[Call]:
    """One call per possible answer, in BFCL's order."""
    calls = []
    for item in entry.answer or []:
        (name, params), = item.items()
        schema = _schema(entry.check_prompt["function"], name)
        required = set(_required(entry.check_prompt["function"], name))
        args = {}
        for param, options in params.items():
            present, val = _first(options, schema.get(param, {}), param in required)
            if present:
                args[param] = val
        calls.append((name, args))
    return calls


def parse_call_string(text: str, functions: list[dict]) -> Call:
    """``cd(folder='x')`` or ``sort('a.pdf')`` -> (name, kwargs); positional arguments take the
    function doc's parameter names in order."""
    node = ast.parse(text.strip(), mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"not a plain call: {text!r}")
    name = node.func.id
    params = list(_schema(functions, name))
    args = {params[i]: ast.literal_eval(a) for i, a in enumerate(node.args)}
    args.update({kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg})
    return name, args


def multi_turn_calls(ctx: EntryContext) -> list[Call]:
    truth = ctx.entry.answer[ctx.turn] if ctx.turn < len(ctx.entry.answer) else []
    functions = ctx.functions + ctx.extra.get("held_out", [])
    return [parse_call_string(s, functions) for s in truth]


# ---- the agents ---------------------------------------------------------------------------------
class ReplayAgent(Backend):
    kind = "scripted"
    label = "replay"

    def __init__(self) -> None:
        self.model_name = f"bfcl-{self.label}"

    def calls_for(self, ctx: EntryContext) -> list[Call]:
        if ctx.category.kind == "irrelevance":
            return []
        if ctx.category.kind == "multi_turn":
            return multi_turn_calls(ctx) if ctx.step == 0 else []
        return ast_answer_calls(ctx.entry) if ctx.step == 0 else []

    async def generate(self, messages: list[dict], tools: list[dict], *, temperature: float = 0.0,
                       seed: int | None = None, max_tokens: int = 1024) -> AssistantTurn:
        ctx = CURRENT.get()
        if ctx is None:
            raise BackendError(f"the {self.label} agent answers BFCL entries only; run it with `kopa bfcl run`")
        calls = self.calls_for(ctx)
        prefix = f"call_{turn_index(messages)}"
        parsed = [ParsedCall(id=call_id(prefix, i), name=ctx.names.get(name, name), arguments=args,
                             raw=f"{name}({args})") for i, (name, args) in enumerate(calls)]
        content = "" if parsed else "None of the offered functions applies." if ctx.step == 0 else "Done."
        return AssistantTurn(content=content, tool_calls=parsed)


class WrongFunctionAgent(ReplayAgent):
    label = "wrong-function"

    def calls_for(self, ctx: EntryContext) -> list[Call]:
        calls = ReplayAgent.calls_for(self, ctx)
        if ctx.category.kind == "irrelevance":
            return _any_call(ctx) if ctx.step == 0 else []
        if not calls or not _mutated_turn(ctx):
            return calls
        used = {n for n, _ in calls}
        others = [f["name"] for f in ctx.functions if f["name"] not in used]
        name, args = calls[0]
        calls[0] = (others[0] if others else f"{name}_v2", args)
        return calls


class WrongValueAgent(ReplayAgent):
    label = "wrong-value"

    def calls_for(self, ctx: EntryContext) -> list[Call]:
        calls = ReplayAgent.calls_for(self, ctx)
        if ctx.category.kind == "irrelevance":
            return _any_call(ctx) if ctx.step == 0 else []
        if not calls or not _mutated_turn(ctx):
            return calls
        name, args = calls[0]
        args = dict(args)
        allowed = _options(ctx.entry, name) if ctx.category.kind == "ast" else {}
        if args:
            key = next(iter(args))
            args[key] = mutate(args[key], allowed.get(key, []))
        else:
            args["kopa_unexpected"] = 1
        calls[0] = (name, args)
        return calls


def _mutated_turn(ctx: EntryContext) -> bool:
    """Mutants change one call per entry: multi-turn, in the first turn that has calls."""
    if ctx.category.kind != "multi_turn":
        return True
    return ctx.turn == next((i for i, t in enumerate(ctx.entry.answer) if t), -1)


def _options(entry: Entry, name: str) -> dict[str, list]:
    for item in entry.answer or []:
        if name in item:
            return item[name]
    return {}


def _any_call(ctx: EntryContext) -> list[Call]:
    f = ctx.functions[0]
    required = f.get("parameters", {}).get("required", [])
    return [(f["name"], {p: "kopa" for p in required})]


def mutate(value: Any, options: list) -> Any:
    """A value like `value` that is not among BFCL's allowed `options`."""
    for candidate in _candidates(value):
        if candidate not in options and candidate != value:
            return candidate
    return "kopa-mutated"


def _candidates(value: Any):
    if isinstance(value, bool):
        yield not value
        yield "kopa-mutated"
    elif isinstance(value, (int, float)):
        yield value + 1000003
        yield -value - 7
    elif isinstance(value, str):
        yield value + " kopa"
        yield "kopa " + value
    elif isinstance(value, list):
        yield value + (value[:1] or ["kopa"])
        yield []
    elif isinstance(value, dict):
        yield {**value, "kopa_extra": "kopa"}
    yield "kopa-mutated"


AGENTS: dict[str, Callable[[], Backend]] = {
    "replay": ReplayAgent,
    "wrong-function": WrongFunctionAgent,
    "wrong-value": WrongValueAgent,
}

"""Verdicts from bfcl_eval's own checkers, called as a library.

This module only decodes what the KOPA parser read into the shapes BFCL's checkers take, the way
BFCL's handlers decode for FC models (``decode_ast``: ``[{name: arguments}]``; ``decode_execute``:
``convert_to_function_call``), and then applies BFCL's evaluation rules:

* ast categories: a reply whose calls cannot all be read fails (BFCL: ``ast_decoder:decoder_failed``),
  else ``is_function_calling_format_output`` and ``ast_checker`` decide;
* irrelevance categories: correct when decoding fails or yields no call (``is_empty_output``);
* multi-turn: steps whose calls cannot all be read, or that hold none, are skipped; a run cut short
  (``force_terminated``) or with fewer turns fails; else ``multi_turn_checker`` executes the
  decoded calls and the ground truth on fresh instances of BFCL's API classes and compares.

One deliberate difference: BFCL ``eval``s every decoded call string. KOPA evaluates only calls to
the entry's documented functions with identifier argument names; any other call (a builtin such as
``open``, a dotted path, an injected argument name) is replaced by a call to an undefined name, so
it comes back as BFCL's own "Error during execution: name ... is not defined" instead of running.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from pydantic import BaseModel

from kopa_bench.bfcl import compat
from kopa_bench.bfcl.categories import Category
from kopa_bench.bfcl.data import Entry
from kopa_bench.bfcl.prompting import Mode, checker_model, tool_names
from kopa_bench.bfcl.records import BfclResult, BfclStep

BLOCKED_CALL = "kopa_unavailable_function()"
_IDENT = re.compile(r"\A[A-Za-z_][A-Za-z0-9_]*\Z")
_MAX_DETAIL = 4000  # characters of checker detail kept per failed entry


class Verdict(BaseModel):
    id: str
    valid: bool
    error_type: str | None = None
    error: Any = None


# ---- decoding -----------------------------------------------------------------------------------
def decode_ast(step: BfclStep | None) -> list[dict] | None:
    """``[{name: arguments}, ...]``, or None where BFCL's decoder would fail (no call, or a call
    the parser could not read)."""
    if step is None or not step.calls or any(c.error is not None or c.arguments is None for c in step.calls):
        return None
    return [{c.name: dict(c.arguments or {})} for c in step.calls]


def all_functions(prompt: dict) -> list[dict]:
    """A multi-turn entry's function docs, held-out ones included."""
    docs = list(prompt.get("function", []))
    for held in (prompt.get("missed_function") or {}).values():
        docs.extend(d for d in held if isinstance(d, dict))
    return docs


def allowed_functions(prompt: dict) -> set[str]:
    """Names a multi-turn entry may execute."""
    return {f["name"] for f in all_functions(prompt)}


def call_strings(step: BfclStep, allowed: set[str], names: dict[str, str] | None = None) -> list[str] | None:
    """The step's calls as BFCL execution strings (``convert_to_function_call``), or None where
    BFCL's decoder would fail. `names` maps offered names back to BFCL's."""
    if any(c.error is not None or c.arguments is None for c in step.calls):
        return None
    convert = compat.load().handler_utils.convert_to_function_call
    out = []
    for c in step.calls:
        name = (names or {}).get(c.name, c.name)
        args = c.arguments or {}
        if name not in allowed or not _IDENT.match(name) or not all(_IDENT.match(str(k)) for k in args):
            out.append(BLOCKED_CALL)
            continue
        out.extend(convert([{name: args}]))
    return out


def release_instances(model_name: str) -> None:
    """Drop the API-class instances BFCL cached for `model_name` (``execute_multi_turn_func_call``
    keeps each one in its module globals, so a second check of the same entry would see the
    state the first one left)."""
    mtu = compat.load().multi_turn_utils
    prefix = re.sub(r"[-./:]", "_", model_name) + "_"
    for key in [k for k in vars(mtu) if k.startswith(prefix) and k.endswith("_instance")]:
        del vars(mtu)[key]


def _detail(value: Any) -> Any:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return json.loads(text) if len(text) <= _MAX_DETAIL else text[:_MAX_DETAIL] + "..."


# ---- checking -----------------------------------------------------------------------------------
def check(entry: Entry, result: BfclResult, category: Category, mode: Mode) -> Verdict:
    """bfcl_eval's verdict on one entry; never raises for a bad model output."""
    if result.stop_reason in ("error", "infra_error"):  # infra errors are kept from scoring; never a pass
        return Verdict(id=entry.id, valid=False, error_type="kopa:inference_error", error=result.errors[:3])
    bfcl = compat.load()
    if category.kind == "multi_turn":
        return _check_multi_turn(entry, result, category, mode, bfcl)
    step = result.turns[0][0] if result.turns and result.turns[0] else None
    decoded = decode_ast(step)
    if category.kind == "irrelevance":
        called = decoded is not None and not bfcl.utils.is_empty_output(decoded)
        if called:
            return Verdict(id=entry.id, valid=False, error_type="irrelevance_error:decoder_success",
                           error=["Valid syntax. Successfully decode AST when it should not."])
        return Verdict(id=entry.id, valid=True)
    if decoded is None:
        why = "no function call in the reply" if step is None or not step.calls else \
            "; ".join(c.error or "unreadable arguments" for c in step.calls if c.error or c.arguments is None)
        return Verdict(id=entry.id, valid=False, error_type="ast_decoder:decoder_failed",
                       error=[f"Invalid syntax. Failed to decode AST. {why}"])
    if not bfcl.utils.is_function_calling_format_output(decoded):
        return Verdict(id=entry.id, valid=False, error_type="ast_decoder:decoder_wrong_output_format",
                       error=["Did not output in the specified format."])
    out = bfcl.ast_checker.ast_checker(entry.check_prompt["function"], decoded, entry.answer,
                                       bfcl.enums.Language.PYTHON, category.name, checker_model(mode))
    if out["valid"]:
        return Verdict(id=entry.id, valid=True)
    return Verdict(id=entry.id, valid=False, error_type=out.get("error_type"), error=_detail(out.get("error")))


def _check_multi_turn(entry: Entry, result: BfclResult, category: Category, mode: Mode, bfcl: Any) -> Verdict:
    truth = entry.answer
    if result.stop_reason == "force_terminated" or len(result.turns) != len(truth):
        return Verdict(id=entry.id, valid=False, error_type="multi_turn:force_terminated",
                       error=[f"Model was force-terminated during inference phase. The length of the model result "
                              f"turns ({len(result.turns)}) does not match the length of the ground truth turns ({len(truth)})."])
    allowed = allowed_functions(entry.prompt)
    names = tool_names(all_functions(entry.prompt), mode)
    decoded: list[list[list[str]]] = []
    for turn in result.turns:
        steps = []
        for step in turn:
            strings = call_strings(step, allowed, names)
            if strings and not bfcl.multi_turn_utils.is_empty_execute_response(strings):
                steps.append(strings)
        decoded.append(steps)
    model_name = f"kopa_check_{uuid.uuid4().hex[:12]}"
    try:
        out = bfcl.multi_turn_checker.multi_turn_checker(decoded, truth, entry.check_prompt, category.name, model_name)
    except Exception as exc:  # an assertion inside BFCL's checker: the entry fails, the run goes on
        out = {"valid": False, "error_type": "multi_turn:checker_error", "error_message": f"{type(exc).__name__}: {exc}"}
    finally:
        release_instances(model_name)
    if out.get("valid"):
        return Verdict(id=entry.id, valid=True)
    return Verdict(id=entry.id, valid=False, error_type=out.get("error_type"),
                   error=_detail({"error_message": out.get("error_message"), "details": out.get("details")}))

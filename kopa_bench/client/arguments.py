"""Client-side check of a model's arguments against the tool's JSON schema (jsonschema), so the
model gets a tool error naming the parameter and the fix before anything is sent.

The schema is the one the model is offered (catalog.toolschema) plus the catalog's own bounds
(pattern, minimum, maximum) and no unknown parameters. Types are read the way the platforms read a
query string: "10" is an integer, 3.0 is an integer, 7 is a string; a missing or blank optional
value is simply absent.
"""

from __future__ import annotations

import math
import re
from typing import Any

from jsonschema import Draft202012Validator, ValidationError, validators

from ..catalog.models import Operation
from ..catalog.registry import ToolRef
from ..catalog.toolschema import tool_schema

_INTEGER_TEXT = re.compile(r"\s*[+-]?\d{1,18}\s*")


def _integer(checker, v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer()):
        return True
    return isinstance(v, str) and _INTEGER_TEXT.fullmatch(v) is not None


def _number(checker, v: Any) -> bool:
    if isinstance(v, bool):
        return False
    try:
        return math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def _string(checker, v: Any) -> bool:
    return isinstance(v, (str, int, float, bool))


def _as_number(v: Any) -> float | None:
    return float(v) if _number(None, v) else None


def _pattern(validator, pattern, instance, schema):
    if not re.fullmatch(pattern, str(instance)):
        yield ValidationError(f"does not match the format {pattern}")


def _enum(validator, enums, instance, schema):
    if str(instance) not in enums:
        yield ValidationError(f"is not one of {enums}")


def _enum_case_insensitive(validator, enums, instance, schema):
    if str(instance).casefold() not in {e.casefold() for e in enums}:
        yield ValidationError(f"is not one of {enums} (case-insensitive)")


def _minimum(validator, bound, instance, schema):
    n = _as_number(instance)
    if n is not None and n < bound:
        yield ValidationError(f"is below the minimum {bound:g}")


def _maximum(validator, bound, instance, schema):
    n = _as_number(instance)
    if n is not None and n > bound:
        yield ValidationError(f"is above the maximum {bound:g}")


_Validator = validators.extend(
    Draft202012Validator,
    validators={"pattern": _pattern, "enum": _enum, "enumCaseInsensitive": _enum_case_insensitive,
                "minimum": _minimum, "maximum": _maximum},
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine_many(
        {"integer": _integer, "number": _number, "string": _string}),
)


_validators: dict[int, tuple[Operation, Any]] = {}  # id(operation) -> (operation, validator); few catalogs


def _validator(ref: ToolRef):
    hit = _validators.get(id(ref.op))
    if hit is None or hit[0] is not ref.op:
        hit = _validators[id(ref.op)] = (ref.op, _build_validator(ref))
    return hit[1]


def _build_validator(ref: ToolRef):
    schema = tool_schema(ref, "en")["function"]["parameters"]
    props = {name: dict(prop) for name, prop in schema["properties"].items()}
    for p in ref.op.model_params:
        for key in ("pattern", "minimum", "maximum"):
            if getattr(p, key) is not None:
                props[p.name][key] = getattr(p, key)
        if p.enum_case_insensitive and "enum" in props[p.name]:  # the platform ignores case (Param.enum_case_insensitive)
            props[p.name]["enumCaseInsensitive"] = props[p.name].pop("enum")
    return _Validator({**schema, "properties": props, "additionalProperties": False})


def _absent(v: Any) -> bool:
    return v is None or (isinstance(v, str) and not v.strip())


def argument_problem(ref: ToolRef, args: dict[str, Any]) -> str | None:
    """What is wrong with `args` for this tool, in one sentence a model can act on; None if nothing."""
    op: Operation = ref.op
    params = {p.name: p for p in op.model_params}
    unknown = sorted(set(args) - set(params))
    if unknown:
        return f"unknown parameter(s) {unknown} for {op.tool}; valid parameters: {sorted(params)}"
    present = {k: v for k, v in args.items() if not _absent(v)}
    errors: dict[str, Any] = {}
    for e in _validator(ref).iter_errors(present):
        if e.path and (e.path[0] not in errors or e.validator == "type"):  # a wrong type explains the rest
            errors[e.path[0]] = e
    for p in op.model_params:  # the first problem in declaration order, as the platforms report it
        if p.name not in present:
            if p.required and p.default is None:
                return f"missing required parameter {p.name!r} for {op.tool} ({p.desc_en}; e.g. {p.example!r})"
            continue
        err = errors.get(p.name)
        if err is None:
            continue
        value = present[p.name]
        if err.validator == "type":
            if p.type == "string":
                return f"{p.name} must be a string, got {type(value).__name__} (tool {op.tool})"
            kind = "an integer" if p.type == "integer" else (
                "a finite number" if isinstance(value, float) else "a number")
            return f"{p.name} must be {kind}, got {value!r} (tool {op.tool})"
        return f"{p.name}={p.coerce(value)!r} {err.message} (tool {op.tool}; e.g. {p.example!r})"
    return None

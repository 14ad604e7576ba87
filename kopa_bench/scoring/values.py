"""How an agent's argument value compares with the gold's: by the parameter's kind in the catalog.

A call is right when the platform would receive the same request, so values are compared in the
form they take on the wire (a query string: True is "true", 7010303 is "7010303"), read by the
parameter's `match` kind (kopa_bench.catalog.models.MatchKind):

  code    the exact wire text (outer spaces aside): "00125648" is not 125648, "B10" is not "b10";
          for an enum the platform reads case-insensitively (`enum_case_insensitive`), case aside
  text    free text, normalised the way BFCL does: case, whitespace and the characters ,./-_
  number  numerically: "10", 10 and 10.0 reach the platform as the same number
  ignore  any value: paging, format switches, client identification

A tool the catalog does not know (converted external data, tests) has no kinds: its values
compare by JSON type as BFCL does (a number is not a numeric string, a boolean only a boolean,
strings as free text).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any

from kopa_bench.catalog.registry import Catalog, ToolRef, get_catalog
from kopa_bench.client.inprocess import query_value

_BFCL_DROP = re.compile(r"[\s,./\-_]+")
_SCALARS = (str, int, float, bool, type(None))


CODE_ANY_CASE = "code_any_case"  # a code whose case the platform ignores (not a catalog `match` value)


def wire(v: Any) -> str:
    """The text a scalar becomes in the request (httpx's query-string form)."""
    return query_value(v)


@lru_cache(maxsize=1 << 15)
def text_form(s: str) -> str:
    """Free text as BFCL compares it: NFKC, lower case, without whitespace and ,./-_."""
    return _BFCL_DROP.sub("", unicodedata.normalize("NFKC", s)).lower()


def _number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v.strip())
        except ValueError:
            return None
    return None


def blank(v: Any) -> bool:
    """A value the client treats as not given (None or blank text)."""
    return v is None or (isinstance(v, str) and not v.strip())


def _scalar_equal(kind: str | None, gold: Any, agent: Any) -> bool:
    if kind == "ignore":
        return True
    if kind == "number":
        g = _number(gold)
        if g is None:  # a word where a number goes ('ALL'): the text decides
            return wire(gold).strip() == wire(agent).strip()
        return g == _number(agent)
    if kind == "code":
        return wire(gold).strip() == wire(agent).strip()
    if kind == CODE_ANY_CASE:
        return wire(gold).strip().casefold() == wire(agent).strip().casefold()
    if kind == "text":
        return text_form(wire(gold)) == text_form(wire(agent))
    # no spec: JSON types decide, as in BFCL (an int is accepted where the gold has a float)
    if isinstance(gold, bool) or isinstance(agent, bool):
        return type(gold) is type(agent) and gold == agent
    if isinstance(gold, (int, float)):
        return isinstance(agent, (int, float)) and float(gold) == float(agent)
    if isinstance(gold, str):
        return isinstance(agent, str) and text_form(gold) == text_form(agent)
    if gold is None:
        return blank(agent)
    return gold == agent


@lru_cache(maxsize=1 << 16, typed=True)  # typed: 1, 1.0 and True are different JSON values
def _scalar_equal_cached(kind: str | None, gold: Any, agent: Any) -> bool:
    return _scalar_equal(kind, gold, agent)


def values_equal(kind: str | None, gold: Any, agent: Any) -> bool:
    """Does the agent's value make the same request as the gold's, for a parameter of `kind`
    (None: the tool has no spec)? Lists and objects compare element by element."""
    tg, ta = type(gold), type(agent)
    if tg in _SCALARS and ta in _SCALARS:
        try:
            return _scalar_equal_cached(kind, gold, agent)
        except TypeError:  # an unhashable subclass
            return _scalar_equal(kind, gold, agent)
    if kind == "ignore":
        return True
    if isinstance(gold, list):
        return isinstance(agent, list) and len(gold) == len(agent) and all(
            values_equal(kind, g, a) for g, a in zip(gold, agent))
    if isinstance(gold, dict):
        return isinstance(agent, dict) and gold.keys() == agent.keys() and all(
            values_equal(kind, g, agent[k]) for k, g in gold.items())
    return False


class ToolKinds:
    """The match kind of every parameter of one tool, or none when the catalog lacks the tool."""

    __slots__ = ("tool", "known", "kinds", "defaults")

    def __init__(self, tool: str, ref: ToolRef | None):
        self.tool = tool
        self.known = ref is not None
        self.kinds: dict[str, str] = {}
        self.defaults: dict[str, Any] = {}
        if ref is None:
            return
        # what the client fills in itself (the key, the format switch, hidden parameters) is the
        # same in every request, whatever a call says
        svc = ref.service
        for name in [svc.auth_param, *svc.auth_aliases, svc.format_param]:
            if name:
                self.kinds[name] = "ignore"
        for p in ref.op.params:
            kind = p.match_kind if p.model_facing else "ignore"
            # daily and DAILY reach such a platform as the same request
            self.kinds[p.name] = CODE_ANY_CASE if kind == "code" and p.enum_case_insensitive else kind
            if p.model_facing and p.default is not None:
                self.defaults[p.name] = p.default

    def kind(self, name: str) -> str | None:
        """The kind of parameter `name`; None when the tool has no spec."""
        return self.kinds.get(name) if self.known else None

    def ignored(self, name: str) -> bool:
        return self.kinds.get(name) == "ignore"

    def is_param(self, name: str) -> bool:
        """Is `name` a parameter the tool takes (True for every name of a tool without a spec)?"""
        return not self.known or name in self.kinds

    def is_default(self, name: str, value: Any) -> bool:
        """Is `value` what the client sends anyway when the parameter is left out?"""
        return name in self.defaults and values_equal(self.kinds[name], self.defaults[name], value)


_KINDS: dict[tuple[int, str], ToolKinds] = {}


def tool_kinds(tool: str, catalog: Catalog | None = None) -> ToolKinds:
    """ToolKinds of `tool` in `catalog` (the default catalog when None), memoised."""
    catalog = catalog or get_catalog()
    key = (id(catalog), tool)
    hit = _KINDS.get(key)
    if hit is None:
        hit = _KINDS[key] = ToolKinds(tool, catalog.get(tool) if tool in catalog else None)
    return hit

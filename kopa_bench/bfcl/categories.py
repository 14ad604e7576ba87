"""The BFCL v4 categories KOPA runs, and how each is checked.

``ast``        one model turn, decoded into calls, judged by bfcl_eval's ``ast_checker`` against
               the category's possible answers
``irrelevance`` one model turn; correct when it holds no decodable call (BFCL's relevance runner)
``multi_turn`` several user turns, each answered by as many steps as the model takes; its calls
               run against BFCL's simulated API classes and ``multi_turn_checker`` compares
               state and responses with the ground truth's, turn by turn

Not run: the Java / JavaScript simple categories (their answers are Java / JS source strings;
KOPA's replay agent cannot write those), live_relevance (no possible answers to replay),
format_sensitivity and the agentic web_search / memory categories (network search, vector
stores).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["ast", "irrelevance", "multi_turn"]


@dataclass(frozen=True)
class Category:
    name: str  # BFCL's own name (file BFCL_v4_<name>.json)
    kind: Kind
    group: str  # BFCL's grouping: non_live | live | multi_turn


CATEGORIES: dict[str, Category] = {c.name: c for c in (
    Category("simple_python", "ast", "non_live"),
    Category("multiple", "ast", "non_live"),
    Category("parallel", "ast", "non_live"),
    Category("parallel_multiple", "ast", "non_live"),
    Category("irrelevance", "irrelevance", "non_live"),
    Category("live_simple", "ast", "live"),
    Category("live_multiple", "ast", "live"),
    Category("live_parallel", "ast", "live"),
    Category("live_parallel_multiple", "ast", "live"),
    Category("live_irrelevance", "irrelevance", "live"),
    Category("multi_turn_base", "multi_turn", "multi_turn"),
    Category("multi_turn_miss_func", "multi_turn", "multi_turn"),
    Category("multi_turn_miss_param", "multi_turn", "multi_turn"),
    Category("multi_turn_long_context", "multi_turn", "multi_turn"),
)}
#: BFCL v3 called simple_python "simple"; both names are accepted
ALIASES = {"simple": "simple_python"}
#: what `--category` means by default in docs and the results run
NON_LIVE_AST = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance")


class UnknownCategory(ValueError):
    pass


def resolve(name: str) -> Category:
    """The category for a name or alias; UnknownCategory names the valid choices."""
    key = (name or "").strip().lower()
    key = ALIASES.get(key, key)
    if key not in CATEGORIES:
        raise UnknownCategory(f"unknown BFCL category {name!r}; valid: {', '.join(choices())}")
    return CATEGORIES[key]


def choices() -> list[str]:
    return [*CATEGORIES, *(f"{a} (= {t})" for a, t in ALIASES.items())]

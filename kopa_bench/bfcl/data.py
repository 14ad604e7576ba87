"""BFCL's questions and possible answers, read from the installed bfcl-eval package by its own
loaders (``bfcl_eval.utils.load_dataset_entry`` / ``load_ground_truth_entry``): no network.

Each entry is read twice, as BFCL does: the inference copy carries BFCL's language hint in every
function description (what its generation step sends), the checking copy does not (what its
evaluation step passes to the checkers). Ground truth is paired with questions by position, as
bfcl_eval's evaluation runner does (some live ids differ between the two files).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from kopa_bench.bfcl import compat
from kopa_bench.bfcl.categories import Category


@dataclass(frozen=True)
class Entry:
    id: str
    index: int  # position in the category file
    category: str
    prompt: dict[str, Any]  # what the model is shown (question, function docs, initial_config...)
    check_prompt: dict[str, Any]  # what the checker is given
    answer: Any  # the "ground_truth" field; None for irrelevance categories

    def fresh_prompt(self) -> dict[str, Any]:
        """A copy to mutate (multi-turn inference adds held-out functions, system prompts)."""
        return copy.deepcopy(self.prompt)


@lru_cache(maxsize=None)
def _load(name: str) -> tuple[Entry, ...]:
    bfcl = compat.load()
    prompts = bfcl.utils.load_dataset_entry(name)
    checks = bfcl.utils.load_dataset_entry(name, include_prereq=False, include_language_specific_hint=False)
    has_answers = not bfcl.utils.is_relevance_or_irrelevance(name)
    answers = bfcl.utils.load_ground_truth_entry(name) if has_answers else [None] * len(prompts)
    if not (len(prompts) == len(checks) == len(answers)):
        raise RuntimeError(f"bfcl-eval {bfcl.version}: {name} has {len(prompts)} questions and {len(answers)} answers")
    return tuple(Entry(id=p["id"], index=i, category=name, prompt=p, check_prompt=c,
                       answer=None if a is None else a["ground_truth"])
                 for i, (p, c, a) in enumerate(zip(prompts, checks, answers)))


def load_entries(category: Category, limit: int | None = None) -> list[Entry]:
    """The category's entries in file order; the first `limit` only when given."""
    entries = list(_load(category.name))
    if limit is not None:
        if limit < 1:
            raise ValueError(f"--limit must be at least 1, got {limit}")
        entries = entries[:limit]
    return entries


def category_size(category: Category) -> int:
    return len(_load(category.name))

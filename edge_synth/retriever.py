"""Tool retriever: BM25 over tool descriptions, tokenised with kiwipiepy (Korean) + word splits.

For each tool it proposes K same-domain and K cross-domain neighbours (the paper's dense
retriever gives 15 + 10; BM25 keeps the build offline and deterministic).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from kiwipiepy import Kiwi
from rank_bm25 import BM25Okapi

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|_")
_KEEP_TAGS = ("NN", "SL", "SN", "XR", "VV", "VA", "SH")


@functools.lru_cache(maxsize=1)
def _kiwi() -> Kiwi:
    return Kiwi()


@functools.lru_cache(maxsize=20000)
def tokenize(text: str) -> tuple[str, ...]:
    """Korean morphemes (nouns, roots, foreign words) + lower-cased camelCase pieces."""
    out: list[str] = []
    latin = re.findall(r"[A-Za-z][A-Za-z0-9]*", text)
    for w in latin:
        out.extend(p.lower() for p in _CAMEL.split(w) if len(p) > 1)
    hangul = " ".join(re.findall(r"[가-힣]+", text))
    if hangul:
        out.extend(t.form for t in _kiwi().tokenize(hangul) if t.tag.startswith(_KEEP_TAGS) and len(t.form) > 0)
    return tuple(out)


def tool_text(ref: Any, include_io: bool = True) -> str:
    op = ref.op
    parts = [op.name, op.title_ko, op.title_en, op.description_ko, op.description_en,
             ref.service.name_ko, ref.service.name_en]
    if include_io:
        for p in op.model_params:
            parts += [p.name, p.desc_ko, p.desc_en]
        for f in op.fields:
            parts += [f.name, f.desc_ko, f.desc_en]
    return " ".join(x for x in parts if x)


class ToolRetriever:
    """BM25 index over the catalog's tools."""

    def __init__(self, catalog: Any):
        self.catalog = catalog
        self.refs = list(catalog)
        self.names = [r.op.tool for r in self.refs]
        self.docs = [list(tokenize(tool_text(r))) or ["_"] for r in self.refs]
        self.bm25 = BM25Okapi(self.docs)

    def score_query(self, text: str) -> list[tuple[str, float]]:
        q = list(tokenize(text))
        scores = self.bm25.get_scores(q) if q else [0.0] * len(self.names)
        return sorted(zip(self.names, map(float, scores)), key=lambda x: (-x[1], x[0]))

    def neighbours(self, tool: str, k_same: int = 15, k_cross: int = 10) -> dict[str, list[tuple[str, float]]]:
        """Same-domain and cross-domain neighbours of a tool by BM25 over its own description+IO."""
        ref = self.catalog.get(tool)
        ranked = [(n, s) for n, s in self.score_query(tool_text(ref)) if n != tool]
        dom = ref.op.domain
        same = [(n, s) for n, s in ranked if self.catalog.get(n).op.domain == dom][:k_same]
        cross = [(n, s) for n, s in ranked if self.catalog.get(n).op.domain != dom][:k_cross]
        return {"same": same, "cross": cross}

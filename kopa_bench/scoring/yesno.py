"""Is a yes/no stated in an answer, the way a Korean (or English) reader hears it?

The answer is cut into clauses; with a context word (a bool fact's `context`) only the clauses
naming it count. A clause says NO when it holds a negation (않다, 아니다, 없다, 못, a spoken
안, not / no / never / n't); it says YES when it holds no negation and either an explicit yes
(예, 네, 맞아요, yes, true) or ends as a statement (…습니다, …어요, …다, …음 / an English verb):
"1,400원을 넘었습니다" is yes, "1,400원을 넘지 않았습니다" is no.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

YES_WORDS = ("예", "네", "맞아", "맞습니다", "맞아요", "그렇습니다", "그래요", "입니다", "이에요", "예요", "이야",
             "있습니다", "있어요", "yes", "true")
NO_WORDS = ("아니오", "아니요", "아닙니다", "아니에요", "아니야", "아녜요", "아니고", "아닌", "없습니다", "없어요", "없음",
            "않습니다", "않아요", "않음", "안 ", "no", "false")

# a period inside a number (1.5%) does not end a clause
_CLAUSE_RE = re.compile(r"\.(?!\d)|[!?\n。;]|(?<=[요다])\s|(?<=[요다]),")
_HANGUL = "가-힣"
# Korean negation: the auxiliaries 않-/아니-/없-/못, and the spoken 안 as a word of its own
# (안 넘었어요; 안내, 안전 and 안양 are other words)
_NEG_KO = re.compile(rf"않|아니|아닌|아닙|아녜|없|(?<![{_HANGUL}])못(?=\s|하|했|합|해)|(?<![{_HANGUL}])안\s")
_NEG_EN = re.compile(r"\b(?:no|not|never|none|false|isn't|aren't|wasn't|weren't|doesn't|don't|didn't|won't|hasn't|haven't|cannot|can't|n't)\b", re.I)
_YES_KO = re.compile(rf"(?<![{_HANGUL}])(?:예|네|응|맞아요|맞습니다|맞아|그렇습니다|그래요)(?![{_HANGUL}])")
# an English statement: yes/true, a finite be/do/have/will (it's, there's), or a past tense (rose, exceeded)
_YES_EN = re.compile(r"\b(?:yes|true|correct|is|are|was|were|does|did|do|has|have|will|exceeds?|rose|fell|went|[a-z]+ed)\b|\w's\b", re.I)
# a Korean clause that ends as a statement: -다, -요, -음/-함/-임 (notes), -죠, casual -어/-아/-야/-지/-네
_STATEMENT_KO = re.compile(r"[다요음함임죠야지네]\W*$|[었았였했됐겠]어\W*$")


def clauses(text: str, context: str | None = None) -> list[str]:
    """The clauses of `text` (sentences, and statements joined by a comma), those naming `context` only."""
    found = [c.strip() for c in _CLAUSE_RE.split(text) if c and c.strip()]
    if context:
        found = [c for c in found if context in c]
    return found


def says_no(clause: str) -> bool:
    """Does `clause` hold a negation?"""
    return bool(_NEG_KO.search(clause) or _NEG_EN.search(clause))


def _says_yes(clause: str) -> bool:
    if says_no(clause):
        return False
    return bool(_YES_KO.search(clause) or _YES_EN.search(clause) or _STATEMENT_KO.search(clause))


@lru_cache(maxsize=8192)
def _stated(gold: bool, text: str, context: str | None) -> bool:
    scope = clauses(text, context)
    if gold is False:
        return any(map(says_no, scope))
    return any(map(_says_yes, scope)) and not any(map(says_no, scope))


def bool_stated(gold: bool, text: str, context: str | None = None) -> bool:
    """Whether `text` says yes (gold True) or no (gold False), within clauses mentioning `context`.
    A yes needs no clause in scope to negate; a no needs one that does."""
    return _stated(bool(gold), text, context or None)


def parse_bool(value: Any) -> bool | None:
    s = str(value).strip().lower()
    if s in ("true", "y", "yes", "1", "예", "네"):
        return True
    if s in ("false", "n", "no", "0", "아니오", "아니요"):
        return False
    return None

"""The order in which records of A's answer are bound into B when B answers nothing: an empty
answer for one record of a mixed list (a primary school for a high-school timetable) does not show
a link is wrong, so the record most unlike the ones tried so far is tried next."""

from __future__ import annotations

import random


def record_categories(recs: list[dict], sample: int = 100) -> dict[str, int]:
    """Categorical fields of an answer (2 to a third of the records' count distinct values: a
    school kind, a bill's result, a table's searchable flag) -> their number of values, read from
    at most `sample` records. Computed once per answer, not per retry."""
    head = recs[:sample]
    cats: dict[str, int] = {}
    for f in sorted({k for r in head for k in r}):
        vals = {str(v) for v in (r.get(f) for r in head) if not isinstance(v, (dict, list))}
        if 2 <= len(vals) <= max(2, len(head) // 3):
            cats[f] = len(vals)
    return cats


class RetryOrder:
    """The order in which records of one answer of A are retried: next the untried record most
    unlike the tried ones. Each categorical field whose value no tried record had counts
    1 / (its number of values), so the next try changes the category most likely to decide
    whether B has data; candidates are at most `sample` untried records (a probe must stay cheap).

    The work is shared across the retries of one answer (the categorical fields, the values the
    tried records had, the untried positions, each scored record's texts and novelty); a score is
    recomputed only when a tried record brings a value that record has, as most retries bring none."""

    def __init__(self, recs: list[dict], sample: int = 100, cats: dict[str, int] | None = None):
        self.recs = recs
        self.sample = sample
        self.cats = record_categories(recs, sample) if cats is None else cats
        self.fields = list(self.cats)
        self.weights = [1.0 / self.cats[f] for f in self.fields]
        self.seen: list[set[str]] = [set() for _ in self.fields]
        self.left = list(range(len(recs)))  # positions of the untried records, in answer order
        self.where: dict[int, list[int]] | None = None  # id(record) -> its positions; built on first use
        self.texts: list[tuple[str, ...] | None] = [None] * len(recs)
        self.scores: list[float | None] = [None] * len(recs)  # novelty of the records scored so far
        self.holders: dict[tuple[int, str], list[int]] = {}  # (field, value) -> scored positions with it
        self.absorbed = 0

    def _novelty(self, texts: tuple[str, ...]) -> float:
        return sum(w for w, v, seen in zip(self.weights, texts, self.seen) if v not in seen)

    def _score(self, i: int) -> None:
        r = self.recs[i]
        texts = self.texts[i] = tuple(map(str, map(r.get, self.fields)))
        for k in enumerate(texts):
            self.holders.setdefault(k, []).append(i)
        self.scores[i] = self._novelty(texts)

    def _absorb(self, new: list[dict]) -> None:
        """Take in the records tried since the last call: they leave `left`; a value no tried
        record had before lowers the score of the scored records that have it."""
        if self.where is None:
            where = {id(r): [i] for i, r in enumerate(self.recs)}
            if len(where) < len(self.recs):  # one record object at several positions: keep them all
                where = {}
                for i, r in enumerate(self.recs):
                    where.setdefault(id(r), []).append(i)
            self.where = where
        stale: set[int] = set()
        for u in new:
            for i in self.where.pop(id(u), ()):
                self.left.remove(i)
            for k, (f, seen) in enumerate(zip(self.fields, self.seen)):
                v = str(u.get(f))
                if v not in seen:
                    seen.add(v)
                    stale.update(self.holders.pop((k, v), ()))  # seen for good: later scores see it
        for i in stale:
            self.scores[i] = self._novelty(self.texts[i])

    def next(self, used: list[dict], rng: random.Random) -> dict | None:
        if len(used) > self.absorbed:  # `used` only grows
            self._absorb(used[self.absorbed:])
            self.absorbed = len(used)
        if not self.left:
            return None
        # sampling positions instead of records draws the same random numbers (random.sample
        # reads only the population's length) and lets max() read scores without a Python key
        pick = rng.sample(self.left, min(len(self.left), self.sample))
        scores = self.scores
        for i in pick:
            if scores[i] is None:
                self._score(i)
        return self.recs[max(pick, key=scores.__getitem__)]  # the first of the highest novelty


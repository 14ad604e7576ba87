"""NEIS timetables (els/mis/his/spsTimetable): school days of each academic year from 2020, a
weekly pattern per class drawn from the school's seed; each dataset only has schools of its kind.
A request naming no year, semester or date gets the current year's 2nd semester (개학식..방학식)."""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from datetime import date, timedelta

from .neis import class_counts, course_name, date_filter, school_head, school_row
from .neis_calendar import academic_years, school_calendar, school_days_between

SUBJECTS = {
    ("els", 1): [("국어", 7), ("수학", 4), ("바른 생활", 2), ("슬기로운 생활", 3), ("즐거운 생활", 5), ("창의적 체험활동", 2)],
    ("els", 3): [("국어", 6), ("수학", 4), ("사회", 3), ("과학", 3), ("영어", 2), ("체육", 3), ("음악", 2), ("미술", 2),
                 ("도덕", 1), ("창의적 체험활동", 2)],
    ("els", 5): [("국어", 6), ("수학", 4), ("사회", 3), ("과학", 3), ("영어", 3), ("체육", 3), ("음악", 2), ("미술", 2),
                 ("도덕", 1), ("실과", 2), ("창의적 체험활동", 2)],
    ("mis", 1): [("국어", 4), ("수학", 4), ("영어", 4), ("사회", 3), ("역사", 2), ("과학", 4), ("기술·가정", 2), ("체육", 3),
                 ("음악", 2), ("미술", 2), ("도덕", 1), ("정보", 1), ("한문", 1), ("진로와 직업", 1), ("스포츠", 1),
                 ("동아리활동", 1), ("자율활동", 1)],
    ("his", 1): [("공통국어2", 4), ("공통수학2", 4), ("공통영어2", 4), ("통합사회2", 3), ("통합과학2", 3), ("한국사2", 3),
                 ("과학탐구실험2", 1), ("체육1", 2), ("음악 연주와 창작", 2), ("정보", 2), ("자율·자치활동", 1),
                 ("동아리활동", 1)],
    ("his", 2): [("문학", 4), ("대수", 4), ("영어Ⅰ", 4), ("세계시민과 지리", 2), ("물리학", 2), ("화학", 2), ("생명과학", 2),
                 ("지구과학", 2), ("사회와 문화", 2), ("운동과 건강", 2), ("미술", 2), ("중국어", 2), ("자율·자치활동", 1)],
    ("his", 3): [("언어와 매체", 4), ("확률과 통계", 3), ("미적분", 3), ("영어 독해와 작문", 4), ("생활과 윤리", 3),
                 ("사회·문화", 3), ("화학Ⅱ", 2), ("생명과학Ⅱ", 2), ("스포츠 생활", 2), ("진로활동", 1)],
    ("sps", 1): [("국어", 4), ("수학", 3), ("생활", 3), ("체육", 2), ("음악", 2), ("미술", 2), ("창의적 체험활동", 2)],
}


def _subjects(kind: str, grade: int):
    if kind == "els":
        return SUBJECTS[("els", 1 if grade <= 2 else 3 if grade <= 4 else 5)]
    if kind == "mis":
        return SUBJECTS[("mis", 1)]
    if kind == "sps":
        return SUBJECTS[("sps", 1)]
    return SUBJECTS[("his", grade)]


def _periods(kind: str, grade: int, wd: int) -> int:
    if kind in ("els", "sps"):
        return (4 if wd in (2, 4) else 5) if grade <= 2 else (5 if wd in (2, 4) else 6)
    return 7 if (kind == "his" or wd in (0, 1, 3)) else 6


@functools.lru_cache(maxsize=8192)
def _week(seed: int, kind: str, grade: int, cls: int) -> tuple[tuple[str, ...], ...]:
    """A class's weekly timetable (subjects per period, Monday to Friday): a pure function of the
    school's seed, so it is drawn once, not again for every request and every page."""
    subj = _subjects(kind, grade)
    names, weights = [x[0] for x in subj], [x[1] for x in subj]
    r = random.Random(f"{seed}:tt:{grade}:{cls}")
    return tuple(tuple(r.choices(names, weights)[0] for _ in range(_periods(kind, grade, wd))) for wd in range(5))


class _TimetableRows(Sequence):
    """The timetable rows of one request, built only for the slice asked for.

    A school's semester is up to ~20,000 rows (classes x school days x periods), but a request
    returns one page of them plus the total. len() is counted from the weekly plans and a
    slice builds only its own dicts, in exactly the order and form a full list would have."""

    def __init__(self, head: dict, extra: dict, days: list[tuple[date, int, int]],
                 blocks: list[tuple[int, int, list[list[tuple[int, str]]]]]):
        self._head, self._extra, self._blocks = head, extra, blocks
        self._days = [(d.weekday(), d.strftime("%Y%m%d"), str(ay), str(sem)) for d, ay, sem in days]
        per_wd = [0] * 5
        for wd, *_ in self._days:
            per_wd[wd] += 1
        # rows per (grade, class) block: its periods on each weekday times the days with that weekday
        self._sizes = [sum(per_wd[wd] * len(plan[wd]) for wd in range(5)) for _, _, plan in blocks]
        self._len = sum(self._sizes)

    def __len__(self) -> int:
        return self._len

    def _row(self, g: int, c: int, ymd: str, ay: str, sem: str, p: int, subject: str) -> dict:
        return {**self._head, "AY": ay, "SEM": sem, "ALL_TI_YMD": ymd, **self._extra, "GRADE": str(g),
                "CLASS_NM": str(c), "PERIO": str(p), "ITRT_CNTNT": subject, "LOAD_DTM": ymd}

    def _rows(self, start: int, stop: int) -> list[dict]:
        out, pos = [], 0
        for (g, c, plan), size in zip(self._blocks, self._sizes):
            if pos >= stop:
                break
            if pos + size <= start:
                pos += size  # the whole block lies before the slice
                continue
            for wd, ymd, ay, sem in self._days:
                periods = plan[wd]
                if pos >= stop:
                    break
                if pos + len(periods) <= start:
                    pos += len(periods)
                    continue
                for p, subject in periods:
                    if start <= pos < stop:
                        out.append(self._row(g, c, ymd, ay, sem, p, subject))
                    pos += 1
        return out

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(self._len)
            if step != 1:
                return self._rows(0, self._len)[index]
            return self._rows(start, stop) if start < stop else []
        i = index + self._len if index < 0 else index
        if not 0 <= i < self._len:
            raise IndexError("timetable row index out of range")
        return self._rows(i, i + 1)[0]

    def __iter__(self):
        return iter(self._rows(0, self._len))


def _timetable_extra(kind: str, s: dict) -> dict:
    """Columns a timetable row carries beyond the school head, by school kind (els/mis/his/sps)."""
    extra: dict = {}
    if kind in ("mis", "his", "sps"):
        extra["DGHT_CRSE_SC_NM"] = "주간"
    if kind == "his":
        extra.update({"ORD_SC_NM": s["HS_GNRL_BUSNS_SC_NM"], "DDDEP_NM": s["_dddep"], "CLRM_NM": None})
    if kind == "sps":
        extra["SCHUL_CRSE_SC_NM"] = course_name(s)
    return extra


def _timetable(world, params, kind: str) -> Sequence[dict]:
    s = school_row(world, params)
    if s is None or s["_kind"] != kind:
        return []
    sem_want = params.get("SEM")
    if sem_want not in (None, "1", "2"):
        return []
    for k, want in (("DGHT_CRSE_SC_NM", "주간"), ("ORD_SC_NM", s["HS_GNRL_BUSNS_SC_NM"]), ("DDDEP_NM", s["_dddep"])):
        if params.get(k) is not None and params.get(k) != want:
            return []
    if params.get("CLRM_NM") is not None:
        return []
    ok = date_filter(params, "ALL_TI_YMD", "TI_FROM_YMD", "TI_TO_YMD")
    named = any(params.get(k) for k in ("AY", "SEM", "ALL_TI_YMD", "TI_FROM_YMD", "TI_TO_YMD"))
    days = []
    for ay in academic_years(params.get("ALL_TI_YMD"), params.get("TI_FROM_YMD"), params.get("TI_TO_YMD"), params.get("AY")):
        _, off, first, sem2, last = school_calendar(s, ay)
        sems = [("2", sem2, last)] if not named else [("1", first, sem2 - timedelta(days=1)), ("2", sem2, last)]
        days += [(d, ay, sem) for sem, a, b in sems if sem_want in (None, sem)
                 for d in school_days_between(a, b, off) if ok(d.strftime("%Y%m%d"))]
    if not days:
        return []
    g_want, c_want, p_want = params.get("GRADE"), params.get("CLASS_NM"), params.get("PERIO")
    head = school_head(s)
    extra = _timetable_extra(kind, s)
    blocks = []
    for g, n in enumerate(class_counts(s), start=1):
        if g_want is not None and str(g_want) != str(g):
            continue
        for c in range(1, n + 1):
            if c_want is not None and str(c_want).lstrip("0") != str(c):
                continue
            week = _week(int(s["_seed"]), kind, g, c)
            plan = [[(p, subject) for p, subject in enumerate(week[wd], start=1)
                     if p_want is None or str(p_want) == str(p)] for wd in range(5)]
            blocks.append((g, c, plan))
    rows = _TimetableRows(head, extra, days, blocks)
    return rows if len(rows) else []


def els_timetable(world, params):
    return _timetable(world, params, "els")


def mis_timetable(world, params):
    return _timetable(world, params, "mis")


def his_timetable(world, params):
    return _timetable(world, params, "his")


def sps_timetable(world, params):
    return _timetable(world, params, "sps")

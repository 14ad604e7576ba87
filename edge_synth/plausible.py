"""Would a person make this request? Structural checks on a synthesized trajectory and its query.

The hand-judged rubric sample (edge_synth/query_rubric.py) showed which trajectories no Korean
user would ask for, whatever the wording: a subject given as coordinates or an internal ID, a
chain whose middle steps the request never mentions, topics from unrelated domains glued
together, a question about "the" record of a list that has many (the answer is an arbitrary
first one), and asked-for values that are codes or echo the request's own inputs. Synthesis
drops such trajectories (recorded in rejected.jsonl with the reason).
"""

from __future__ import annotations

import re
from typing import Any

from .queries import code_place, entity_args, field_label
from .values import TEMPORAL_KINDS

# inputs a person never types: coordinates, grid cells, internal ids and numbers
OPAQUE_KINDS = frozenset({"lat", "lon", "tm_x", "tm_y", "utmk_x", "utmk_y", "kma_nx", "kma_ny", "id", "number",
                          "measure", "hhmm"})
# asked-for values that are codes, bookkeeping or the request's own inputs echoed back
_META_LABEL = re.compile(r"코드|ID|일련번호|발표|기준일자|분류|좌표|플래그|순번|레벨|이미지|수정일|등록일|전화번호명|"
                         r"실황 값|예보 값|^값$|표시|링크|홈페이지|우편번호|주야|학교과정명|교육청명|구분$")


def _opaque(catalog: Any, tool: str, pname: str, value: Any, kind: str | None) -> bool:
    if code_place(pname, value):
        return False
    text = str(value).strip()
    if kind in TEMPORAL_KINDS or re.fullmatch(r"(19|20)\d{2}(\d{2}){0,2}", text):
        return False
    if kind in OPAQUE_KINDS:
        return True
    return not re.search(r"[가-힣]", text)  # a bare code or number ('GGB00800010', '7010469')


def rejection(traj: dict, catalog: Any, param_kind: dict) -> str | None:
    """Why no person would make this request (None: plausible)."""
    task = traj["task"]
    prog = task["program"]
    shape = task["shape"]
    plan = traj.get("plan") or {}
    named = entity_args(task, traj.get("entity_steps", ["s1"]), catalog)
    if not named:
        return "no_subject"  # nothing in the request says what it is about
    for sid, p, v in named:
        tool = next(s["tool"] for s in prog if s["id"] == sid)
        if _opaque(catalog, tool, p.name, v, param_kind.get((tool, p.name))):
            return "opaque_subject"
    if shape == "sequential" and len(prog) > 2:
        return "hidden_steps"  # the request names the first and last topics only
    doms = {catalog.get(s["tool"]).op.domain for s in prog}
    if len(doms) > 1 and not (plan.get("select") or {}).get("match") == "nearest":
        return "unrelated_domains"
    run = traj["run"]
    for s in prog:
        for ref in _refs([s.get("args", {}), s.get("pick"), s.get("condition")]):
            src = ref[1:].split(".", 1)[0]
            sr = run.by_id.get(src)
            if ".items[0]." in ref and sr is not None and not sr.skipped and len(sr.records) > 1:
                return "arbitrary_record"  # the next step follows one record of a list the request never names
    asked = [f for f in traj["facts"] if f.get("tool") and not isinstance(f.get("value"), dict) and f.get("field") != "branch"]
    for f in asked:
        ref = f["value"] if isinstance(f.get("value"), str) else ""
        sr = run.by_id.get(ref[1:].split(".", 1)[0]) if ref.startswith("$s") else None
        if ".items[0]." in ref and sr is not None and len(sr.records) > 1 and not newest_first(sr.records):
            return "arbitrary_record"  # "the" value of a list the request never narrows to one
    literals = {str(v).strip() for s in prog for v in s.get("args", {}).values()
                if not isinstance(v, (dict, list)) and not str(v).startswith("$")}
    picked = {str(f.get("resolved")).strip() for f in traj["facts"] if str(f.get("value", "")).startswith("$s1.picked.")}
    for f in asked:
        v = str(f.get("resolved")).strip()
        if v in literals or (v in picked and not str(f.get("value", "")).startswith("$s1.picked.")):
            return "echo"  # asks back what the request itself says or what was just identified
    labels = [field_label(catalog, f["tool"], f["field"]) or "" for f in asked]
    if not labels or any(_META_LABEL.search(lab) or not lab for lab in labels):
        return "meta_field"
    return None


_DATETIME = re.compile(r"\d{4}-?\d{2}-?\d{2}[ T]?\d{2}:?\d{2}")


def newest_first(records: list[dict]) -> bool:
    """A time series of one subject, newest record first (hourly readings of one station): its
    first record is 'the current value', not an arbitrary pick."""
    for k, v in records[0].items():
        vals = [str(r.get(k, "")) for r in records]
        if all(_DATETIME.fullmatch(x) for x in vals) and len(set(vals)) == len(vals):
            return vals == sorted(vals, reverse=True)
    return False


def _refs(args: Any) -> list[str]:
    if isinstance(args, str):
        return re.findall(r"\$s\d+\.[\w\[\].]+", args)
    if isinstance(args, dict):
        return [r for v in args.values() for r in _refs(v)]
    if isinstance(args, list):
        return [r for v in args for r in _refs(v)]
    return []

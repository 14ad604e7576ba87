"""The final assistant answer of a trajectory, worded to answer the request it was made for.

A comparison says both sides and which is higher (and by how much); a conditional says the
measured value, which way the condition went and what that branch found; a reduction names the
pick; the other shapes give each asked-for value with what it is. Values are the executed
trajectory's resolved facts, so the answer states nothing the tool results do not show.
Deterministic: entity names are rendered with a fixed generator, not the query's.
"""

from __future__ import annotations

import random
from typing import Any

from .queries import _comparison_sides, _josa, _numeric_wording, field_phrase, topic


# comparison adjective (queries._numeric_wording) -> (banmal, jondae) predicate
_PREDICATE = {"많은": ("많아", "많습니다"), "높은": ("높아", "높습니다"), "가까운": ("가까워", "가깝습니다"),
              "넓은": ("넓어", "넓습니다"), "큰": ("커", "큽니다")}


def fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "예" if v else "아니요"
    if isinstance(v, float):
        return f"{v:.4f}".rstrip("0").rstrip(".")
    return str(v)


def _num(v: Any) -> float | None:
    try:
        return float(str(v).replace(",", "").strip())
    except (TypeError, ValueError):
        return None


def _plain(facts: list[dict], catalog: Any, step_topic: dict[str, str]) -> list[str]:
    lines = []
    for f in facts:
        if not f.get("tool") or f.get("field") == "branch" or isinstance(f.get("value"), dict):
            continue
        sid = f["value"][1:].split(".", 1)[0] if isinstance(f.get("value"), str) and f["value"].startswith("$s") else ""
        head = step_topic.get(sid, "")
        label = field_phrase(catalog, f["tool"], f["field"])
        lines.append(f"- {head + ' ' if head else ''}{label}: {fmt(f['resolved'])}")
    return lines


def answer_text(traj: dict, catalog: Any, register: str) -> str:
    """The closing answer for `traj` (executed facts in `traj['facts']`) in `register`."""
    ban = register == "banmal"
    task, facts = traj["task"], traj["facts"]
    if traj.get("failure"):
        # the last call made, not the last planned: a run that stopped early never reached the rest
        run = traj.get("run")
        made = run.executed if run is not None else []
        what = topic(catalog, made[-1].tool if made else task["program"][-1]["tool"])
        return (f"{_josa(what, ('을', '를'))} 조회했지만 답할 수 있는 결과가 없었어." if ban
                else f"{_josa(what, ('을', '를'))} 조회했지만 답변드릴 수 있는 결과가 없었습니다.")
    prog = task["program"]
    shape = task["shape"]
    plan = traj.get("plan") or {}
    rng = random.Random(0)
    step_topic = {s["id"]: topic(catalog, s["tool"]) for s in prog}
    if shape == "comparison" and len([f for f in facts if not isinstance(f.get("value"), dict)]) >= 2:
        f3, f4 = facts[0], facts[1]
        a, b, _ctx = _comparison_sides(task, catalog, rng)
        label = field_phrase(catalog, f3["tool"], f3["field"])
        what = f"{step_topic.get(f3['value'][1:].split('.', 1)[0], '')} {label}".strip()
        lines = [f"{what}: {a} {fmt(f3['resolved'])}, {b} {fmt(f4['resolved'])}."]
        x, y = _num(f3["resolved"]), _num(f4["resolved"])
        if x is not None and y is not None:
            adj, _q = _numeric_wording(label)
            if x == y:
                lines.append("두 곳 값이 같아." if ban else "두 값이 같습니다.")
            else:
                hi = a if x > y else b
                diff = fmt(round(abs(x - y), 6))
                pred = _PREDICATE[adj][0 if ban else 1]
                lines.append(f"{_josa(hi, ('이', '가'))} {diff}만큼 더 {pred}.")
        return "\n".join(lines)
    if shape == "conditional":
        cond = next((s["condition"] for s in prog if s.get("condition")), None)
        cval = next((f for f in facts if cond and f.get("value") == cond["ref"]), None)
        ran = next((f["resolved"] for f in facts if f.get("field") == "branch"), None)
        if cond and cval is not None and ran is not None:
            cl = field_phrase(catalog, prog[0]["tool"], cval["field"])
            taken = prog[1] if ran else prog[2]
            side = "이상" if ran else "미만"
            found = [f for f in facts if isinstance(f.get("value"), str) and f["value"].startswith(f"${taken['id']}.")]
            head = (f"{step_topic['s1']} {cl}: {fmt(cval['resolved'])}. 기준 {cond['value']} {side}이라서 "
                    f"{_josa(topic(catalog, taken['tool']), ('을', '를'))} {'확인했어.' if ban else '확인했습니다.'}")
            body = [f"- {field_phrase(catalog, f['tool'], f['field'])}: {fmt(f['resolved'])}" for f in found]
            return "\n".join([head, *body])
    if shape == "reduction" and plan.get("reduce"):
        field, is_max = plan["reduce"]
        picked = {f["field"]: f for f in facts if str(f.get("value", "")).startswith("$s1.picked.")}
        if field in picked:
            fp = field_phrase(catalog, prog[0]["tool"], field)
            adj, _q = _numeric_wording(fp)
            name = next((f for k, f in picked.items() if k != field), None)
            who = f"{fmt(name['resolved'])}" if name else "첫 번째 결과"
            most = adj if is_max else {"많은": "적은", "가까운": "먼", "넓은": "좁은", "높은": "낮은", "큰": "작은"}[adj]
            head = f"{step_topic['s1']} 중 {_josa(fp, ('이', '가'))} 가장 {most} 곳: {who} ({fp} {fmt(picked[field]['resolved'])})"
            rest = _plain([f for f in facts if f not in picked.values()], catalog, {})
            tail = [f"그곳 {step_topic[prog[-1]['id']]}:" if rest else ""] + rest
            return "\n".join([head, *[t for t in tail if t]])
    head = "확인한 결과야." if ban else "조회한 결과입니다."
    many = shape in ("parallel", "fan-out")
    return "\n".join([head, *_plain(facts, catalog, step_topic if many else {})])

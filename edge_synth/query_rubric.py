"""The rubric for EDGE requests, the seeded sample it is applied to, and its card section.

A person reads each sampled query with its trajectory (tool calls, results, final answer) and
records a verdict per criterion with a one-line reason in ``edge_synth/eval/query_rubric.jsonl``
(one row per query and judging round). The dataset card states the rubric and the pass share of
each round, computed here from that file, so the card never says more than the verdicts do.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

VERDICTS = Path(__file__).parent / "eval" / "query_rubric.jsonl"
SAMPLE_SIZE = 100
SAMPLE_SEED = 2026
GOAL = 0.9

CRITERIA = {
    "coherent": "one request about one subject: the parts (branches, sides, steps) concern the same place, date, "
                "school or entity, and a condition or comparison relates them; no unrelated topics glued together",
    "answerable": "the trajectory's calls answer exactly what is asked (the asked values, the compared sides, the "
                  "branch the condition selects) and the final answer states it",
    "plausible": "a Korean user could type it: natural wording, no API identifiers or bare codes a person does not "
                 "know, a need someone would have (judged as a demanding native reader)",
}


def rubric_markdown() -> str:
    return "\n".join(f"- **{k}**: {v}." for k, v in CRITERIA.items())


def sample(trajectories: list[dict], n: int = SAMPLE_SIZE, seed: int = SAMPLE_SEED) -> list[dict]:
    """`n` trajectories drawn at random (seeded) from a synthesis run, in id order."""
    rows = sorted(trajectories, key=lambda r: r["id"])
    picked = random.Random(seed).sample(rows, min(n, len(rows)))
    return sorted(picked, key=lambda r: r["id"])


def load_verdicts(path: str | Path = VERDICTS) -> list[dict]:
    p = Path(path)
    if not p.exists():
        return []
    return [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]


def passed(row: dict) -> bool:
    """A query passes when every criterion holds."""
    return all(bool(row[k]) for k in CRITERIA)


def summary(rows: list[dict]) -> dict[int, dict[str, Any]]:
    """Per judging round: queries judged, passed, pass share, failures per criterion and per shape."""
    out: dict[int, dict[str, Any]] = {}
    for r in rows:
        s = out.setdefault(r["round"], {"judged": 0, "passed": 0, "failed_by": {k: 0 for k in CRITERIA},
                                        "failed_shapes": {}, "run": r.get("run", "")})
        s["judged"] += 1
        if passed(r):
            s["passed"] += 1
        else:
            s["failed_shapes"][r["shape"]] = s["failed_shapes"].get(r["shape"], 0) + 1
        for k in CRITERIA:
            s["failed_by"][k] += not r[k]
    for s in out.values():
        s["pass_share"] = round(s["passed"] / s["judged"], 3) if s["judged"] else 0.0
    return dict(sorted(out.items()))


def card_section(path: str | Path = VERDICTS) -> str:
    """The dataset card's 'Query quality' section: the rubric and each round's measured pass share."""
    rounds = summary(load_verdicts(path))
    lines = [f"Each release, {SAMPLE_SIZE} synthesized queries are drawn at random (seed {SAMPLE_SEED}, "
             "`edge_synth.query_rubric.sample`) and read by a person with their trajectories. A query passes when "
             "all three criteria hold:", "", rubric_markdown(), ""]
    if not rounds:
        lines.append("No judged sample is recorded for this build.")
        return "\n".join(lines)
    lines.append(f"Verdicts with a one-line reason each: `edge_synth/eval/query_rubric.jsonl` (goal: pass share "
                 f">= {GOAL:.0%}). Synthesis drops requests that fail the structural checks of "
                 "`edge_synth/plausible.py` (a subject given as coordinates or an ID, unnamed middle steps, unrelated "
                 "domains, 'the' record of a list, asks that echo the request); the run column says how many "
                 "trajectories of which shapes each round's run kept, so a high pass share is read with the "
                 "coverage it came with.")
    lines.append("")
    lines.append("| round | synthesis run | judged | passed | pass share | failed: coherent / answerable / plausible |")
    lines.append("|---|---|---|---|---|---|")
    for rnd, s in rounds.items():
        fb = s["failed_by"]
        lines.append(f"| {rnd} | {s['run']} | {s['judged']} | {s['passed']} | {s['pass_share']:.0%} | "
                     f"{fb['coherent']} / {fb['answerable']} / {fb['plausible']} |")
    return "\n".join(lines)


def review_text(row: dict) -> str:
    """A synthesized row as the judge reads it: the query, each call with its arguments and the
    size of its answer, and the final answer."""
    out = [f"## {row['id']} ({row['shape']})", f"Q: {row['query']}"]
    results = {m.get("tool_call_id"): m.get("content", "") for m in row["messages"] if m.get("role") == "tool"}
    for m in row["messages"]:
        for c in m.get("tool_calls") or ():
            res = results.get(c["id"], "")
            out.append(f"  call {c['function']['name']} {c['function']['arguments']} -> {res[:160]!s}")
    conds = [(s["id"], s.get("condition")) for s in row["task"]["program"] if s.get("condition")]
    if conds:
        out.append(f"  conditions: {conds}")
    out.append("A: " + row["messages"][-1]["content"].replace("\n", " | "))
    return "\n".join(out)


if __name__ == "__main__":
    import sys

    from .synth import load_trajectories

    for r in sample(load_trajectories(sys.argv[1])):
        print(review_text(r) + "\n")

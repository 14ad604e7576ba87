"""Per-task BEFORE/AFTER table from two `kopa bench score --scores-out` files and their run folders.

    PYTHONPATH=. .venv/bin/python train/experiments/compare_runs.py BEFORE_SCORES.jsonl BEFORE_RUN \
        AFTER_SCORES.jsonl AFTER_RUN [--only-common]
Prints a markdown table: per task, success / response / action P,R / data flow / calls / stop reason /
the call sequence (tool names, repeats collapsed) and the first 60 characters of the final answer.
"""
from __future__ import annotations

import argparse
import json
from itertools import groupby


def load(scores: str, run: str) -> dict[str, dict]:
    eps = {}
    for line in open(f"{run}/episodes.jsonl", encoding="utf-8"):
        if line.strip():
            e = json.loads(line)
            eps[e["task_id"]] = e
    out = {}
    for line in open(scores, encoding="utf-8"):
        if line.strip():
            s = json.loads(line)
            out[s["task_id"]] = {**s, "episode": eps.get(s["task_id"], {})}
    return out


def calls(ep: dict) -> str:
    names = [c["tool"].split("_", 1)[-1] for c in ep.get("calls", [])]
    return " ".join(f"{k}x{n}" if n > 1 else k for k, n in ((k, len(list(g))) for k, g in groupby(names))) or "-"


def cell(s: dict | None) -> str:
    if s is None:
        return "(not run)"
    ep = s["episode"]
    ans = (ep.get("final_answer") or "").replace("\n", " ").replace("|", "/")[:60]
    f = lambda x: "n/a" if x is None else f"{x:.2f}"  # data_flow is None for tasks without dependencies
    return (f"{'OK' if s['success'] else '-'} r{f(s['response'])} P{f(s['action_precision'])} R{f(s['action_recall'])} "
            f"df{f(s['data_flow'])} n{s['n_calls']} {ep.get('stop_reason', '?')}: {calls(ep)} / «{ans}»")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("before_scores"); ap.add_argument("before_run")
    ap.add_argument("after_scores"); ap.add_argument("after_run")
    ap.add_argument("--only-common", action="store_true")
    a = ap.parse_args()
    b, f = load(a.before_scores, a.before_run), load(a.after_scores, a.after_run)
    ids = sorted(set(b) & set(f)) if a.only_common else sorted(set(b) | set(f))
    print("| task | BEFORE | AFTER |\n|---|---|---|")
    for t in ids:
        print(f"| {t.replace('kopa-dev-', '')} | {cell(b.get(t))} | {cell(f.get(t))} |")


if __name__ == "__main__":
    main()

"""Export trajectories as SFT chat messages and as RL rows in the KOPA-Bench Task schema;
de-duplication and decontamination against the benchmark's test and dev tasks."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from kopa_bench.tasks import Task

DATASET_VERSION = "0.2.0"  # the edge-trajectories release (its CHANGELOG in builders/edge_dataset.py)
SYSTEM = ("당신은 한국 공공데이터 API 도구를 사용하는 어시스턴트입니다. 필요한 도구를 호출해 실제 데이터를 "
          "확인한 뒤, 확인한 사실만으로 간결하게 답하세요.")


def canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def program_key(program: list[dict]) -> str:
    """Identity of a gold program: tools and arguments (step ids and notes ignored)."""
    return hashlib.sha256(canon([(s["tool"], s.get("args", {}), s.get("group", 0), s.get("pick"), s.get("condition"))
                                 for s in program]).encode()).hexdigest()


def call_signature(program: list[dict]) -> str:
    return hashlib.sha256(canon(sorted(canon([s["tool"], s.get("args", {})]) for s in program)).encode()).hexdigest()


def ngrams(text: str, n: int = 4) -> set[str]:
    t = re.sub(r"\s+", " ", text.strip())
    return {t[i:i + n] for i in range(max(0, len(t) - n + 1))}


class Decontaminator:
    """Drops trajectories whose gold program (tools + args) equals a benchmark task's, or whose
    query overlaps a benchmark query above `threshold` (character n-gram containment)."""

    def __init__(self, tasks: list[Task] | None = None, threshold: float = 0.6, n: int = 4):
        if tasks is None:
            from kopa_bench.tasks import load_tasks

            tasks = []
            for split in ("test", "dev"):
                try:
                    tasks += load_tasks(split)
                except Exception:  # noqa: BLE001 - an empty or missing split is fine
                    pass
        self.threshold, self.n = threshold, n
        self.programs = {call_signature([s.model_dump() for s in t.program]) for t in tasks}
        self.query_grams = [ngrams(t.query, n) for t in tasks]
        self.counts = {"checked": 0, "program_match": 0, "query_overlap": 0}

    def check(self, program: list[dict], query: str) -> str | None:
        self.counts["checked"] += 1
        if call_signature(program) in self.programs:
            self.counts["program_match"] += 1
            return "program_match"
        g = ngrams(query, self.n)
        for qg in self.query_grams:
            if g and qg and len(g & qg) / min(len(g), len(qg)) >= self.threshold:
                self.counts["query_overlap"] += 1
                return "query_overlap"
        return None


def final_answer(traj: dict, catalog: Any, register: str) -> str:
    """The closing answer, worded for the request (edge_synth.answers)."""
    from .answers import answer_text

    return answer_text(traj, catalog, register)


def sft_messages(traj: dict, catalog: Any, max_records: int = 5) -> list[dict]:
    """OpenAI-style chat: one assistant turn per program group (parallel calls together)."""
    run = traj["run"]
    msgs: list[dict] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": traj["query"]}]
    groups: dict[int, list] = {}
    for sr in run.executed:
        groups.setdefault(sr.group, []).append(sr)
    for g in sorted(groups):
        calls = []
        for sr in groups[g]:
            calls.append({"id": f"call_{sr.step_id}", "type": "function",
                          "function": {"name": sr.tool, "arguments": canon(sr.args)}})
        msgs.append({"role": "assistant", "content": "", "tool_calls": calls})
        for sr in groups[g]:
            msgs.append({"role": "tool", "tool_call_id": f"call_{sr.step_id}", "name": sr.tool,
                         "content": sr.result.for_model(max_records=max_records)})
    msgs.append({"role": "assistant", "content": final_answer(traj, catalog, traj.get("register", "jondae"))})
    return msgs


def rl_task(traj: dict) -> dict:
    """The Task row (validated) for RL: query + offered tools + gold program + answer spec."""
    t = dict(traj["task"])
    t["query"] = traj["query"]
    t["version"] = DATASET_VERSION
    t["gloss"] = f"EDGE synthetic {t['shape']} trajectory over {', '.join(t['platforms'])}"
    t["difficulty"] = "easy" if traj["n_calls"] <= 2 else "medium" if traj["n_calls"] <= 4 else "hard"
    t["tags"] = sorted(set(traj.get("tags", [])))
    return Task.model_validate(t).model_dump(mode="json")

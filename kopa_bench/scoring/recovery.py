"""Fault-recovery score: how an agent copes with the failures live APIs produce.

Per episode:
  faults     failed attempts the agent's calls met: every failed attempt the client retried
             on its own (`ToolResult.attempts`), plus every failed result the agent saw
             (transient, quota, auth, no_service; not its own argument / parse mistakes)
  client_retries  failed attempts the client absorbed by retrying (the agent never saw them)
  seen       failed results the agent saw
  retried    seen failures after which the agent repeated the same call (same tool, same arguments)
  rerouted   seen failures after which the agent tried another tool instead
  explained  the final answer mentions a failure (오류, 실패, 일시적, 다시 시도, ...) while at
             least one seen failure was never recovered from
  recovered  seen failures followed by a successful call of the same tool

From the command line: `kopa bench recovery RUN_DIR [--json]`.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable

from kopa_bench.episodes import EPISODES, CallRecord, Episode, RunDirError, latest_attempts, read_episodes

FAULT_TYPES = {"transient", "quota", "auth", "no_service"}
EXPLAIN_RE = re.compile(r"오류|실패|일시적|다시\s*시도|재시도|한도|초과|응답(이|을)?\s*(없|받지)|인증|"
                        r"\berror\b|\bfail|\btimeout\b|\bretry\b|unavailable|quota", re.IGNORECASE)


@dataclass
class RecoveryScore:
    task_id: str
    seed: int
    faults: int = 0
    client_retries: int = 0
    seen: int = 0
    retried: int = 0
    rerouted: int = 0
    recovered: int = 0
    unrecovered: int = 0
    explained: bool = False


def _is_fault(c: CallRecord) -> bool:
    return (c.result is not None and not c.result.ok and c.result.error is not None
            and c.result.error.type in FAULT_TYPES)


def _same_call(a: CallRecord, b: CallRecord) -> bool:
    return a.tool == b.tool and (a.arguments or {}) == (b.arguments or {})


def score_recovery(ep: Episode) -> RecoveryScore:
    s = RecoveryScore(ep.task_id, ep.seed)
    calls = ep.calls
    for i, c in enumerate(calls):
        if c.result is None:
            continue
        failed_attempts = c.result.attempts - (1 if c.result.ok else 0)
        if c.result.ok or _is_fault(c):
            s.client_retries += max(0, c.result.attempts - 1)
            s.faults += max(0, failed_attempts)
        if not _is_fault(c):
            continue
        s.seen += 1
        later = calls[i + 1:]
        nxt = next((d for d in later if d.result is not None), None)
        if nxt is not None:
            if _same_call(c, nxt):
                s.retried += 1
            elif nxt.tool != c.tool:
                s.rerouted += 1
        if any(d.tool == c.tool and d.ok for d in later):
            s.recovered += 1
        else:
            s.unrecovered += 1
    s.explained = s.unrecovered > 0 and bool(EXPLAIN_RE.search(ep.final_answer or ""))
    return s


def summarize_recovery(episodes: Iterable[Episode]) -> dict:
    rows = [score_recovery(e) for e in episodes]
    n = len(rows)
    tot = {k: sum(getattr(r, k) for r in rows) for k in
           ("faults", "client_retries", "seen", "retried", "rerouted", "recovered", "unrecovered")}
    need_explain = [r for r in rows if r.unrecovered]
    return {
        "episodes": n,
        "episodes_with_faults": sum(1 for r in rows if r.faults),
        **tot,
        "retry_rate": tot["retried"] / tot["seen"] if tot["seen"] else None,
        "reroute_rate": tot["rerouted"] / tot["seen"] if tot["seen"] else None,
        "recovery_rate": tot["recovered"] / tot["seen"] if tot["seen"] else None,
        "explain_rate": sum(r.explained for r in need_explain) / len(need_explain) if need_explain else None,
        "per_episode": [asdict(r) for r in rows],
    }


def recovery_for_run(run_dir: str | Path) -> dict:
    if not Path(run_dir).exists():
        raise RunDirError(f"{run_dir} does not exist; give the --out folder of a `kopa bench run`")
    # an infra error's episode is the server's failure, not a fault the agent met
    return summarize_recovery([e for e in latest_attempts(read_episodes(Path(run_dir) / EPISODES)) if not e.infra_error])

"""Is a run folder whole? What it should hold (ids from its own run.json / tasks.json) against
what it does: missing ids, ids whose last attempt ended in an infra error, torn JSONL lines.

`check_completeness` knows only ids, so every run kind (benchmark episodes, BFCL entries, step
runs) states its expected and finished ids and gets the same verdict and wording;
`episode_run_completeness` does it for a `kopa bench run` folder.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from pydantic import BaseModel, Field

from kopa_bench.client.redact import redact
from kopa_bench.episodes.run_dir import EPISODES, latest_attempts, load_run_tasks, read_run_json, scan_records

#: how many ids a one-line message names before "... and N more"
SHOWN = 10


class Completeness(BaseModel):
    """What a run holds against what it should; `complete` only when nothing is missing."""

    unit: str = Field(default="episodes", description="what the ids count (episodes, entries, steps)")
    expected: int = Field(description="ids the run should hold")
    finished: int = Field(description="expected ids with a finished record")
    missing: list[str] = Field(default_factory=list, description="expected ids with no record at all")
    infra_errors: list[str] = Field(default_factory=list, description="expected ids whose last attempt ended in an infra error")
    reasons: dict[str, str] = Field(default_factory=dict, description="what ended each infra error, where known")
    torn_lines: list[int] = Field(default_factory=list, description="1-based JSONL lines that are not a whole record")
    source: str = Field(default="", description="the JSONL file the records came from")

    @property
    def complete(self) -> bool:
        return not (self.missing or self.infra_errors or self.torn_lines) and self.finished == self.expected

    def headline(self) -> str:
        state = "complete" if self.complete else "INCOMPLETE"
        return f"{state}: {self.finished} of {self.expected} {self.unit}"

    def problems(self) -> list[str]:
        """One line per kind of gap, naming the ids and lines."""
        out = []
        if self.missing:
            out.append(f"missing {len(self.missing)}: {_some(self.missing)}")
        if self.infra_errors:
            first = next((f"; {i}: {self.reasons[i]}" for i in self.infra_errors if i in self.reasons), "")
            out.append(f"infra errors {len(self.infra_errors)} (the harness or model server failed; rerun the same "
                       f"command to retry them): {_some(self.infra_errors)}{first}")
        if self.torn_lines:
            out.append(f"torn lines of {self.source or 'the JSONL file'}: {_some([str(n) for n in self.torn_lines])}")
        return out

    def report(self) -> dict:
        """The JSON form (`--json` outputs carry it under "completeness")."""
        return {**self.model_dump(), "complete": self.complete}


def _some(items: list[str]) -> str:
    shown = ", ".join(items[:SHOWN])
    return shown + (f" ... and {len(items) - SHOWN} more" if len(items) > SHOWN else "")


def check_completeness(expected: Iterable[str], finished: Iterable[str], *,
                       infra_errors: Iterable[str] | Mapping[str, str] = (), torn_lines: Iterable[int] = (),
                       unit: str = "episodes", source: str = "") -> Completeness:
    """Expected ids against finished ones. An id with an infra-error attempt and no finished one
    is an infra error (`infra_errors` may map each id to what ended it); an id with neither is
    missing. Finished ids the run did not expect are ignored (they are not what the run promised)."""
    want = list(dict.fromkeys(expected))
    done = set(finished)
    reasons = dict(infra_errors) if isinstance(infra_errors, Mapping) else {}
    infra = set(infra_errors) - done
    return Completeness(unit=unit, expected=len(want), finished=sum(i in done for i in want),
                        missing=[i for i in want if i not in done and i not in infra],
                        infra_errors=[i for i in want if i in infra], torn_lines=sorted(set(torn_lines)),
                        reasons={i: r[:300] for i, r in reasons.items() if i in infra and r}, source=source)


def episode_key(task_id: str, seed: int) -> str:
    return f"{task_id} seed {seed}"


def episode_run_completeness(run_dir: str | Path) -> Completeness:
    """A `kopa bench run` folder: every task of tasks.json times run.json's seeds."""
    run_dir = Path(run_dir)
    seeds = int(((read_run_json(run_dir) or {}).get("config") or {}).get("seeds", 1) or 1)
    tasks = load_run_tasks(run_dir)
    scan = scan_records(run_dir / EPISODES)
    attempts = latest_attempts(scan.records)
    return check_completeness(
        [episode_key(t.id, s) for t in tasks for s in range(seeds)],
        [episode_key(e.task_id, e.seed) for e in attempts if not e.infra_error],
        infra_errors={episode_key(e.task_id, e.seed): redact(e.errors[-1] if e.errors else "") for e in attempts if e.infra_error},
        torn_lines=scan.torn_lines, unit="episodes", source=str(run_dir / EPISODES))

"""The settings of one verification (the bandit's weights and budget, the probes' record tries)."""

from __future__ import annotations

from dataclasses import dataclass

ALLOCATIONS = ("thompson", "uniform")


@dataclass
class VerifyConfig:
    iterations: int = 100
    paths_per_iter: int = 500
    path_len: int = 2
    w_struct: float = 3.0
    w_empty: float = 1.5
    w_env: float = 0.25
    prior_strength: float = 2.0
    prune_below: float = 0.35
    viable: float = 0.6
    min_probes: int = 3
    max_probes_per_arm: int = 40
    seed: int = 0
    concurrency: int = 64
    w_insensitive: float = 2.0
    sensitivity_checks: int = 3
    settle_after: int = 8
    coverage_probes: int = 3  # distinct informative probes every arm gets before Thompson sampling
    coverage_rounds: int = 6  # at most this many coverage attempts per arm (upstream failures, repeats)
    # records of A's answer a probe binds before an empty B answer stands: a mixed list (schools of
    # every kind for a high-school timetable) needs a few
    record_tries: int = 5
    decide_probes: int = 10  # decision phase: arms with a success but below `viable` get up to this many probes
    # how probes are allocated: "thompson" (coverage, Thompson paths, decision phase) or "uniform"
    # (direct probes round-robin over the live arms, no posterior in the choice; the probe-budget baseline)
    allocation: str = "thompson"
    probe_budget: int | None = None  # uniform: link probes to spend (None: iterations x paths_per_iter)

    def __post_init__(self) -> None:
        if self.allocation not in ALLOCATIONS:
            raise ValueError(f"allocation {self.allocation!r} is not one of {', '.join(ALLOCATIONS)}: pick one of those")
        if self.probe_budget is not None and self.probe_budget < 0:
            raise ValueError(f"probe_budget {self.probe_budget} is negative: pass a count >= 0 or None")

    def as_dict(self) -> dict:
        """The settings as written into the verified graph (the allocation fields only when not at
        their defaults, so a default run's graph keeps its bytes)."""
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        if self.allocation == "thompson" and self.probe_budget is None:
            out.pop("allocation")
            out.pop("probe_budget")
        return out

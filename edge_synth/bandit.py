"""The bandit: a Beta posterior per arm (one candidate binding), updated by probe outcomes, and
Thompson samples over the arms.

  success                         alpha += 1
  structural (argument/platform/  beta  += w_struct  (the binding is wrong)
    transform error, unbound)
  empty where B has data          beta  += w_empty   (a wrong code / value)
  success B's answer ignores      beta  += w_insensitive
  environmental (transient/quota) beta  += w_env     (the link may be fine)
  upstream / uninformative        no update

An arm is pruned when its posterior mean falls below `prune_below` after `min_probes` probes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .bindings import Binding
from .probing import ENVIRONMENTAL, STRUCTURAL
from .verify_config import VerifyConfig


def arm_id(src: str, dst: str, b: Binding) -> str:
    return f"{src}|{dst}|{b.from_field}|{b.to_param}|{b.transform}"


@dataclass
class Arm:
    src: str
    dst: str
    binding: Binding | None  # None for a client-side selection (edge_synth.selections)
    alpha: float
    beta: float
    n: int = 0
    successes: int = 0
    structural: int = 0
    environmental: int = 0
    pruned: bool = False
    sens_pos: int = 0
    sens_neg: int = 0
    echoes: int = 0
    passthrough: int = 0  # successes whose bound value was one of A's own arguments

    def settled(self, cfg: VerifyConfig) -> bool:
        """Clearly viable already (two posterior s.d. above `viable`, sensitivity checked):
        further probes of it are better spent on undecided arms."""
        if self.n < cfg.settle_after or (self.sens_pos + self.sens_neg) < min(cfg.sensitivity_checks, self.successes):
            return False
        a, b = self.alpha, self.beta
        sd = (a * b / ((a + b) ** 2 * (a + b + 1))) ** 0.5
        return self.mean - 2 * sd >= cfg.viable

    @property
    def meaningful(self) -> bool:
        """Not shown to be ignored by B: counterfactual values changed B's output at least as
        often as they left it unchanged (untested arms pass)."""
        return self.sens_neg <= self.sens_pos

    @property
    def mean(self) -> float:
        return self.alpha / (self.alpha + self.beta)


def update(arm: Arm, outcome: str, cfg: VerifyConfig, sensitive: bool | None = None, echoed: bool = False,
           passthrough: bool = False) -> None:
    if outcome == "success" and sensitive is False and not echoed:
        # executable but meaningless: another upstream value gives B's very same answer
        arm.beta += cfg.w_insensitive
        arm.sens_neg += 1
        arm.structural += 1
    elif outcome == "success":
        arm.alpha += 1.0
        arm.successes += 1
        arm.sens_pos += bool(sensitive or echoed)
        arm.echoes += bool(echoed)
        arm.passthrough += bool(passthrough)
    elif outcome == "empty":
        arm.beta += cfg.w_empty
        arm.structural += 1
    elif outcome in STRUCTURAL:
        arm.beta += cfg.w_struct
        arm.structural += 1
    elif outcome in ENVIRONMENTAL:
        arm.beta += cfg.w_env
        arm.environmental += 1
    else:
        return  # upstream failures say nothing about this link
    arm.n += 1
    if arm.n >= cfg.min_probes and arm.mean < cfg.prune_below:
        arm.pruned = True


def sample_theta(np_rng: np.random.Generator, arms: dict[str, Arm]) -> dict[str, float]:
    """One Thompson sample of every arm's posterior."""
    ids = list(arms)
    a = np.array([arms[i].alpha for i in ids])
    b = np.array([arms[i].beta for i in ids])
    draws = np_rng.beta(a, b)
    return dict(zip(ids, draws.tolist()))


def binding_set(arms: dict[str, Arm], ids: list[str], theta: dict[str, float]) -> tuple[list[str], float]:
    """Of the arms `ids` of one edge, per target parameter the live arm with the highest sample;
    the set's value is their mean sample."""
    best: dict[str, tuple[float, str]] = {}
    for aid in ids:
        arm = arms[aid]
        if arm.pruned:
            continue
        t = theta[aid]
        p = arm.binding.to_param
        if p not in best or t > best[p][0]:
            best[p] = (t, aid)
    if not best:
        return [], 0.0
    chosen = [aid for _, aid in best.values()]
    draws = [t for t, _ in best.values()]
    # numpy sums fewer than 8 values one after another, as Python does: the same mean without
    # numpy's per-call overhead (this runs for every successor of every path step)
    return chosen, (sum(draws) / len(draws) if len(draws) < 8 else float(np.mean(draws)))

"""The verified graph: edges whose best binding set (per target parameter the best arm with a
success, not shown to be ignored) reaches `viable`, binds no half key (:mod:`edge_synth.group_rules`)
and is evidence of a shared entity (:mod:`edge_synth.evidence`); each binding carries its posterior."""

from __future__ import annotations

from dataclasses import replace

import networkx as nx

from .bandit import Arm
from .evidence import DomainEvidence
from .group_rules import GroupRules
from .verify_config import VerifyConfig


def edge_posterior(edge: tuple[str, str], arms: list[Arm], evidence: DomainEvidence) -> tuple[float, list[Arm]]:
    """Best binding set by posterior mean (per target parameter), and its mean."""
    best: dict[str, Arm] = {}
    for arm in arms:
        if arm.pruned or arm.successes == 0 or not arm.meaningful:
            continue
        if not evidence.shown_to_matter(edge, arm):
            continue  # an optional filter never shown to change B's answer
        p = arm.binding.to_param
        if p not in best or arm.mean > best[p].mean:
            best[p] = arm
    if not best:
        return 0.0, []
    out = list(best.values())
    return max(a.mean for a in out), sorted(out, key=lambda a: -a.mean)


def verified_graph(g: nx.DiGraph, arms_by_edge: dict[tuple[str, str], list[Arm]], cfg: VerifyConfig,
                   groups: GroupRules, evidence: DomainEvidence) -> nx.DiGraph:
    vg = nx.DiGraph()
    vg.add_nodes_from(g.nodes(data=True))
    for edge, edge_arms in arms_by_edge.items():
        _, arms = edge_posterior(edge, edge_arms, evidence)
        arms = groups.complete(edge, [a for a in arms if a.mean >= cfg.viable])
        if not arms or not evidence.entity_evidence(edge, arms):
            continue
        bindings = [replace(a.binding, alpha=round(a.alpha, 3), beta=round(a.beta, 3), posterior=round(a.mean, 4),
                            probes=a.n, successes=a.successes, sensitive=a.sens_pos, insensitive=a.sens_neg).as_dict()
                    for a in arms]
        mean = max(a.mean for a in arms)
        vg.add_edge(*edge, bindings=bindings, posterior=round(mean, 4), prior=g.edges[edge]["prior"],
                    cross_domain=g.edges[edge].get("cross_domain", False))
    vg.graph.update(g.graph)
    vg.graph["verify"] = cfg.as_dict()
    return vg


def arm_rows(arms: dict[str, Arm]) -> list[dict]:
    """Every arm's posterior, by arm id (arms.json)."""
    return [{"arm": k, "alpha": a.alpha, "beta": a.beta, "n": a.n, "successes": a.successes,
             "structural": a.structural, "environmental": a.environmental, "pruned": a.pruned}
            for k, a in sorted(arms.items())]

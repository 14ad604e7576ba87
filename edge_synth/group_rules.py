"""What a binding set into B's composite parameter groups (:mod:`edge_synth.groups`) must bind:
joint members from the same record of A (unless inherited from A's call), format groups whole."""

from __future__ import annotations

from typing import Any

import networkx as nx

from .bindings import Binding, posterior_of
from .groups import carried_keys, half_bound
from .seeds import SeedSampler


class GroupRules:
    def __init__(self, graph: nx.DiGraph, sampler: SeedSampler):
        self.g, self.sampler = graph, sampler
        self._needs: dict[tuple, tuple[set[str], set[str]]] = {}

    def inheritable(self, edge: tuple[str, str]) -> set[str]:
        """B's required parameters A is called with under the same name (passed through)."""
        a_req = {p.lower() for p in self.sampler.required(edge[0])}
        return {p for p in self.sampler.required(edge[1]) if p.lower() in a_req}

    def needs(self, edge: tuple[str, str], params: set[str]) -> tuple[set[str], set[str]]:
        """(mandatory, keep) for a binding set into `params`: members of B's joint groups (a key,
        a coordinate pair) touched by the set or carried whole by A's records must be bound from
        the same record unless inherited; the rest of a touched format group is kept."""
        key = (edge, frozenset(params))
        hit = self._needs.get(key)
        if hit is None:  # a function of the catalog and the graph only: computed once per edge and set
            hit = self._needs[key] = self._needs_of(edge, params)
        return set(hit[0]), set(hit[1])

    def _needs_of(self, edge: tuple[str, str], params: set[str]) -> tuple[set[str], set[str]]:
        a, b = edge
        mandatory, keep = set(), set()
        carried = carried_keys(self.sampler.groups, b, self.g.nodes[a].get("field_kinds", {}))
        for grp in self.sampler.groups.get(b, []):
            if grp.joint and (grp.members & params or grp in carried):
                mandatory |= grp.members
            elif grp.kind == "format" and grp.members & params:
                keep |= grp.members
        return mandatory - self.inheritable(edge), keep

    def partners(self, tool: str, param: str, kind: str) -> set[str]:
        """The other members of `tool`'s groups of `kind` ('coord', 'key') that hold `param`."""
        return {m for grp in self.sampler.groups.get(tool, []) if grp.kind == kind and param in grp.members
                for m in grp.members if m != param}

    def complete(self, edge: tuple[str, str], arms: list[Any]) -> list[Any]:
        """A verified binding set without half keys: arms into a joint group whose other members
        have no verified arm (and are not inherited) are dropped; when A's records carry B's key
        and it is not bound whole, nothing is left."""
        params = {a.binding.to_param for a in arms}
        mandatory, _ = self.needs(edge, params)
        if not (mandatory - params):
            return arms
        carried = carried_keys(self.sampler.groups, edge[1], self.g.nodes[edge[0]].get("field_kinds", {}))
        inh = self.inheritable(edge)
        if any(grp.members - params - inh for grp in carried):
            return []
        half = half_bound(self.sampler.groups.get(edge[1], []), params, inh)
        return [a for a in arms if a.binding.to_param not in half]

    def units(self, edge: tuple[str, str], bindings: list[Binding]) -> list[list[Binding]]:
        """The bindings of one edge as units that stand or fall together (the members of one of
        B's joint groups: a coordinate pair, a composite key), strongest unit first."""
        groups = [g for g in self.sampler.groups.get(edge[1], []) if g.joint]
        units: list[list[Binding]] = []
        placed: set[int] = set()
        for i, b in enumerate(bindings):
            if i in placed:
                continue
            grp = next((g for g in groups if b.to_param in g.members), None)
            unit = [b] if grp is None else [x for x in bindings if x.to_param in grp.members]
            placed |= {j for j, x in enumerate(bindings) if any(x is u for u in unit)}
            units.append(unit)
        return sorted(units, key=lambda u: -max(posterior_of(x) for x in u))

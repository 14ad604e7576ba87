"""Domain evidence: when executable bindings show a relation between two tools. A date passes the
sensitivity check between any two dated tools, so a binding set must also name a shared entity."""

from __future__ import annotations

from typing import Any

import networkx as nx

from .seeds import SeedSampler
from .values import TEMPORAL_KINDS, infer_kind

# Value kinds that locate a record somewhere (an address, a region code, a station): a tool
# returning them describes places or located entities, not days.
PLACE_KINDS = frozenset({"address", "legal_code", "lawd5", "sido_name", "sido_short", "sgg_name", "dong_name",
                         "station_name", "tour_area", "tour_sigungu", "tago_city", "tm_x", "tm_y",
                         "utmk_x", "utmk_y", "kma_nx", "kma_ny"})


class DomainEvidence:
    def __init__(self, graph: nx.DiGraph, sampler: SeedSampler):
        self.g, self.sampler = graph, sampler

    def shown_to_matter(self, edge: tuple[str, str], arm: Any) -> bool:
        """A required parameter of B, or an optional filter a counterfactual showed to change
        B's answer."""
        return arm.sens_pos > 0 or arm.binding.to_param in self.sampler.required(edge[1])

    def is_calendar(self, tool: str) -> bool:
        """A tool whose required inputs are all dates/years/months (KASI holidays): its records
        are keyed by date, so a date it returns names the entity itself."""
        req = self.sampler.required(tool)
        return bool(req) and all(self.sampler.param_kind.get((tool, p)) in TEMPORAL_KINDS for p in req)

    def names_days(self, tool: str) -> bool:
        """A calendar whose records are days, not dated entities: no output field locates
        anything (KASI holidays). A festival search also takes only dates, but its records are
        festivals with addresses and region codes."""
        kinds = set(((self.g.nodes[tool] if tool in self.g else {}).get("field_kinds") or {}).values())
        if not kinds:  # a graph without inferred kinds: the catalog's declared fields
            kinds = {infer_kind(f.name, f"{f.desc_ko} {f.desc_en}") for f in self.sampler.catalog.get(tool).op.fields}
        return self.is_calendar(tool) and not (kinds & PLACE_KINDS)

    def same_service(self, edge: tuple[str, str]) -> bool:
        """A and B belong to one API service (the node's `service`, else the tool id's prefix:
        kasi_getHoliDeInfo and kasi_getRestDeInfo are both KASI SpcdeInfoService)."""
        sa, sb = (self.g.nodes[t].get("service") or t.split("_", 1)[0] for t in edge)
        return sa == sb

    def entity_evidence(self, edge: tuple[str, str], arms: list[Any]) -> bool:
        """Temporal bindings need shared-entity evidence: the edge also binds a non-temporal
        value (a code, a name, coordinates), or the producer is a calendar tool. A date alone
        proves executability, not a relation."""
        if any(a.binding.to_kind not in TEMPORAL_KINDS and a.binding.from_kind not in TEMPORAL_KINDS for a in arms):
            return True
        if not self.is_calendar(edge[0]):
            return False
        # a calendar's day handed to another tool of the same calendar service names only a period
        # (KASI holiday -> KASI rest days of its month: the month the user asked A about comes
        # back); a dated record of another service (a TourAPI festival -> KASI rest days of the
        # festival's month) does name its own entity's day, so only same-service pairs are refused
        if self.is_calendar(edge[1]) and self.same_service(edge):
            return False
        # a dated entity (a festival) meets another tool by its date only on a calendar (the rest
        # days of the festival's month); handed to another dated tool (a school timetable on the
        # festival's first day) the date names no shared entity, and retrying records finds some
        # date any dated tool answers
        if not (self.names_days(edge[0]) or self.names_days(edge[1])):
            return False
        # a value equal to one of A's own arguments (holiday -> anniversaries of the year the user
        # gave) carries nothing A's output added
        return any(2 * a.passthrough < max(1, a.successes) for a in arms)

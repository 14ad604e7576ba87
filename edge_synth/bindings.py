"""A binding: one output field of tool A feeding one input parameter of tool B, through a transform.

Graphs hold bindings in their JSON form (``candidates.json``, ``verified.json``, read as they are by
the dataset builder); code reads them as :class:`Binding` and writes the same keys back in order.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Mapping

from kopa_bench.transforms import apply_transform

MISSING = {"", "-", "null", "None", None}


def is_missing(v: Any) -> bool:
    """No usable scalar: empty, a placeholder, or a nested value."""
    return isinstance(v, (dict, list)) or v in MISSING


@dataclass(frozen=True, slots=True)
class Binding:
    from_field: str
    to_param: str
    transform: str
    transform_args: Mapping[str, Any]
    from_kind: str
    to_kind: str
    prior: float
    record_ref: bool  # the transform reads the whole record (coordinate conversions)
    # a documented join of two fields ('lDongRegnCd+lDongSignguCd'); with record_ref, the two
    # fields a record transform reads (a point's x and y for `xy_point`)
    parts: tuple[str, ...] | None = None
    xref: bool = False  # the documentation names the other side
    # posterior evidence, present on the bindings of a verified graph
    alpha: float | None = None
    beta: float | None = None
    posterior: float | None = None
    probes: int | None = None
    successes: int | None = None
    sensitive: int | None = None
    insensitive: int | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Binding:
        parts = d.get("parts")
        return cls(**({**d, "parts": tuple(parts)} if parts is not None else d))

    def as_dict(self) -> dict[str, Any]:
        """The JSON form: optional keys only when set."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        if self.parts is not None:
            out["parts"] = list(self.parts)
        return {k: v for k, v in out.items() if v is not None and not (k == "xref" and not v)}

    def source_value(self, record: dict) -> Any:
        """The raw value this binding reads: the record (coordinate transforms), the documented
        join of two fields, or one field."""
        if self.record_ref:
            return record
        if self.parts:
            vals = [record.get(x) for x in self.parts]
            return None if any(is_missing(v) for v in vals) else "".join(str(v).strip() for v in vals)
        return record.get(self.from_field)

    def has_source(self, record: dict) -> bool:
        if self.record_ref:
            return not self.parts or not any(is_missing(record.get(x)) for x in self.parts)
        return not is_missing(self.source_value(record))

    def value(self, record: dict) -> Any:
        """The value passed to B from one record of A (raises ValueError if there is none)."""
        src = self.source_value(record)
        if not self.record_ref and is_missing(src):
            raise ValueError(f"{self.from_field} is missing")
        out = apply_transform(self.transform, src, **(self.transform_args or {}))
        if isinstance(out, float) and out.is_integer():
            out = int(out)
        if out is None or isinstance(out, (dict, list, tuple)):
            raise ValueError(f"transform {self.transform} gave {out!r}")
        return out


def posterior_of(b: Binding) -> float:
    """A verified binding's posterior mean (0 for a binding without one)."""
    return b.posterior if b.posterior is not None else 0


def edge_bindings(graph, a: str, b: str) -> list[Binding]:
    """The bindings of graph edge a -> b, typed."""
    return [Binding.from_dict(d) for d in graph.edges[a, b].get("bindings", ())]

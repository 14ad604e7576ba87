"""Envelope families: each module knows one wire format from both sides (sandbox + client).

A platform's spec names its family (`protocol: juso`); PROTOCOLS maps each name to its module."""

from __future__ import annotations

from . import data_go_kr, ecos, juso, kosis, law, neis, odcloud, seoul, seoul_subway, stanregincd, vworld
from .base import ParamProblem, Parsed, ProtocolFamily, RequestSpec, validate_params

PROTOCOLS: dict[str, ProtocolFamily] = {
    "data_go_kr": data_go_kr, "ecos": ecos, "juso": juso, "kosis": kosis, "law": law, "neis": neis,
    "odcloud": odcloud, "seoul": seoul, "seoul_subway": seoul_subway, "stanregincd": stanregincd, "vworld": vworld,
}


def get_protocol(name: str) -> ProtocolFamily:
    """The module of the protocol family `name`."""
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise KeyError(f"unknown protocol family {name!r}; valid families: {', '.join(sorted(PROTOCOLS))}") from None


__all__ = ["PROTOCOLS", "ParamProblem", "Parsed", "ProtocolFamily", "RequestSpec", "get_protocol",
           "validate_params"]

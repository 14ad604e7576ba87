"""Argument values compared by the parameter's kind in the catalog, in the form the platform receives."""

from __future__ import annotations

import pytest

from kopa_bench.scoring.values import blank, text_form, tool_kinds, values_equal, wire


@pytest.mark.parametrize("kind,gold,agent,equal", [
    ("code", "00125648", 125648, False),  # leading zeros are part of a code
    ("code", "7010303", 7010303, True),  # the same text on the wire
    ("code", "B10", "b10", False),
    ("code", " B10 ", "B10", True),
    ("text", "세종대로 110", "세종대로110", True),
    ("text", "Paris, France", "paris france", True),
    ("text", "Washington state", "Washingtonstate", True),
    ("text", "혜화동", "혜화동 외", False),
    ("number", 10, "10", True),
    ("number", 10, 10.0, True),
    ("number", 10, True, False),
    ("number", 10, "ten", False),
    ("number", "ALL", "ALL", True),
    ("ignore", 10, 500, True),
    (None, 10, "10", False),  # no spec: JSON types decide, as in BFCL
    (None, True, "true", False),
    (None, 3.0, 3, True),
    (None, "Report.txt", "report.txt", True),  # without a spec every string is free text
    ("code", ["a", "b"], ["a", "b"], True),
    ("code", ["a", "b"], ["b", "a"], False),
    ("code", "a", ["a"], False),
])
def test_values_equal(kind, gold, agent, equal) -> None:
    assert values_equal(kind, gold, agent) is equal


def test_wire_and_text_forms() -> None:
    assert wire(True) == "true" and wire(None) == "" and wire(7) == "7"
    assert text_form(" Paris, France./-_ ") == "parisfrance"
    assert blank(None) and blank("  ") and not blank(0)


def test_tool_kinds_from_the_catalog() -> None:
    k = tool_kinds("airkorea_getMsrstnAcctoRltmMesureDnsty")
    assert k.kind("stationName") == "text" and k.kind("dataTerm") == "code_any_case" and k.ignored("numOfRows")
    assert values_equal(k.kind("dataTerm"), "DAILY", "daily") and not values_equal(k.kind("dataTerm"), "DAILY", "MONTH")
    assert k.ignored("returnType") and k.ignored("serviceKey")  # the client fills these in
    assert not k.is_param("zz_unknown") and k.is_param("ver")
    assert tool_kinds("vworld_getcoord").kind("type") == "code"  # no name is ignored everywhere
    assert tool_kinds("juso_addrLinkApi").is_default("currentPage", 1)
    nospec = tool_kinds("not_in_the_catalog")
    assert nospec.kind("type") is None and nospec.is_param("anything") and not nospec.ignored("type")

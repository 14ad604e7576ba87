"""Bindings: the typed form reads and writes the graph's JSON form unchanged, and binds values."""

from __future__ import annotations

import json
from dataclasses import replace

from kopa_bench.catalog import get_catalog

from edge_synth.bindings import Binding


def _plain(**kw):
    return {"from_field": "stationName", "to_param": "stationName", "transform": "identity", "transform_args": {},
            "from_kind": "station_name", "to_kind": "station_name", "prior": 0.8125, "record_ref": False, **kw}


def test_graph_form_round_trips_with_the_same_keys_in_the_same_order():
    verified = {**_plain(parts=["lDongRegnCd", "lDongSignguCd"], xref=True), "alpha": 9.0, "beta": 1.5,
                "posterior": 0.8571, "probes": 7, "successes": 7, "sensitive": 0, "insensitive": 0}
    for d in (_plain(), _plain(xref=True), _plain(parts=["a", "b"]), verified,
              _plain(transform="first_tokens", transform_args={"n": 2}), _plain(posterior=0.9)):
        back = Binding.from_dict(d).as_dict()
        assert json.dumps(back, ensure_ascii=False) == json.dumps(d, ensure_ascii=False)


def test_candidate_bindings_serialise_as_before():
    """score_binding's bindings in graph form: the keys candidates.json has always had."""
    from edge_synth.candidates import infer_io_kinds, score_binding

    k = infer_io_kinds(get_catalog())
    f = k.fields["airkorea_getNearbyMsrstnList"]["stationName"]
    p = k.params["airkorea_getMsrstnAcctoRltmMesureDnsty"]["stationName"]
    got = score_binding("stationName", f, "stationName", p, 1.0)
    assert got and list(got[0].as_dict()) == ["from_field", "to_param", "transform", "transform_args", "from_kind",
                                              "to_kind", "prior", "record_ref"]
    stats = replace(got[0], alpha=3.0, beta=1.0, posterior=0.75, probes=2, successes=2, sensitive=1, insensitive=0)
    assert list(stats.as_dict())[-7:] == ["alpha", "beta", "posterior", "probes", "successes", "sensitive",
                                          "insensitive"]


def test_value_reads_a_field_a_join_or_the_record():
    b = Binding.from_dict(_plain())
    assert b.value({"stationName": "종로구"}) == "종로구"
    assert not b.has_source({"stationName": "-"}) and b.has_source({"stationName": "중구"})
    joined = Binding.from_dict(_plain(from_field="a+b", parts=["a", "b"]))
    assert joined.value({"a": "11", "b": "680"}) == "11680" and not joined.has_source({"a": "11"})
    try:
        b.value({})
    except ValueError as exc:
        assert "missing" in str(exc)
    else:
        raise AssertionError("a missing field binds nothing")

"""Bindings: the typed form reads and writes the graph's JSON form unchanged, and binds values."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

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


def test_point_parameter_is_bound_from_a_coordinate_pair_of_one_record():
    """A "x,y" point parameter (its kind read from the documented example and description) gets
    one binding per coordinate pair of A's record, paired by field kinds, x (longitude) first."""
    from edge_synth.candidates import coordinate_pairs, infer_io_kinds, point_bindings

    k = infer_io_kinds(get_catalog())
    assert k.params["vworld_getAddress"]["point"]["kind"] == "point_xy"
    bike = k.fields["seoul_bikeList"]
    assert coordinate_pairs(bike) == [("stationLongitude", "stationLatitude", "wgs84", 0.95)]
    assert coordinate_pairs(k.fields["vworld_getcoord"])[0][:3] == ("x", "y", "wgs84")
    assert ("tmX", "tmY", "tm", 0.8) in coordinate_pairs(k.fields["airkorea_getTMStdrCrdnt"])
    (b,) = point_bindings(bike, "point", k.params["vworld_getAddress"]["point"], 1.0)
    assert b.record_ref and b.parts == ("stationLongitude", "stationLatitude") and b.transform == "xy_point"
    assert b.prior >= 0.3
    rec = {"stationName": "강남역", "stationLatitude": "37.49795", "stationLongitude": "127.02758"}
    assert b.value(rec) == "127.02758,37.49795"
    assert b.has_source(rec) and not b.has_source({**rec, "stationLatitude": ""})
    assert Binding.from_dict(b.as_dict()) == b


def test_point_binding_converts_other_systems_and_rejects_a_swap():
    from kopa_bench.transforms import apply_transform

    tm = {"tmX": "198245.6", "tmY": "451586.8"}  # AirKorea TM of 서울 중구 (Bessel central belt)
    lon, lat = (float(v) for v in apply_transform("xy_point", tm, x="tmX", y="tmY", crs="tm").split(","))
    assert 126.9 < lon < 127.1 and 37.5 < lat < 37.6
    assert apply_transform("xy_point", {"a": "37.5", "b": "127.0"}, x="b", y="a") == "127.0,37.5"
    with pytest.raises(ValueError, match="swapped"):
        apply_transform("xy_point", {"a": "37.5", "b": "127.0"}, x="a", y="b")  # latitude 127


def test_reference_variant_maps_to_its_own_operation():
    """'vworld.getcoord (request=getAddress variant)' is the reverse geocoder, so both reference
    links into it count (bike station -> point, and the getcoord round trip)."""
    from edge_synth.evaluate_graph import map_reference_op, reference_pairs

    cat = get_catalog()
    assert map_reference_op("vworld.getcoord (request=getAddress variant)", cat) == "vworld_getAddress"
    assert map_reference_op("vworld.getcoord", cat) == "vworld_getcoord"
    pairs = {(r["from_tool"], r["to_tool"]) for r in reference_pairs(cat)}
    assert {("seoul_bikeList", "vworld_getAddress"), ("vworld_getcoord", "vworld_getAddress")} <= pairs


def test_point_binding_becomes_an_executable_gold_reference(client, catalog):
    """walks.ref_expr writes the binding as a record reference with the transform and its args;
    the gold program executor computes the same "x,y" and the reverse geocoder answers it."""
    from edge_synth.candidates import infer_io_kinds, point_bindings
    from edge_synth.walks import ref_expr
    from kopa_bench.tasks.program import execute_program
    from kopa_bench.tasks.task_schema import Task
    import asyncio

    k = infer_io_kinds(catalog)
    (b,) = point_bindings(k.fields["seoul_bikeList"], "point", k.params["vworld_getAddress"]["point"], 1.0)
    arg = ref_expr("s1", b)
    assert arg == {"$ref": "$s1.items[0]", "transform": "xy_point",
                   "args": {"x": "stationLongitude", "y": "stationLatitude", "crs": "wgs84"}}
    prog = [{"id": "s1", "tool": "seoul_bikeList", "args": {"START_INDEX": 1, "END_INDEX": 5}, "group": 0},
            {"id": "s2", "tool": "vworld_getAddress", "args": {"point": arg, "type": "road"}, "group": 1}]
    task = Task.model_validate({
        "id": "pair-1", "split": "test", "query": "q", "domain": "district", "platforms": ["sandbox"],
        "shape": "sequential", "difficulty": "easy", "program": prog,
        "tools": ["seoul_bikeList", "vworld_getAddress", "vworld_getcoord", "juso_addrLinkApi", "tago_getSttnNoList"],
        "answer": [{"id": "f1", "description": "d", "value": "$s2.count", "kind": "number"}]})
    gold = asyncio.run(execute_program(task, client))
    s1, s2 = gold.step("s1"), gold.step("s2")
    first = s1.records[0]
    assert s2.args["point"] == f"{first['stationLongitude']},{first['stationLatitude']}"
    assert s2.ok and s2.records and s2.records[0]["level1"] == "서울특별시"

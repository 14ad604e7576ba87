"""Handlers and protocol families are found in explicit tables, by the names the specs use."""

from __future__ import annotations

import pytest

from kopa_bench.protocols import PROTOCOLS, get_protocol
from kopa_bench.world.answers import HANDLERS, handler


def test_every_spec_handler_is_registered_and_every_answer_used(catalog):
    named = {ref.op.handler for ref in catalog if ref.op.handler}
    assert named == set(HANDLERS)


def test_unknown_handler_names_itself_and_the_valid_ones():
    with pytest.raises(KeyError) as exc:
        handler("neis.lunch")
    assert "'neis.lunch'" in str(exc.value) and "neis.meals" in str(exc.value) and "vworld.geocode" in str(exc.value)
    with pytest.raises(KeyError, match="kopa_bench.world.gen.neis:meals"):
        handler("kopa_bench.world.gen.neis:meals")  # the old module:function form is gone
    assert handler("neis.meals") is HANDLERS["neis.meals"]


def test_every_platform_names_a_known_protocol_family(catalog):
    for platform in catalog.platforms.values():
        assert get_protocol(platform.protocol) is PROTOCOLS[platform.protocol]


def test_unknown_protocol_family_names_itself_and_the_valid_ones():
    with pytest.raises(KeyError) as exc:
        get_protocol("soap")
    assert "'soap'" in str(exc.value) and "data_go_kr" in str(exc.value) and "vworld" in str(exc.value)


def test_subway_answers_read_the_stations_the_generator_wrote(world):
    """Timetables and arrivals read `seoul_stations` from the world: the rows, in line order,
    are those the generator derived from the vendored station list."""
    from kopa_bench.world.gen.seoul import _stations

    assert world.sql("SELECT * FROM seoul_stations ORDER BY _line_key, _idx") == _stations()

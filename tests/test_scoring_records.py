"""The scorer's "was this record received?" (STATE and fact sources) against its definition:
equal as canonical JSON (sorted keys). The fast path buckets records by their items and checks
JSON types instead of serialising; these tests hold it to the serialising definition."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from kopa_bench.client.result import ToolResult
from kopa_bench.episodes import CallRecord
from kopa_bench.scoring.episode_score import _Received, _same_json_types
from kopa_bench.scoring.matching import norm_value


def _received(records: list[dict]) -> _Received:
    # model_construct: the records go in as they are (validation would copy and coerce them)
    result = ToolResult.model_construct(tool="t", arguments={}, ok=True, records=records, total_count=len(records),
                                        error=None)
    call = CallRecord.model_construct(id="c0", tool="t", arguments={}, result=result, error_kind=None)
    return _Received([call], None)


def _canon(r: dict) -> str:
    return json.dumps(r, ensure_ascii=False, sort_keys=True)


def test_equal_values_of_another_json_type_are_not_the_record():
    got = _received([{"a": 1, "b": "x"}, {"a": True, "b": "y"}, {"a": 0.0, "c": [1, {"d": 2}]}])
    assert got.has_record({"b": "x", "a": 1})  # key order does not matter
    assert not got.has_record({"a": 1.0, "b": "x"})  # 1 == 1.0, but "1" != "1.0"
    assert not got.has_record({"a": 1, "b": "y"})  # True == 1
    assert got.has_record({"a": 0.0, "c": [1, {"d": 2}]})  # a nested (unhashable) record
    assert not got.has_record({"a": -0.0, "c": [1, {"d": 2}]})
    assert not got.has_record({"a": 0.0, "c": [1, {"d": 2.0}]})
    assert not got.has_record({"a": 0.0, "c": [True, {"d": 2}]})


def test_a_nan_record_is_matched_by_its_json():
    got = _received([{"a": float("nan"), "b": 1}])
    assert got.has_record({"a": float("nan"), "b": 1})
    assert not got.has_record({"a": float("nan"), "b": 2})


scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, -0.0, 1.0, 2.5, -3.0]),
                    st.sampled_from(["", "1", "x", "종로구"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.sampled_from("pq"), inner, max_size=2)),
                      max_leaves=4)
records = st.dictionaries(st.sampled_from("abc"), values, max_size=3)


def _retyped(value, flips):
    """`value` with some numbers swapped for `==` values of another JSON type (1 -> 1.0 / True, 0.0 -> -0.0)."""
    if isinstance(value, dict):
        return {k: _retyped(v, flips) for k, v in value.items()}
    if isinstance(value, list):
        return [_retyped(v, flips) for v in value]
    if type(value) in (int, float) and value in (0, 1) and next(flips):
        return {int: float, float: lambda v: -v if v == 0 else int(v)}[type(value)](value)
    if type(value) is bool and next(flips):
        return int(value)
    return value


@settings(max_examples=500, deadline=None)
@given(st.lists(records, min_size=1, max_size=6), records, st.data())
def test_has_record_is_canonical_json_equality(received, other, data):
    # probes: an unrelated record, and received ones with some values retyped (still `==`)
    pick = data.draw(st.sampled_from(received))
    flips = iter(data.draw(st.lists(st.booleans(), min_size=16, max_size=16)) + [False] * 64)
    got = _received(received)
    canon = {_canon(r) for r in received}
    for probe in (other, pick, _retyped(pick, flips)):
        assert got.has_record(probe) == (_canon(probe) in canon)


@settings(max_examples=300, deadline=None)
@given(values, values)
def test_same_json_types_decides_json_equality_of_equal_values(a, b):
    if a == b:
        assert _same_json_types(a, b) == (json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True))


def test_norm_value_keeps_types_apart_when_memoised():
    assert norm_value(True) == "true" and norm_value(1) == 1.0 and norm_value("1") == 1.0
    assert norm_value(" 종로구 ") == "종로구" and norm_value(None) == ""
    assert norm_value([True, 1]) == ["true", 1.0] and norm_value({"k": "A"}) == {"k": "a"}
    assert math.isnan(norm_value(float("nan")))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**6, 10**6),
                          st.sampled_from(["1,234", " 5 ", "nan", "inf", "-inf", "x", "", "1e3"])), max_size=12),
       st.one_of(st.floats(allow_nan=False, allow_infinity=True), st.integers(-10**6, 10**6)),
       st.one_of(st.floats(0, 10), st.just(float("inf")), st.just(0.0)))
def test_number_lookup_equals_the_scan(values, gold, tol):
    from kopa_bench.scoring.normalize import RecordValues, _text_number

    rv = RecordValues([{f"f{i}": v for i, v in enumerate(values)}])
    numbers = [n for n in map(_text_number, map(str, values)) if n is not None]  # no NaN: never within tol
    want = any(abs(n - float(gold)) <= tol for n in numbers)
    assert rv._has_number(float(gold), tol) == want


def _reference_name(value: str) -> str:
    """The name normaliser as first written (regex for every step), which the faster one must equal."""
    import re
    import unicodedata

    from kopa_bench.scoring.normalize import _ALIAS_RE, SIDO_ALIASES

    s = unicodedata.normalize("NFKC", value).strip()
    s = re.sub(r"\([^)]*\)", "", s)
    s = _ALIAS_RE.sub(lambda m: SIDO_ALIASES[m.group(0)], s)
    s = re.sub(r"\s+", "", s).lower()
    return s[:-1] if s.endswith("역") and len(s) > 2 else s


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("서울특별시경기도부산광역 ()역\t\n\u00a0\u3000\x1cABCabc12-_.년월일（）")), max_size=14))
def test_name_normaliser_equals_its_reference(value):
    from kopa_bench.scoring.normalize import _normalize_name

    assert _normalize_name(value) == _reference_name(value)


api_values = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from([1.0, -0.0, 2.5]),
                       st.sampled_from(["1", " 1 ", "1,000", "1000", "-", "", "x", " x", "종로구", "1.0", "nan"]))


@settings(max_examples=1000, deadline=None)
@given(api_values, st.one_of(api_values, st.lists(api_values, max_size=3)))
def test_pick_matcher_equals_matches(actual, wanted):
    """apply_pick normalises the wanted side once (_matcher); it must decide as the matcher as
    first written (both sides normalised on every comparison) did."""
    from kopa_bench.tasks.picks import _matcher, _matches

    assert _matcher(wanted)(actual) == _reference_matches(actual, wanted) == _matches(actual, wanted)


def _reference_matches(actual, wanted) -> bool:
    from kopa_bench.tasks.refs import to_number

    if isinstance(wanted, list):
        return any(_reference_matches(actual, w) for w in wanted)
    a, w = to_number(actual), to_number(wanted)
    if a is not None and w is not None:
        return a == w
    norm = lambda v: "" if v is None else str(v).strip()  # noqa: E731
    return norm(actual) == norm(wanted)

"""Tests for kopa_bench.clock.WorldClock."""

from datetime import date, datetime, timedelta, timezone

import pytest

from kopa_bench.clock import DEFAULT_WORLD_NOW, ENV_VAR, KST, WorldClock, parse_world_datetime, shift_months


def test_default(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    c = WorldClock()
    assert c.now() == DEFAULT_WORLD_NOW == datetime(2026, 11, 30, 9, 0, tzinfo=KST)
    assert c.now().utcoffset() == timedelta(hours=9)
    assert c.today() == date(2026, 11, 30)
    assert c.this_month() == "202611" and c.last_month() == "202610" and c.next_month() == "202612"
    assert c.tomorrow() == date(2026, 12, 1) and c.yesterday() == date(2026, 11, 29)
    assert c.yyyymmdd() == "20261130" and c.yyyymmdd(1) == "20261201"
    assert c.year() == "2026" and c.month_2d() == "11"


def test_env_override(monkeypatch):
    monkeypatch.setenv(ENV_VAR, "2026-01-15T10:30")
    c = WorldClock()
    assert c.now() == datetime(2026, 1, 15, 10, 30, tzinfo=KST)
    assert c.last_month() == "202512" and c.months_ago(13) == "202412"


def test_argument_beats_env(monkeypatch):
    monkeypatch.setenv(ENV_VAR, "2020-01-01")
    assert WorldClock("2026-05-05").today() == date(2026, 5, 5)


def test_bad_env_names_variable_and_format(monkeypatch):
    monkeypatch.setenv(ENV_VAR, "30/11/2026")
    with pytest.raises(ValueError, match=r"KOPA_WORLD_NOW='30/11/2026'.*ISO 8601"):
        WorldClock()


def test_bad_argument():
    with pytest.raises(ValueError, match=r"now='yesterday'"):
        WorldClock("yesterday")
    with pytest.raises(ValueError, match="type int"):
        WorldClock(20261130)  # type: ignore[arg-type]


def test_aware_input_converted_to_kst():
    c = WorldClock("2026-11-30T00:00:00Z")
    assert c.now() == datetime(2026, 11, 30, 9, 0, tzinfo=KST)
    c2 = WorldClock(datetime(2026, 11, 29, 20, 0, tzinfo=timezone.utc))
    assert c2.today() == date(2026, 11, 30)  # 05:00 KST next day


def test_date_input_and_equality():
    assert WorldClock(date(2026, 3, 1)).now() == datetime(2026, 3, 1, tzinfo=KST)
    assert WorldClock("2026-03-01T00:00+09:00") == WorldClock(date(2026, 3, 1))
    assert "2026-03-01" in repr(WorldClock(date(2026, 3, 1)))


def test_month_edges():
    c = WorldClock("2026-03-31T23:59")
    assert c.last_month() == "202602" and c.tomorrow() == date(2026, 4, 1)
    assert shift_months(2026, 1, -1) == (2025, 12)
    assert shift_months(2026, 12, 1) == (2027, 1)
    assert shift_months(2026, 5, -29) == (2023, 12)


def test_parse_world_datetime_naive_is_kst():
    assert parse_world_datetime("2026-11-30 09:00").tzinfo == KST

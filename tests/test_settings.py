"""Every KOPA_* setting is read in one place; a bad value is named with what it accepts."""

from __future__ import annotations

import pytest

from kopa_bench.settings import SettingsError, get_settings


def test_defaults(monkeypatch, tmp_path):
    for name in ("KOPA_WORLD_WORKERS", "KOPA_WORLD_THREADS", "KOPA_EDGE_WORLD"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("KOPA_CACHE", str(tmp_path))
    s = get_settings()
    assert s.cache == tmp_path and s.world_threads == 1 and s.edge_world is None
    assert 0 <= s.world_workers <= 4


@pytest.mark.parametrize("name,bad", [("KOPA_WORLD_WORKERS", "-1"), ("KOPA_WORLD_WORKERS", "many"),
                                      ("KOPA_WORLD_THREADS", "0")])
def test_bad_values_name_the_variable_and_the_fix(monkeypatch, name, bad):
    monkeypatch.setenv(name, bad)
    with pytest.raises(SettingsError, match=f"{name}={bad!r}.*unset it"):
        get_settings()

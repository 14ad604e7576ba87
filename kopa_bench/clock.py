"""The world's fixed "now" (KST), shared by generators, the sandbox and gold programs.

Every KOPA world is frozen at one instant so that tasks such as "this month's apartment
trades" or "tomorrow's forecast" have one deterministic answer. The default instant is
2026-11-30 09:00 KST; override it per instance (``WorldClock("2026-05-05T14:00")``) or for a
whole process with the environment variable ``KOPA_WORLD_NOW`` (ISO 8601).

Korea has used UTC+9 without daylight saving since 1988, so a fixed offset is exact and
avoids depending on the system tz database.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from .settings import get_settings

__all__ = ["KST", "DEFAULT_WORLD_NOW", "ENV_VAR", "WorldClock", "parse_world_datetime", "shift_months"]

#: Korea Standard Time.
KST = timezone(timedelta(hours=9), "KST")
#: Default frozen instant of a KOPA world.
DEFAULT_WORLD_NOW = datetime(2026, 11, 30, 9, 0, tzinfo=KST)
#: Environment variable overriding the default instant.
ENV_VAR = "KOPA_WORLD_NOW"

_EXPECTED = "ISO 8601, e.g. 2026-11-30T09:00:00+09:00, 2026-11-30T09:00 (read as KST) or 2026-11-30"


def parse_world_datetime(value: str | datetime | date, *, source: str = "value") -> datetime:
    """An aware KST datetime from an ISO 8601 string, ``datetime`` or ``date`` (midnight KST);
    naive values are read as KST. A ValueError names the bad value, its ``source`` (e.g.
    ``"KOPA_WORLD_NOW"``) and the expected format."""
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, date):
        dt = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        text = value.strip()
        if text.endswith(("Z", "z")):  # fromisoformat before 3.11 rejects "Z"
            text = text[:-1] + "+00:00"
        try:
            dt = datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(f"{source}={value!r} is not a valid datetime; expected {_EXPECTED}") from None
    else:
        raise ValueError(f"{source}={value!r} has type {type(value).__name__}; expected {_EXPECTED}")
    return dt.replace(tzinfo=KST) if dt.tzinfo is None else dt.astimezone(KST)


def shift_months(year: int, month: int, n: int) -> tuple[int, int]:
    """Return ``(year, month)`` moved by ``n`` months (negative = back in time)."""
    idx = year * 12 + (month - 1) + n
    return idx // 12, idx % 12 + 1


class WorldClock:
    """A frozen clock for one KOPA world at ``now`` (ISO string, ``datetime`` or ``date``);
    ``None`` reads ``KOPA_WORLD_NOW`` at construction time, else :data:`DEFAULT_WORLD_NOW`.

    Example:
        >>> c = WorldClock("2026-01-15T10:00")
        >>> c.this_month(), c.last_month(), c.tomorrow().isoformat()
        ('202601', '202512', '2026-01-16')
    """

    def __init__(self, now: str | datetime | date | None = None) -> None:
        if now is None:
            env = (get_settings().world_now or "").strip()
            self._now = parse_world_datetime(env, source=ENV_VAR) if env else DEFAULT_WORLD_NOW
        else:
            self._now = parse_world_datetime(now, source="now")

    def __repr__(self) -> str:
        return f"WorldClock({self._now.isoformat()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WorldClock) and other._now == self._now

    def __hash__(self) -> int:
        return hash(self._now)

    # -- instants ---------------------------------------------------------------------------
    def now(self) -> datetime:
        """The frozen instant (aware, KST)."""
        return self._now

    def today(self) -> date:
        """The world's calendar date in KST."""
        return self._now.date()

    def tomorrow(self) -> date:
        """``today() + 1 day``."""
        return self.today() + timedelta(days=1)

    def yesterday(self) -> date:
        """``today() - 1 day``."""
        return self.today() - timedelta(days=1)

    def days_from_today(self, n: int) -> date:
        """``today() + n days`` (negative ``n`` goes back)."""
        return self.today() + timedelta(days=n)

    # -- API-formatted strings -----------------------------------------------------------------
    def yyyymmdd(self, days: int = 0) -> str:
        """Today (shifted by ``days``) as ``YYYYMMDD`` (KMA base_date, NEIS, FSC, ECOS D)."""
        return self.days_from_today(days).strftime("%Y%m%d")

    def year(self) -> str:
        """The current year as ``YYYY`` (KASI ``solYear``)."""
        return f"{self._now.year:04d}"

    def month_2d(self) -> str:
        """The current month as ``MM`` (KASI ``solMonth``)."""
        return f"{self._now.month:02d}"

    def months_ago(self, n: int) -> str:
        """The month ``n`` months before this one, as ``YYYYMM`` (MOLIT ``DEAL_YMD``)."""
        y, m = shift_months(self._now.year, self._now.month, -n)
        return f"{y:04d}{m:02d}"

    def this_month(self) -> str:
        """The current month as ``YYYYMM``."""
        return self.months_ago(0)

    def last_month(self) -> str:
        """The previous month as ``YYYYMM``; MOLIT data for it is more complete than this month."""
        return self.months_ago(1)

    def next_month(self) -> str:
        """The next month as ``YYYYMM``."""
        return self.months_ago(-1)

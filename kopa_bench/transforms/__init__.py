"""Named value transforms shared by gold programs (benchmark tasks) and EDGE bindings.

A chain between two Korean public APIs rarely passes a value through unchanged: a 10-digit
법정동 code becomes MOLIT's 5-digit ``LAWD_CD``, ``서울특별시`` becomes AirKorea's ``서울``,
TourAPI's ``mapy``/``mapx`` become KMA's ``nx``/``ny``. Each such step is a named
:class:`Transform` in :data:`TRANSFORMS`, so task files and synthesized trajectories can refer
to it by name (``{"$ref": "$s1.items[0].region_cd", "transform": "lawd_cd"}``) and every
consumer computes it identically.

Conventions:

* Transforms take API values as the APIs give them (usually strings) and are strict: a value
  they cannot handle raises ``ValueError`` naming the value and what was expected, never a
  silent guess.
* Reference lookups (NEIS offices, TourAPI areas, TAGO cities, subway lines) read the
  vendored tables in :mod:`kopa_bench.refdata` lazily, on first use.
* Points may be given as ``(lat, lon)`` pairs or as API records (dicts) carrying one of the
  known coordinate field pairs (``mapy``/``mapx``, ``gpslati``/``gpslong``, ``YPos``/``XPos``,
  ``lat``/``lon`` ...); see :func:`_latlon_from`.

Example:
    >>> apply_transform("lawd_cd", "1168010600")
    '11680'
    >>> apply_transform("shift_month", "202601", n=-1)
    '202512'
"""

from __future__ import annotations

# Importing the family modules registers their transforms, in this order.
from . import generic  # noqa: F401  isort: skip
from . import regions  # noqa: F401  isort: skip
from . import coords  # noqa: F401  isort: skip
from . import dates  # noqa: F401  isort: skip
from . import platforms  # noqa: F401  isort: skip
from .regions import SIDO
from .registry import KINDS, TRANSFORMS, Transform, apply_transform, transform_names

__all__ = ["KINDS", "Transform", "TRANSFORMS", "apply_transform", "transform_names", "SIDO"]

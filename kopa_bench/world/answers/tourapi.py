"""TourAPI detailIntro2, answered per request from the stored `tour_intro` fields."""

from __future__ import annotations

import json


def detail_intro(world, params: dict) -> list[dict]:
    """detailIntro2: the type-specific fields of one content id (empty when the type is wrong)."""
    rows = world.sql("SELECT fields FROM tour_intro WHERE contentid = $cid AND contenttypeid = $ctype",
                     {"cid": str(params.get("contentId") or ""), "ctype": str(params.get("contentTypeId") or "")})
    return [json.loads(r["fields"]) for r in rows]

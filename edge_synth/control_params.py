"""Control parameters: paging, format and version switches, never the target of a data flow."""

from __future__ import annotations

import re

# Counts and row windows (numOfRows, totalCount, START_INDEX ...) only page through a result: a
# value bound into them from another tool changes B's answer without any data flowing.
CONTROL_PARAMS = re.compile(r"^(numOfRows|pageNo|pIndex|pSize|ver|returnType|dataType|type|_type|MobileOS|"
                            r"MobileApp|serviceKey|KEY|Type|display|start|end|page|perPage|resultType|format|"
                            r"START_INDEX|END_INDEX|currentPage|countPerPage|totalCount|newEstPrdCnt)$", re.I)


def is_control(param) -> bool:
    """A parameter the model does not fill with data: not model-facing, or a control switch."""
    return (not param.model_facing) or bool(CONTROL_PARAMS.match(param.name))

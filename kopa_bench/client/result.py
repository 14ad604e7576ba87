"""The one result shape every platform is normalised to.

Everything downstream (gold programs, the runner, the scorer, EDGE, rewards) reads
`ToolResult`, never a platform payload, so a new platform only has to be taught to the
protocol layer.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

ErrorType = Literal[
    "argument",  # the model's arguments do not fit the tool's schema
    "unknown_tool",  # the model named a tool that is not offered / does not exist
    "parse",  # the model's call could not be parsed at all
    "auth",  # missing or unregistered key (data.go.kr 30, NEIS ERROR-290, ...)
    "quota",  # daily or per-second limit (data.go.kr 22/23, ERROR-337, ...)
    "no_service",  # the operation does not exist / retired (12, ERROR-310)
    "transient",  # time-out, 5xx, truncated payload: worth a retry
    "platform",  # any other platform error code (10/11 parameter errors, ...)
]


class ToolErrorInfo(BaseModel):
    """Why a call failed, in words a model (and a person) can act on."""

    type: ErrorType
    message: str
    code: str | None = None
    retryable: bool = False


class ToolResult(BaseModel):
    """A normalised tool execution: records as a list, counts as ints, the raw payload kept."""

    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    ok: bool
    result_code: str = ""
    result_msg: str = ""
    total_count: int | None = None
    records: list[dict[str, Any]] = Field(default_factory=list)
    error: ToolErrorInfo | None = None
    raw: str | None = Field(default=None, description="raw payload (keys redacted); never shown to a model")
    elapsed_ms: float = 0.0
    attempts: int = 1

    @property
    def is_error(self) -> bool:
        return not self.ok

    def model_view(self, max_records: int | None = 50) -> dict[str, Any]:
        """The dict a model sees as the tool message (no raw payload, bounded size)."""
        if self.error is not None:
            err = {"type": self.error.type, "message": self.error.message}
            if self.error.code:
                err["code"] = self.error.code
            return {"error": err}
        view: dict[str, Any] = {
            "resultCode": self.result_code,
            "resultMsg": self.result_msg,
            "totalCount": self.total_count if self.total_count is not None else len(self.records),
            "items": self.records,
        }
        return cap_items(view, max_records)

    def for_model(self, max_records: int | None = 50) -> str:
        return json.dumps(self.model_view(max_records), ensure_ascii=False)


def cap_items(view: dict[str, Any], max_records: int | None) -> dict[str, Any]:
    """A model view with at most `max_records` items and a note saying how many were cut. Also
    applied to tool messages already rendered (training data), so they match what the runner shows."""
    items = view.get("items")
    if max_records is None or not isinstance(items, list) or len(items) <= max_records:
        return view
    return {**view, "items": items[:max_records], "truncated": f"showing {max_records} of {len(items)} returned items"}

"""What a BFCL run writes: one :class:`BfclResult` per finished entry, one JSONL line each
(``results.jsonl`` of the run directory, written by the runner's fsync'd ``EpisodeWriter``).

A result keeps every model step as the KOPA parser read it (content, calls, parse errors, the raw
text), so ``kopa bfcl score`` can re-check a run without the model, and a malformed output is a
recorded call error, never a crash.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from kopa_bench.runner.parsing import ParsedCall


class BfclCall(BaseModel):
    name: str = ""
    arguments: dict[str, Any] | None = None
    raw: str = ""
    error: str | None = Field(default=None, description="why the parser could not read this call")

    @classmethod
    def from_parsed(cls, call: ParsedCall) -> "BfclCall":
        return cls(name=call.name, arguments=call.arguments, raw=call.raw, error=call.error)


class BfclStep(BaseModel):
    """One model turn (BFCL: one step of a turn)."""

    content: str = ""
    raw_text: str = ""
    calls: list[BfclCall] = Field(default_factory=list)
    execution_results: list[str] = Field(default_factory=list, description="multi-turn: what each call returned")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0


class BfclResult(BaseModel):
    id: str
    category: str
    model: str = ""
    mode: Literal["fc", "prompt"] = "fc"
    turns: list[list[BfclStep]] = Field(default_factory=list, description="turns -> steps; single-turn categories have one step")
    stop_reason: Literal["done", "force_terminated", "error", "infra_error"] = Field(
        default="done", description="error: the model's context ran out (counted wrong, as BFCL does); infra_error: "
                                    "the model server or the harness failed (not scored; a rerun runs the entry again)")
    errors: list[str] = Field(default_factory=list)
    total_s: float = 0.0

    @property
    def infra_error(self) -> bool:
        return self.stop_reason == "infra_error"

    def to_jsonl(self) -> str:
        return self.model_dump_json()

"""Episode and CallRecord: the record of one agent run, which the runner writes and the scorer reads.

One Episode is one JSONL line. CallRecord.result keeps the full ToolResult (all records), since
grounding and STATE scoring ask what the agent actually received.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from kopa_bench.client.result import ToolResult

CallErrorKind = Literal["parse", "unknown_tool", "argument", "platform"]

#: How an episode ended. `infra_error`: the harness or the model server ended it (endpoint
#: unreachable, 5xx after retries, a timeout, a backend crash); such an episode says nothing about
#: the model, so it is not scored, a rerun runs it again and a run holding one is incomplete.
StopReason = Literal["answer", "step_limit", "context_limit", "infra_error"]


class CallRecord(BaseModel):
    """One tool call the agent made, and what came back."""

    id: str = Field(description="tool-call id (from the model or generated)")
    turn: int = Field(default=0, description="assistant turn the call was made in (0-based)")
    tool: str = Field(description="tool name as the model wrote it")
    arguments: dict[str, Any] | None = Field(default=None, description="parsed arguments; None when unparsable")
    raw_arguments: str = Field(default="", description="the arguments text as the model wrote it")
    result: ToolResult | None = Field(default=None, description="the executed result (None if never executed)")
    error_kind: CallErrorKind | None = Field(default=None, description="why the call failed, if it did")

    @property
    def ok(self) -> bool:
        return self.result is not None and self.result.ok and self.error_kind is None

    @property
    def records(self) -> list[dict[str, Any]]:
        return self.result.records if self.result is not None and self.result.ok else []


class Timings(BaseModel):
    total_s: float = 0.0
    model_s: float = 0.0
    tools_s: float = 0.0


class Tokens(BaseModel):
    prompt: int = 0
    completion: int = 0


class Episode(BaseModel):
    """A finished agent episode on one task with one seed."""

    task_id: str = Field(description="task id, e.g. 'kopa-test-001'")
    seed: int = Field(default=0, description="sampling seed of this episode")
    model: str = Field(default="", description="backend spec, e.g. 'openai:http://host#qwen'")
    backend: str = Field(default="sandbox", description="tool backend: sandbox | URL | live | replay")
    messages: list[dict[str, Any]] = Field(default_factory=list, description="OpenAI chat-format messages")
    calls: list[CallRecord] = Field(default_factory=list, description="tool calls in the order made")
    final_answer: str = Field(default="", description="the final assistant answer text")
    steps: int = Field(default=0, description="assistant turns used")
    stop_reason: StopReason = Field(default="answer", description="answer | step_limit | context_limit | infra_error")
    timings: Timings = Field(default_factory=Timings)
    tokens: Tokens = Field(default_factory=Tokens)
    errors: list[str] = Field(default_factory=list, description="the agent's own call mistakes (parse, unknown_tool, argument) and runner-level errors")
    max_tool_records: int | None = Field(default=None, description="records per result shown to the model (None = all); scoring counts only those as seen")

    @field_validator("stop_reason", mode="before")
    @classmethod
    def _legacy_error(cls, value: Any) -> Any:
        # runs written before `infra_error` existed said "error", and only for backend or harness failures
        return "infra_error" if value == "error" else value

    @property
    def infra_error(self) -> bool:
        """The harness or the model server ended this episode, not the model."""
        return self.stop_reason == "infra_error"

    @property
    def error_counts(self) -> dict[str, int]:
        """Failed calls by kind: error_kind, or the platform's error type for platform failures."""
        out: dict[str, int] = {}
        for c in self.calls:
            kind = c.error_kind if c.error_kind != "platform" else None
            kind = kind or (c.result.error.type if c.result is not None and c.result.error is not None else None)
            if kind is None and not c.ok:
                kind = c.error_kind or "platform"
            if kind:
                out[kind] = out.get(kind, 0) + 1
        return out


class StepEpisode(Episode):
    """One generation of a step-level run (`kopa bench run --mode steps`): the model was given
    the gold calls of the positions before `position`, with their real results, and produced this
    turn. `calls[:given_calls]` are those gold calls; the calls after them are the model's own.
    `position` counts call positions from 0; position `positions - 1` is the final answer."""

    position: int = Field(description="0-based step position (gold call group); the last one is the answer")
    positions: int = Field(description="step positions of this task: gold call groups + 1 (the answer)")
    gold_steps: list[str] = Field(default_factory=list, description="gold step ids expected at this position (none: the answer)")
    given_calls: int = Field(default=0, description="calls at the start of `calls` that are the gold's, not the model's")

    @property
    def key(self) -> tuple[str, int, int]:
        """What identifies the record in its run: (task id, seed, position)."""
        return (self.task_id, self.seed, self.position)

    @property
    def is_answer(self) -> bool:
        return self.position == self.positions - 1

    @property
    def own_calls(self) -> list[CallRecord]:
        """The calls the model made at this position."""
        return self.calls[self.given_calls:]

"""RunConfig: every setting of a benchmark run, each default written here once.

The CLI takes its option defaults and help from these fields, `run_benchmark` and `run_episode`
read them, and run.json records them as `config`. Fields marked frozen_on_resume change what an
episode means, so a run directory resumes only with the same values.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

DEFAULT_MAX_TOKENS = 1024  # generation limit per assistant turn; also the backends' default
SAMPLING_TEMPERATURE = 0.7  # used when seeds > 1 and no temperature is given
MODES = ("episodes", "steps")


def _frozen(default: Any, description: str) -> Any:
    return Field(default, description=description, json_schema_extra={"frozen_on_resume": True})


class RunConfig(BaseModel):
    """The settings of one run; `record()` is what run.json keeps (keys in this order)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = _frozen("", "backend spec: openai:<url>#<model>, hf:<path>, gguf:qwen2.5-coder-0.5b, "
                             "llamacpp:qwen2.5-coder-0.5b (or -1.5b), oracle, no-tool, first-call")
    client_backend: str = _frozen("sandbox", "tool backend: sandbox | http://host:port | live")
    world_hash: str = _frozen("", "content hash of the world the tools answer from (set by the runner)")
    max_steps: int = _frozen(12, "assistant turns per episode")
    temperature: float = _frozen(None, "default 0, or 0.7 when --seeds > 1")
    # high enough for gold answers that count over hundreds of records
    max_tool_records: int | None = _frozen(
        500, "records per tool result shown to the model (answers that count or average over more need paging)")
    faults: str | None = _frozen(None, "fault injection RATE[:kind,...] (sandbox), e.g. 0.2:quota,timeout")
    seeds: int = Field(1, description="episodes per task (seed 0..N-1)")
    concurrency: int = Field(4, description="episodes at once")
    cache: str | None = Field(None, description="replay cache path (DuckDB)")
    cache_mode: str = Field("auto", description="record | replay | auto")
    max_tokens: int = Field(DEFAULT_MAX_TOKENS, description="generation limit per turn")
    source: str = Field("", description="where the tasks came from: split:<name> or a task file")
    tool_lang: str = _frozen("both", "tool description language: both | ko | en")
    mode: str = _frozen("episodes", "episodes: whole episodes, scored by success and pass@k | steps: one "
                                    "generation per gold step given the gold calls before it, scored by step accuracy")

    @model_validator(mode="before")
    @classmethod
    def _sampling_temperature(cls, data: Any) -> Any:
        """No temperature given: greedy for one seed, sampling for several."""
        if isinstance(data, dict) and data.get("temperature") is None:
            seeds = data.get("seeds", cls.model_fields["seeds"].default)
            data = {**data, "temperature": 0.0 if seeds == 1 else SAMPLING_TEMPERATURE}
        if isinstance(data, dict) and data.get("mode", "episodes") not in MODES:
            raise ValueError(f"mode={data['mode']!r}; use one of {', '.join(MODES)}")
        return data

    @classmethod
    def frozen_on_resume(cls) -> tuple[str, ...]:
        return tuple(name for name, f in cls.model_fields.items()
                     if isinstance(f.json_schema_extra, dict) and f.json_schema_extra.get("frozen_on_resume"))

    @classmethod
    def from_record(cls, config: dict[str, Any]) -> RunConfig:
        """The RunConfig of a run.json `config` (keys it does not know are ignored; missing ones default)."""
        return cls.model_validate({k: v for k, v in config.items() if k in cls.model_fields})

    def record(self) -> dict[str, Any]:
        """run.json's `config`: every field, with secrets in the model spec and tool backend redacted."""
        from kopa_bench.client.redact import redact  # the client package is heavy; the CLI's --help needs none of it

        return {**self.model_dump(), "model": redact(self.model), "client_backend": redact(self.client_backend)}

    def resume_conflicts(self, recorded: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        """{field: (recorded, now)} for each frozen-on-resume field that differs from a run.json `config`."""
        now = self.record()
        # a setting a run.json predates had its default then
        was = {k: recorded.get(k, type(self).model_fields[k].default) for k in self.frozen_on_resume()}
        return {k: (was[k], now[k]) for k in self.frozen_on_resume() if was[k] != now[k]}

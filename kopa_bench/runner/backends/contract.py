"""Backend contract (DESIGN.md "Model backends"): a backend turns an OpenAI-format conversation
plus tool schemas into one :class:`AssistantTurn`. Which spec string builds which backend is
backends/spec_registry.py's business; this module knows no concrete backend.
"""

from __future__ import annotations

import abc
import json
from typing import Any

from pydantic import BaseModel, Field

from kopa_bench.runner.parsing import ParsedCall
from kopa_bench.runner.run_config import DEFAULT_MAX_TOKENS


class BackendError(RuntimeError):
    """A model backend failed in a way retries did not fix (HTTP 4xx, exhausted retries, ...)."""


class ContextOverflowError(BackendError):
    """The conversation no longer fits the model's context window. The episode ends there with
    stop_reason ``context_limit``; the calls made so far are kept and scored."""


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class AssistantTurn(BaseModel):
    """One assistant message, parsed. ``tool_calls`` may contain calls with ``error`` set."""

    content: str = ""
    tool_calls: list[ParsedCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    raw_text: str = ""
    reasoning: str = ""

    def to_message(self, *, arguments_as: str = "json") -> dict[str, Any]:
        """OpenAI-format assistant message for the conversation history.

        ``arguments_as="json"`` gives JSON strings (what OpenAI servers require);
        ``"dict"`` gives objects (what chat templates render best). A malformed call keeps its raw
        text as arguments, so the model sees what it wrote next to the error the tool returns.
        """
        msg: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            calls = []
            for c in self.tool_calls:
                if c.arguments is None:
                    args: Any = c.raw
                elif arguments_as == "dict":
                    args = c.arguments
                else:
                    args = json.dumps(c.arguments, ensure_ascii=False)
                calls.append({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": args}})
            msg["tool_calls"] = calls
        return msg


def turn_index(messages: list[dict]) -> int:
    """Index of the assistant turn about to be generated (number of assistant messages so far).

    Backends use it for deterministic call ids ``call_<turn>_<i>`` without an extra argument.
    """
    return sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")


class Backend(abc.ABC):
    """An async chat model with tool calling."""

    #: model name recorded in episodes (``Episode.model``)
    model_name: str = ""

    @abc.abstractmethod
    async def generate(
        self,
        messages: list[dict],
        tools: list[dict],
        *,
        temperature: float = 0.0,
        seed: int | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> AssistantTurn:
        """Generate the next assistant turn for ``messages`` with ``tools`` offered."""

    async def aclose(self) -> None:
        """Release network clients / models. Safe to call twice."""

    async def __aenter__(self) -> Backend:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

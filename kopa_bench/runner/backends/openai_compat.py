"""OpenAI-compatible chat backend (OpenAI, vLLM, llama.cpp server, TGI, SGLang, Ollama, ...).

Sends ``/v1/chat/completions`` with ``tools=`` through ``openai.AsyncOpenAI``. Native
``tool_calls`` in the response are used when present (JSON-string arguments decoded; bad JSON
becomes a ParsedCall with ``error``); otherwise the text content is run through
:func:`parse_assistant_output`, because many local servers return calls as plain text when their
tool parser is off or does not know the model. The raw response JSON is read here, not the SDK's
models, so servers that stray from OpenAI's schema still work.

Concurrency is bounded by an ``asyncio.Semaphore``; 429 / 5xx / connection errors are retried a
bounded number of times with exponential backoff (``tenacity``; ``Retry-After`` honoured, capped).
The API key is read from an environment variable named by ``api_key_env`` and is never logged or
put in errors.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import time
from typing import Any
from urllib.parse import urlsplit

import openai
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from kopa_bench.runner.backends.contract import DEFAULT_MAX_TOKENS, AssistantTurn, Backend, BackendError, Usage, turn_index
from kopa_bench.runner.parsing import ParsedCall, calls_from_message, parse_assistant_output

logger = logging.getLogger(__name__)

_RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529}
# The SDK insists on a key; without one, it is a placeholder whose Authorization header is omitted.
_NO_KEY = "no-key"


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in _RETRY_STATUS
    return isinstance(exc, openai.APIConnectionError)  # includes timeouts


def _problem(exc: BaseException) -> str:
    """What went wrong, in the words of the HTTP layer (the SDK's own message says less)."""
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {exc.response.text[:300]}"
    cause = exc.__cause__ or exc
    return f"{type(cause).__name__}: {cause}"


def chat_completions_url(base_url: str) -> str:
    """Endpoint for a base URL.

    ``http://h:8000`` -> ``http://h:8000/v1/chat/completions``; a URL with a path (``.../v1``,
    ``.../openai/v1``) gets ``/chat/completions`` appended; a full ``.../chat/completions`` is kept.
    """
    url = base_url.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"OpenAI base URL must look like http(s)://host[:port][/v1], got {base_url!r}")
    if url.endswith("/chat/completions"):
        return url
    if parts.path in ("", "/"):
        return url + "/v1/chat/completions"
    return url + "/chat/completions"


def _openai_messages(messages: list[dict]) -> list[dict]:
    """Copy messages into strict OpenAI shape: tool-call arguments as JSON strings, content never None
    for tool messages (servers reject dict arguments that chat templates prefer)."""
    out = []
    for m in messages:
        m = dict(m)
        if m.get("tool_calls"):
            calls = []
            for tc in m["tool_calls"]:
                tc = dict(tc)
                fn = dict(tc.get("function") or {})
                if not isinstance(fn.get("arguments"), str):
                    fn["arguments"] = json.dumps(fn.get("arguments") or {}, ensure_ascii=False)
                tc["function"] = fn
                tc.setdefault("type", "function")
                calls.append(tc)
            m["tool_calls"] = calls
        if m.get("role") == "tool" and m.get("content") is None:
            m["content"] = ""
        out.append(m)
    return out


class OpenAICompatBackend(Backend):
    """Async client for an OpenAI-compatible ``/chat/completions`` endpoint."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        concurrency: int = 8,
        timeout: float = 120.0,
        max_retries: int = 4,
        backoff_s: float = 1.0,
        max_backoff_s: float = 30.0,
        extra_body: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        transport: Any = None,
    ) -> None:
        """``transport``: an HTTP transport of the SDK's HTTP library (tests use its MockTransport)."""
        if not model:
            raise ValueError(
                f"no model name for OpenAI backend at {base_url!r}: use 'openai:<base_url>#<model>' "
                "or pass model=..."
            )
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        self.url = chat_completions_url(base_url)
        self.model_name = model
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.extra_body = dict(extra_body or {})
        self._sem = asyncio.Semaphore(concurrency)
        key = os.environ.get(api_key_env) if api_key_env else None
        # Local servers need no key; say which variable was looked at, never a value.
        if not key:
            logger.debug("no API key in $%s; sending requests without Authorization", api_key_env)
        self._no_auth = {} if key else {"Authorization": openai.Omit()}
        self._openai = openai.AsyncOpenAI(
            api_key=key or _NO_KEY,
            base_url=self.url.removesuffix("/chat/completions"),
            timeout=timeout,
            max_retries=0,  # retried in _post, with this backend's statuses and backoff
            default_headers=headers,
            http_client=openai.DefaultAsyncHttpxClient(transport=transport) if transport is not None else None,
        )

    @classmethod
    def from_spec(cls, rest: str, **kw: Any) -> OpenAICompatBackend:
        """``<base_url>#<model>`` or ``<base_url>`` with ``model=`` in kw."""
        base, _, model = rest.partition("#")
        model = model or kw.pop("model", "")
        kw.pop("model", None)
        if not base:
            raise ValueError("backend spec 'openai:' needs a base URL, e.g. 'openai:http://127.0.0.1:8000/v1#my-model'")
        return cls(base, model, **kw)

    async def aclose(self) -> None:
        await self._openai.close()

    def _delay(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome is not None else None
        if isinstance(exc, openai.APIStatusError):
            ra = exc.response.headers.get("retry-after")
            if ra:
                try:
                    return min(float(ra), self.max_backoff_s)
                except ValueError:
                    pass
        # Jitter keeps many concurrent episodes from retrying in lockstep.
        attempt = state.attempt_number - 1
        return min(self.backoff_s * (2**attempt), self.max_backoff_s) * (0.5 + random.random() / 2)

    def _log_retry(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome is not None else None
        delay = state.next_action.sleep if state.next_action is not None else 0.0
        logger.warning("%s: %s; retry %d/%d in %.1fs", self.url, _problem(exc)[:120], state.attempt_number,
                       self.max_retries, delay)

    async def _post(self, messages: list[dict], extra: dict[str, Any]) -> dict[str, Any]:
        """One completion; `extra` goes as extra_body, so the server gets the body exactly as built."""
        retrying = AsyncRetrying(stop=stop_after_attempt(self.max_retries + 1), wait=self._delay,
                                 retry=retry_if_exception(_retryable), before_sleep=self._log_retry, reraise=True)
        try:
            async for attempt in retrying:
                with attempt:
                    raw = await self._openai.chat.completions.with_raw_response.create(
                        model=self.model_name, messages=messages, extra_body=extra, extra_headers=self._no_auth)
        except (openai.APIStatusError, openai.APIConnectionError) as exc:
            if _retryable(exc):
                raise BackendError(f"{self.url} failed after {self.max_retries + 1} attempts: {_problem(exc)}") from None
            status = exc.status_code if isinstance(exc, openai.APIStatusError) else None
            hint = " (check the API key variable)" if status in (401, 403) else ""
            raise BackendError(f"{self.url} rejected the request{hint}: {_problem(exc)}") from None
        response = raw.http_response
        try:
            return response.json()
        except ValueError as exc:
            raise BackendError(
                f"{self.url} returned non-JSON (status {response.status_code}): {response.text[:300]!r}"
            ) from exc

    async def generate(
        self,
        messages: list[dict],
        tools: list[dict],
        *,
        temperature: float = 0.0,
        seed: int | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> AssistantTurn:
        extra: dict[str, Any] = {"temperature": temperature, "max_tokens": max_tokens}
        if tools:
            extra["tools"] = tools
        if seed is not None:
            extra["seed"] = seed
        extra.update(self.extra_body)
        id_prefix = f"call_{turn_index(messages)}"
        async with self._sem:
            t0 = time.perf_counter()
            data = await self._post(_openai_messages(messages), extra)
            logger.debug("%s answered in %.2fs", self.url, time.perf_counter() - t0)
        return parse_response_json(data, id_prefix=id_prefix)


def parse_response_json(data: dict[str, Any], *, id_prefix: str = "call_0") -> AssistantTurn:
    """Turn a ``/chat/completions`` JSON response into an AssistantTurn (never raises on odd content)."""
    try:
        message = data["choices"][0]["message"] or {}
    except (KeyError, IndexError, TypeError) as exc:
        raise BackendError(f"response has no choices[0].message: {json.dumps(data)[:300]}") from exc
    usage_raw = data.get("usage") or {}
    usage = Usage(
        prompt_tokens=int(usage_raw.get("prompt_tokens") or 0),
        completion_tokens=int(usage_raw.get("completion_tokens") or 0),
    )
    content = message.get("content") or ""
    if not isinstance(content, str):  # list-of-parts content
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
    native = list(message.get("tool_calls") or [])
    if not native and isinstance(message.get("function_call"), dict):  # legacy single call
        native = [{"type": "function", "function": message["function_call"]}]
    if native:
        calls: list[ParsedCall] = calls_from_message({"tool_calls": native}, id_prefix)
        parsed = parse_assistant_output(content, id_prefix=id_prefix) if content else None
        return AssistantTurn(
            content=parsed.content if parsed else "",
            tool_calls=calls,
            usage=usage,
            raw_text=content,
            reasoning=reasoning if isinstance(reasoning, str) else "",
        )
    parsed = parse_assistant_output(content, id_prefix=id_prefix)
    return AssistantTurn(
        content=parsed.content,
        tool_calls=parsed.tool_calls,
        usage=usage,
        raw_text=content,
        reasoning=(reasoning if isinstance(reasoning, str) and reasoning else parsed.reasoning),
    )

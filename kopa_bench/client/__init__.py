"""The executor: one result shape for every platform, sandbox, live or replayed."""

from .cache import CacheMiss, ReplayCache
from .executor import SANDBOX_KEY, KopaClient
from .redact import redact, register_secret
from .result import ToolErrorInfo, ToolResult

__all__ = ["CacheMiss", "KopaClient", "ReplayCache", "SANDBOX_KEY", "ToolErrorInfo", "ToolResult",
           "redact", "register_secret"]

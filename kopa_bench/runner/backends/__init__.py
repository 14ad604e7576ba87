"""Model backends: one async ``generate(messages, tools, ...) -> AssistantTurn`` per model kind.

Heavy modules (torch, transformers) are imported only by the factory of the backend named, so
importing this package stays cheap for the OpenAI-compatible path and for scripted agents.
"""

from kopa_bench.runner.backends.contract import (DEFAULT_MAX_TOKENS, AssistantTurn, Backend, BackendError,
                                                 ContextOverflowError, Usage)
from kopa_bench.runner.backends.spec_registry import make_backend, register_backend, registered_backends

__all__ = ["DEFAULT_MAX_TOKENS", "AssistantTurn", "Backend", "BackendError", "ContextOverflowError", "Usage",
           "make_backend", "register_backend", "registered_backends"]

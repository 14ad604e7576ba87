"""Model backends: one async ``generate(messages, tools, ...) -> AssistantTurn`` per model kind.

Heavy modules (torch, transformers) are imported lazily by the factories, so importing this
package stays cheap for the OpenAI-compatible path and for scripted agents.
"""

from kopa_bench.runner.backends.base import (
    AssistantTurn,
    Backend,
    BackendError,
    Usage,
    make_backend,
    register_backend,
    registered_backends,
)

__all__ = [
    "AssistantTurn",
    "Backend",
    "BackendError",
    "Usage",
    "make_backend",
    "register_backend",
    "registered_backends",
]

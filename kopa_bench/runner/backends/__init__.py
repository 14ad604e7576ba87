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

# Scripted reference agents (no model); imported on first use.
register_backend("oracle", "kopa_bench.runner.scripted:oracle_factory", form="oracle")
register_backend("no-tool", "kopa_bench.runner.scripted:no_tool_factory", form="no-tool")
register_backend("first-call", "kopa_bench.runner.scripted:first_call_factory", form="first-call")

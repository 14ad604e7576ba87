"""Protocol-faithful local replicas of every platform, served from the DuckDB world."""

from .app import create_app, sandbox_urls
from .context import DEFAULT_SANDBOX_KEY
from .faults import FAULT_KINDS, FaultConfig

__all__ = ["DEFAULT_SANDBOX_KEY", "FAULT_KINDS", "FaultConfig", "create_app", "sandbox_urls"]

"""The tool catalog: real operations of real Korean public-API platforms, as data."""

from .models import ItemField, Operation, Param, Platform, Service
from .registry import Catalog, ToolRef, UnknownToolError, get_catalog
from .toolschema import tool_schema, tool_schemas

__all__ = [
    "Catalog", "ItemField", "Operation", "Param", "Platform", "Service", "ToolRef",
    "UnknownToolError", "get_catalog", "tool_schema", "tool_schemas",
]

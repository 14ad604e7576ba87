"""Every catalog tool over MCP (the official `mcp` SDK, 2.x low-level server).

The JSON schemas come from the catalog (the same ones models see in the benchmark), and
calls go through the same KopaClient, so MCP users get the sandbox, replay or live
behaviour with identical normalised results.
"""

from __future__ import annotations

import json
from typing import Any

import mcp.types as types
from mcp.server.lowlevel import Server

from .catalog import get_catalog, tool_schema
from .client import KopaClient


def build_server(backend: str = "sandbox", client: KopaClient | None = None, max_records: int = 100) -> Server:
    catalog = get_catalog()
    kopa = client or KopaClient(backend=backend, catalog=catalog)
    tools = []
    for ref in catalog:
        fn = tool_schema(ref)["function"]
        tools.append(types.Tool(name=fn["name"], title=ref.op.title_ko, description=fn["description"],
                                input_schema=fn["parameters"]))

    async def on_list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        result = await kopa.call(params.name, dict(params.arguments or {}))
        view: dict[str, Any] = result.model_view(max_records)
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(view, ensure_ascii=False))],
                                    structured_content=view, is_error=not result.ok)

    return Server("kopa", version="0.1.0", instructions="Korean public open API tools (KOPA catalog).",
                  on_list_tools=on_list_tools, on_call_tool=on_call_tool)


def run_stdio(server: Server) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)

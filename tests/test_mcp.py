"""The catalog over MCP: list and call tools through a real MCP client session."""

import json

import anyio
from mcp import Client

from kopa_bench.mcp_server import build_server


def test_list_and_call_tools_through_an_mcp_session(client, catalog):
    server = build_server(client=client)

    async def go():
        async with Client(server) as session:
            listed = await session.list_tools()
            names = {t.name for t in listed.tools}
            assert names == set(catalog.tool_names)
            tm = next(t for t in listed.tools if t.name == "airkorea_getTMStdrCrdnt")
            assert "umdName" in tm.input_schema["properties"]
            ok = await session.call_tool("airkorea_getTMStdrCrdnt", {"umdName": "혜화동"})
            payload = json.loads(ok.content[0].text)
            assert not ok.is_error and payload["items"][0]["sggName"] == "종로구"
            bad = await session.call_tool("airkorea_getTMStdrCrdnt", {})
            assert bad.is_error and "umdName" in json.loads(bad.content[0].text)["error"]["message"]

    anyio.run(go)

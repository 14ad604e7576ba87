"""`kopa tools list|show` and `kopa call NAME key=value ...`."""

from __future__ import annotations

import json
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

tools_app = typer.Typer(no_args_is_help=True, help="Browse the tool catalog.")
console = Console()


@tools_app.command("list")
def list_tools(as_json: bool = typer.Option(False, "--json", help="one JSON array"),
               platform: Optional[str] = typer.Option(None, help="only this platform id"),
               domain: Optional[str] = typer.Option(None, help="only this domain")) -> None:
    """List every tool: name, platform, domain, description."""
    from ..catalog import get_catalog

    cat = get_catalog()
    rows = [
        {"name": r.op.tool, "platform": r.platform.id, "service": r.service.id, "domain": r.op.domain,
         "operation": r.op.name, "description": r.op.title_ko, "description_en": r.op.title_en}
        for r in cat
        if (platform is None or r.platform.id == platform) and (domain is None or r.op.domain == domain)
    ]
    if as_json:
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=1))
        return
    table = Table(title=f"{len(rows)} tools on {len({r['platform'] for r in rows})} platforms")
    table.add_column("name", no_wrap=True)
    for col in ("platform", "domain", "description"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["name"], r["platform"], r["domain"], r["description"])
    console.print(table)


@tools_app.command("show")
def show_tool(name: str, as_json: bool = typer.Option(False, "--json")) -> None:
    """Show one tool: the real endpoint, auth, parameters and the schema a model sees."""
    from ..catalog import UnknownToolError, get_catalog, tool_schema

    cat = get_catalog()
    try:
        ref = cat.get(name)
    except UnknownToolError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2)
    info = {
        "tool": ref.op.tool, "platform": ref.platform.name_en, "service": ref.service.name_en,
        "operation": ref.op.name, "live_url": f"{ref.platform.live_base_url}{ref.service.path}{ref.op.path}",
        "method": ref.op.method, "auth_param": ref.service.auth_param, "format_param": ref.service.format_param,
        "key_env": ref.platform.key_env, "quirks": ref.op.quirks,
        "fields": [f.name for f in ref.op.fields], "schema": tool_schema(ref),
    }
    typer.echo(json.dumps(info, ensure_ascii=False, indent=1))


def _parse_kv(pairs: list[str]) -> dict:
    args = {}
    for pair in pairs:
        if "=" not in pair:
            raise typer.BadParameter(f"argument {pair!r} is not key=value (e.g. umdName=혜화동)")
        k, v = pair.split("=", 1)
        args[k] = v
    return args


def call_cmd(name: str = typer.Argument(..., help="tool name (kopa tools list)"),
             args: list[str] = typer.Argument(None, help="key=value arguments"),
             backend: str = typer.Option("sandbox", help="sandbox | live | http://host:port"),
             max_records: int = typer.Option(20, help="records to print")) -> None:
    """Call one tool and print the normalised result."""
    from ..client import KopaClient

    result = KopaClient(backend=backend).call_sync(name, _parse_kv(args or []))
    out = result.model_dump(exclude={"raw"})
    out["records"] = out["records"][:max_records]
    typer.echo(json.dumps(out, ensure_ascii=False, indent=1))
    if not result.ok:
        raise typer.Exit(1)

"""`kopa sandbox serve|urls`, `kopa world build|info`, `kopa mcp serve`."""

from __future__ import annotations

import json
from typing import Optional

import typer

sandbox_app = typer.Typer(no_args_is_help=True, help="The protocol-faithful local replica of every platform.")
world_app = typer.Typer(no_args_is_help=True, help="The deterministic DuckDB world.")
mcp_app = typer.Typer(no_args_is_help=True, help="Expose the catalog over MCP.")


def serve_banner(host: str, port: int, keys: set[str] | None, faults: str | None = None) -> str:
    """What `kopa sandbox serve` prints before it listens: where, and the service key to send."""
    from ..sandbox import DEFAULT_SANDBOX_KEY

    shown = "localhost" if host in ("0.0.0.0", "::") else host
    key_line = ", ".join(sorted(keys)) if keys else DEFAULT_SANDBOX_KEY
    lines = [f"KOPA sandbox at http://{shown}:{port} (every platform's paths; `kopa sandbox urls` maps real hosts to it)",
             f"service key: {key_line} (send it where the real API takes its key, e.g. serviceKey=...)"]
    if faults:
        lines.append(f"fault injection: {faults}")
    return "\n".join(lines)


@sandbox_app.command("serve")
def serve(host: str = typer.Option("127.0.0.1"), port: int = typer.Option(8000),
          keys: Optional[str] = typer.Option(None, help="comma-separated valid keys (default KOPA-SANDBOX)"),
          faults: Optional[str] = typer.Option(None, help="fault injection RATE[:kind,...], e.g. 0.2:quota,timeout"),
          seed: int = typer.Option(None, help="world seed"),
          workers: int = typer.Option(1, min=1, help="uvicorn worker processes, each reading the same world file "
                                                     "(with --faults, each worker draws its own fault sequence)")) -> None:
    """Serve the sandbox over HTTP (uvicorn)."""
    import os

    import uvicorn

    from ..sandbox import FaultConfig, create_app
    from ..world import DEFAULT_SEED, get_world

    key_set = {k.strip() for k in keys.split(",")} if keys else None
    fault_cfg = FaultConfig.parse(faults)  # a bad --faults fails here, before any worker starts
    world = get_world(seed if seed is not None else DEFAULT_SEED)  # built once, before workers open it
    typer.echo(serve_banner(host, port, key_set, faults))
    if workers == 1:
        app = create_app(world=world, keys=key_set, faults=fault_cfg)
        uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
        return
    from ..sandbox.app import SERVE_ENV

    os.environ[SERVE_ENV] = json.dumps({"keys": sorted(key_set) if key_set else None, "faults": faults, "seed": seed})
    uvicorn.run("kopa_bench.sandbox.app:app_from_env", factory=True, workers=workers, host=host, port=port,
                log_level="warning", access_log=False)


@sandbox_app.command("urls")
def urls(base: str = typer.Option("http://127.0.0.1:8000", help="where `kopa sandbox serve` listens"),
         as_json: bool = typer.Option(False, "--json")) -> None:
    """Which sandbox base URL replaces each real host."""
    from ..catalog import get_catalog
    from ..sandbox import sandbox_urls

    mapping = sandbox_urls(get_catalog(), base)
    if as_json:
        typer.echo(json.dumps(mapping, indent=1))
        return
    for real, local in mapping.items():
        typer.echo(f"{real:55s} -> {local}")


@world_app.command("build")
def build(seed: int = typer.Option(None), out: Optional[str] = typer.Option(None, help="database path")) -> None:
    """Build the world database and print its content hash."""
    from pathlib import Path

    from ..world import DEFAULT_SEED, build_world_file

    path, digest = build_world_file(seed if seed is not None else DEFAULT_SEED, path=Path(out) if out else None)
    typer.echo(json.dumps({"path": str(path), "content_hash": digest}))


@world_app.command("info")
def info(seed: int = typer.Option(None)) -> None:
    """Tables, row counts and content hash of the (cached) world."""
    from ..world import DEFAULT_SEED, get_world

    w = get_world(seed if seed is not None else DEFAULT_SEED)
    tables = {r["table_name"]: w.sql(f'SELECT count(*) AS n FROM "{r["table_name"]}"')[0]["n"]
              for r in w.sql("SELECT table_name FROM information_schema.tables ORDER BY 1")}
    typer.echo(json.dumps({"path": str(w.path), "meta": w.meta, "tables": tables}, ensure_ascii=False, indent=1))


@mcp_app.command("serve")
def mcp_serve(backend: str = typer.Option("sandbox", help="sandbox | live | http://host:port"),
              transport: str = typer.Option("stdio", help="stdio | streamable-http"),
              port: int = typer.Option(8765)) -> None:
    """Serve every catalog tool over MCP, backed by the same client."""
    from ..mcp_server import build_server, run_stdio

    server = build_server(backend=backend)
    if transport == "stdio":
        run_stdio(server)
    else:
        import uvicorn

        uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")

"""`kopa`: one console script, one sub-command group per area."""

from __future__ import annotations

import logging

import typer

from . import bench_cmd, bfcl_cmd, data_cmd, edge_cmd, perf_cmd
from .sandbox_cmd import mcp_app, sandbox_app, world_app
from .tools_cmd import call_cmd, tools_app

app = typer.Typer(no_args_is_help=True, add_completion=False,
                  help="KOPA: Korean public open API agents — tools, sandbox, benchmark, EDGE data, training.")
app.add_typer(tools_app, name="tools")
app.command("call")(call_cmd)
app.add_typer(sandbox_app, name="sandbox")
app.add_typer(world_app, name="world")
app.add_typer(mcp_app, name="mcp")
app.add_typer(bench_cmd.app, name="bench")
app.add_typer(data_cmd.app, name="data")
app.add_typer(edge_cmd.app, name="edge")
app.add_typer(bfcl_cmd.app, name="bfcl")
app.command("perf")(perf_cmd.app)


@app.callback()
def main(verbose: bool = typer.Option(False, "--verbose", "-v", help="debug logging")) -> None:
    from ..client.redact import install_log_redaction

    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    install_log_redaction()


"""`kopa`: one console script, one sub-command group per area."""

from __future__ import annotations

import logging

import typer

from .tools_cmd import call_cmd, tools_app
from .sandbox_cmd import mcp_app, sandbox_app, world_app

app = typer.Typer(no_args_is_help=True, add_completion=False,
                  help="KOPA: Korean public open API agents — tools, sandbox, benchmark, EDGE data, training.")
app.add_typer(tools_app, name="tools")
app.command("call")(call_cmd)
app.add_typer(sandbox_app, name="sandbox")
app.add_typer(world_app, name="world")
app.add_typer(mcp_app, name="mcp")


def _register_optional() -> None:
    """Groups whose modules may pull heavier dependencies are added when importable."""
    import importlib

    for module, name in (("bench_cmd", "bench"), ("data_cmd", "data"), ("edge_cmd", "edge"), ("perf_cmd", "perf"),
                         ("bfcl_cmd", "bfcl")):
        try:
            mod = importlib.import_module(f"{__name__}.{module}")
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith(f"{__name__}."):
                continue
            raise
        obj = getattr(mod, "app")
        if isinstance(obj, typer.Typer):
            app.add_typer(obj, name=name)
        else:
            app.command(name)(obj)


@app.callback()
def main(verbose: bool = typer.Option(False, "--verbose", "-v", help="debug logging")) -> None:
    from ..client.redact import install_log_redaction

    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    install_log_redaction()


_register_optional()

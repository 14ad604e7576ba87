"""`kopa data build NAME --out DIR` and `kopa data publish --repo-id ORG/NAME --folder DIR`."""

from __future__ import annotations

import json
from typing import Optional

import typer

app = typer.Typer(no_args_is_help=True, help="Build and publish the Hugging Face dataset folders.")
BUILDERS = {
    "kopa-bench": "builders.kopa_bench_dataset:build",
    "edge-trajectories": "builders.edge_dataset:build",
}


@app.command("build")
def build(name: str = typer.Argument(..., help=f"one of {sorted(BUILDERS)}"),
          out: str = typer.Option(..., "--out", help="output folder")) -> None:
    """Build a dataset folder (Parquet + card) and print its build info."""
    import importlib

    if name not in BUILDERS:
        typer.echo(f"unknown dataset {name!r}; choose one of {sorted(BUILDERS)}", err=True)
        raise typer.Exit(2)
    module, _, fn = BUILDERS[name].partition(":")
    info = getattr(importlib.import_module(module), fn)(out)
    summary = {k: v for k, v in info.items() if k != "files"}
    typer.echo(json.dumps(summary, ensure_ascii=False, indent=1))


@app.command("publish")
def publish(repo_id: str = typer.Option(..., "--repo-id", help="ORG/NAME on the Hub"),
            folder: str = typer.Option(..., "--folder", help="a folder built by `kopa data build`"),
            private: bool = typer.Option(False), dry_run: bool = typer.Option(False, help="list the commit, send nothing"),
            revision: Optional[str] = typer.Option(None)) -> None:
    """Push a built folder to the Hub (token: HF_TOKEN or `huggingface-cli login`)."""
    from builders.publish import plan_operations, publish as do_publish

    if dry_run:
        for op in plan_operations(folder):
            typer.echo(op.path_in_repo)
        return
    typer.echo(do_publish(folder, repo_id, private=private, revision=revision))

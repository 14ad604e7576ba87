"""`kopa data build NAME --out DIR` and `kopa data publish --repo-id ORG/NAME --folder DIR`."""

from __future__ import annotations

import json
from typing import Optional

import typer

app = typer.Typer(no_args_is_help=True, help="Build and publish the Hugging Face dataset folders.")
BUILDERS = {
    "kopa-bench": "builders.kopa_bench_dataset:build",
    "edge-trajectories": "builders.edge_dataset:build",
    "space": "builders.space_bundle:build",  # the Gradio Space folder, deployable as is
}


@app.command("build")
def build(name: str = typer.Argument(..., help=f"one of {sorted(BUILDERS)}"),
          out: str = typer.Option(..., "--out", help="output folder"),
          extras: Optional[str] = typer.Option(None, "--extras", help="space only: kopa extras the Space installs "
                                               "(default space,model,fast; add train for local checkpoints / Hub ids)")) -> None:
    """Build a dataset folder (Parquet + card), or the Space folder, and print its build info."""
    import importlib

    if name not in BUILDERS:
        typer.echo(f"unknown dataset {name!r}; choose one of {sorted(BUILDERS)}", err=True)
        raise typer.Exit(2)
    if extras is not None and name != "space":
        typer.echo(f"--extras applies to the space build only, not {name!r}", err=True)
        raise typer.Exit(2)
    module, _, fn = BUILDERS[name].partition(":")
    info = getattr(importlib.import_module(module), fn)(out, **({"extras": extras} if extras is not None else {}))
    summary = {k: v for k, v in info.items() if k != "files"}
    typer.echo(json.dumps(summary, ensure_ascii=False, indent=1))


@app.command("publish")
def publish(repo_id: str = typer.Option(..., "--repo-id", help="ORG/NAME on the Hub"),
            folder: str = typer.Option(..., "--folder", help="a folder built by `kopa data build`"),
            private: bool = typer.Option(False), dry_run: bool = typer.Option(False, help="list the commit, send nothing"),
            revision: Optional[str] = typer.Option(None)) -> None:
    """Push a built folder to the Hub (token: HF_TOKEN or `huggingface-cli login`).

    A folder from `kopa data build space` goes to a Space repo (sdk gradio), any other to a dataset repo.
    """
    from pathlib import Path

    from builders.publish import plan_operations, publish as do_publish

    if (Path(folder) / "space_build.json").exists():
        from builders.space_bundle import plan_files, publish_space

        if dry_run:
            for rel in plan_files(folder):
                typer.echo(rel)
            return
        typer.echo(publish_space(folder, repo_id, private=private))
        return

    if dry_run:
        for op in plan_operations(folder):
            typer.echo(op.path_in_repo)
        return
    typer.echo(do_publish(folder, repo_id, private=private, revision=revision))

"""`kopa edge graph | verify | synth | stats`: EDGE data synthesis."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.progress import Progress

app = typer.Typer(no_args_is_help=True, help="EDGE: execution-grounded tool graph and trajectory synthesis.")
console = Console(stderr=True)
OUT_HELP = "output folder (default: KOPA_EDGE_OUT, out/edge; the Space's EDGE tab reads the same folder)"


def edge_out(out: Optional[Path]) -> Path:
    """The folder a command works in: the one given, else the one setting every EDGE reader shares."""
    from kopa_bench.settings import get_settings

    return out if out is not None else get_settings().edge_out


def _need(path: Path, made_by: str) -> Path:
    if not path.exists():
        console.print(f"[red]{path} does not exist[/red]: run `{made_by}` first (or pass --out / set KOPA_EDGE_OUT "
                      "to the folder that has it)")
        raise typer.Exit(2)
    return path


def _excl(held_out: Optional[str]) -> list[str]:
    return [x.strip() for x in held_out.split(",") if x.strip()] if held_out else []


@app.command("graph")
def graph_cmd(out: Optional[Path] = typer.Option(None, help=OUT_HELP), seed: int = 0,
              k_same: int = 15, k_cross: int = 10, min_score: float = 0.3,
              held_out: Optional[str] = typer.Option(None, help="comma-separated platforms/services to hold out")) -> None:
    """Build the candidate graph (out/candidates.json)."""
    from edge_synth.candidates import save_graph
    from edge_synth.pipeline import EdgePipeline

    out = edge_out(out)

    async def go():
        e = EdgePipeline(seed=seed, exclude_platforms=_excl(held_out))
        g = await e.candidates(k_same=k_same, k_cross=k_cross, min_score=min_score)
        save_graph(g, out / "candidates.json")
        await e.aclose()
        return g

    g = asyncio.run(go())
    console.print(f"candidate graph: {g.number_of_nodes()} tools, {g.number_of_edges()} edges, "
                  f"{sum(len(d['bindings']) for *_, d in g.edges(data=True))} bindings -> {out/'candidates.json'}")


@app.command("verify")
def verify_cmd(out: Optional[Path] = typer.Option(None, help=OUT_HELP), seed: int = 0, iterations: int = 30, paths: int = 600,
               path_len: int = 2, held_out: Optional[str] = None,
               min_probes: int = typer.Option(3, help="probes every arm gets in the coverage phase before pruning"),
               record_tries: int = typer.Option(5, help="records of A's answer a probe binds before an empty B answer counts"),
               decide_probes: int = typer.Option(10, help="decision phase: probes an arm with a success but below "
                                                          "the viability threshold gets (0: no decision phase)"),
               allocation: str = typer.Option("thompson", help="thompson (coverage, Thompson paths, decision phase) or "
                                                               "uniform (direct probes round-robin over live arms)"),
               probe_budget: Optional[int] = typer.Option(None, help="uniform: link probes to spend "
                                                                     "(default: iterations x paths)")) -> None:
    """Candidates + Thompson-sampled probe verification (out/verified.json, verify_summary.json)."""
    from edge_synth.pipeline import run_graph_and_verify
    from edge_synth.verify_config import VerifyConfig

    if min_probes < 1 or record_tries < 1 or decide_probes < 0:
        raise typer.BadParameter(f"--min-probes ({min_probes}) and --record-tries ({record_tries}) must be >= 1, "
                                 f"--decide-probes ({decide_probes}) >= 0")
    out = edge_out(out)
    try:
        cfg = VerifyConfig(iterations=iterations, paths_per_iter=paths, path_len=path_len, seed=seed,
                           min_probes=min_probes, record_tries=record_tries, decide_probes=decide_probes,
                           allocation=allocation, probe_budget=probe_budget)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    with Progress(console=console) as prog:
        task = prog.add_task("probing", total=iterations)
        summary = run_graph_and_verify(out, cfg, seed, _excl(held_out), progress=lambda i, n: prog.update(task, completed=i))
    console.print_json(json.dumps(summary, ensure_ascii=False))


@app.command("synth")
def synth_cmd(out: Optional[Path] = typer.Option(None, help=OUT_HELP), seed: int = 0, per_shape: int = 900,
              dataset: Optional[Path] = typer.Option(None, help="dataset folder to build (default: "
                                                                  "edge-trajectories in the output folder)"),
              paraphrase_url: Optional[str] = None, paraphrase_model: str = "local",
              held_out: Optional[str] = None,
              graph: str = typer.Option("verified", help="graph to walk: verified (verified.json) or candidates "
                                                         "(candidates.json: the unverified ablation)"),
              keep_failures: bool = typer.Option(False, help="keep walks whose calls fail or return nothing "
                                                             "(the ablation's unfiltered trajectories)"),
              trajectories: Optional[Path] = typer.Option(None, help="trajectory folder (default: trajectories "
                                                                    "in the output folder)"),
              chunk: int = typer.Option(50, min=1, help="trajectories per file: a killed run loses at most the "
                                                         "unwritten part of one file")) -> None:
    """Walk the verified graph into trajectories (resumable) and build the dataset folder."""
    from builders.edge_dataset import build_dataset, graph_rows
    from edge_synth.candidates import load_graph
    from edge_synth.pipeline import EdgePipeline
    from edge_synth.synth import load_trajectories, synthesize

    if graph not in ("verified", "candidates"):
        raise typer.BadParameter(f"--graph {graph!r}: use verified or candidates")
    out = edge_out(out)
    dataset = dataset if dataset is not None else out / "edge-trajectories"
    traj_dir = trajectories if trajectories is not None else out / "trajectories"
    vg = load_graph(_need(out / f"{graph}.json", "kopa edge verify" if graph == "verified" else "kopa edge graph"))
    para = {"base_url": paraphrase_url, "model": paraphrase_model} if paraphrase_url else None

    async def go(prog, task):
        e = EdgePipeline(seed=seed, exclude_platforms=_excl(held_out))
        await e.prepare(vg)
        audit = await synthesize(vg, e, traj_dir, per_shape, seed, chunk=chunk, paraphrase=para, keep_failures=keep_failures,
                                 progress=lambda i, n: prog.update(task, completed=i, total=n))
        await e.aclose()
        return audit

    with Progress(console=console) as prog:
        task = prog.add_task("synthesizing", total=per_shape * 6)
        audit = asyncio.run(go(prog, task))
    manifest = build_dataset(load_trajectories(traj_dir), graph_rows(vg), dataset, seed)
    console.print_json(json.dumps({"audit": audit, "dataset": str(dataset), "hash": manifest["hash"]}, ensure_ascii=False))


@app.command("stats")
def stats_cmd(out: Optional[Path] = typer.Option(None, help=OUT_HELP), as_json: bool = typer.Option(False, "--json"),
              reprobe: int = typer.Option(10, help="re-probes per verified edge on held-out inputs (precision); "
                                               "with 5, an edge that holds 65% of the time fails the majority test 24% of the time"),
              plots: bool = True) -> None:
    """Recall, precision, executable share, trajectories per shape; PNG plots in out/plots/."""
    from edge_synth.candidates import load_graph
    from edge_synth.evaluate_graph import precision_and_share, recall, reference_pairs
    from edge_synth.pipeline import EdgePipeline
    from edge_synth.synth import load_trajectories

    out = edge_out(out)
    g = load_graph(_need(out / "candidates.json", "kopa edge verify"))
    vg = load_graph(_need(out / "verified.json", "kopa edge verify"))

    async def go():
        e = EdgePipeline(seed=0)
        await e.prepare(g)
        r = await precision_and_share(g, vg, e.executor, e.sampler, n=reprobe)
        await e.aclose()
        return e, r

    e, ps = asyncio.run(go())
    rc = recall(vg, reference_pairs(e.catalog))
    trajs = load_trajectories(out / "trajectories") if (out / "trajectories").exists() else []
    per_shape: dict[str, int] = {}
    for t in trajs:
        per_shape[t["shape"]] = per_shape.get(t["shape"], 0) + 1
    summary = json.loads((out / "verify_summary.json").read_text()) if (out / "verify_summary.json").exists() else {}
    stats = {"edge_precision": ps["edge_precision"], "edge_recall": rc["recall"],
             "executable_share_before": ps["executable_share_before"], "executable_share_after": ps["executable_share_after"],
             "trajectories_per_shape": per_shape, "trajectories": len(trajs),
             "candidate_edges": g.number_of_edges(), "verified_edges": vg.number_of_edges(),
             "tools": g.number_of_nodes(), "recall_detail": rc, "precision_detail": ps, "verify": summary}
    (out / "stats.json").write_text(json.dumps(stats, ensure_ascii=False, indent=1), encoding="utf-8")
    if plots:
        _plots(g, vg, per_shape, out / "plots")
    if as_json:
        typer.echo(json.dumps(stats, ensure_ascii=False, indent=1))
    else:
        console.print_json(json.dumps({k: v for k, v in stats.items() if not k.endswith("detail")}, ensure_ascii=False))


def _plots(g, vg, per_shape, folder: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    ax[0].hist([d for _, d in vg.degree()], bins=20)
    ax[0].set_title("verified graph degree")
    doms: dict[str, int] = {}
    for _, d in vg.nodes(data=True):
        doms[d.get("domain", "?")] = doms.get(d.get("domain", "?"), 0) + 1
    ax[1].bar(list(doms), list(doms.values()))
    ax[1].set_title("tools per domain")
    ax[1].tick_params(axis="x", rotation=45)
    fig.tight_layout()
    fig.savefig(folder / "graph.png", dpi=80)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(5, 4))
    ax.hist([d.get("posterior", 0) for *_, d in vg.edges(data=True)], bins=20)
    ax.set_title("edge posterior mean (verified)")
    fig.savefig(folder / "posterior.png", dpi=80)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar(list(per_shape), list(per_shape.values()))
    ax.set_title("trajectories per shape")
    fig.savefig(folder / "shapes.png", dpi=80)
    plt.close(fig)

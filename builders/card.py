"""Render the KOPA-Bench card from the top-level dataset_card.md template."""

from __future__ import annotations

from collections import Counter
from importlib import resources
from pathlib import Path


def _template() -> str:
    # The template lives at the repository top level (dataset_card.md); an installed wheel
    # carries a copy as package data of builders.
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "dataset_card.md", here / "dataset_card.md"):
        if candidate.exists():
            return candidate.read_text(encoding="utf-8")
    return (resources.files("builders") / "dataset_card.md").read_text(encoding="utf-8")


def _counts(items) -> str:
    c = Counter(items)
    return ", ".join(f"{k} {v}" for k, v in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))


def render_card(splits: dict, tools: list[dict], version: str, world: dict[str, str]) -> str:
    """The card with this build's numbers; `world`: content_hash, seed, clock of the world the expected values come from."""
    rows = []
    for split, tasks in splits.items():
        if not tasks:
            rows.append(f"| {split} | 0 | - | - | - |")
            continue
        calls = [t.n_calls for t in tasks]
        par = sum(t.has_parallel for t in tasks) / len(tasks)
        rows.append(f"| {split} | {len(tasks)} | {sum(calls) / len(calls):.2f} | {max(calls)} | {par:.0%} |")
    test = splits.get("test", [])
    text = _template()
    values = {
        "version": version,
        "split_table": "\n".join(rows),
        "by_shape": _counts(t.shape.value if hasattr(t.shape, "value") else t.shape for t in test) or "-",
        "by_domain": _counts(t.domain.value if hasattr(t.domain, "value") else t.domain for t in test) or "-",
        "by_platform": _counts(p for t in test for p in t.platforms) or "-",
        "n_tools": str(len(tools)),
        "n_platforms": str(len({t["platform"] for t in tools})),
        "world_hash": world["content_hash"],
        "world_seed": world["seed"],
        "world_clock": world["clock"],
        "example_id": test[0].id if test else "kopa-test-district-001",
    }
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return text

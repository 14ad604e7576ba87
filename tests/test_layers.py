"""The import graph of the library: floors, cycles and private names.

Every module's imports are read with `ast` (function-level imports included: a lazy import is
still a dependency). The floors, ground to top:

    catalog, clock, refdata, geo -> transforms -> world, protocols -> sandbox -> client -> tasks
    -> runner, scoring, edge_synth -> cli, mcp_server, testing, metrics, train, builders

A module may import its own floor or a lower one, never a higher one; the modules import each
other without cycles; no module imports a private (leading-underscore) name of another top
package. What the renovation has not removed yet is listed in the KNOWN sets below, each
entry with the issue that removes it: empty them, never add to them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("kopa_bench", "edge_synth", "train", "builders")

FLOORS: dict[str, int] = {
    "kopa_bench.catalog": 0, "kopa_bench.clock": 0, "kopa_bench.refdata": 0, "kopa_bench.geo": 0,
    "kopa_bench.settings": 0,
    "kopa_bench.transforms": 1,
    "kopa_bench.world": 2, "kopa_bench.protocols": 2,
    "kopa_bench.sandbox": 3,
    "kopa_bench.client": 4,
    "kopa_bench.tasks": 5, "kopa_bench.episodes": 5,
    "kopa_bench.speedups": 5,  # the one wing above client, sandbox and world
    "kopa_bench.runner": 6, "kopa_bench.scoring": 6, "kopa_bench.bfcl": 6, "edge_synth": 6,
    "kopa_bench.cli": 7, "kopa_bench.mcp_server": 7, "kopa_bench.__main__": 7, "kopa_bench.testing": 7,
    "kopa_bench.metrics": 7, "kopa_bench.perf": 7, "train": 7, "builders": 7,
}

# What the renovation has not removed yet: empty them, never add to them.
KNOWN_UPWARD: set[tuple[str, str]] = set()
KNOWN_CYCLES: set[tuple[str, ...]] = set()
KNOWN_PRIVATE: set[tuple[str, str, str]] = set()


def package_of(module: str) -> str:
    """The top package a module belongs to: `kopa_bench.<x>`, or edge_synth, train, builders."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "kopa_bench" else parts[0]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            if "experiments" not in path.parts:  # one-off scripts, not the library
                out[_module_name(path)] = path
    return out


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The library module `name` is, or the package/module holding it (`a.b.f` -> `a.b`)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path) -> list[tuple[str, str | None]]:
    """(imported library module, name taken from it or None) for every import in the file, and
    (module, attribute) for each `alias.attribute` read of an imported module or of a name
    imported from one."""
    is_pkg = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[tuple[str, str | None]] = []
    aliases: dict[str, str] = {}  # local name -> the library module it is, or comes from
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if target := _resolve(a.name):
                    out.append((target, None))
                    if a.asname and target == a.name:
                        aliases[a.asname] = target
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: len(module.split(".")) - node.level + is_pkg]
                src = ".".join(base + ([node.module] if node.module else []))
            else:
                src = node.module or ""
            for a in node.names:
                sub = _resolve(f"{src}.{a.name}")
                if sub and sub != _resolve(src):  # `from pkg import module`
                    out.append((sub, None))
                    aliases[a.asname or a.name] = sub
                elif target := _resolve(src):
                    out.append((target, a.name))
                    aliases[a.asname or a.name] = target  # `Name._private` reads the module's class internals
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            out.append((aliases[node.value.id], node.attr))
    return out


GRAPH = nx.DiGraph()
PRIVATE: set[tuple[str, str, str]] = set()
for _mod, _path in MODULES.items():
    GRAPH.add_node(_mod)
    for _target, _name in _imports(_mod, _path):
        if _target != _mod:
            GRAPH.add_edge(_mod, _target)
        if _name and _name.startswith("_") and not _name.startswith("__") and package_of(_mod) != package_of(_target):
            PRIVATE.add((_mod, _target, _name))


def floor(module: str) -> int:
    for prefix, level in FLOORS.items():
        if module == prefix or module.startswith(prefix + "."):
            return level
    raise AssertionError(f"{module} has no floor; add its package to FLOORS")


def test_every_module_has_a_floor():
    prefixes = tuple(FLOORS)
    homeless = [m for m in MODULES if m not in PACKAGES and not any(m == p or m.startswith(p + ".") for p in prefixes)]
    assert homeless == [], f"{homeless} have no floor; add their packages to FLOORS"


def test_nothing_imports_upward():
    upward = {(a, b) for a, b in GRAPH.edges if a not in PACKAGES and b not in PACKAGES and floor(b) > floor(a)}
    assert upward - KNOWN_UPWARD == set(), "imports from a lower floor to a higher one"
    assert KNOWN_UPWARD - upward == set(), "fixed: remove these from KNOWN_UPWARD"


def test_no_import_cycles():
    cycles = {tuple(sorted(c)) for c in nx.strongly_connected_components(GRAPH) if len(c) > 1}
    assert cycles - KNOWN_CYCLES == set(), "modules that import each other"
    assert KNOWN_CYCLES - cycles == set(), "fixed: remove these from KNOWN_CYCLES"


def test_no_private_names_across_packages():
    assert PRIVATE - KNOWN_PRIVATE == set(), "private names imported from another package"
    assert KNOWN_PRIVATE - PRIVATE == set(), "fixed: remove these from KNOWN_PRIVATE"


@pytest.mark.parametrize("package", ["kopa_bench.transforms", "kopa_bench.world.gen"])
def test_build_time_code_stays_low(package):
    """Transforms import only the ground floor; the generators the ground floor, transforms and
    each other, never the request-time answers or anything above."""
    allowed = {0} if package == "kopa_bench.transforms" else {0, 1}
    for a, b in GRAPH.edges:
        if a.startswith(package):
            assert b.startswith(package) or floor(b) in allowed, (a, b)


def test_world_fingerprint_covers_what_builds_the_file():
    """The cache key (source_fingerprint) hashes every library file the build process reads to
    make the world: build.py and what the generators import, transitively."""
    from kopa_bench.world.build import build_sources

    covered = {_module_name(p) for p in build_sources() if p.suffix == ".py"}
    starts = ["kopa_bench.world.build"] + [m for m in MODULES if m.startswith("kopa_bench.world.gen.")]
    reached = set(starts)
    for start in starts:
        reached |= nx.descendants(GRAPH, start)
    # package __init__ files on the way (kopa_bench, kopa_bench.world) are imported, not read for data
    reached -= {"kopa_bench", "kopa_bench.world"}
    assert reached - covered == set()
    assert not any(m.startswith("kopa_bench.world.answers") for m in reached), "the build must not need the answers"

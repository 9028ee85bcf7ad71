"""Dependencies point one way: each package imports only packages in lower layers.

Every import in every module counts (inside functions and ``TYPE_CHECKING`` blocks
too, since a lazy import is still a dependency). The layers, lowest first, are those of
docs/architecture.md: rules -> engine -> speech -> views -> env -> agents -> runner ->
metrics -> tracking/leaderboard -> experiments/rl -> web -> cli.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "mafia_arena"

LAYERS: list[set[str]] = [
    {"input_files", "sigterm", "local_ray_reaper"},
    {
        "stats",
        "seat_seeds",
        "results_file",
        "local_ray",
        "code_identity",
        "whole_numbers",
        "output_folders",
        "toml_file",
    },
    {"rules", "llm"},
    {"engine"},
    {"speech"},
    {"views"},
    {"env"},
    {"agents"},
    {"runner", "seating"},
    {"metrics"},
    {"tracking", "leaderboard"},
    {"experiments", "rl"},
    {"web"},
    {"cli"},
]
LAYER = {package: rank for rank, group in enumerate(LAYERS) for package in group}

PENDING: set[tuple[str, str]] = set()
"""Backward edges the tracking and leaderboard rework removes (issue 18); every other
edge is checked."""

HEAVY = ("ray", "openai", "mlflow", "langchain", "langchain_openai", "fastapi", "torch")
"""Libraries the rules engine and the views never import: they must stay light enough
for every worker, env and test, and know nothing of how games are run."""

CORE = ("rules", "engine", "speech", "views")


def _package(path: Path) -> str:
    parts = path.relative_to(SOURCE).parts
    return parts[0].removesuffix(".py")


def _imports(path: Path, root: Path = SOURCE) -> Iterator[str]:
    """Absolute dotted names of every module `path` (under the package folder `root`)
    imports, relative ones resolved."""
    module = ".".join(("mafia_arena", *path.relative_to(root).with_suffix("").parts))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    package = package.removesuffix(".__init__")
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                yield ".".join([*base, node.module] if node.module else base)
            elif node.module:
                yield node.module


def _edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in sorted(SOURCE.rglob("*.py")):
        if path.parent == SOURCE and path.name == "__init__.py":
            continue
        source = _package(path)
        for name in _imports(path):
            parts = name.split(".")
            target = parts[1] if parts[0] == "mafia_arena" and len(parts) > 1 else f"!{parts[0]}"
            if target != source:
                edges.setdefault(source, set()).add(target)
    return edges


EDGES = _edges()


def test_every_package_has_a_layer() -> None:
    packages = {_package(p) for p in SOURCE.iterdir() if p.suffix == ".py" or p.is_dir()}
    packages -= {"__init__", "__pycache__", "py"}
    assert packages - set(LAYER) == set(), "add the new package to LAYERS (and the docs)"


@pytest.mark.parametrize("package", sorted(LAYER))
def test_imports_point_down(package: str) -> None:
    upward = sorted(
        target
        for target in EDGES.get(package, ())
        if not target.startswith("!")
        and LAYER[target] >= LAYER[package]
        and (package, target) not in PENDING
    )
    assert upward == [], f"{package} imports {upward}, which are not below it"


@pytest.mark.parametrize("package", CORE)
def test_the_core_imports_no_driver_library(package: str) -> None:
    heavy = sorted(t[1:] for t in EDGES.get(package, ()) if t[1:] in HEAVY)
    assert heavy == [], f"{package} imports {heavy}"


def test_the_engine_imports_only_the_rules() -> None:
    """The engine sits on the rules alone: no speech, views, agents, drivers."""
    inner = {t for t in EDGES.get("engine", ()) if not t.startswith("!")}
    assert inner == {"rules"}


def test_the_check_sees_hidden_imports(tmp_path: Path) -> None:
    """Function-level and relative imports are found (where a cycle usually hides)."""
    assert "mafia_arena.engine.flow" in set(_imports(SOURCE / "engine" / "game.py"))
    (tmp_path / "engine").mkdir()
    module = tmp_path / "engine" / "late.py"
    module.write_text(
        "def f():\n    from ..views import View\n    from . import game\n", encoding="utf-8"
    )
    assert set(_imports(module, tmp_path)) == {"mafia_arena.views", "mafia_arena.engine"}

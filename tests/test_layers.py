"""The server's layers (docs/architecture.md, "Layers"): the import-linter contracts of
pyproject.toml (``[tool.importlinter]``: each layer imports only the layers below it, and
every module of server/ is in one), and no import cycle anywhere in server/. Imports under
``TYPE_CHECKING`` and inside functions count like any other. Both checks read grimp's
import graph (the one import-linter builds), a fraction of a second."""

from __future__ import annotations

import tomllib
from pathlib import Path

import grimp
from importlinter import configuration
from importlinter.application.use_cases import lint_imports

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
SERVER = "fujian_mahjong.server"


def ignored_imports() -> set[tuple[str, str]]:
    """The imports the contracts still let through (pyproject.toml says why)."""
    cfg = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]
    out: set[tuple[str, str]] = set()
    for contract in cfg["contracts"]:
        for line in contract.get("ignore_imports", ()):
            importer, imported = (part.strip() for part in line.split("->"))
            out.add((importer, imported))
    return out


def cycles(
    graph: grimp.ImportGraph, package: str, ignored: set[tuple[str, str]]
) -> list[list[str]]:
    """The import cycles among ``package``'s modules: each group of two or more modules
    that all reach one another (a strongly connected component), sorted."""
    mods = {m for m in graph.modules if m == package or m.startswith(package + ".")}
    edges = {
        m: {
            t
            for t in graph.find_modules_directly_imported_by(m)
            if t in mods and t != m and (m, t) not in ignored
        }
        for m in mods
    }

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for t in edges[todo.pop()]:
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
        return seen

    reached = {m: reach(m) for m in mods}
    groups = {frozenset({m} | {t for t in reached[m] if m in reached[t]}) for m in mods}
    return sorted(sorted(g) for g in groups if len(g) > 1)


def test_the_layers_contracts_hold() -> None:
    # on failure, import-linter's report (in the captured output) names each import that
    # goes up a layer, with its line
    configuration.configure()  # what `lint-imports` does first: its readers and adapters
    assert lint_imports(config_filename=str(PYPROJECT), cache_dir=None, no_logo=True)


def test_no_import_cycle_in_the_server() -> None:
    graph = grimp.build_graph("fujian_mahjong", cache_dir=None)
    found = cycles(graph, SERVER, ignored_imports())
    assert not found, "import cycles in server/: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_cycle_check_finds_a_cycle() -> None:
    g = grimp.ImportGraph()
    for a, b in [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d"), ("q.x", "p.a")]:
        g.add_import(importer=a, imported=b)
    assert cycles(g, "p", set()) == [["p.a", "p.b", "p.c"]]
    assert cycles(g, "p", {("p.c", "p.a")}) == []

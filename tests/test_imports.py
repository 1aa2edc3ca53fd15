"""The engine's import structure: no cycle among chunker's modules, and nothing of the layers above it.

Every ``import`` statement of every module under ``chunker/`` is read with :mod:`ast`, wherever it
stands: at the top, under ``if TYPE_CHECKING:`` (a cycle of types is a cycle a reader follows all
the same) or inside a function. ``from chunker import x`` names the module ``chunker.x`` when there is
one, else the package itself. A package's ``__init__`` runs before its modules, but a module that
takes no name from it does not depend on it: only imports as written are edges.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "chunker"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def engine_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(ENGINE.rglob("*.py"))}


def imported_names(path: Path, name: str, modules: set[str]) -> set[str]:
    """Every module ``path`` (the module ``name``) imports, as written, resolved to a full dotted name."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out.add(full if full in modules else base)
    return out


def import_graph() -> dict[str, set[str]]:
    """Each engine module and the engine modules it imports."""
    modules = engine_modules()
    names = set(modules)
    return {name: imported_names(path, name, names) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (its modules in order, the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in graph:
                continue
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None


def test_the_engine_has_no_import_cycle_type_level_included() -> None:
    graph = import_graph()
    assert len(graph) > 10, "the engine's modules were not found"
    cycle = find_cycle({name: {m for m in imports if m in graph} for name, imports in graph.items()})
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_engine_imports_nothing_of_the_layers_above_it() -> None:
    for name, imports in import_graph().items():
        above = sorted(m for m in imports if m.split(".")[0] in {"chunk_inspector", "app", "pages"})
        assert not above, f"{name} imports {above}"


def test_the_cycle_finder_finds_a_cycle_and_the_resolver_reads_what_hides_one(tmp_path: Path) -> None:
    """The checks above would pass on a reader that saw nothing: it must see a cycle, and the imports under
    TYPE_CHECKING, inside functions, relative and through the package."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    source = tmp_path / "mod.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from chunker.model import Document\n"
        "def f():\n    import chunker.pack\n"
        "from . import tokens\nfrom .spans import Span\nfrom chunker import STRATEGIES\n",
        encoding="utf-8",
    )
    modules = {"chunker", "chunker.model", "chunker.pack", "chunker.tokens", "chunker.spans"}
    found = imported_names(source, "chunker.mod", modules)
    assert {"chunker.model", "chunker.pack", "chunker.tokens", "chunker.spans", "chunker"} <= found

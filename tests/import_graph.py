"""The package's import graph, read from the source with ``ast``: an edge per ``import`` of a
skipstone module, marked deferred when it sits inside a function; imports under
``if TYPE_CHECKING:`` never run and are left out. ``graphlib`` finds the cycles."""
from __future__ import annotations

import ast
import graphlib
from dataclasses import dataclass
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parents[1] / "python"
PACKAGE_DIR = PYTHON_DIR / "skipstone"


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    deferred: bool  # inside a function: runs on first call, not at import time


def module_name(path: Path) -> str:
    parts = path.relative_to(PYTHON_DIR).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE_DIR.rglob("*.py"))}


class _Imports(ast.NodeVisitor):
    def __init__(self, module: str, is_package: bool) -> None:
        self.module, self.is_package = module, is_package
        self.depth, self.found = 0, []

    def visit_FunctionDef(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_Lambda = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        if "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.found += [(alias.name, self.depth > 0) for alias in node.names]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:  # relative: resolve against this module's package
            package = self.module.split(".")
            package = package if self.is_package else package[:-1]
            base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            self.found.append((submodule if submodule in MODULES else base, self.depth > 0))


def imports_of(module: str) -> list[tuple[str, bool]]:
    path = MODULES[module]
    visitor = _Imports(module, path.name == "__init__.py")
    visitor.visit(ast.parse(path.read_text(), str(path)))
    return visitor.found


def edges() -> list[Edge]:
    return [Edge(m, target, deferred) for m in MODULES for target, deferred in imports_of(m)
            if target in MODULES and target != m]


def cycle(selected: list[Edge]) -> list[str] | None:
    graph: dict[str, set[str]] = {}
    for e in selected:
        graph.setdefault(e.source, set()).add(e.target)
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        return error.args[1]
    return None


def reaches(selected: list[Edge], start: str, goal: str) -> bool:
    """Whether ``goal`` is reachable from ``start`` along ``selected``."""
    graph: dict[str, set[str]] = {}
    for e in selected:
        graph.setdefault(e.source, set()).add(e.target)
    seen, todo = {start}, [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False

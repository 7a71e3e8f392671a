"""docs/layout.md's package map is the code's: every module of skipstone.layout is on it, and
each imports only from its own line and the lines above (bottom-up layers)."""
from __future__ import annotations

import re
from pathlib import Path

from tests.import_graph import MODULES, edges

DOC = Path(__file__).resolve().parents[2] / "docs" / "layout.md"
PACKAGE = "skipstone.layout"


def map_lines() -> list[list[str]]:
    """Per table line of the package map, the modules and folders in its first cell."""
    section = DOC.read_text().split("## Package map", 1)[1].split("\n## ", 1)[0]
    cells = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    return [re.findall(r"`([\w/]+(?:\.py|/))`", cell) for cell in cells]


def line_of(module: str, lines: list[list[str]]) -> int | None:
    """The map line that owns ``module``: its file, or the folder that holds it."""
    path = module[len(PACKAGE) + 1:].replace(".", "/")
    for number, names in enumerate(lines):
        for name in names:
            if name == f"{path}.py" or (name.endswith("/") and f"{path}/".startswith(name)):
                return number
    return None


def layout_modules() -> list[str]:
    return [m for m in MODULES if m.startswith(f"{PACKAGE}.")]


def test_every_module_of_the_layout_package_is_on_the_map():
    lines = map_lines()
    assert [m for m in layout_modules() if line_of(m, lines) is None] == []


def test_every_module_imports_only_from_its_line_or_the_lines_above():
    lines = map_lines()
    upward = [(e.source, e.target) for e in edges()
              if e.source in layout_modules() and e.target in layout_modules()
              and line_of(e.target, lines) > line_of(e.source, lines)]  # type: ignore[operator]
    assert upward == []

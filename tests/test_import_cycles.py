"""No two modules of the package import each other, directly or round a longer loop, even
when one of the imports is deferred into a function: a deferred import only hides a cycle
until the day it runs first (``tests/import_graph.py`` builds the graph from the source;
``if TYPE_CHECKING:`` imports never run and are left out).

The cycles not untangled yet are listed below by the imports that close them. The list may
only shrink: an entry whose import is gone, or no longer closes a loop, fails the test until
it is removed, and any other cycle fails it naming the modules round the loop.
"""
from __future__ import annotations

from tests.import_graph import cycle, edges, reaches

# (importer, imported): the deferred imports that close the cycles still to untangle, and why.
KNOWN_CYCLE_IMPORTS: dict[tuple[str, str], str] = {}


def test_the_package_has_no_import_cycle_even_inside_functions_but_the_known_ones():
    remaining = [e for e in edges() if (e.source, e.target) not in KNOWN_CYCLE_IMPORTS]
    loop = cycle(remaining)
    assert loop is None, f"modules import each other: {' -> '.join(loop or [])}"


def test_every_known_cycle_is_still_there():
    """Untangled cycles come off the list, so that they cannot come back unnoticed."""
    graph = edges()
    present = {(e.source, e.target) for e in graph}
    stale = [pair for pair in KNOWN_CYCLE_IMPORTS
             if pair not in present or not reaches(graph, pair[1], pair[0])]
    assert stale == [], "no longer a cycle: remove from KNOWN_CYCLE_IMPORTS"

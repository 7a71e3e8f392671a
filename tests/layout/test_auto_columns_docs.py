"""The example of docs/layout.md's section on AutoColumns runs as printed."""
from __future__ import annotations

import doctest
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "layout.md"


def test_the_auto_columns_example_runs_as_printed():
    section = DOC.read_text().split("## Columns chosen by the workload", 1)[1].split("\n## ", 1)[0]
    test = doctest.DocTestParser().get_doctest(section, {}, "docs/layout.md: AutoColumns", str(DOC), 0)
    assert test.examples, "the section lost its example"
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test)
    assert result.failed == 0

"""The example of docs/layout.md's section on AutoColumns runs as printed."""
from __future__ import annotations

from tests.layout.doc_examples import run_doc_example


def test_the_auto_columns_example_runs_as_printed():
    result = run_doc_example("layout.md", "## Columns chosen by the workload")
    assert result.attempted, "the section lost its example"
    assert result.failed == 0

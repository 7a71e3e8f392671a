"""The example of docs/layout.md's section on BoundedRewrite runs as printed."""
from __future__ import annotations

from tests.layout.doc_examples import run_doc_example


def test_the_bounded_rewrite_example_runs_as_printed():
    result = run_doc_example("layout.md", "## Bounded rewrites on regret")
    assert result.attempted, "the section lost its example"
    assert result.failed == 0

"""Every fenced example of README.md and docs/*.md runs as written (tests/docs/doc_runner.py says
how), page by page from a fresh directory, in one Spark session; a block that cannot run here
carries a ``<!-- not-run: reason -->`` marker in its page."""
from __future__ import annotations

from typing import Any

import pytest

from tests.cli.cli_runner import cli  # noqa: F401  (the fixture)
from tests.docs.doc_runner import PAGES, PageRun, blocks


def test_every_example_block_runs_or_says_why_not() -> None:
    """A marker needs a reason; the pages hold examples at all (the parser still finds them)."""
    every = [b for page in PAGES for b in blocks(page)]
    assert len(every) > 100
    for block in every:
        assert block.not_run is None or len(block.not_run) > 5, f"{block.where}: say why it cannot run"


@pytest.mark.parametrize("page", PAGES)
def test_the_examples_of_a_page_run_as_written(page: str, spark: Any, cli: Any, tmp_path: Any,  # noqa: F811
                                               monkeypatch: Any, record_property: Any) -> None:
    monkeypatch.chdir(tmp_path)
    run = PageRun(page, str(tmp_path), spark, cli)
    failures = []
    for block in blocks(page):
        try:
            run.run(block)
        except AssertionError as e:  # later blocks may still run: report every failure at once
            failures.append(str(e))
    record_property("ran", len(run.ran))
    record_property("seconds", {k: round(v, 1) for k, v in run.seconds.items()})
    print(f"{page}: {len(run.ran)} ran, {len(run.skipped)} not run;", {k: round(v, 1) for k, v in run.seconds.items()})
    record_property("not_run", [f"{b.where}: {b.not_run}" for b in run.skipped])
    assert not failures, "\n\n".join(failures)

"""The fuzzer itself keeps working: a small run (a few hundred cases), and its oracle's logic.

The long run is `make fuzz` (docs/fuzzing.md). Wrong answers found here are printed, not
failed on: each known class has its own xfail test in test_fuzz_regressions.py, and this test
is about the fuzzer, whose job is to find them.
"""
from __future__ import annotations

import pytest

import udfs  # noqa: F401 - points Spark's Python workers at this interpreter and path
from fuzz import oracle, predicates, runner
from fuzz.predicates import And, Leaf, Not, Or


@pytest.mark.long  # over 15 s: make test-long runs it (CI after make test)
def test_a_small_fuzz_run_checks_hundreds_of_cases(spark, tmp_path):
    summary = runner.run(300, seed=7, spark=spark, workdir=str(tmp_path), per_dataset=150,
                         shrink_failures=False, log=lambda s: None)
    for failure in summary.failures.values():
        print(failure.text())
    assert summary.cases >= 300
    assert summary.datasets >= 2
    # the point of a case is that Skipstone had a chance to be wrong
    assert summary.skipped_something > summary.cases // 10
    assert summary.end_to_end >= 3
    assert summary.errors < summary.cases // 10


def test_oracle_flags_exactly_the_skipped_files_that_hold_true_rows():
    p = Leaf("x > 1")
    counts = {"a.parquet": 2, "b.parquet": 0, "c.parquet": 1}
    files = {"a.parquet", "b.parquet", "c.parquet", "empty.parquet"}
    assert oracle.judge(p, counts, None, {"a.parquet"}, files).missing == {"c.parquet"}
    assert oracle.judge(p, counts, None, {"a.parquet", "c.parquet"}, files).missing == set()
    assert oracle.judge(p, counts, None, None, files).missing == set()        # nothing was wrapped
    assert oracle.judge(p, "reference: boom", None, set(), files).error


def test_only_the_deterministic_prefix_may_prune():
    rand = Leaf("rand(1) < 0.5", deterministic=False)
    x, y = Leaf("x > 1"), Leaf("y = 2")
    assert predicates.prunable_part(And((rand, x))) is None                  # nothing before rand()
    assert predicates.prunable_part(And((x, rand, y))) == x
    assert predicates.prunable_part(And((And((x, y)), rand))) == And((x, y))
    assert predicates.prunable_part(Or((x, rand))) is None
    assert predicates.prunable_part(Not(And((x, y)))) == Not(And((x, y)))    # deterministic: itself


def test_file_keys_ignore_uri_spelling():
    root = "file:/tmp/d"
    assert oracle.file_key("file:///tmp/d/p=1/part-0.json", root) == "p=1/part-0.json"
    assert oracle.file_key("file:/tmp/d/part-0.json", "/tmp/d") == "part-0.json"
    assert oracle.file_key("file:/tmp/d/p=a%20b/x.csv", root) == "p=a b/x.csv"


@pytest.mark.long  # over 15 s: make test-long runs it (CI after make test)
def test_a_small_table_fuzz_run_finds_no_wrong_answer(spark, tmp_path):
    """Managed tables (tests/fuzz/tables.py): a few created, changed and checked after every step.
    The seeds were the first to hit each bug it found (infinite cuts, `a.b` beside struct a)."""
    from fuzz import tables

    summary = tables.run(3, seed=1, spark=spark, workdir=str(tmp_path), log=lambda s: None, predicates_per_step=60)
    for failure in summary.failures:
        print(failure)
    assert summary.tables + summary.creates_refused == 3 and summary.tables >= 2
    assert summary.steps >= 5 * summary.tables
    assert summary.cases >= 300 and summary.skipped_something > summary.cases // 10
    assert summary.wrong == 0 and summary.step_errors == 0

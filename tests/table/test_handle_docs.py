"""The examples in the table handle's docstrings run as printed (they are its API docs), on one
table the examples share: 1,000 rows of ``a``, ``b``, ``v`` in four k-d blocks on ``a``."""
from __future__ import annotations

import doctest

import skipstone.table.handle
from skipstone import MinMax, Skipstone, ValueList
from skipstone.layout import KdTree


def test_the_table_handles_docstring_examples_run(spark, tmp_path):
    df = spark.range(1000).selectExpr("id % 5000 AS a", "id % 97 AS b", "id AS v")
    t = Skipstone.create(spark, str(tmp_path / "t"), df, layout=KdTree(block_rows=250, columns=["a"]))
    globs = {"spark": spark, "t": t, "tmp": str(tmp_path), "MinMax": MinMax, "ValueList": ValueList}
    result = doctest.testmod(skipstone.table.handle, extraglobs=globs, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 30 and result.failed == 0, f"{result.failed} of {result.attempted} examples failed"

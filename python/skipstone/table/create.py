"""Skipstone.create: one call of the JVM's create (``io.skipstone.table.NewTable``), which checks
the root, sizes the blocks, draws and stores the sample, builds the layout and commits version 1
through the table transaction. Python adds what only Python has: the build of a layout spec
defined in Python (a ``@layout_spec`` class of yours), called back over py4j, and the roles of
indexes a Python function computes."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Sequence

from skipstone.dataset import Skipstone
from skipstone.errors import SkipstoneError
from skipstone.indexes import IndexType, MinMax
from skipstone.jvm_callbacks import start_callbacks
from skipstone.layout.serialization import layout_to_json
from skipstone.layout.specs import LayoutSpec
from skipstone.session import java_call, jvm_entry
from skipstone.table import manifest
from skipstone.table.columns import layout_columns, quoted_if_needed
from skipstone.table.jvm_layout import from_jvm, jvm_builds
from skipstone.table.transaction import operations, roles_for, run

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def create_table(spark: SparkSession, path: str, df: DataFrame, layout: LayoutSpec,
                 indexes: Sequence[IndexType] = (), sample_rows: int | None = None) -> manifest.TableVersion:
    root = java_call(jvm_entry(spark).qualify, spark._jsparkSession, path)
    if not isinstance(layout, LayoutSpec):
        raise SkipstoneError(f"layout must be a layout spec such as Amoeba(block_bytes=...), got {layout!r}")
    # MinMax over every layout column is what NewTable adds; the requests name the indexes asked
    # for, and the roles callback needs them all to tell which roles are Python's.
    requested = list(indexes)
    requested += [MinMax(n) for n in map(quoted_if_needed, layout_columns(spark, df.schema, root))
                  if MinMax(n) not in requested]
    requests = Skipstone(spark, root, "parquet")._requests(list(indexes)) if indexes else []
    all_requests = Skipstone(spark, root, "parquet")._requests(requested)
    python = None if jvm_builds(spark, layout) else _PythonLayoutBuilder(layout)
    if python is not None:
        start_callbacks(spark)
    text = run(operations(spark).NewTable.createFromPython, spark._jsparkSession, root, df._jdf,
               json.dumps(layout.to_json()), json.dumps(requests), sample_rows, python,
               roles_for(spark, root, requested, all_requests))
    return manifest.TableVersion.from_json(root, text)


class _PythonLayoutBuilder:
    """The JVM's ``PythonLayoutBuilder`` for a spec defined in Python: builds its layout on the
    sample the JVM drew and returns the layout document."""

    def __init__(self, spec: LayoutSpec) -> None:
        self._spec = spec

    def build(self, sample: Any, block_rows: float, total_rows: float) -> str:
        built = self._spec.build(from_jvm(sample), float(block_rows), float(total_rows))
        return json.dumps(layout_to_json(built), allow_nan=False)

    class Java:
        implements = ["io.skipstone.table.PythonLayoutBuilder"]

"""Routing rows to blocks in the executors: the tree compiled into one Spark expression.

Each split of a tree becomes ``CASE WHEN encoded(x) <= cut THEN left ELSE right``, a PAW group split a
chain of "inside this box?" tests; the leaves yield the partition key of their block. Spark's
hash partitioning sends a key to partition ``pmod(murmur3(key), n)``, so for each block we pick
(once, on a tiny range) a key that lands on the block's own partition: a repartition by the
expression then gives every block one task, and the writer one file per block (more when a
block exceeds the file size limit). Nothing depends on this for correctness: whatever the
routing, every row is written exactly once.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable, Mapping

from skipstone.layout.curves import CurveLayout
from skipstone.layout.layout import Layout
from skipstone.layout.tree import GroupSplit, Leaf, Node, PartitionTree, Split
from skipstone.per_file import column_of
from skipstone.table.columns import at_most

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import DataType


def partition_keys(spark: SparkSession, partitions: int) -> list[int]:
    """For each partition p < ``partitions``, a long whose hash partition is p."""
    from pyspark.sql import functions as F

    span = 32 * partitions + 64
    while True:
        found = (spark.range(span).select("id", F.expr(f"pmod(hash(id), {partitions})").alias("p"))
                 .groupBy("p").agg(F.min("id").alias("key")).collect())
        keys = {r.p: r.key for r in found}
        if len(keys) == partitions:
            return [keys[p] for p in range(partitions)]
        span *= 4


def with_block_column(spark: SparkSession, rows: DataFrame, layout: Layout, types: Mapping[str, DataType],
                      block_value: Callable[[int], int], name: str) -> DataFrame:
    """``rows`` with a column ``name`` holding ``block_value(block id)`` of each row's block:
    a tree compiles into one expression, a curve layout into a few projections
    (``skipstone.table.curve_routing``)."""
    if isinstance(layout, PartitionTree):
        return rows.withColumn(name, block_expression(layout, types, lambda leaf: block_value(leaf.block)))
    if isinstance(layout, CurveLayout):
        from skipstone.table.curve_routing import register_curve_functions, with_curve_block

        register_curve_functions(spark)
        ids = layout.block_ids
        return with_curve_block(rows, layout, types, lambda position: block_value(int(ids[position])), name)
    raise TypeError(f"cannot route rows through a {type(layout).__name__}")


def block_expression(tree: PartitionTree, types: Mapping[str, DataType], leaf_value: Callable[[Leaf], int]) -> Column:
    """An expression over the table's columns giving ``leaf_value(leaf)`` of the row's leaf."""
    return tree.root.accept(_Compiler(tree, types, leaf_value))


class _Compiler:
    def __init__(self, tree: PartitionTree, types: Mapping[str, DataType], leaf_value: Callable[[Leaf], int]) -> None:
        self.schema, self.types, self.leaf_value = tree.schema, types, leaf_value

    def _at_most(self, dim: int, cut: float) -> Column:
        column = self.schema.columns[dim]
        return at_most(column_of([column.name]), self.types[column.name], column, cut)

    def leaf(self, node: Leaf) -> Column:
        from pyspark.sql import functions as F

        return F.lit(self.leaf_value(node)).cast("long")

    def split(self, node: Split) -> Column:
        from pyspark.sql import functions as F

        return F.when(self._at_most(node.column, node.cut), node.left.accept(self)).otherwise(node.right.accept(self))

    def group_split(self, node: GroupSplit) -> Column:
        from pyspark.sql import functions as F

        chain = None
        for g in node.groups:  # a row goes to the first group whose box (low, high] holds it
            inside = F.lit(True)
            for d, (low, high) in enumerate(zip(g.low, g.high)):
                if low > -math.inf:
                    inside = inside & ~self._at_most(d, low)
                if high < math.inf:
                    inside = inside & self._at_most(d, high)
            child = g.child.accept(self)
            chain = F.when(inside, child) if chain is None else chain.when(inside, child)
        rest = node.rest.accept(self)
        return rest if chain is None else chain.otherwise(rest)

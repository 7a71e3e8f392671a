"""Routing rows of a curve layout (Z-order, Hilbert) in the executors.

A curve layout quantizes each column by cut points (sample quantiles of the encoded values),
orders rows by the curve key of their cell, and cuts the key range into blocks. In Spark: each
column's cell code is a binary search over its cut points, written as nested ``CASE WHEN``
with the same "encoded value <= cut" test the trees route with (NULL, NaN and strings
included); the Z-order key interleaves the codes' bits with shifts; the Hilbert key is the
JVM function ``skipstone_hilbert_key`` (Skilling's algorithm, bit for bit the Python one); the
block is a binary search of the key over the block boundaries. Codes are what NumPy's
``searchsorted(edges, value, side="left")`` gives, so every row lands in the block that
``CurveLayout.route`` assigns it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from skipstone.layout.curves import CurveLayout
from skipstone.per_file import column_of
from skipstone.table.columns import at_most

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import DataType

HILBERT_FUNCTION = "skipstone_hilbert_key"


def register_curve_functions(spark: SparkSession) -> None:
    """Makes ``skipstone_hilbert_key(codes, bits)`` callable in this session (idempotent)."""
    spark.udf.registerJavaFunction(HILBERT_FUNCTION, "io.skipstone.table.HilbertKey", "bigint")


def with_curve_block(rows: DataFrame, layout: CurveLayout, types: Mapping[str, DataType],
                     block_value: Callable[[int], int], name: str) -> DataFrame:
    """``rows`` with a column ``name`` holding ``block_value(position)`` of each row's block.

    Codes and key are computed in projections of their own: every test of the searches reads
    them, and one expression would copy a column's whole search into every bit of the key.
    """
    from pyspark.sql import functions as F

    code_names = [f"__skipstone_code{i}" for i in range(len(layout.columns))]
    with_codes = rows.select("*", *[_cell_code(layout, c, edges, types).alias(n)
                                    for n, c, edges in zip(code_names, layout.columns, layout.edges)])
    codes = [F.col(n) for n in code_names]
    key = _zorder_key(codes, layout.bits) if layout.curve == "zorder" else \
        F.call_function(HILBERT_FUNCTION, F.array(*codes), F.lit(layout.bits))
    with_key = with_codes.select(*[column_of([c]) for c in rows.columns], key.alias("__skipstone_key"))
    # the last boundary is the largest uint64, above every key: it never needs a test
    finite = [int(b) for b in layout.boundaries[:-1]]
    k = F.col("__skipstone_key")
    block = _search(lambda i: k <= F.lit(finite[i]).cast("long"), len(finite),
                    lambda position: F.lit(block_value(position)).cast("long"))
    return with_key.select(*[column_of([c]) for c in rows.columns], block.alias(name))


def _cell_code(layout: CurveLayout, column: int, edges: Sequence[float], types: Mapping[str, DataType]) -> Column:
    """How many of ``edges`` lie strictly below the row's encoded value."""
    from pyspark.sql import functions as F

    spec = layout.schema.columns[column]
    c = column_of([spec.name])
    return _search(lambda k: at_most(c, types[spec.name], spec, float(edges[k])), len(edges),
                   lambda code: F.lit(code).cast("long"))


def _search(value_at_most: Callable[[int], Column], n: int, result: Callable[[int], Column]) -> Column:
    """``result(i)`` for the number i of sorted thresholds 0..n-1 the value exceeds, as a
    balanced tree of ``CASE WHEN value <= threshold[mid]`` (depth log2 n, not a chain of n)."""
    from pyspark.sql import functions as F

    def between(low: int, high: int) -> Column:  # the answer lies in [low, high]
        if low == high:
            return result(low)
        mid = (low + high) // 2
        return F.when(value_at_most(mid), between(low, mid)).otherwise(between(mid + 1, high))

    return between(0, n)


def _zorder_key(codes: Sequence[Column], bits: int) -> Column:
    """The codes' bits interleaved, most significant level first, column 0 first in a level."""
    from pyspark.sql import functions as F

    dims = len(codes)
    key = F.lit(0).cast("long")
    for b in range(bits):
        for d, code in enumerate(codes):
            position = b * dims + (dims - 1 - d)
            key = key.bitwiseOR(F.shiftleft(F.shiftright(code, b).bitwiseAND(F.lit(1).cast("long")), position))
    return key

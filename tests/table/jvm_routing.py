"""The JVM's routing of rows to blocks (``io.skipstone.layout.LayoutRouting``), for tests."""
from __future__ import annotations

import json
from typing import Any

from skipstone.layout.layout import Layout
from skipstone.layout.serialization import layout_to_json


def with_jvm_block(spark: Any, rows: Any, layout: Layout, name: str = "block") -> Any:
    """``rows`` plus a column ``name`` holding the block the JVM routes each row to."""
    from pyspark.sql import DataFrame

    jvm_layout = spark._jvm.io.skipstone.layout
    document = jvm_layout.LayoutDocument.parse(json.dumps(layout_to_json(layout), allow_nan=False))
    return DataFrame(jvm_layout.LayoutRouting.withBlock(rows._jdf, document, name), spark)

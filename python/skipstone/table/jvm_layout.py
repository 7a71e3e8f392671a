"""The JVM's layout builders and sample, as a table's Python code calls them.

The specs of the kinds the JVM builds (``io.skipstone.layout.builders.BuiltLayouts`` lists them)
are built by ``io.skipstone.layout.builders`` so that a session without Python lays a table out
exactly as a pyspark session does; a spec defined in Python is built by its own ``build``.
Samples cross the boundary as their schema's JSON and their values as little-endian doubles,
column after column.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import numpy as np

from skipstone.layout.protocols import LayoutSpec
from skipstone.layout.schema import ColumnKind, LayoutData, Schema
from skipstone.layout.spec_registry import registered_layout_specs
from skipstone.session import java_call

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.types import StructType


def builders(spark: SparkSession) -> Any:
    """The JVM's ``LayoutCallsFromPython``: what Python calls of the builders package."""
    return spark._jvm.io.skipstone.layout.builders.LayoutCallsFromPython  # type: ignore[union-attr]


def jvm_builds(spark: SparkSession, spec: LayoutSpec) -> bool:
    """Whether the JVM builds ``spec``: the JVM builds its kind, and it is exactly the class
    registered under that kind (a subclass or another class may build differently: it builds itself)."""
    kind = type(spec).__name__
    return registered_layout_specs().get(kind) is type(spec) and \
        bool(java_call(builders(spark).builds, json.dumps(spec.to_json())))


def layout_kinds(spark: SparkSession, schema: StructType) -> dict[str, ColumnKind | None]:
    """Per column of ``schema``, its layout kind (``LayoutEncoding.kindOf``), None when a layout cannot order it."""
    kinds = json.loads(java_call(builders(spark).layoutKinds, schema.json()))
    return {name: None if kind is None else ColumnKind(kind) for name, kind in kinds.items()}


def from_jvm(sample: Any) -> LayoutData:
    """A JVM ``EncodedSample`` as a ``LayoutData``."""
    schema = Schema.from_json(json.loads(sample.schemaJson()))
    values = np.frombuffer(bytes(sample.valueBytes()), dtype="<f8").reshape(schema.width, sample.rows()).T
    return LayoutData(schema, np.ascontiguousarray(values, dtype=np.float64))


def to_jvm(spark: SparkSession, sample: LayoutData) -> Any:
    """A ``LayoutData`` as a JVM ``EncodedSample``."""
    values = np.ascontiguousarray(sample.values.T, dtype="<f8").tobytes()
    return java_call(builders(spark).sample, json.dumps(sample.schema.to_json()), sample.rows, bytearray(values))

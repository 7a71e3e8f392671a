package io.skipstone.metadata

import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.types.{DataType, StructType}

/** Looking up exact column paths in a schema, under the session's case rules. */
object SchemaPaths {
  /** The type at `path`, or None when it is missing or ambiguous (two fields match one name). */
  def typeAt(schema: StructType, path: ColumnPath, resolver: Resolver): Option[DataType] =
    path.parts.foldLeft(Option[DataType](schema)) {
      case (Some(struct: StructType), name) => struct.fields.filter(f => resolver(f.name, name)) match {
        case Array(only) => Some(only.dataType)
        case _ => None
      }
      case _ => None
    }

  /** Whether the relation still has every column of the index, with the type it was indexed as. */
  def matches(index: IndexSpec, schema: StructType, resolver: Resolver): Boolean =
    index.paths.length == index.columnTypes.length &&
      index.paths.zip(index.columnTypes).forall { case (path, indexed) =>
        typeAt(schema, path, resolver).exists(DataType.equalsIgnoreNullability(_, indexed))
      }
}

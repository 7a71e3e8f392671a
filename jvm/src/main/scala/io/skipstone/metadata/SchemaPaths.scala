package io.skipstone.metadata

import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.types.{DataType, StructType}

/** Looking up dotted column paths (`a.b.c`) in a schema, under the session's case rules. */
object SchemaPaths {
  def typeAt(schema: StructType, path: String, resolver: Resolver): Option[DataType] =
    path.split('.').foldLeft(Option[DataType](schema)) {
      case (Some(struct: StructType), name) => struct.fields.find(f => resolver(f.name, name)).map(_.dataType)
      case _ => None
    }

  /** Whether the relation still has every column of the index, with the type it was indexed as. */
  def matches(index: IndexSpec, schema: StructType, resolver: Resolver): Boolean =
    index.columns.length == index.columnTypes.length &&
      index.columns.zip(index.columnTypes).forall { case (path, indexed) =>
        typeAt(schema, path, resolver).exists(DataType.equalsIgnoreNullability(_, indexed))
      }
}

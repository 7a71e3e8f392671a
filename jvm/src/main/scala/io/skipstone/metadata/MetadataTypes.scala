package io.skipstone.metadata

import org.apache.spark.sql.types._

/**
 * The column types a metadata table must have for its definition to mean anything. Metadata
 * may have been written by another tool or version; a clause compiled against a column of an
 * unexpected type would compare the wrong things, so such an index is not used at all.
 */
object MetadataTypes {
  /** Columns every metadata table has; without them the version is unusable. */
  val Base: Seq[(String, DataType)] = Seq(
    LoadedMetadata.Path -> StringType, LoadedMetadata.Size -> LongType,
    LoadedMetadata.ModificationTime -> LongType, LoadedMetadata.NumRows -> LongType)

  /** The base columns alone: a version no session can read anything of holds just these, and no file. */
  val BaseSchema: StructType = StructType(Base.map { case (name, t) => StructField(name, t) })

  def baseProblems(schema: StructType): Seq[String] =
    (Base ++ Seq[(String, DataType)](LoadedMetadata.Fingerprint -> StringType).filter(c => has(schema, c._1)))
      .flatMap { case (name, t) => mismatch(schema, name, t) }

  private def has(schema: StructType, name: String): Boolean = schema.fieldNames.contains(name)

  /** The role types of built-in kinds, from the indexed column's type. */
  private def expected(kind: String, column: DataType): Map[String, DataType] = {
    val nulls: (String, DataType) = "nulls" -> LongType
    val values: (String, DataType) = "values" -> ArrayType(column)
    val bloom: (String, DataType) = "bloom" -> BinaryType
    kind match {
      case "minmax" => Map("min" -> column, "max" -> column, nulls)
      case "gaplist" => Map("min" -> column, "max" -> column, nulls,
        "gaps" -> ArrayType(StructType(Seq(StructField("lo", column), StructField("hi", column)))))
      case "valuelist" => Map(values, nulls)
      case "bloomfilter" => Map(bloom, nulls)
      case "hybrid" => Map(values, bloom, nulls)
      case "prefix" | "suffix" => Map("affixes" -> ArrayType(StringType), nulls)
      case _ => Map.empty
    }
  }

  /** Why `index` cannot be used with a table of `schema`, if it cannot. */
  def problem(index: IndexSpec, schema: StructType): Option[String] = {
    val missing = index.metadataColumns.values.filterNot(has(schema, _))
    val typed = index.columnTypes.headOption.toSeq.flatMap { t =>
      expected(index.kind, t).flatMap { case (role, want) =>
        index.metadataColumns.get(role).flatMap(mismatch(schema, _, want))
      }
    }
    val all = missing.map(c => s"column '$c' is missing") ++ typed
    Option.when(all.nonEmpty)(s"${index.describe}: ${all.mkString("; ")}")
  }

  private def mismatch(schema: StructType, name: String, want: DataType): Option[String] =
    schema.fields.find(_.name == name) match {
      case None => Some(s"column '$name' is missing")
      case Some(f) if sameShape(f.dataType, want) => None
      case Some(f) => Some(s"column '$name' is ${f.dataType.simpleString}, expected ${want.simpleString}")
    }

  /** Equal up to nullability and struct field names (a gap is any pair of values). */
  private def sameShape(a: DataType, b: DataType): Boolean = (a, b) match {
    case (ArrayType(x, _), ArrayType(y, _)) => sameShape(x, y)
    case (s: StructType, t: StructType) =>
      s.length == t.length && s.fields.zip(t.fields).forall { case (f, g) => sameShape(f.dataType, g.dataType) }
    case _ => DataType.equalsIgnoreNullability(a, b)
  }
}

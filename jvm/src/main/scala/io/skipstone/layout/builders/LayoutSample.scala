package io.skipstone.layout.builders

import org.apache.spark.sql.{Column, DataFrame, Row}
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.types.{BinaryType, BooleanType, DataType, StringType}

import io.skipstone.layout.{ColumnKind, LayoutColumn, LayoutEncoding}

/**
 * The one thing of a table's rows that reaches the driver: a uniform sample of its layout
 * columns, encoded for the builders. Numbers, dates and timestamps are encoded by Spark
 * ([[LayoutEncoding.encoded]]); strings arrive as their UTF-8 bytes (Spark strings may hold bytes
 * that are not valid UTF-8, written by other tools) and booleans as values, and become ranks in
 * the sample's sorted dictionary ([[CategoryDictionary]]).
 */
object LayoutSample {

  /**
   * About `sampleRows` rows of `rows` (all if it has fewer): Spark's Bernoulli sample of fraction
   * min(1, 1.2 * sampleRows / totalRows) with `seed`, trimmed uniformly to `sampleRows`.
   */
  def draw(rows: DataFrame, columns: Seq[String], totalRows: Long, sampleRows: Int, seed: Long): EncodedSample = {
    val fields = columns.map { name =>
      val field = rows.schema.fields.find(_.name == name).getOrElse(throw new IllegalArgumentException(
        s"layout column '$name' is not a column of the data (columns: ${rows.schema.fieldNames.mkString(", ")})"))
      val kind = LayoutEncoding.kindOf(field.dataType).getOrElse(throw new IllegalArgumentException(
        s"layout column '$name' has type ${field.dataType.simpleString}, which a layout cannot order"))
      (name, field.dataType, kind)
    }
    val selected = rows.select(fields.zipWithIndex.map { case ((name, dataType, kind), i) =>
      sampled(col(quoted(name)), dataType, kind).as(s"c$i")
    }: _*)
    val fraction = math.min(1.0, 1.2 * sampleRows / math.max(totalRows, 1L))
    val drawn = (if (fraction < 1.0) selected.sample(fraction, seed) else selected).collect()
    val kept = if (drawn.length <= sampleRows) drawn
      else Noise.choose(drawn.indices.toArray, sampleRows, seed, Noise.SampleTrim, 0).sorted.map(drawn(_))
    val (schema, values) = fields.zipWithIndex.map { case ((name, dataType, kind), i) => encodedColumn(name, dataType, kind, kept, i) }.unzip
    EncodedSample(schema, values.toArray)
  }

  /** What the sample holds of a column: encoded doubles, or the values a dictionary is built from. */
  private def sampled(c: Column, dataType: DataType, kind: ColumnKind): Column =
    if (kind != ColumnKind.Categorical) LayoutEncoding.encoded(c, dataType)
    else if (dataType.isInstanceOf[StringType]) c.cast(BinaryType)
    else c

  private def encodedColumn(name: String, dataType: DataType, kind: ColumnKind, rows: Array[Row], i: Int): (LayoutColumn, Array[Double]) =
    dataType match {
      case _: StringType =>
        val (categories, ranks) = CategoryDictionary.ofStrings(rows.toSeq.map(r => if (r.isNullAt(i)) null else r.getAs[Array[Byte]](i)))
        (LayoutColumn(name, kind, categories), ranks)
      case BooleanType =>
        val (categories, ranks) = CategoryDictionary.ofBooleans(
          rows.toSeq.map(r => if (r.isNullAt(i)) null else java.lang.Boolean.valueOf(r.getBoolean(i))))
        (LayoutColumn(name, kind, categories), ranks)
      case _ => (LayoutColumn(name, kind), rows.map(_.getDouble(i)))
    }

  /** A top-level column by its exact name, whatever it contains (dots, backticks). */
  private def quoted(name: String): String = "`" + name.replace("`", "``") + "`"
}

package io.skipstone.layout.builders

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.types.{DataType, StructType}
import org.json4s._
import org.json4s.jackson.JsonMethods

import io.skipstone.layout.{LayoutDocument, LayoutEncoding}

/**
 * What Python's `skipstone.table.jvm_layout` calls over py4j: the sample, the built-in builders
 * and the layout kinds of Spark types, with Java lists, JSON text and bytes at the boundary.
 */
object LayoutCallsFromPython {

  def drawSample(rows: DataFrame, columns: java.util.List[String], totalRows: Long, sampleRows: Int, seed: Long): EncodedSample =
    LayoutSample.draw(rows, columns.asScala.toSeq, totalRows, sampleRows, seed)

  /** A sample Python encoded (`LayoutData`): its schema JSON and its values, column after column, as little-endian doubles. */
  def sample(schemaJson: String, rows: Int, values: Array[Byte]): EncodedSample = EncodedSample.fromBytes(schemaJson, rows, values)

  /** The layout document (JSON) the spec (JSON) gives for the sample. */
  def build(specJson: String, sample: EncodedSample, blockRows: Double, totalRows: Double): String =
    LayoutDocument.write(LayoutBuilders.build(JsonMethods.parse(specJson), sample, blockRows, totalRows))

  /** Whether the JVM builds the spec (JSON): its kind is one of [[BuiltLayouts]]. */
  def builds(specJson: String): Boolean = LayoutBuilders.builds(JsonMethods.parse(specJson))

  /** The spec (JSON) `LAYOUT name BY (columns)` means. */
  def specFor(name: String, columns: java.util.List[String], blockRows: Long): String =
    JsonMethods.compact(JsonMethods.render(LayoutBuilders.specFor(name, columns.asScala.toSeq, blockRows)))

  /** The spec (JSON) of a new table laid out by `LAYOUT name BY (columns)`; `blockRows`, `blockBytes` may be null. */
  def specForNewTable(name: String, columns: java.util.List[String], blockRows: java.lang.Long,
                      blockBytes: java.lang.Long): String =
    JsonMethods.compact(JsonMethods.render(LayoutBuilders.specFor(name, columns.asScala.toSeq,
      Option(blockRows).map(_.longValue), Option(blockBytes).map(_.longValue))))

  /** The names (lower case, a JSON list) of the layouts the JVM builds ([[BuiltLayouts]]). */
  def layoutNames(): String = JsonMethods.compact(JsonMethods.render(JArray(BuiltLayouts.All.map(l => JString(l.name)).toList)))

  /** Per column of a schema (Spark's JSON), its layout kind, or null when a layout cannot order it. */
  def layoutKinds(schemaJson: String): String = {
    val schema = DataType.fromJson(schemaJson).asInstanceOf[StructType]
    JsonMethods.compact(JsonMethods.render(JObject(schema.fields.toList.map { f =>
      f.name -> LayoutEncoding.kindOf(f.dataType).fold[JValue](JNull)(k => JString(k.name))
    })))
  }
}

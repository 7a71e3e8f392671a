package io.skipstone.clauses

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.caseInsensitiveResolution
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.util.{GenericArrayData, TypeUtils}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import io.skipstone.clauses.rules.RuleTranslator
import io.skipstone.metadata.{HandMadeMetadata, IndexSpec, LoadedMetadata}

/**
 * Data files of one column `x`, each given by its values (Spark's internal values, null for
 * NULL), and the metadata the MinMax and ValueList kinds keep of them, computed here the way a
 * build does: Spark's ordering (NaN above every double), NULLs counted apart.
 */
class OneColumnFiles(val dataType: DataType, val files: Seq[Seq[Any]]) {
  val x: AttributeReference = AttributeReference("x", dataType)()

  private val ordering: Ordering[Any] = TypeUtils.getInterpretedOrdering(dataType)

  val minMax: IndexSpec = IndexSpec("minmax", Seq("x"), Seq(dataType),
    Map("min" -> "x_min", "max" -> "x_max", "nulls" -> "x_nulls"), Map.empty)
  val valueList: IndexSpec = IndexSpec("valuelist", Seq("x"), Seq(dataType),
    Map("values" -> "x_values", "nulls" -> "x_vl_nulls"), Map.empty)

  val metadata: LoadedMetadata = {
    val fields = Seq(StructField("x_min", dataType), StructField("x_max", dataType), StructField("x_nulls", LongType),
      StructField("x_values", ArrayType(dataType)), StructField("x_vl_nulls", LongType))
    val rows = files.zipWithIndex.map { case (values, i) =>
      val present = values.filter(_ != null)
      val nulls = (values.size - present.size).toLong
      val distinct = present.sorted(ordering).foldLeft(Vector.empty[Any]) { (kept, v) =>
        if (kept.lastOption.exists(ordering.equiv(_, v))) kept else kept :+ v
      }
      InternalRow(UTF8String.fromString(HandMadeMetadata.path(i)), 100L, 1L, values.size.toLong,
        distinct.headOption.orNull, distinct.lastOption.orNull, nulls,
        new GenericArrayData(distinct), nulls)
    }
    HandMadeMetadata(Seq(minMax, valueList), fields, rows, None)
  }

  def translator(index: IndexSpec): LeafTranslator = RuleTranslator.forIndex(index, metadata, caseInsensitiveResolution).get

  def translate(condition: Expression, indexes: IndexSpec*): ClauseBuilder#Translation =
    new ClauseBuilder(indexes.map(translator)).translate(condition)

  /**
   * The files the clause keeps, as the skipper decides: NULL means "read". Interpreted, not
   * generated code (FileSkipperSuite covers that): the soundness grid builds hundreds of clauses.
   */
  def kept(condition: Expression, indexes: IndexSpec*): Seq[Int] = {
    val clause = translate(condition, indexes: _*).clause
    val keep = Predicate.createInterpreted(BindReferences.bindReference(Coalesce(Seq(clause, Literal(true))), metadata.attributes))
    val row = metadata.view()
    files.indices.filter { i => row.rowId = i; keep.eval(row) }
  }

  /** The files holding a row on which `condition` is TRUE: the ones no clause may skip. */
  def matching(condition: Expression): Seq[Int] = {
    val bound = BindReferences.bindReference(condition, Seq(x))
    files.indices.filter(i => files(i).exists(v => bound.eval(InternalRow(v)) == true))
  }
}

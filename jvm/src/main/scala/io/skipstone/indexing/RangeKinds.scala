package io.skipstone.indexing

import org.apache.spark.sql.{Column, SparkSession}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.VariantType

import io.skipstone.indexing.ColumnTypes._

/** The roles every range index starts from: smallest and largest value, NULL count. */
object MinMaxRoles {
  def of(c: Column): Seq[(String, RoleSource)] =
    Seq("min" -> SqlRole(min(c)), "max" -> SqlRole(max(c)), "nulls" -> SqlRole(nullCount(c)))

  def nullCount(c: Column): Column = count_if(c.isNull).cast("long")
}

/**
 * MinMax: per file the smallest and largest value of a column, and its NULL count. A VARIANT
 * column has no order, so only its NULL count is kept (for `v IS [NOT] NULL`); its paths are
 * indexed with Formatted over `variant_get`.
 */
object MinMaxKind extends SingleColumnKind("MinMax") {
  def prepare(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn], dataset: String): IndexRequest = {
    single(request)
    if (columns.head.dataType != VariantType)
      require(displayName, columns.head, Ordered, "a number, string, boolean, date, timestamp or variant", dataset)
    request
  }

  def roles(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn]): Seq[(String, RoleSource)] = {
    val c = col(columns.head.sql)
    if (columns.head.dataType == VariantType) Seq("nulls" -> SqlRole(MinMaxRoles.nullCount(c)))
    else MinMaxRoles.of(c)
  }
}

/**
 * GapList: MinMax's roles and the `gaps` widest gaps between consecutive distinct values
 * (`array<struct<lo, hi>>` of the column's type, widest first).
 */
object GapListKind extends SingleColumnKind("GapList") {
  override protected def settings(request: IndexRequest): String = s"gaps=${request.param("gaps").getOrElse("10")}"

  def prepare(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn], dataset: String): IndexRequest = {
    single(request)
    val gaps = positiveInt(request, "gaps", 10)
    require(displayName, columns.head, OrderedRange, "a number, date or timestamp", dataset)
    request.copy(params = request.params + ("gaps" -> gaps.toString))
  }

  def roles(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn]): Seq[(String, RoleSource)] = {
    val c = col(columns.head.sql)
    MinMaxRoles.of(c) :+ ("gaps" -> SqlRole(widestGaps(c, request.params("gaps").toInt)))
  }

  private def widestGaps(c: Column, count: Int): Column = {
    val values = array_sort(collect_set(c))
    val following = slice(values, lit(2), greatest(size(values) - 1, lit(0)))
    // try_subtract works for every accepted type (dates and timestamps give intervals); it is
    // NULL only on overflow, i.e. for the widest gaps of all.
    val pairs = zip_with(values, following, (lo, hi) =>
      struct(try_subtract(hi, lo).alias("width"), lo.alias("lo"), hi.alias("hi")))
    // The last pair has no upper end; a gap up to NaN (which sorts above every double) holds
    // nothing a query can ask for. `CAST(.. AS STRING)` tells NaN apart for any type.
    val real = filter(pairs, p => p("hi").isNotNull && p("hi").cast("string") =!= lit("NaN"))
    val widest = slice(array_sort(real, widerFirst), lit(1), lit(count))
    transform(widest, p => struct(p("lo").alias("lo"), p("hi").alias("hi")))
  }

  private def widerFirst(a: Column, b: Column): Column = {
    val (wa, wb) = (a("width"), b("width"))
    when(wa.isNull && wb.isNull, 0).when(wa.isNull, -1).when(wb.isNull, 1)
      .when(wa > wb, -1).when(wa < wb, 1).otherwise(0)
  }
}

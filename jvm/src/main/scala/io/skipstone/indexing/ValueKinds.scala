package io.skipstone.indexing

import org.apache.spark.sql.{Column, SparkSession}
import org.apache.spark.sql.functions._

import io.skipstone.indexing.ColumnTypes._
import io.skipstone.sketch.{BloomFilterAggregate, BloomFilterOfValues}

/** Kinds that keep a file's values themselves or hashed: ValueList, BloomFilter, Hybrid. */
abstract class ValueKind(name: String) extends SingleColumnKind(name) {
  protected def check(request: IndexRequest, columns: Seq[ResolvedColumn], dataset: String): Unit = {
    single(request)
    require(displayName, columns.head, Hashable, "a number, string, binary, boolean, date or timestamp", dataset)
  }

  protected def nulls(c: Column): (String, RoleSource) = "nulls" -> SqlRole(MinMaxRoles.nullCount(c))
}

/** ValueList: the sorted distinct values, NULL (unknown) when a file has more than `max_size`. */
object ValueListKind extends ValueKind("ValueList") {
  override protected def settings(request: IndexRequest): String = s"max_size=${request.param("max_size").getOrElse("1000")}"

  def prepare(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn], dataset: String): IndexRequest = {
    val maxSize = positiveInt(request, "max_size", 1000)
    check(request, columns, dataset)
    request.copy(params = request.params + ("max_size" -> maxSize.toString))
  }

  def roles(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn]): Seq[(String, RoleSource)] = {
    val c = col(columns.head.sql)
    val distinct = collect_set(c)
    Seq("values" -> SqlRole(when(size(distinct) <= request.params("max_size").toLong, array_sort(distinct))), nulls(c))
  }
}

/** BloomFilter: a bloom filter of the non-NULL values, sized by `expected_items` and `fpp`. */
object BloomFilterKind extends ValueKind("BloomFilter") {
  override protected def settings(request: IndexRequest): String =
    s"fpp=${request.param("fpp").getOrElse("0.01")}, expected_items=${request.param("expected_items").getOrElse("10000")}"

  def prepare(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn], dataset: String): IndexRequest = {
    probability(request, "fpp", 0.01)
    val fpp = request.param("fpp").getOrElse("0.01")
    val items = positiveInt(request, "expected_items", 10000)
    check(request, columns, dataset)
    request.copy(params = request.params ++ Map("fpp" -> fpp, "expected_items" -> items.toString))
  }

  def roles(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn]): Seq[(String, RoleSource)] = {
    val c = col(columns.head.sql)
    val bloom = call_function(BloomFilterAggregate.Name, c, lit(request.params("expected_items").toLong),
      lit(request.params("fpp").toDouble))
    Seq("bloom" -> SqlRole(bloom), nulls(c))
  }
}

/** Hybrid: the distinct values up to `threshold` of them, else a bloom filter sized for them. */
object HybridKind extends ValueKind("Hybrid") {
  override protected def settings(request: IndexRequest): String =
    s"threshold=${request.param("threshold").getOrElse("10000")}, fpp=${request.param("fpp").getOrElse("0.01")}"

  def prepare(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn], dataset: String): IndexRequest = {
    val threshold = positiveInt(request, "threshold", 10000)
    probability(request, "fpp", 0.01)
    check(request, columns, dataset)
    request.copy(params = request.params ++ Map("threshold" -> threshold.toString,
      "fpp" -> request.param("fpp").getOrElse("0.01")))
  }

  def roles(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn]): Seq[(String, RoleSource)] = {
    val c = col(columns.head.sql)
    val distinct = collect_set(c)
    val listed = size(distinct) <= request.params("threshold").toLong
    Seq("values" -> SqlRole(when(listed, array_sort(distinct))),
      "bloom" -> SqlRole(when(!listed, call_function(BloomFilterOfValues.Name, distinct, lit(request.params("fpp").toDouble)))),
      nulls(c))
  }
}

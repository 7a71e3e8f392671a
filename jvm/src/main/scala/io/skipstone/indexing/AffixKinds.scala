package io.skipstone.indexing

import org.apache.spark.sql.{Column, SparkSession}
import org.apache.spark.sql.functions._

import io.skipstone.indexing.ColumnTypes._

/** Prefix and Suffix: sorted distinct string ends of `length` characters, and the NULL count. */
abstract class AffixKind(name: String) extends SingleColumnKind(name) {
  protected def cut(value: Column, length: Int): Column

  override protected def settings(request: IndexRequest): String = request.param("length").getOrElse("")

  def prepare(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn], dataset: String): IndexRequest = {
    single(request)
    val length = request.param("length").flatMap(_.toIntOption).filter(_ > 0).getOrElse(throw new IndexBuildError(
      s"$displayName: length must be a positive number of characters, got ${request.param("length").getOrElse("nothing")}"))
    require(displayName, columns.head, Strings, "a string (without collation)", dataset)
    request.copy(params = request.params + ("length" -> length.toString))
  }

  def roles(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn]): Seq[(String, RoleSource)] = {
    val c = col(columns.head.sql)
    Seq("affixes" -> SqlRole(array_sort(collect_set(cut(c, request.params("length").toInt)))),
      "nulls" -> SqlRole(MinMaxRoles.nullCount(c)))
  }
}

object PrefixKind extends AffixKind("Prefix") {
  protected def cut(value: Column, length: Int): Column = substring(value, 1, length)
}

object SuffixKind extends AffixKind("Suffix") {
  protected def cut(value: Column, length: Int): Column = substring(value, -length, length)
}

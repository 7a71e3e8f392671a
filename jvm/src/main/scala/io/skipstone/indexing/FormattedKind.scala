package io.skipstone.indexing

import scala.collection.immutable.ListMap
import scala.util.{Failure, Success, Try}

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.functions.expr
import org.apache.spark.sql.types.{DataType, StructField, StructType}

import org.apache.spark.sql.catalyst.expressions.PythonUDF

import io.skipstone.clauses.rules.FunctionIdentity
import io.skipstone.indexing.RuleText.{Role, Rule}

/**
 * Formatted: per file the distinct values of `fn(column)`, for `fn(column) = v` and `IN`.
 * Params: `expression` (SQL over `{col}`, e.g. `lower({col})`, or `<udf>({col})`), `name` (the
 * UDF queries call, for a Python function) and `type` (the result type, found when left out).
 * A UDF not registered in the building session needs Python: its values come from the caller.
 */
object FormattedKind extends RuleKind {
  override def describe(request: IndexRequest): String =
    s"Formatted(${request.columns.mkString(", ")}, ${function(request).getOrElse(request.param("expression").getOrElse(""))})"

  private def function(request: IndexRequest): Option[String] = request.param("name").filter(_.nonEmpty)

  override def prepare(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn],
                       dataset: String): IndexRequest = {
    val column = request.columns.headOption.getOrElse(throw new IndexBuildError("Formatted indexes one column"))
    val description = IndexKinds.describe(request)
    val expression = request.param("expression").getOrElse(throw new IndexBuildError(
      s"Formatted($column) needs params.expression: SQL over {col} such as lower({col}), or <udf>({col})"))
    if (!expression.contains("{col}")) throw new IndexBuildError(
      s"Formatted($column): SQL fn '$expression' must use {col} for the column")
    val found = computedType(session, request, expression, columns.head.dataType, description)
    val resultType = request.param("type").filter(_.nonEmpty) match {
      case Some(given) =>
        found.filter(_ != DataType.fromDDL(given)).foreach(f => throw new IndexBuildError(
          s"$description on dataset $dataset: type='$given' but ${expression.replace("{col}", column)} returns " +
            s"${f.simpleString}; pass type='${f.simpleString}' or leave it out"))
        given
      case None => found.map(_.simpleString).getOrElse("string")
    }
    // Registered here, the build calls the registered body; otherwise Python calls fn and sends its digest.
    val digest = registeredDigest(session, request, expression, columns.head.dataType)
      .orElse(request.param(FunctionIdentity.DigestParam)).getOrElse("")
    val settings = ListMap("expression" -> expression, "name" -> function(request).getOrElse(""), "type" -> resultType,
      FunctionIdentity.DigestParam -> digest)
    val definitions = if (RuleText.hasDefinitions(request.params)) request.params.filter { case (k, _) => !settings.contains(k) }
      else RuleText.params(Seq(Role("values", s"array<$resultType>", Some(s"array_sort(collect_set($expression))"))),
        Seq(Rule(s"$expression = {v}", "array_contains({values}, {v})", Some("exists({values}, x -> x <> {v})")),
          Rule(s"$expression IN ({vs})", "arrays_overlap({values}, {vs})",
            Some("exists({values}, x -> NOT array_contains({vs}, x))"))) ++ ranges(expression, resultType))
    RuleKind.checked(session, request.copy(params = settings ++ definitions), description)
  }

  /**
   * For an ordered result, `fn(column) < v` and the other comparisons: the stored values are all
   * the file's non-NULL results, so asking them with the query's own operator is exact (NaN and
   * all), and a path of a VARIANT column (`variant_get({col}, '$.a', 'int')`) skips ranges.
   */
  private def ranges(expression: String, resultType: String): Seq[Rule] =
    if (!ColumnTypes.family(DataType.fromDDL(resultType)).exists(ColumnTypes.Ordered)) Seq.empty
    else Seq("<" -> ">=", "<=" -> ">", ">" -> "<=", ">=" -> "<").map { case (op, opposite) =>
      Rule(s"$expression $op {v}", s"exists({values}, x -> x $op {v})", Some(s"exists({values}, x -> x $opposite {v})"))
    }

  /** A Python function not registered here is computed by the caller, in Python. */
  override def roles(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn]): Seq[(String, RoleSource)] =
    function(request).filterNot(session.catalog.functionExists) match {
      case Some(python) => Seq("values" -> PythonRole(python))
      case None => super.roles(session, request, columns)
    }

  /** The digest of the Python UDF registered under the index's name, if one is. */
  private def registeredDigest(session: SparkSession, request: IndexRequest, expression: String,
                               columnType: DataType): Option[String] =
    function(request).filter(session.catalog.functionExists).flatMap { _ =>
      val empty = session.createDataFrame(java.util.Collections.emptyList[Row](), StructType(Seq(StructField("c", columnType))))
      val plan = empty.select(expr(expression.replace("{col}", "c"))).queryExecution.analyzed
      plan.expressions.flatMap(_.collect { case u: PythonUDF => FunctionIdentity.of(u) }).headOption
    }

  /** The type queries see for `fn(column)`, by analysis over no rows; None for an unregistered UDF. */
  private def computedType(session: SparkSession, request: IndexRequest, expression: String, columnType: DataType,
                           description: String): Option[DataType] =
    if (function(request).exists(f => !session.catalog.functionExists(f))) None
    else {
      val empty = session.createDataFrame(java.util.Collections.emptyList[Row](), StructType(Seq(StructField("c", columnType))))
      Try(empty.select(expr(expression.replace("{col}", "c"))).schema.head.dataType) match {
        case Success(t) => Some(t)
        case Failure(e) => throw new IndexBuildError(
          s"$description: '$expression' does not resolve on the column: ${e.getMessage}")
      }
    }
}

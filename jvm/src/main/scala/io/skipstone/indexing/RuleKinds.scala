package io.skipstone.indexing

import scala.util.Try

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.PythonUDF
import org.apache.spark.sql.functions.expr
import org.apache.spark.sql.types.{StructField, StructType}

import io.skipstone.clauses.rules.{FunctionIdentity, RuleCompiler}

/**
 * Kinds written as data: roles (`role.<name>.type` with `role.<name>.sql`, a Spark SQL aggregate
 * over `{col}`, `{col0}`, ..., or `role.<name>.python`, a Python function) and rules
 * (`rule.<n>.pattern`, `rule.<n>.mayBeTrue`, `rule.<n>.mayBeFalse`), all in the params. User
 * kinds, UDF mappings and the built-in rule kinds (Formatted, GeoBox, MetricDist) share it.
 */
class RuleKind extends IndexKind {
  import RuleKind._

  def describe(request: IndexRequest): String = s"${request.kind}(${request.columns.mkString(", ")})"

  def prepare(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn], dataset: String): IndexRequest = {
    val ok = checked(session, request, IndexKinds.describe(request))
    ok.copy(params = ok.params.filter { case (k, _) => !k.startsWith(FunctionIdentity.DigestParam + ".") } ++
      udfDigests(session, ok, columns))
  }

  /**
   * The digest of every Python UDF the roles' SQL calls, as it is registered now: values
   * computed by one body say nothing about a body registered later under the same name.
   */
  private def udfDigests(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn]): Map[String, String] = {
    val sqls = storedRoles(request.params).flatMap(_._2.get("sql"))
    if (sqls.isEmpty || columns.isEmpty) Map.empty
    else {
      val schema = StructType(columns.zipWithIndex.map { case (c, n) => StructField(s"c$n", c.dataType) })
      val empty = session.createDataFrame(java.util.Collections.emptyList[Row](), schema)
      sqls.flatMap { sql =>
        val local = ColumnPlaceholder.replaceAllIn(sql, m => s"c${Option(m.group(1)).filter(_.nonEmpty).getOrElse("0")}")
        Try(empty.select(expr(local)).queryExecution.analyzed).toOption.toSeq
          .flatMap(_.expressions.flatMap(_.collect { case u: PythonUDF => FunctionIdentity.digestParam(u.name) -> FunctionIdentity.of(u) }))
      }.toMap
    }
  }

  def roles(session: SparkSession, request: IndexRequest, columns: Seq[ResolvedColumn]): Seq[(String, RoleSource)] =
    storedRoles(request.params).map { case (name, parts) =>
      name -> parts.get("sql").map(sql => SqlRole(expr(substitute(sql, columns)).cast(parts("type"))))
        .getOrElse(PythonRole(parts("python")))
    }
}

/** A kind this version does not know by name but whose definition carries its roles and rules. */
object StoredRuleKind extends RuleKind

/** Rules over other indexes' metadata, with no roles of their own. */
object UdfMappingKind extends RuleKind {
  override def describe(request: IndexRequest): String = s"UdfMapping(${request.param("name").getOrElse("mapping")})"
}

object RuleKind {
  private val RoleKey = """role\.([A-Za-z_][A-Za-z0-9_]*)\.(type|sql|python)""".r
  private val RuleKey = """rule\.(\d+)\.(pattern|mayBeTrue|mayBeFalse)""".r
  private[indexing] val ColumnPlaceholder = """\{col(\d*)\}""".r

  def isRuleBased(params: Map[String, String]): Boolean = params.keys.exists(RuleKey.matches)

  /** Role name -> its stored parts ("type", "sql" or "python"), in stored order. */
  def storedRoles(params: Map[String, String]): Seq[(String, Map[String, String])] = {
    val parts = params.toSeq.collect { case (RoleKey(name, part), text) => (name, part, text) }
    parts.map(_._1).distinct.map(name => name -> parts.filter(_._1 == name).map(p => p._2 -> p._3).toMap)
  }

  /** (number, pattern, clauses) of each complete rule, in order. */
  def storedRules(params: Map[String, String]): Seq[(Int, String, Seq[String])] =
    params.toSeq.collect { case (RuleKey(n, part), text) => (n.toInt, part, text) }.groupBy(_._1).toSeq.sortBy(_._1)
      .flatMap { case (n, parts) =>
        val byPart = parts.map(p => p._2 -> p._3).toMap
        byPart.get("pattern").zip(byPart.get("mayBeTrue")).map { case (pattern, mayBeTrue) =>
          (n, pattern, mayBeTrue +: byPart.get("mayBeFalse").toSeq)
        }
      }

  /** The request if every role has a type and one way to compute it, and every rule compiles. */
  def checked(session: SparkSession, request: IndexRequest, description: String): IndexRequest = {
    val roles = storedRoles(request.params)
    roles.foreach { case (name, parts) =>
      if (!parts.contains("type") || parts.contains("sql") == parts.contains("python")) throw new IndexBuildError(
        s"$description: role '$name' needs role.$name.type and exactly one of role.$name.sql or role.$name.python")
    }
    storedRules(request.params).foreach { case (n, pattern, clauses) =>
      val problems = RuleCompiler.problems(session, pattern, clauses, roles.map(_._1).toSet)
      if (problems.nonEmpty) throw new IndexBuildError(s"rule $n ('$pattern') of $description: ${problems.mkString("; ")}")
    }
    request
  }

  /** `{col}`, `{col0}`, `{col1}`, ... replaced by the exact, quoted column paths. */
  def substitute(sql: String, columns: Seq[ResolvedColumn]): String =
    ColumnPlaceholder.replaceAllIn(sql, m => {
      val n = Option(m.group(1)).filter(_.nonEmpty).map(_.toInt).getOrElse(0)
      if (n >= columns.length) throw new IndexBuildError(
        s"'$sql' refers to {col$n} but the index has ${columns.length} column(s)")
      java.util.regex.Matcher.quoteReplacement(columns(n).sql)
    })
}

package io.skipstone.clauses.rules

import scala.util.Try

import org.apache.spark.sql.SparkSession

import io.skipstone.metadata.LoadedMetadata

/** Static checks of rules, shared by the translator and by builds (so errors show up early). */
object RuleCompiler {
  /** Per-file columns every metadata table has, usable in any clause (e.g. `{num_rows}`). */
  val BaseColumns: Set[String] = Set(LoadedMetadata.NumRows, LoadedMetadata.Size)

  /** How the clauses use each free placeholder of the pattern. */
  def uses(pattern: RuleText, clauses: Seq[RuleText]): Map[String, Use] = {
    val inPattern = pattern.placeholders.values.filter(_.indexColumn.isEmpty).map(_.name).toSet
    val used = clauses.flatMap(_.placeholders.values).filter(p => inPattern(p.name))
    inPattern.map { name =>
      val ofName = used.filter(_.name == name)
      name -> (if (ofName.exists(_.role.isDefined)) Use.Column else if (ofName.nonEmpty) Use.Constant else Use.Any)
    }.toMap
  }

  /**
   * Problems of one rule, empty when it is fine: SQL that does not parse, a clause placeholder
   * that is neither bound by the pattern nor one of `roles`, a name used both as a column and
   * as a constant.
   */
  def problems(session: SparkSession, pattern: String, clauses: Seq[String], roles: Set[String]): Seq[String] = {
    val parser = session.sessionState.sqlParser
    val texts = (pattern +: clauses).map(RuleText(_))
    val parseErrors = (pattern +: clauses).zip(texts).flatMap { case (raw, t) =>
      Try(parser.parseExpression(t.sql)).failed.toOption.map(e => s"'$raw' does not parse: ${firstLine(e.getMessage)}")
    }
    val bound = texts.head.names
    val unknown = texts.tail.flatMap(_.placeholders.values).distinct.flatMap {
      case p if p.indexColumn.isDefined => Some(s"{${p.name}} is a column of the data; clauses see only metadata")
      case p @ Placeholder(name, Some(_)) if !bound(name) => Some(s"{$name:...} needs {$name} in the pattern")
      case Placeholder(name, None) if !bound(name) && !roles(name) && !BaseColumns(name) =>
        Some(s"{$name} is neither bound by the pattern nor a metadata role (${roles.toSeq.sorted.mkString(", ")})")
      case _ => None
    }
    val mixed = uses(texts.head, texts.tail).keys.filter { name =>
      val all = texts.tail.flatMap(_.placeholders.values).filter(_.name == name)
      all.exists(_.role.isDefined) && all.exists(_.role.isEmpty)
    }.map(name => s"{$name} is used both as a column and as a constant")
    parseErrors ++ unknown ++ mixed
  }

  private def firstLine(s: String): String = Option(s).map(_.linesIterator.take(1).mkString).getOrElse("")
}

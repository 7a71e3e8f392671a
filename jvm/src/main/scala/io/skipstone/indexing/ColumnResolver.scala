package io.skipstone.indexing

import scala.annotation.tailrec

import org.apache.spark.sql.types.{DataType, StructType}

import io.skipstone.metadata.ColumnPath

/** A column as the user named it, its exact path in the schema, and its type. */
case class ResolvedColumn(name: String, path: ColumnPath, dataType: DataType) {
  /** The column as SQL text that names exactly this path (every part quoted). */
  def sql: String = path.sql
}

/**
 * Column names as users write them, resolved once to exact schema paths, with Spark SQL's
 * rules: backticks quote a part (`` `a.b` `` is the top-level column named `a.b`), an unquoted
 * `a.b` that is both a nested field and a top-level column is refused as ambiguous, and
 * `spark.sql.caseSensitive` decides whether `Temp` names `temp`.
 */
object ColumnResolver {
  /** Split a name on dots outside backticks; a doubled backtick inside quotes is a literal one. */
  def split(name: String): Seq[String] = {
    @tailrec
    def go(i: Int, quoted: Boolean, current: String, parts: Vector[String]): (Vector[String], Boolean) =
      if (i >= name.length) (parts :+ current, quoted)
      else name(i) match {
        case '`' if quoted && i + 1 < name.length && name(i + 1) == '`' => go(i + 2, quoted, current + "`", parts)
        case '`' => go(i + 1, !quoted, current, parts)
        case '.' if !quoted => go(i + 1, quoted, "", parts :+ current)
        case c => go(i + 1, quoted, current + c, parts)
      }
    val (parts, unclosed) = go(0, quoted = false, "", Vector.empty)
    if (unclosed) throw new IndexBuildError(s"column name '$name' has an unclosed backtick")
    if (parts.exists(_.isEmpty)) throw new IndexBuildError(s"column name '$name' has an empty part")
    parts
  }

  /** The exact column `name` denotes in `schema`, or an error naming it and the dataset. */
  def resolve(name: String, schema: StructType, caseSensitive: Boolean, dataset: String): ResolvedColumn = {
    val parts = split(name)
    val nested = find(schema, parts, caseSensitive, name, dataset)
    // Unquoted `a.b` may also mean a top-level column whose name has dots in it.
    val whole = if (!name.contains('`') && parts.length > 1) find(schema, Seq(name), caseSensitive, name, dataset) else None
    if (nested.isDefined && whole.isDefined) throw new IndexBuildError(
      s"column '$name' of dataset $dataset is ambiguous: it is both a top-level column and a nested field; " +
        s"write `$name` (in backticks) for the top-level column or ${parts.map("`" + _ + "`").mkString(".")} for the field")
    nested.orElse(whole).map { case (path, t) => ResolvedColumn(name, ColumnPath(path), t) }.getOrElse(
      throw new IndexBuildError(
        s"column '$name' does not exist in dataset $dataset (columns: ${schema.fieldNames.mkString(", ")})"))
  }

  private def find(schema: StructType, parts: Seq[String], caseSensitive: Boolean, name: String,
                   dataset: String): Option[(Seq[String], DataType)] =
    parts.foldLeft(Option((Seq.empty[String], schema: DataType))) {
      case (Some((exact, s: StructType)), part) =>
        // every match, not ColumnPath.pick's exact-first: an index refuses what Spark's analyzer would
        val same = s.fields.filter(f => ColumnPath.resolver(caseSensitive)(f.name, part))
        if (same.length > 1) throw new IndexBuildError(
          s"column '$name' of dataset $dataset is ambiguous: ${same.map(_.name).mkString(", ")} differ only in case; " +
            "set spark.sql.caseSensitive=true to tell them apart")
        same.headOption.map(f => (exact :+ f.name, f.dataType))
      case _ => None
    }
}

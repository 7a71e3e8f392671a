package io.skipstone.layout.builders

import org.json4s._

/**
 * A layout the JVM builds, by the name SQL gives it (`OPTIMIZE t LAYOUT KD BY (a, b)`,
 * `CREATE TABLE ... USING skipstone LAYOUT KD`, the `skipstone` source's `layout` option, the
 * CLI's `--layout`).
 *
 * @param kind        the spec kind it stands for: the class name Python's spec writes as `kind`
 * @param defaults    the options the kind takes besides the size options, as its spec writes them by default
 * @param rewriteNeedsBy `OPTIMIZE ... LAYOUT` needs `BY (columns)`: a curve is asked for by its
 *                    columns, as Delta's `ZORDER BY`; a new table's curve defaults to every column
 * @param oneColumn   it orders by exactly one column
 */
final case class BuiltLayout(name: String, kind: String, defaults: List[(String, JValue)], rewriteNeedsBy: Boolean,
                             oneColumn: Boolean) {
  def shown: String = name.toUpperCase(java.util.Locale.ROOT)

  /** What `OPTIMIZE ... LAYOUT <this>` without `BY (columns)` is refused with, if it needs them. */
  def missingBy(columns: Seq[String]): Option[String] =
    Option.when(rewriteNeedsBy && columns.isEmpty)(s"LAYOUT $shown needs BY (columns)")
}

/**
 * The one list of the layouts the JVM builds. Layouts Python builds (from a table's logged
 * workload) are named by Python: the JVM learns those names from the Python optimizer a
 * pyspark session registers, or has none.
 */
object BuiltLayouts {
  val All: Seq[BuiltLayout] = Seq(
    BuiltLayout("amoeba", "Amoeba", List("seed" -> JInt(0), "correlations" -> JBool(true)), rewriteNeedsBy = false,
      oneColumn = false),
    BuiltLayout("kd", "KdTree", Nil, rewriteNeedsBy = false, oneColumn = false),
    BuiltLayout("range", "Range", Nil, rewriteNeedsBy = true, oneColumn = true),
    BuiltLayout("zorder", "ZOrder", List("bits" -> JNull), rewriteNeedsBy = true, oneColumn = false),
    BuiltLayout("hilbert", "Hilbert", List("bits" -> JNull), rewriteNeedsBy = true, oneColumn = false))

  /** The layout SQL names `name` (any case). */
  def named(name: String): Option[BuiltLayout] = All.find(_.name.equalsIgnoreCase(name))

  def ofKind(kind: String): Option[BuiltLayout] = All.find(_.kind == kind)

  /** The names as SQL shows them: `AMOEBA, KD, RANGE, ZORDER, HILBERT`. */
  def shown: String = All.map(_.shown).mkString(", ")
}

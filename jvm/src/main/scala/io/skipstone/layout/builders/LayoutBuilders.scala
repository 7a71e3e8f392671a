package io.skipstone.layout.builders

import org.json4s._
import org.json4s.jackson.JsonMethods

import io.skipstone.layout.LayoutDocument

/**
 * The built-in layout specs, built in the JVM: the spec JSON Python's `SizedSpec.to_json()`
 * writes (a table stores it as `layout.spec`) and an encoded sample give exactly the document
 * Python's `spec.build(sample, block_rows, total_rows)` gives, so that a session without Python
 * (spark-sql, JDBC) lays tables out as a pyspark session does.
 *
 * {{{
 *   {"kind": "Amoeba", "block_bytes": 134217728, "block_rows": 100000, "columns": ["a", "b"], "seed": 0, "correlations": true}
 *   {"kind": "ZOrder", "block_bytes": 134217728, "block_rows": null, "columns": null, "bits": null}
 * }}}
 */
object LayoutBuilders {
  val DefaultBlockBytes: Long = 128L << 20

  private val SizeOptions = Set("kind", "block_bytes", "block_rows", "columns")

  /** The layout `spec` gives for `sample`, with blocks of `blockRows` rows of a table of `totalRows` rows. */
  def build(spec: JValue, sample: EncodedSample, blockRows: Double, totalRows: Double): LayoutDocument = {
    val kind = checkedKind(spec)
    val columns = columnsOf(spec, kind)
    kind match {
      case "Amoeba" => AmoebaBuilder.build(sample, blockRows, totalRows, columns, seedOf(spec),
        optional(spec, kind, "correlations") { case JBool(b) => b }.getOrElse(true))
      case "KdTree" => DataAwareTrees.kdTree(sample, blockRows, totalRows, columns)
      case "Range" => columns match {
        case Some(Seq(column)) => DataAwareTrees.rangeTree(sample, column, blockRows, totalRows)
        case other => throw new IllegalArgumentException(
          s"Range partitions by exactly one column, e.g. Range(columns=['ts']); got ${other.fold("None")(_.mkString("[", ", ", "]"))}")
      }
      case "ZOrder" | "Hilbert" =>
        val width = columns.fold(sample.width)(_.size)
        // as Python's `self.bits or default_bits(...)`: no bits or 0 bits mean the default
        val bits = optional(spec, kind, "bits") { case JInt(b) => b.toInt; case JLong(b) => b.toInt }.filter(_ != 0)
          .getOrElse(CurveBuilder.defaultBits(totalRows / blockRows, width))
        CurveBuilder.build(sample, kind.toLowerCase, blockRows, totalRows, columns, bits)
    }
  }

  /**
   * The spec `LAYOUT <name> [BY (columns)]` means (the JSON Python's spec of that kind writes),
   * with the table's block size in rows.
   */
  def specFor(name: String, columns: Seq[String], blockRows: Long): JValue = {
    if (blockRows <= 0) throw new IllegalArgumentException(s"LAYOUT ${name.toUpperCase}: block rows must be positive, got $blockRows")
    specFor(name, columns, Some(blockRows), None)
  }

  /**
   * The spec of `LAYOUT <name> [BY (columns)]` for a new table: blocks of `blockRows` rows if
   * given, else of `blockBytes` bytes (default 128 MiB) that the table turns into rows.
   */
  def specFor(name: String, columns: Seq[String], blockRows: Option[Long], blockBytes: Option[Long]): JValue = {
    val layout = BuiltLayouts.named(name).getOrElse(throw new IllegalArgumentException(
      s"unknown LAYOUT ${name.toUpperCase} (the JVM builds ${BuiltLayouts.shown}; a layout built from a " +
        "table's logged workload is built in Python)"))
    if (layout.oneColumn && columns.size != 1) throw new IllegalArgumentException(
      s"LAYOUT ${layout.shown} partitions by exactly one column, e.g. LAYOUT ${layout.shown} BY (ts); got ${columns.size}")
    val columnsJson = if (columns.isEmpty) JNull else JArray(columns.map(JString(_)).toList)
    JObject(List("kind" -> JString(layout.kind), "block_bytes" -> JInt(BigInt(blockBytes.getOrElse(DefaultBlockBytes))),
      "block_rows" -> blockRows.fold(JNull: JValue)(r => JInt(BigInt(r))), "columns" -> columnsJson) ++ layout.defaults)
  }

  /** Whether the JVM builds `spec` (a built-in kind); a spec defined in Python builds itself. */
  def builds(spec: JValue): Boolean = spec \ "kind" match {
    case JString(k) => BuiltLayouts.ofKind(k).isDefined
    case _ => false
  }

  /** The spec's kind, after checking that the JVM builds it and that it takes every option given. */
  private def checkedKind(spec: JValue): String = {
    val kind = spec \ "kind" match {
      case JString(k) => k
      case other => throw new IllegalArgumentException(
        s"a layout spec names its kind, e.g. {\"kind\": \"KdTree\", ...}; got ${JsonMethods.compact(JsonMethods.render(spec))}")
    }
    val known = BuiltLayouts.ofKind(kind).map(l => SizeOptions ++ l.defaults.map(_._1)).getOrElse(
      throw new IllegalArgumentException(s"layout kind '$kind' has no JVM builder (built in: " +
        s"${BuiltLayouts.All.map(_.kind).sorted.mkString(", ")}); a spec defined in Python (yours, or one built " +
        "from the table's logged workload) is built in Python"))
    val named = spec match { case JObject(fields) => fields.map(_._1); case _ => Nil }
    val unknown = named.filterNot(known.contains).sorted
    if (unknown.nonEmpty) throw new IllegalArgumentException(
      s"$kind takes no option ${unknown.map(o => s"'$o'").mkString(", ")} (its options: ${(known - "kind").toSeq.sorted.mkString(", ")})")
    kind
  }

  private def columnsOf(spec: JValue, kind: String): Option[Seq[String]] =
    optional(spec, kind, "columns") { case JArray(items) if items.forall(_.isInstanceOf[JString]) => items.collect { case JString(c) => c } }

  /** A seed is any whole number; its low 64 bits are what Python's noise hashes too. */
  private def seedOf(spec: JValue): Long = optional(spec, "Amoeba", "seed") { case JInt(s) => s.longValue; case JLong(s) => s }.getOrElse(0L)

  /** An option's value (None when missing or null), or an error naming the option and what it holds. */
  private def optional[T](spec: JValue, kind: String, option: String)(read: PartialFunction[JValue, T]): Option[T] =
    spec \ option match {
      case JNothing | JNull => None
      case v if read.isDefinedAt(v) => Some(read(v))
      case v => throw new IllegalArgumentException(s"$kind: option '$option' cannot be ${JsonMethods.compact(JsonMethods.render(v))}")
    }
}

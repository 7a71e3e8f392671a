package io.skipstone.layout

import org.json4s._
import org.json4s.jackson.JsonMethods

/**
 * A managed table's layout as the JVM reads it: the document `skipstone.layout` writes and a
 * table's log entry carries (`layout`), specified in docs/table-format.md. Every value is one
 * double in the layout's encoding (numbers as they are, dates as days, timestamps as
 * microseconds, strings and booleans as their rank in the column's dictionary; NULL is -inf and
 * NaN +inf); a block holds the rows whose encoded values its region describes.
 *
 * {{{
 *   {"format": "skipstone.layout", "version": 1, "kind": "tree",
 *    "schema": [{"name": "x", "kind": "integer"}],
 *    "root": {"column": "x", "cut": 5.0, "left": {"block": 0, "rows": 6.0}, "right": {"block": 1, "rows": 4.0}}}
 * }}}
 */
sealed trait LayoutDocument {
  def schema: Seq[LayoutColumn]
  /** The ids of the blocks, in the order the layout lists them. */
  def blockIds: Seq[Int]
  /**
   * The same layout with each block's row count `rows(block id)`: the builders estimate counts on
   * a sample, a table records the counts its files hold.
   */
  def withBlockRows(rows: Int => Double): LayoutDocument
  def columnIndex(name: String): Int = {
    val i = schema.indexWhere(_.name == name)
    require(i >= 0, s"layout column '$name' is not in the layout's schema (${schema.map(_.name).mkString(", ")})")
    i
  }
}

/** A layout column: its name (a top-level column), its kind, and for categorical columns the sorted dictionary. */
final case class LayoutColumn(name: String, kind: ColumnKind, categories: Seq[Any] = Nil)

sealed abstract class ColumnKind(val name: String)
object ColumnKind {
  case object Integer extends ColumnKind("integer")
  case object Numeric extends ColumnKind("numeric")
  case object Date extends ColumnKind("date")
  case object Timestamp extends ColumnKind("timestamp")
  case object Categorical extends ColumnKind("categorical")
  val All: Seq[ColumnKind] = Seq(Integer, Numeric, Date, Timestamp, Categorical)
  def named(name: String): ColumnKind = All.find(_.name == name).getOrElse(
    throw new IllegalArgumentException(s"unknown layout column kind '$name' (known: ${All.map(_.name).mkString(", ")})"))
}

/** A partitioning tree: splits on one column, PAW's group splits, leaves that are blocks. */
final case class TreeLayout(schema: Seq[LayoutColumn], root: LayoutNode) extends LayoutDocument {
  def blockIds: Seq[Int] = root.leaves.map(_.block)
  def withBlockRows(rows: Int => Double): TreeLayout = {
    def counted(node: LayoutNode): LayoutNode = node match {
      case leaf: Leaf => leaf.copy(rows = rows(leaf.block))
      case Split(column, cut, left, right) => Split(column, cut, counted(left), counted(right))
      case GroupSplit(groups, rest) => GroupSplit(groups.map(g => g.copy(child = counted(g.child))), counted(rest))
    }
    copy(root = counted(root))
  }
}

sealed trait LayoutNode {
  def leaves: Seq[Leaf]
}
/**
 * A block. `mbrs` are the descriptor boxes of its rows (low, high per layout column; infinite
 * bounds where unknown), kept by layouts that describe a block by more than its region.
 */
final case class Leaf(block: Int, rows: Double, mbrs: Seq[(Seq[Double], Seq[Double])] = Nil) extends LayoutNode {
  def leaves: Seq[Leaf] = Seq(this)
}
/** Rows whose encoded value of column `column` (an index into the schema) is at most `cut` go left. */
final case class Split(column: Int, cut: Double, left: LayoutNode, right: LayoutNode) extends LayoutNode {
  def leaves: Seq[Leaf] = left.leaves ++ right.leaves
}
/** A row goes to the first group whose box (low, high] (per column) holds it, else to `rest`. */
final case class Group(low: Seq[Double], high: Seq[Double], child: LayoutNode)
final case class GroupSplit(groups: Seq[Group], rest: LayoutNode) extends LayoutNode {
  def leaves: Seq[Leaf] = groups.flatMap(_.child.leaves) ++ rest.leaves
}

/**
 * A space-filling-curve layout (Z-order, Hilbert): each curve column is quantized by `edges`
 * (the cell code of a value is how many edges lie strictly below it), the codes' curve key of
 * `bits` bits per column orders rows, and block k holds keys in (boundaries(k-1), boundaries(k)].
 * The last boundary is the largest unsigned 64-bit value, above every key.
 *
 * @param columns indexes into the schema of the curve's columns, in key order
 * @param blocks  per block: its rows and its descriptor box (low, high per schema column)
 */
final case class CurveLayout(schema: Seq[LayoutColumn], curve: String, columns: Seq[Int], bits: Int,
                             edges: Seq[Seq[Double]], boundaries: Seq[BigInt],
                             blocks: Seq[CurveBlock]) extends LayoutDocument {
  require(Seq("zorder", "hilbert").contains(curve), s"unknown curve '$curve' (known: zorder, hilbert)")
  def blockIds: Seq[Int] = blocks.indices
  def withBlockRows(rows: Int => Double): CurveLayout =
    copy(blocks = blocks.zipWithIndex.map { case (b, id) => b.copy(rows = rows(id)) })
}
final case class CurveBlock(rows: Double, low: Seq[Double], high: Seq[Double])

object LayoutDocument {
  val Format = "skipstone.layout"
  val Version = 1
  private implicit val formats: Formats = DefaultFormats

  def parse(text: String): LayoutDocument = read(JsonMethods.parse(text))

  /** Reads a layout document; refuses other formats, newer versions and unknown kinds, naming what it found. */
  def read(json: JValue): LayoutDocument = {
    val format = (json \ "format").extractOpt[String]
    require(format.contains(Format), s"not a Skipstone layout: format is ${format.getOrElse("missing")}, expected $Format")
    val version = (json \ "version").extractOpt[Int]
    require(version.exists(_ <= Version),
      s"layout format version ${version.getOrElse("missing")} is not supported (this reader knows up to $Version)")
    val schema = readSchema(json \ "schema")
    (json \ "kind").extractOpt[String] match {
      case Some("tree") => TreeLayout(schema, readNode(json \ "root", schema))
      case Some("curve") =>
        val names = (json \ "columns").extract[Seq[String]]
        CurveLayout(schema, (json \ "curve").extract[String], names.map(n => indexOf(schema, n)),
          (json \ "bits").extract[Int], (json \ "edges").children.map(_.children.map(number)),
          (json \ "boundaries").children.map {
            case JInt(b) => b
            case JLong(b) => BigInt(b)
            case JDouble(b) => BigDecimal(b).toBigInt
            case other => throw new IllegalArgumentException(s"curve boundary $other is not an integer")
          },
          (json \ "blocks").children.map(b => CurveBlock(number(b \ "rows"), bounds(b \ "low", Double.NegativeInfinity),
            bounds(b \ "high", Double.PositiveInfinity))))
      case other => throw new IllegalArgumentException(s"unknown layout kind ${other.getOrElse("missing")} (known: tree, curve)")
    }
  }

  def write(layout: LayoutDocument): String = JsonMethods.compact(JsonMethods.render(toJson(layout)))

  /** The document `skipstone.layout` writes for the same layout (Python's `layout_from_json` reads it back). */
  def toJson(layout: LayoutDocument): JValue = {
    val head = List("format" -> JString(Format), "version" -> JInt(Version))
    layout match {
      case TreeLayout(schema, root) =>
        JObject(head ++ List("kind" -> JString("tree"), "schema" -> schemaJson(schema), "root" -> nodeJson(root, schema)))
      case c: CurveLayout =>
        JObject(head ++ List("kind" -> JString("curve"), "schema" -> schemaJson(c.schema), "curve" -> JString(c.curve),
          "bits" -> JInt(c.bits), "columns" -> JArray(c.columns.map(i => JString(c.schema(i).name)).toList),
          "edges" -> JArray(c.edges.map(e => JArray(e.map(numberJson).toList)).toList),
          "boundaries" -> JArray(c.boundaries.map(JInt(_)).toList),
          "blocks" -> JArray(c.blocks.map(b => JObject("rows" -> JDouble(b.rows), "low" -> boundsJson(b.low),
            "high" -> boundsJson(b.high))).toList)))
    }
  }

  private def indexOf(schema: Seq[LayoutColumn], name: String): Int = {
    val i = schema.indexWhere(_.name == name)
    require(i >= 0, s"layout names column '$name', which is not in its schema (${schema.map(_.name).mkString(", ")})")
    i
  }

  /** A layout's schema as its document's `schema` array holds it (and an encoded sample's schema). */
  def readSchema(json: JValue): Seq[LayoutColumn] = json.children.map(readColumn)

  private def readColumn(json: JValue): LayoutColumn =
    LayoutColumn((json \ "name").extract[String], ColumnKind.named((json \ "kind").extract[String]),
      (json \ "categories").children.map(_.values))

  private def readNode(json: JValue, schema: Seq[LayoutColumn]): LayoutNode =
    if ((json \ "block") != JNothing)
      Leaf((json \ "block").extract[Int], (json \ "rows").toOption.fold(0.0)(number),
        (json \ "mbrs").children.map(m => (bounds(m \ "low", Double.NegativeInfinity), bounds(m \ "high", Double.PositiveInfinity))))
    else if ((json \ "column") != JNothing)
      Split(indexOf(schema, (json \ "column").extract[String]), number(json \ "cut"), readNode(json \ "left", schema),
        readNode(json \ "right", schema))
    else if ((json \ "groups") != JNothing)
      GroupSplit((json \ "groups").children.map(g => Group(bounds(g \ "low", Double.NegativeInfinity),
        bounds(g \ "high", Double.PositiveInfinity), readNode(g \ "child", schema))), readNode(json \ "rest", schema))
    else throw new IllegalArgumentException(s"layout node ${JsonMethods.compact(JsonMethods.render(json))} is neither " +
      "a leaf, a split nor a group split")

  /** A cut, an edge or a row count: a number, or "Infinity" / "-Infinity" / "NaN" (strict JSON has no infinities). */
  private def number(json: JValue): Double = json match {
    case JDouble(d) => d
    case JInt(i) => i.toDouble
    case JLong(l) => l.toDouble
    case JDecimal(d) => d.toDouble
    case JString("Infinity") => Double.PositiveInfinity
    case JString("-Infinity") => Double.NegativeInfinity
    case JString("NaN") => Double.NaN
    case other => throw new IllegalArgumentException(s"layout number $other is not a number")
  }

  private def numberJson(d: Double): JValue =
    if (d.isNaN) JString("NaN") else if (d.isPosInfinity) JString("Infinity") else if (d.isNegInfinity) JString("-Infinity")
    else JDouble(d)

  /** Box bounds: infinities are written as null. */
  private def bounds(json: JValue, missing: Double): Seq[Double] =
    json.children.map { case JNull | JNothing => missing; case v => number(v) }

  private def boundsJson(values: Seq[Double]): JValue =
    JArray(values.map(v => if (v.isInfinite) JNull else JDouble(v)).toList)

  /** The `schema` array of a layout document (categorical columns with their dictionary). */
  def schemaJson(schema: Seq[LayoutColumn]): JValue = JArray(schema.map { c =>
    JObject(List("name" -> JString(c.name), "kind" -> JString(c.kind.name)) ++
      (if (c.categories.nonEmpty) List("categories" -> JArray(c.categories.map(Extraction.decompose).toList)) else Nil))
  }.toList)

  private def nodeJson(node: LayoutNode, schema: Seq[LayoutColumn]): JValue = node match {
    case Leaf(block, rows, mbrs) =>
      JObject(List("block" -> JInt(block), "rows" -> JDouble(rows)) ++
        (if (mbrs.nonEmpty) List("mbrs" -> JArray(mbrs.map { case (lo, hi) =>
          JObject("low" -> boundsJson(lo), "high" -> boundsJson(hi)) }.toList)) else Nil))
    case Split(column, cut, left, right) =>
      JObject("column" -> JString(schema(column).name), "cut" -> numberJson(cut), "left" -> nodeJson(left, schema),
        "right" -> nodeJson(right, schema))
    case GroupSplit(groups, rest) =>
      JObject("groups" -> JArray(groups.map(g => JObject("low" -> boundsJson(g.low), "high" -> boundsJson(g.high),
        "child" -> nodeJson(g.child, schema))).toList), "rest" -> nodeJson(rest, schema))
  }
}

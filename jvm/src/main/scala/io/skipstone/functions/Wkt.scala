package io.skipstone.functions

import scala.util.Try

/** The extent of a geometry: x is the longitude and y the latitude for geographic data. */
case class BoundingBox(xMin: Double, yMin: Double, xMax: Double, yMax: Double)

/**
 * Bounding boxes of WKT (and EWKT, `SRID=n;` prefix) geometries, with no geometry library:
 * a box needs only the coordinates, so this parser checks the structure (type keyword,
 * balanced parentheses, two to four numbers per coordinate) and keeps every x and y.
 * Text it cannot read, and EMPTY geometries, have no box.
 */
object Wkt {
  private val Types = Set("POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING",
    "MULTIPOLYGON", "GEOMETRYCOLLECTION", "TRIANGLE", "TIN", "POLYHEDRALSURFACE", "CIRCULARSTRING")
  private val Dimensions = Set("Z", "M", "ZM")
  private val Token = """\s*(?:([A-Za-z]+)|([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)|([(),]))""".r
  private val Srid = """(?i)^\s*SRID=\d+\s*;""".r

  private final class Malformed extends Exception(null, null, false, false)

  def boundingBox(text: String): Option[BoundingBox] =
    tokens(Srid.replaceFirstIn(text, "")).flatMap { ts =>
      Try(new Parser(ts).geometryToEnd()).toOption.flatten
    }

  private def tokens(text: String): Option[Vector[String]] = {
    val found = Token.findAllMatchIn(text).toVector
    val consumed = found.map(_.matched.length).sum
    if (consumed == text.replaceAll("\\s+$", "").length) Some(found.map(_.matched.trim)) else None
  }

  /** Recursive descent over the tokens; `at` is local to one parse. */
  private final class Parser(ts: Vector[String]) {
    private var at = 0
    private val xs = Vector.newBuilder[Double]
    private val ys = Vector.newBuilder[Double]

    def geometryToEnd(): Option[BoundingBox] = {
      geometry()
      if (at != ts.length) throw new Malformed
      val (x, y) = (xs.result(), ys.result())
      if (x.isEmpty) None else Some(BoundingBox(x.min, y.min, x.max, y.max))
    }

    private def peek: String = if (at < ts.length) ts(at) else ""
    private def next(): String = { val t = peek; if (t.isEmpty) throw new Malformed; at += 1; t }
    private def expect(t: String): Unit = if (next() != t) throw new Malformed

    private def geometry(): Unit = {
      val kind = next().toUpperCase
      if (!Types(kind)) throw new Malformed
      if (Dimensions(peek.toUpperCase)) next()
      if (peek.equalsIgnoreCase("EMPTY")) next()
      else if (kind == "GEOMETRYCOLLECTION") list(() => geometry())
      else nested()
    }

    /** `( item, item, ... )` */
    private def list(item: () => Unit): Unit = {
      expect("(")
      item()
      while (peek == ",") { next(); item() }
      expect(")")
    }

    /** Any depth of parenthesised lists whose innermost items are coordinates (or EMPTY). */
    private def nested(): Unit = list { () =>
      if (peek == "(") nested()
      else if (peek.equalsIgnoreCase("EMPTY")) next()
      else coordinate()
    }

    private def coordinate(): Unit = {
      val numbers = Iterator.continually(peek).takeWhile(t => t.nonEmpty && isNumber(t)).map(_ => next().toDouble).toVector
      if (numbers.length < 2 || numbers.length > 4) throw new Malformed
      xs += numbers(0)
      ys += numbers(1)
    }

    private def isNumber(t: String): Boolean = t.head.isDigit || "+-.".contains(t.head)
  }
}

package io.skipstone.table

import java.time.LocalDate

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.json4s.JsonAST._

import io.skipstone.metadata.ColumnPath

/**
 * A filter condition in the predicate JSON `skipstone.layout.predicates` reads, for the
 * workload log. The layout only needs to know which rows a query may want, so the translation
 * may widen: a conjunct it cannot express (a UDF, `IS NOT NULL`, a nested field) is dropped from
 * an AND. Under OR and NOT nothing may be dropped (it would narrow), so there the translation
 * is exact or gives up. None: the query constrains nothing the layout can use.
 */
object PredicateJson {
  def apply(condition: Expression): Option[JValue] = widened(condition)

  private def widened(e: Expression): Option[JValue] = e match {
    case And(_, _) => conjunction(flatten(e).flatMap(widened))
    case Or(l, r) => for (a <- widened(l); b <- widened(r)) yield JObject("or" -> JArray(List(a, b)))
    case _ => exact(e)
  }

  private def exact(e: Expression): Option[JValue] = e match {
    case And(_, _) =>
      val parts = flatten(e).map(exact)
      if (parts.forall(_.isDefined)) conjunction(parts.flatten) else None
    case Or(l, r) => for (a <- exact(l); b <- exact(r)) yield JObject("or" -> JArray(List(a, b)))
    case Not(c) => exact(c).map(j => JObject("not" -> j))
    case _ => leaf(e)
  }

  private def flatten(e: Expression): Seq[Expression] = e match {
    case And(l, r) => flatten(l) ++ flatten(r)
    case other => Seq(other)
  }

  private def conjunction(parts: Seq[JValue]): Option[JValue] = parts match {
    case Seq() => None
    case Seq(one) => Some(one)
    case many => Some(JObject("and" -> JArray(many.toList)))
  }

  private val flipped = Map("=" -> "=", "<" -> ">", "<=" -> ">=", ">" -> "<", ">=" -> "<=")

  private def leaf(e: Expression): Option[JValue] = e match {
    case b: BinaryComparison =>
      val op = b match {
        case _: EqualTo | _: EqualNullSafe => Some("=")
        case _: LessThan => Some("<")
        case _: LessThanOrEqual => Some("<=")
        case _: GreaterThan => Some(">")
        case _: GreaterThanOrEqual => Some(">=")
        case _ => None
      }
      op.flatMap { o =>
        (column(b.left), value(b.right), column(b.right), value(b.left)) match {
          case (Some(c), Some(v), _, _) => Some(comparison(c, o, v))
          case (_, _, Some(c), Some(v)) => Some(comparison(c, flipped(o), v))
          case _ => None
        }
      }
    case In(c, list) =>
      val values = list.map(value)
      for (name <- column(c) if values.nonEmpty && values.forall(_.isDefined))
        yield comparison(name, "IN", JArray(values.flatten.toList))
    case InSet(c, set) =>
      val values = set.toSeq.map(v => value(Literal.create(v, c.dataType)))
      for (name <- column(c) if values.nonEmpty && values.forall(_.isDefined))
        yield comparison(name, "IN", JArray(values.flatten.toList))
    case _ => None
  }

  private def comparison(column: String, op: String, value: JValue): JValue =
    JObject("column" -> JString(column), "op" -> JString(op), "value" -> value)

  /**
   * A top-level column ([[ColumnPath.of]] decides what an expression reads; the layout's columns
   * are top-level), also under a widening numeric cast (Spark casts the narrower side).
   */
  private def column(e: Expression): Option[String] = e match {
    case Cast(c, to: NumericType, _, _) if c.dataType.isInstanceOf[NumericType] && Cast.canUpCast(c.dataType, to) =>
      topLevel(c)
    case other => topLevel(other)
  }

  private def topLevel(e: Expression): Option[String] = ColumnPath.of(e).collect { case ColumnPath(Seq(name)) => name }

  private def value(e: Expression): Option[JValue] = e match {
    case Literal(null, _) => None
    case Literal(v, t) => (v, t) match {
      case (n: java.lang.Number, ByteType | ShortType | IntegerType | LongType) => Some(JLong(n.longValue))
      case (d: java.lang.Number, DoubleType | FloatType) =>
        Some(d.doubleValue).filter(x => !x.isNaN && !x.isInfinite).map(JDouble(_))
      case (d: Decimal, _: DecimalType) => Some(JDouble(d.toDouble))
      case (s: UTF8String, _: StringType) => Some(JString(s.toString))
      case (b: java.lang.Boolean, BooleanType) => Some(JBool(b))
      case (days: java.lang.Integer, DateType) => Some(JString(LocalDate.ofEpochDay(days.longValue).toString))
      case (micros: java.lang.Long, TimestampType) => Some(JString(DateTimeUtils.microsToInstant(micros).toString))
      case (micros: java.lang.Long, TimestampNTZType) =>
        Some(JString(DateTimeUtils.microsToLocalDateTime(micros).toString))
      case _ => None
    }
    case _ => None
  }
}

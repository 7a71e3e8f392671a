package io.skipstone.clauses.rules

import scala.util.Try

import org.apache.spark.sql.catalyst.expressions.{Cast, EvalMode, Literal}
import org.apache.spark.sql.types.DataType

/**
 * A constant in another type, only when the conversion loses nothing: it must cast back to the
 * same value. A pattern literal is compared with a leaf's literal this way, so `0.5` never
 * equals `0` (the int it truncates to) and `9007199254740993L` never equals its nearest double.
 */
object ExactCast {
  def apply(v: Literal, to: DataType): Option[Any] =
    for {
      there <- eval(v, to)
      back <- eval(Literal(there, to), v.dataType)
      if back == v.value
    } yield there

  /** TRY: an overflow is "no such value", not an error; time zone agnostic casts only (no zone given). */
  private def eval(v: Literal, to: DataType): Option[Any] =
    Try(Cast(v, to, None, EvalMode.TRY).eval()).toOption.flatMap(Option(_))
}

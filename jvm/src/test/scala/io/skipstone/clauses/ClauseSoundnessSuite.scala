package io.skipstone.clauses

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types.DoubleType
import org.scalatest.funsuite.AnyFunSuite

/**
 * No false negatives: over files holding NULLs, NaN and both zeros, no clause the MinMax and
 * ValueList translators build may skip a file that holds a row making the condition TRUE.
 */
class ClauseSoundnessSuite extends AnyFunSuite {
  private val NaN = Double.NaN
  private val files = new OneColumnFiles(DoubleType, Seq(
    Seq(1.0, 2.0, 3.0),
    Seq(null, null),
    Seq(5.0, NaN),
    Seq(-0.0, null),
    Seq(10.0),
    Seq(NaN),
    Seq(1.0, 1.0)))
  import files.x

  private def lit(v: Any): Literal = Literal.create(v, DoubleType)
  private val nullDouble = Literal.create(null, DoubleType)

  private val leaves: Seq[Expression] = Seq(
    GreaterThan(x, lit(2.5)), LessThan(x, lit(0.0)), LessThanOrEqual(x, lit(1.0)), GreaterThanOrEqual(x, lit(10.0)),
    EqualTo(x, lit(0.0)), EqualTo(x, lit(-0.0)), EqualTo(x, lit(NaN)), GreaterThan(x, lit(100.0)),
    EqualTo(x, nullDouble), EqualNullSafe(x, nullDouble), EqualNullSafe(x, lit(5.0)), LessThan(lit(2.0), x),
    IsNull(x), IsNotNull(x), In(x, Seq(lit(1.0), lit(10.0))), In(x, Seq(lit(3.0), nullDouble)), In(x, Seq(lit(NaN))),
    In(x, Nil))

  /** Leaves, their negations, and connectives of them, including tests of their three-valued outcome. */
  private val conditions: Seq[Expression] = {
    val pairs = for (a <- leaves.take(8); b <- leaves.slice(8, 14)) yield Seq(And(a, b), Or(a, Not(b)), Not(And(a, b)))
    leaves ++ leaves.map(Not) ++ pairs.flatten ++ leaves.take(6).flatMap { p =>
      Seq(IsNull(And(p, IsNotNull(x))), IsNotNull(Or(p, LessThan(x, lit(2.0)))), EqualNullSafe(p, Literal(true)),
        Not(EqualNullSafe(p, Literal(true))), EqualNullSafe(Not(p), Literal(false)))
    }
  }

  private def assertSound(index: Seq[io.skipstone.metadata.IndexSpec]): Unit =
    conditions.foreach { c =>
      val missed = files.matching(c).diff(files.kept(c, index: _*))
      assert(missed.isEmpty, s"${c.sql} skipped files ${missed.mkString(", ")} that hold a matching row")
    }

  test("MinMax never skips a file holding a row that matches") {
    assertSound(Seq(files.minMax))
  }

  test("ValueList never skips a file holding a row that matches") {
    assertSound(Seq(files.valueList))
  }

  test("MinMax and ValueList together never skip a file holding a row that matches") {
    assertSound(Seq(files.minMax, files.valueList))
  }

  test("the clauses skip something: over half the (condition, file) pairs without a match are skipped") {
    val counts = conditions.map { c =>
      val skippable = files.files.indices.diff(files.matching(c))
      (skippable.size, skippable.diff(files.kept(c, files.minMax, files.valueList)).size)
    }
    val (skippable, skipped) = (counts.map(_._1).sum, counts.map(_._2).sum)
    assert(skipped * 2 > skippable, s"only $skipped of $skippable skippable (condition, file) pairs were skipped")
  }
}

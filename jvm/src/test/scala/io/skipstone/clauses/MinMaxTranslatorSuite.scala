package io.skipstone.clauses

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types.{DoubleType, IntegerType}
import org.scalatest.funsuite.AnyFunSuite

class MinMaxTranslatorSuite extends AnyFunSuite {
  private val NaN = Double.NaN
  // 0: [1, 3]   1: only NULLs   2: [5, NaN]   3: [10, 10] and a NULL
  private val files = new OneColumnFiles(DoubleType, Seq(Seq(1.0, 2.0, 3.0), Seq(null, null), Seq(5.0, NaN), Seq(10.0, null)))
  import files.{minMax, x}

  private def lit(v: Double): Literal = Literal(v)

  test("a lower bound skips files whose max is below it") {
    assert(files.kept(GreaterThan(x, lit(4.0)), minMax) == Seq(2, 3))
  }

  test("NaN is the largest double: x > 100 keeps the file holding NaN") {
    assert(files.kept(GreaterThan(x, lit(100.0)), minMax) == Seq(2))
  }

  test("a constant on the left is flipped: 4 < x is x > 4") {
    assert(files.kept(LessThan(lit(4.0), x), minMax) == Seq(2, 3))
  }

  test("NOT is pushed to the leaves: NOT (x > 2.5) skips files whose min is above 2.5 and all-NULL files") {
    assert(files.kept(Not(GreaterThan(x, lit(2.5))), minMax) == Seq(0))
  }

  test("NOT (a OR b) needs a row where both are false") {
    assert(files.kept(Not(Or(LessThan(x, lit(2.0)), GreaterThan(x, lit(4.0)))), minMax) == Seq(0))
  }

  test("IS NULL reads only files with NULLs; IS NOT NULL skips files of only NULLs") {
    assert(files.kept(IsNull(x), minMax) == Seq(1, 3))
    assert(files.kept(IsNotNull(x), minMax) == Seq(0, 2, 3))
  }

  test("a comparison with NULL is never TRUE: every file is skipped") {
    assert(files.kept(EqualTo(x, Literal.create(null, DoubleType)), minMax).isEmpty)
  }

  test("x <=> NULL reads files with NULLs, NOT (x <=> 10) reads files with NULLs or another value") {
    assert(files.kept(EqualNullSafe(x, Literal.create(null, DoubleType)), minMax) == Seq(1, 3))
    assert(files.kept(Not(EqualNullSafe(x, lit(10.0))), minMax) == Seq(0, 1, 2, 3))
    assert(files.kept(Not(EqualTo(x, lit(10.0))), minMax) == Seq(0, 2))
  }

  test("an IN list skips files whose range holds no listed value (NaN tops the range)") {
    assert(files.kept(In(x, Seq(lit(4.0), lit(11.0))), minMax) == Seq(2))
  }

  test("x IN () is FALSE for every row and x IN (NULL) never TRUE: both skip every file") {
    assert(files.kept(In(x, Nil), minMax).isEmpty)
    assert(files.kept(In(x, Seq(Literal.create(null, DoubleType))), minMax).isEmpty)
  }

  test("(p) IS NULL reads only files where p may be NULL: those with NULLs") {
    assert(files.kept(IsNull(GreaterThan(x, lit(2.5))), minMax) == Seq(1, 3))
  }

  test("a widening cast Spark inserts around the column is looked through") {
    val ints = new OneColumnFiles(IntegerType, Seq(Seq(1, 2), Seq(7, 9)))
    assert(ints.kept(GreaterThan(Cast(ints.x, DoubleType), lit(2.5)), ints.minMax) == Seq(1))
  }

  test("a leaf no index answers keeps every file and is reported as unanswered") {
    val y = AttributeReference("y", DoubleType)()
    val leaf = GreaterThan(y, lit(1.0))
    assert(files.kept(leaf, minMax) == Seq(0, 1, 2, 3))
    assert(files.translate(leaf, minMax).unanswered == Seq(leaf))
  }

  test("a conjunction with an unanswered leaf still skips by the answered one") {
    val y = AttributeReference("y", DoubleType)()
    assert(files.kept(And(GreaterThan(y, lit(1.0)), GreaterThan(x, lit(4.0))), minMax) == Seq(2, 3))
  }
}

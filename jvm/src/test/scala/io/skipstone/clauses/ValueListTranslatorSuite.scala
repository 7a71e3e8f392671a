package io.skipstone.clauses

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types.{DoubleType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class ValueListTranslatorSuite extends AnyFunSuite {
  private val NaN = Double.NaN
  // 0: {1, 3}   1: {1} and a NULL   2: {NaN}   3: {-0.0}
  private val files = new OneColumnFiles(DoubleType, Seq(Seq(1.0, 3.0), Seq(1.0, null), Seq(NaN), Seq(-0.0)))
  import files.{valueList, x}

  private def lit(v: Double): Literal = Literal(v)

  test("= skips files that do not hold the value, even inside their range") {
    assert(files.kept(EqualTo(x, lit(2.0)), valueList).isEmpty)
  }

  test("NaN = NaN: the file holding NaN is read") {
    assert(files.kept(EqualTo(x, lit(NaN)), valueList) == Seq(2))
  }

  test("0.0 = -0.0: the file holding -0.0 is read") {
    assert(files.kept(EqualTo(x, lit(0.0)), valueList) == Seq(3))
  }

  test("<> skips a file whose only non-NULL value is the constant") {
    assert(files.kept(Not(EqualTo(x, lit(1.0))), valueList) == Seq(0, 2, 3))
  }

  test("NOT IN keeps only files with a value outside the list") {
    assert(files.kept(Not(In(x, Seq(lit(1.0), lit(3.0)))), valueList) == Seq(2, 3))
  }

  test("any function of the column alone is evaluated on each stored value") {
    assert(files.kept(GreaterThan(Abs(x), lit(2.0)), valueList) == Seq(0, 2))
  }

  test("LIKE on strings is decided value by value") {
    val names = new OneColumnFiles(StringType,
      Seq(Seq("apple", "avocado"), Seq("banana"), Seq(null)).map(_.map(s => Option(s).map(UTF8String.fromString).orNull)))
    val like = Like(names.x, Literal("%an%"), '\\')
    assert(names.kept(like, names.valueList) == Seq(1))
    assert(names.kept(Not(like), names.valueList) == Seq(0))
  }
}

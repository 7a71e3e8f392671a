package io.skipstone.layout.builders

import org.scalatest.funsuite.AnyFunSuite

class CategoryDictionarySuite extends AnyFunSuite {
  private def bytes(values: Int*): Array[Byte] = values.map(_.toByte).toArray

  test("strings are ordered by their UTF-8 bytes, unsigned: 'ü' (C3 BC) after 'z'") {
    val (categories, ranks) = CategoryDictionary.ofStrings(Seq("z", "ü", "a", "z", "").map(_.getBytes("UTF-8")))
    assert(categories == Seq("", "a", "z", "ü"))
    assert(ranks.toSeq == Seq(2.0, 3.0, 1.0, 2.0, 0.0))
  }

  test("bytes that are not UTF-8 are no category and sit half-way between the ranks around them") {
    val latin1 = bytes(0xC3, 'q') // after 'z' (7A), before 'ü' (C3 BC)
    val (categories, ranks) = CategoryDictionary.ofStrings(Seq("a".getBytes("UTF-8"), latin1, "ü".getBytes("UTF-8"), null))
    assert(categories == Seq("a", "ü"))
    assert(ranks.toSeq == Seq(0.0, 0.5, 1.0, Double.NegativeInfinity))
  }

  test("what Python's decoder refuses, this one refuses: cut short, unused bytes, surrogates, overlong, past U+10FFFF") {
    for (b <- Seq(bytes(0xC3), bytes(0xFF), bytes(0xED, 0xA0, 0x80), bytes(0xC0, 0x80), bytes(0xF4, 0x90, 0x80, 0x80))) {
      assert(CategoryDictionary.decoded(b).isEmpty, b.map(x => f"$x%02X").mkString(" "))
    }
    assert(CategoryDictionary.decoded(bytes(0xF0, 0x9F, 0x98, 0x80)).contains("\uD83D\uDE00"))
  }

  test("booleans are categories, false before true; NULL is -inf") {
    val (categories, ranks) = CategoryDictionary.ofBooleans(Seq[java.lang.Boolean](true, null, false))
    assert(categories == Seq(false, true))
    assert(ranks.toSeq == Seq(1.0, Double.NegativeInfinity, 0.0))
    assert(CategoryDictionary.ofBooleans(Seq(java.lang.Boolean.TRUE))._1 == Seq(true))
  }
}

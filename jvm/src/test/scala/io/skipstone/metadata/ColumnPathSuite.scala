package io.skipstone.metadata

import org.scalatest.funsuite.AnyFunSuite

/** Which of a schema's columns a name means, and how a path is spelled: the one place that decides. */
class ColumnPathSuite extends AnyFunSuite {
  private val insensitive = ColumnPath.resolver(caseSensitive = false)
  private val sensitive = ColumnPath.resolver(caseSensitive = true)

  test("a name means the column spelled exactly so, else the only one in another case") {
    assert(ColumnPath.resolveName("Mixed", Seq("mixed", "Mixed"), insensitive).contains("Mixed"))
    assert(ColumnPath.resolveName("region", Seq("Region", "day"), insensitive).contains("Region"))
    assert(ColumnPath.resolveName("MIXED", Seq("mixed", "Mixed"), insensitive).isEmpty) // two match, neither exactly
    assert(ColumnPath.resolveName("region", Seq("Region"), sensitive).isEmpty)
  }

  test("paths are picked part by part, a dotted top-level name is not a nested field") {
    val chunks = Seq(Seq("a.b"), Seq("A", "b"))
    assert(ColumnPath.pick(ColumnPath(Seq("a", "B")), chunks, insensitive)(ColumnPath(_)).contains(Seq("A", "b")))
    assert(ColumnPath.pick(ColumnPath(Seq("a.b")), chunks, insensitive)(ColumnPath(_)).contains(Seq("a.b")))
    assert(ColumnPath.pick(ColumnPath(Seq("a", "B")), chunks, sensitive)(ColumnPath(_)).isEmpty)
  }

  test("SQL text names exactly the path; index definitions quote only what would change it") {
    assert(ColumnPath(Seq("a.b", "o`k")).sql == "`a.b`.`o``k`")
    assert(Seq("x", "my col", "a.b", "o`k").map(ColumnPath.definitionName) == Seq("x", "my col", "`a.b`", "`o``k`"))
  }
}

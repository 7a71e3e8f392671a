package io.skipstone.layout.builders

import org.json4s._
import org.json4s.jackson.JsonMethods
import org.scalatest.funsuite.AnyFunSuite

import io.skipstone.layout.{CurveLayout, TreeLayout}

class LayoutBuildersSuite extends AnyFunSuite {
  private val sample = HandMadeSamples.numeric("a" -> (0 until 64).map(_.toDouble), "b" -> (0 until 64).map(i => (i % 8).toDouble))
  private def spec(json: String): JValue = JsonMethods.parse(json)
  private def refusal(json: String): String =
    intercept[IllegalArgumentException](LayoutBuilders.build(spec(json), sample, 8, 64)).getMessage

  test("the spec's kind picks the builder") {
    assert(LayoutBuilders.build(spec("""{"kind": "KdTree", "block_rows": 8, "columns": null}"""), sample, 8, 64)
      .isInstanceOf[TreeLayout])
    val curve = LayoutBuilders.build(spec("""{"kind": "Hilbert", "block_rows": 8, "columns": ["b"], "bits": 3}"""), sample, 8, 64)
    assert(curve.asInstanceOf[CurveLayout].curve == "hilbert" && curve.asInstanceOf[CurveLayout].bits == 3)
    val amoeba = LayoutBuilders.build(spec("""{"kind": "Amoeba", "block_rows": 8, "seed": 3, "correlations": false}"""), sample, 8, 64)
    assert(amoeba.blockIds.size == 8)
  }

  test("an option the kind does not take is refused by name, with the options it takes") {
    assert(refusal("""{"kind": "KdTree", "block_rows": 8, "bits": 3}""") ==
      "KdTree takes no option 'bits' (its options: block_bytes, block_rows, columns)")
    assert(refusal("""{"kind": "Amoeba", "seed": "x"}""") == "Amoeba: option 'seed' cannot be \"x\"")
  }

  test("a kind without a JVM builder is refused, saying where it is built") {
    assert(refusal("""{"kind": "MySpec"}""").contains("layout kind 'MySpec' has no JVM builder"))
    assert(refusal("""{"kind": "Paw", "queries": []}""").contains("built from the table's logged workload) is built in Python"))
    assert(refusal("""{"block_rows": 8}""").contains("a layout spec names its kind"))
  }

  test("Range takes exactly one column") {
    assert(refusal("""{"kind": "Range", "columns": ["a", "b"]}""").startsWith("Range partitions by exactly one column"))
  }

  test("SQL's layout names are the specs of Python's classes of those kinds") {
    def specFor(name: String, columns: String*) = JsonMethods.compact(JsonMethods.render(LayoutBuilders.specFor(name, columns, 500)))
    assert(specFor("AMOEBA") ==
      """{"kind":"Amoeba","block_bytes":134217728,"block_rows":500,"columns":null,"seed":0,"correlations":true}""")
    assert(specFor("kd", "a", "b") == """{"kind":"KdTree","block_bytes":134217728,"block_rows":500,"columns":["a","b"]}""")
    assert(specFor("zorder", "a") == """{"kind":"ZOrder","block_bytes":134217728,"block_rows":500,"columns":["a"],"bits":null}""")
    assert(specFor("range", "a") == """{"kind":"Range","block_bytes":134217728,"block_rows":500,"columns":["a"]}""")
    assert(intercept[IllegalArgumentException](specFor("paw")).getMessage ==
      "unknown LAYOUT PAW (the JVM builds AMOEBA, KD, RANGE, ZORDER, HILBERT; a layout built from a table's logged " +
        "workload is built in Python)")
    assert(intercept[IllegalArgumentException](specFor("range")).getMessage.startsWith("LAYOUT RANGE partitions by exactly one column"))
    assert(intercept[IllegalArgumentException](specFor("bogus")).getMessage.startsWith("unknown LAYOUT BOGUS"))
  }
}

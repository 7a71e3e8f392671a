package io.skipstone.table

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.{col, date_add, lit}
import org.json4s._
import org.json4s.jackson.JsonMethods
import org.scalatest.funsuite.AnyFunSuite

import io.skipstone.layout.{CurveLayout, LayoutDocument, TreeLayout}

/**
 * `OPTIMIZE t LAYOUT <name> BY (columns)` for the layouts the JVM builds, on real local Spark
 * and with no Python anywhere: the spec of that name with the table's block size, built on the
 * table's stored sample, every row rewritten and committed; the request checked before anything
 * is written.
 */
class RelayoutSuite extends AnyFunSuite with ManagedTableFixtures {
  protected def rootPrefix: String = "skipstone-relayout"
  private val Rows = 2000L

  private def rows: DataFrame = spark.range(Rows).select(col("id").as("a"), (col("id") % 7).as("b"),
    date_add(lit("2024-01-01").cast("date"), (col("id") % 365).cast("int")).as("day"))

  /** A table of [[rows]] in blocks of 200 rows, cut on `a` alone. */
  private def create(): Unit = ManagedWrites.create(spark, root, rows, LayoutRequest("kd", Some(Seq("a")), Some(200L), None), root)

  private def latest: Snapshot = TableLog.latest(spark.sessionState.newHadoopConf(), root).get
  private def tableRows: Seq[(Long, Long, String)] = spark.read.parquet(root).collect()
    .map(r => (r.getLong(0), r.getLong(1), r.getDate(2).toString)).sorted.toSeq
  private def relayout(name: String, columns: String*): OptimizeResult =
    Relayout.builtIn(spark, root, latest.version, name, columns, None, s"OPTIMIZE $root")
  private def refusal(name: String, columns: String*): String =
    intercept[IllegalArgumentException](relayout(name, columns: _*)).getMessage

  test("each layout the JVM builds rewrites every row under the spec of its name") {
    create()
    val expected = tableRows
    for ((name, columns, kind) <- Seq(("kd", Seq("b", "day"), "KdTree"), ("amoeba", Nil, "Amoeba"),
                                       ("range", Seq("day"), "Range"), ("zorder", Seq("a", "b"), "ZOrder"),
                                       ("hilbert", Seq("day", "a"), "Hilbert"))) {
      val before = latest
      val result = relayout(name, columns: _*)
      val after = latest
      assert((result.version, result.strategy, result.rowsRewritten) == (before.version + 1, "layout", Rows), name)
      assert(after.files.map(_.path).toSet.intersect(before.livePaths).isEmpty, name)
      val spec = JsonMethods.parse(after.properties("layout.spec"))
      assert(spec \ "kind" == JString(kind) && spec \ "block_rows" == JInt(200), name)
      assert(spec \ "columns" == (if (columns.isEmpty) JNull else JArray(columns.map(JString(_)).toList)), name)
      assert((after.commitInfo \ "policy") == JString(s"LAYOUT ${name.toUpperCase}"), name)
      assert(tableRows == expected, name)
      assert(after.files.forall(_.rows <= 2 * 200), name)
    }
  }

  test("a curve is built on the columns named, a tree keeps every layout column") {
    create()
    relayout("zorder", "b", "a")
    val curve = LayoutDocument.read(latest.layout).asInstanceOf[CurveLayout]
    assert(curve.columns.map(curve.schema(_).name) == Seq("b", "a"))
    relayout("range", "day")
    val tree = LayoutDocument.read(latest.layout).asInstanceOf[TreeLayout]
    assert(tree.schema.map(_.name) == Seq("a", "b", "day"))
  }

  test("columns are matched as Spark matches names, and recorded as the table spells them") {
    create()
    relayout("kd", "B", "Day")
    assert(JsonMethods.parse(latest.properties("layout.spec")) \ "columns" == JArray(List(JString("b"), JString("day"))))
    spark.conf.set("spark.sql.caseSensitive", "true")
    try assert(refusal("kd", "B") == s"OPTIMIZE $root LAYOUT KD BY (B): no layout column 'B' (the table's: a, b, day)")
    finally spark.conf.unset("spark.sql.caseSensitive")
  }

  test("a request the layout cannot take is refused before anything is written, naming what is wrong") {
    create()
    val before = latest.version
    assert(refusal("zorder") == s"OPTIMIZE $root LAYOUT ZORDER needs BY (columns)")
    assert(refusal("range", "a", "b").startsWith("LAYOUT RANGE partitions by exactly one column"))
    assert(refusal("kd", "a", "price", "cost") ==
      s"OPTIMIZE $root LAYOUT KD BY (a, price, cost): no layout column 'price', 'cost' (the table's: a, b, day)")
    assert(refusal("kd", "a", "b", "A") ==
      s"OPTIMIZE $root LAYOUT KD BY (a, b, A) names a more than once; name each column once")
    assert(refusal("paw") == s"OPTIMIZE $root LAYOUT PAW: not a layout the JVM builds (AMOEBA, KD, RANGE, ZORDER, HILBERT)")
    assert(latest.version == before)
    assert(!dir.resolve("_skipstone/staging").toFile.exists() || dir.resolve("_skipstone/staging").toFile.list().isEmpty)
  }

  test("a rewrite that dies after writing commits nothing, and a rerun completes") {
    create()
    val expected = tableRows
    Failpoints.arm("optimize.relayout.afterWrite")
    intercept[InjectedFailure](relayout("hilbert", "a", "b"))
    Failpoints.disarmAll()
    assert(latest.version == 1 && tableRows == expected)
    assert(relayout("hilbert", "a", "b").version == 2 && tableRows == expected)
  }
}

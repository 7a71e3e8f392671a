package io.skipstone.layout

import java.time.{Instant, LocalDate, LocalDateTime}
import java.time.temporal.ChronoUnit

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types._
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

/**
 * `LayoutRouting.withBlock` on real Spark: hand-written trees, group splits and curves over every
 * column kind, with the values the encoding treats apart (NULL = -inf, NaN = +inf, infinities,
 * strings missing from the dictionary), and random trees against a walk over encoded values.
 */
class LayoutRoutingSuite extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val spark = SparkSession.builder().master("local[1]").appName("LayoutRoutingSuite")
    .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1").getOrCreate()

  override def afterAll(): Unit = spark.stop()

  private val NaN = Double.NaN
  private val Inf = Double.PositiveInfinity

  /** The block of each row of one column `x`, in the order given. */
  private def blocksOf(dataType: DataType, values: Seq[Any], layout: LayoutDocument): Seq[Long] =
    blocksOfRows(StructType(Seq(StructField("x", dataType))), values.map(Row(_)), layout)

  /**
   * The block of each row, routed three ways that must agree: rows from an RDD in whole-stage
   * generated code; the same with code generation off (every expression's `eval`); and rows of a
   * local relation, whose projection the optimizer evaluates itself.
   */
  private def blocksOfRows(schema: StructType, rows: Seq[Row], layout: LayoutDocument): Seq[Long] = {
    val withId = rows.zipWithIndex.map { case (r, i) => Row.fromSeq(i +: r.toSeq) }
    val withIdSchema = StructType(StructField("id", IntegerType) +: schema.fields)
    def routed(df: DataFrame): Seq[Long] = {
      val frame = LayoutRouting.withBlock(df, layout, "block")
      assert(frame.schema("block").dataType == LongType)
      frame.orderBy("id").select("block").collect().map(_.getLong(0)).toSeq
    }
    val fromRdd = spark.createDataFrame(spark.sparkContext.parallelize(withId, 2), withIdSchema)
    val generated = routed(fromRdd)
    val interpreted = withConf("spark.sql.codegen.wholeStage" -> "false", "spark.sql.codegen.factoryMode" -> "NO_CODEGEN") {
      routed(fromRdd)
    }
    val local = routed(spark.createDataFrame(withId.asJava, withIdSchema))
    assert(interpreted == generated, "routed without generated code")
    assert(local == generated, "routed in a local relation")
    generated
  }

  private def withConf[T](settings: (String, String)*)(body: => T): T = {
    val before = settings.map { case (k, _) => k -> spark.conf.getOption(k) }
    settings.foreach { case (k, v) => spark.conf.set(k, v) }
    try body finally before.foreach { case (k, v) => v.fold(spark.conf.unset(k))(spark.conf.set(k, _)) }
  }

  /** Block 0 for rows at most `cut`, block 1 for the others. */
  private def cutAt(column: LayoutColumn, cut: Double): TreeLayout =
    TreeLayout(Seq(column), Split(0, cut, Leaf(0, 0), Leaf(1, 0)))

  private def side(left: Boolean): Long = if (left) 0L else 1L

  test("a split on a double sends values at most the cut left, NULL (-inf) left and NaN (+inf) right") {
    val values = Seq(Double.NegativeInfinity, -1.0, -0.0, 0.0, 0.5, Inf, NaN, null)
    val x = LayoutColumn("x", ColumnKind.Numeric)
    assert(blocksOf(DoubleType, values, cutAt(x, 0.0)) == Seq(0, 0, 0, 0, 1, 1, 1, 0))
    assert(blocksOf(DoubleType, values, cutAt(x, Double.NegativeInfinity)) == Seq(0, 1, 1, 1, 1, 1, 1, 0))
    assert(blocksOf(DoubleType, values, cutAt(x, Inf)) == Seq.fill(values.size)(0L))
  }

  test("every numeric kind compares its encoded value: integers, decimals, floats, days, microseconds") {
    def micros(seconds: Long, nanos: Long) = Instant.ofEpochSecond(seconds, nanos)
    def wall(micro: Int) = LocalDateTime.of(1970, 1, 1, 0, 0, 0, micro * 1000)
    val cases = Seq[(DataType, ColumnKind, Seq[Any], Double, Seq[Long])](
      (ByteType, ColumnKind.Integer, Seq(-3.toByte, 2.toByte, 3.toByte, null), 2.0, Seq(0, 0, 1, 0)),
      (IntegerType, ColumnKind.Integer, Seq(1, 2, 3, null), 2.5, Seq(0, 0, 1, 0)),
      (LongType, ColumnKind.Integer, Seq(-5L, 5L, 6L, Long.MaxValue), 5.0, Seq(0, 0, 1, 1)),
      (DecimalType(10, 2), ColumnKind.Numeric, Seq(new java.math.BigDecimal("1.25"), new java.math.BigDecimal("1.26"), null),
        1.25, Seq(0, 1, 0)),
      (FloatType, ColumnKind.Numeric, Seq(1.5f, Float.NaN, Float.NegativeInfinity), 1.5, Seq(0, 1, 0)),
      (DateType, ColumnKind.Date, Seq(LocalDate.of(1970, 1, 11), LocalDate.of(1970, 1, 12), LocalDate.of(1969, 12, 31), null),
        10.0, Seq(0, 1, 0, 0)),
      (TimestampType, ColumnKind.Timestamp, Seq(micros(0, 1000), micros(0, 2000), micros(-1, 0), null), 1.0, Seq(0, 1, 0, 0)),
      (TimestampNTZType, ColumnKind.Timestamp, Seq(wall(1), wall(2), null), 1.0, Seq(0, 1, 0)))
    for ((dataType, kind, values, cut, expected) <- cases)
      assert(blocksOf(dataType, values, cutAt(LayoutColumn("x", kind), cut)) == expected, dataType.simpleString)
  }

  test("a TIMESTAMP_NTZ column is routed by its wall clock in every session time zone") {
    val epoch = LocalDateTime.of(1970, 1, 1, 0, 0)
    // 02:30 does not exist in Los Angeles that day, 01:30 twice on the other
    val gap = LocalDateTime.of(2024, 3, 10, 2, 30)
    val twice = LocalDateTime.of(2024, 11, 3, 1, 30)
    val values = Seq(gap, gap.plusNanos(1000), twice, twice.plusNanos(1000))
    val layout = TreeLayout(Seq(LayoutColumn("x", ColumnKind.Timestamp)),
      Split(0, ChronoUnit.MICROS.between(epoch, gap).toDouble, Leaf(0, 0),
        Split(0, ChronoUnit.MICROS.between(epoch, twice).toDouble, Leaf(1, 0), Leaf(2, 0))))
    val zone = spark.conf.get("spark.sql.session.timeZone")
    try {
      for (z <- Seq("UTC", "America/Los_Angeles", "Asia/Kolkata")) {
        spark.conf.set("spark.sql.session.timeZone", z)
        assert(blocksOf(TimestampNTZType, values, layout) == Seq(0, 1, 1, 2), z)
      }
    } finally spark.conf.set("spark.sql.session.timeZone", zone)
  }

  test("a string is compared by its rank in the dictionary, one missing from it half-way between ranks") {
    // dictionary b, d: a -0.5, b 0, c 0.5, d 1, e 1.5, NULL -inf
    val values = Seq("a", "b", "c", "d", "e", null)
    val encoded = Seq(-0.5, 0.0, 0.5, 1.0, 1.5, Double.NegativeInfinity)
    val s = LayoutColumn("x", ColumnKind.Categorical, Seq("b", "d"))
    for (cut <- Seq(Double.NegativeInfinity, -1.0, -0.5, -0.2, 0.0, 0.25, 0.5, 0.7, 1.0, 1.5, 2.0, Inf))
      assert(blocksOf(StringType, values, cutAt(s, cut)) == encoded.map(e => side(e <= cut)), s"cut $cut")
  }

  test("with an empty dictionary every string sits at -0.5 and NULL below it") {
    val empty = LayoutColumn("x", ColumnKind.Categorical, Nil)
    for ((cut, expected) <- Seq(-1.0 -> Seq(1L, 0L), -0.5 -> Seq(0L, 0L), 0.0 -> Seq(0L, 0L)))
      assert(blocksOf(StringType, Seq("any", null), cutAt(empty, cut)) == expected, s"cut $cut")
  }

  test("a boolean is compared by its rank, false before true; a value missing from the dictionary sits between ranks") {
    val values = Seq(false, true, null)
    val both = LayoutColumn("x", ColumnKind.Categorical, Seq(false, true))
    for ((cut, expected) <- Seq(Double.NegativeInfinity -> Seq(1L, 1L, 0L), -0.5 -> Seq(1L, 1L, 0L),
      0.0 -> Seq(0L, 1L, 0L), 0.5 -> Seq(0L, 1L, 0L), 1.0 -> Seq(0L, 0L, 0L)))
      assert(blocksOf(BooleanType, values, cutAt(both, cut)) == expected, s"cut $cut")
    val onlyTrue = LayoutColumn("x", ColumnKind.Categorical, Seq(true)) // false is -0.5
    assert(blocksOf(BooleanType, values, cutAt(onlyTrue, -0.5)) == Seq(0, 1, 0))
    assert(blocksOf(BooleanType, values, cutAt(onlyTrue, -0.6)) == Seq(1, 1, 0))
  }

  test("a group split sends a row to the first group whose box (low, high] holds it, else to the rest") {
    val schema = Seq(LayoutColumn("x", ColumnKind.Integer), LayoutColumn("y", ColumnKind.Integer))
    val layout = TreeLayout(schema, GroupSplit(Seq(
      Group(Seq(0.0, Double.NegativeInfinity), Seq(10.0, 5.0), Leaf(10, 0)),
      Group(Seq(5.0, Double.NegativeInfinity), Seq(20.0, Inf), Leaf(11, 0))),
      Split(1, 0.0, Leaf(12, 0), Leaf(13, 0))))
    val rows = Seq[(Any, Any, Long)](
      (3, 2, 10), (3, 6, 13), (7, 2, 10) /* in both boxes: the first */, (7, 9, 11), (0, 2, 13) /* on a low bound: outside */,
      (10, 5, 10) /* on the high bounds: inside */, (null, -1, 12) /* NULL is below every finite low */, (15, null, 11),
      (21, null, 12))
    val sparkSchema = StructType(Seq(StructField("x", IntegerType), StructField("y", IntegerType)))
    assert(blocksOfRows(sparkSchema, rows.map(r => Row(r._1, r._2)), layout) == rows.map(_._3))
  }

  test("an unbounded group holds every row, NULLs too") {
    val layout = TreeLayout(Seq(LayoutColumn("x", ColumnKind.Numeric)),
      GroupSplit(Seq(Group(Seq(Double.NegativeInfinity), Seq(Inf), Leaf(4, 0))), Leaf(5, 0)))
    assert(blocksOf(DoubleType, Seq(1.0, null, NaN, Double.NegativeInfinity), layout) == Seq(4, 4, 4, 4))
  }

  private val MaxUInt64 = BigInt(2).pow(64) - 1

  test("a Z-order layout: a code counts the edges strictly below the value, the key interleaves the codes") {
    // x: edges 0, 10, 20 (codes 0..3); y: edge 5 (codes 0, 1); bits 2: key bits x1 y1 x0 y0
    val schema = Seq(LayoutColumn("x", ColumnKind.Numeric), LayoutColumn("y", ColumnKind.Integer))
    val layout = CurveLayout(schema, "zorder", Seq(0, 1), 2, Seq(Seq(0.0, 10.0, 20.0), Seq(5.0)),
      Seq(BigInt(2), BigInt(8), MaxUInt64), Seq.fill(3)(CurveBlock(0, Nil, Nil)))
    val rows = Seq[(Any, Any, Long)](
      (-5.0, 6, 0),  // codes (0, 1): key 0001 = 1
      (15.0, 5, 1),  // (2, 0): 1000 = 8, on a boundary: its block
      (25.0, 6, 2),  // (3, 1): 1011 = 11, above every finite boundary
      (10.0, null, 0), // (1, 0): 0010 = 2
      (NaN, 6, 2),   // NaN is above every edge: (3, 1)
      (null, null, 0), (Inf, 0, 2), (Double.NegativeInfinity, 7, 0))
    val sparkSchema = StructType(Seq(StructField("x", DoubleType), StructField("y", IntegerType)))
    assert(blocksOfRows(sparkSchema, rows.map(r => Row(r._1, r._2)), layout) == rows.map(_._3))
  }

  test("a Hilbert layout orders the cells of a 2 x 2 grid (0,0), (0,1), (1,1), (1,0)") {
    val schema = Seq(LayoutColumn("x", ColumnKind.Integer), LayoutColumn("s", ColumnKind.Categorical, Seq("m")))
    // x: code 1 above 0; s: code 1 above "m" (rank 0); a string missing from the dictionary sorts by its bytes
    val layout = CurveLayout(schema, "hilbert", Seq(0, 1), 1, Seq(Seq(0.0), Seq(0.0)),
      Seq(BigInt(0), BigInt(1), BigInt(2), MaxUInt64), Seq.fill(4)(CurveBlock(0, Nil, Nil)))
    val rows = Seq[(Any, Any, Long)]((-1, "a", 0), (-1, "z", 1), (1, "z", 2), (1, "m", 3), (null, null, 0), (5, null, 3))
    val sparkSchema = StructType(Seq(StructField("x", IntegerType), StructField("s", StringType)))
    assert(blocksOfRows(sparkSchema, rows.map(r => Row(r._1, r._2)), layout) == rows.map(_._3))
  }

  test("the curve keys are those of skipstone.layout.curves on its documented examples") {
    assert(Seq(Array(1L, 0L), Array(0L, 1L), Array(1L, 1L)).map(CurveKeys.zorder(_, 1)) == Seq(2, 1, 3))
    assert(Seq(Array(0L, 0L), Array(0L, 1L), Array(1L, 1L), Array(1L, 0L)).map(CurveKeys.hilbert(_, 1)) == Seq(0, 1, 2, 3))
  }

  test("a layout column missing from the rows, or of another kind, is refused naming it") {
    val missing = intercept[IllegalArgumentException](
      blocksOf(IntegerType, Seq(1), cutAt(LayoutColumn("price", ColumnKind.Integer), 0.0))).getMessage
    assert(missing.contains("'price'") && missing.contains("id, x"))
    val wrongKind = intercept[IllegalArgumentException](
      blocksOf(IntegerType, Seq(1), cutAt(LayoutColumn("x", ColumnKind.Categorical, Seq("a")), 0.0))).getMessage
    assert(wrongKind.contains("'x'") && wrongKind.contains("categorical") && wrongKind.contains("int"))
  }

  test("a dictionary out of order, of the wrong type, or a cut that is no number is refused naming the column") {
    def refusal(column: LayoutColumn, dataType: DataType, cut: Double = 0.0): String =
      intercept[IllegalArgumentException](blocksOf(dataType, Seq(null), cutAt(column, cut))).getMessage
    assert(refusal(LayoutColumn("x", ColumnKind.Categorical, Seq("b", "a")), StringType).contains("'x'"))
    assert(refusal(LayoutColumn("x", ColumnKind.Categorical, Seq("a", "a")), StringType).contains("ascending and distinct"))
    assert(refusal(LayoutColumn("x", ColumnKind.Categorical, Seq(true, false)), BooleanType).contains("'x'"))
    assert(refusal(LayoutColumn("x", ColumnKind.Categorical, Seq(1)), StringType).contains("not a string"))
    assert(refusal(LayoutColumn("x", ColumnKind.Numeric), DoubleType, NaN).contains("NaN"))
  }

  test("a tree's routing is compiled with the stage that reads the rows, whatever the tree's size") {
    // a balanced tree of 1,024 blocks over an integer column: one generated stage reads and routes
    def tree(low: Int, high: Int): LayoutNode =
      if (high - low == 1) Leaf(low, 0) else { val mid = (low + high) / 2; Split(0, mid - 0.5, tree(low, mid), tree(mid, high)) }
    val layout = TreeLayout(Seq(LayoutColumn("id", ColumnKind.Integer)), tree(0, 1024))
    val routed = LayoutRouting.withBlock(spark.range(0, 4096).selectExpr("CAST(id AS INT) AS id"), layout, "block")
    val plan = routed.queryExecution.executedPlan
    val compiled = plan.collect { case stage: org.apache.spark.sql.execution.WholeStageCodegenExec => stage }
    assert(compiled.exists(_.child.exists(_.isInstanceOf[org.apache.spark.sql.execution.ProjectExec])), plan.treeString)
    val blocks = routed.orderBy("id").select("block").collect().map(_.getLong(0)).toSeq
    assert(blocks == (0 until 4096).map(i => (i min 1023).toLong), "the ids above the last cut go to the last block")
  }

  test("column names with dots and backticks name top-level columns") {
    val schema = Seq(LayoutColumn("a.b", ColumnKind.Integer), LayoutColumn("we`ird", ColumnKind.Integer))
    val layout = TreeLayout(schema, Split(0, 1.0, Leaf(0, 0), Split(1, 1.0, Leaf(1, 0), Leaf(2, 0))))
    val sparkSchema = StructType(Seq(StructField("a.b", IntegerType), StructField("we`ird", IntegerType)))
    assert(blocksOfRows(sparkSchema, Seq(Row(1, 5), Row(2, 1), Row(2, 2)), layout) == Seq(0, 1, 2))
  }

  test("random trees over every kind: each row gets exactly the block a walk over its encoded values reaches") {
    val random = new Random(7)
    val strings = Seq("a", "c", "e", "g")
    val columns = Seq[(StructField, LayoutColumn, () => Any, Any => Double)](
      (StructField("i", IntegerType), LayoutColumn("i", ColumnKind.Integer), () => random.nextInt(21) - 10,
        v => v.asInstanceOf[Int].toDouble),
      (StructField("d", DoubleType), LayoutColumn("d", ColumnKind.Numeric),
        () => Seq(NaN, Inf, Double.NegativeInfinity, -0.0, random.nextGaussian())(random.nextInt(5)),
        v => { val d = v.asInstanceOf[Double]; if (d.isNaN) Inf else d }),
      (StructField("day", DateType), LayoutColumn("day", ColumnKind.Date), () => LocalDate.ofEpochDay(random.nextInt(40) - 20),
        v => v.asInstanceOf[LocalDate].toEpochDay.toDouble),
      (StructField("s", StringType), LayoutColumn("s", ColumnKind.Categorical, strings),
        () => ('a' + random.nextInt(8)).toChar.toString, v => {
          val i = strings.indexOf(v); if (i >= 0) i.toDouble else strings.count(_ < v.asInstanceOf[String]) - 0.5
        }),
      (StructField("b", BooleanType), LayoutColumn("b", ColumnKind.Categorical, Seq(false, true)), () => random.nextBoolean(),
        v => if (v.asInstanceOf[Boolean]) 1.0 else 0.0))
    val rows = Seq.fill(400)(columns.map { case (_, _, draw, _) => if (random.nextInt(10) == 0) null else draw() })
    val encoded = rows.map(_.zip(columns).map { case (v, c) => if (v == null) Double.NegativeInfinity else c._4(v) })
    val cuts = Seq(Double.NegativeInfinity, -0.5, 0.0, 0.5, 1.0, 2.5, -3.0, Inf)
    def cut(d: Int): Double = if (random.nextBoolean()) cuts(random.nextInt(cuts.size)) else encoded(random.nextInt(rows.size))(d)
    var next = 0 // block ids handed out while the random tree is built
    def node(depth: Int): LayoutNode =
      if (depth == 0 || random.nextInt(5) == 0) { next += 1; Leaf(next * 3, 0) }
      else if (random.nextInt(4) == 0) {
        val groups = Seq.fill(1 + random.nextInt(3)) {
          val bounds = columns.indices.map { d =>
            if (random.nextBoolean()) (Double.NegativeInfinity, Inf) else { val (a, b) = (cut(d), cut(d)); (a min b, a max b) }
          }
          Group(bounds.map(_._1), bounds.map(_._2), node(depth - 1))
        }
        GroupSplit(groups, node(depth - 1))
      } else { val d = random.nextInt(columns.size); Split(d, cut(d), node(depth - 1), node(depth - 1)) }
    def walk(n: LayoutNode, values: Seq[Double]): Long = n match {
      case Leaf(block, _, _) => block
      case Split(d, c, left, right) => walk(if (values(d) <= c) left else right, values)
      case GroupSplit(groups, rest) =>
        // an infinite bound is no test at all: NULL (-inf) lies in a box unbounded below
        def inside(g: Group) = values.indices.forall { d =>
          (g.low(d) == Double.NegativeInfinity || values(d) > g.low(d)) && (g.high(d) == Inf || values(d) <= g.high(d))
        }
        walk(groups.find(inside).fold(rest)(_.child), values)
    }
    val sparkSchema = StructType(columns.map(_._1))
    for (round <- 1 to 5) {
      val layout = TreeLayout(columns.map(_._2), node(6))
      val blocks = blocksOfRows(sparkSchema, rows.map(Row.fromSeq), layout)
      assert(blocks.size == rows.size)
      assert(blocks.forall(layout.blockIds.map(_.toLong).contains))
      assert(blocks == encoded.map(walk(layout.root, _)), s"round $round")
    }
  }
}

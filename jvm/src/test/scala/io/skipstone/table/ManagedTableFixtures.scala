package io.skipstone.table

import java.nio.file.{Files, Path => NioPath}

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.col
import org.scalatest.{BeforeAndAfterAll, BeforeAndAfterEach, Suite}

import io.skipstone.layout.{ColumnKind, LayoutColumn, Leaf, Split, TreeLayout}

/**
 * What a suite of managed-table tests runs on: one local Spark session with Skipstone for the
 * suite, and a fresh table root for each test, which does not exist yet (the table creates it)
 * and is deleted afterwards, with any failpoint the test armed disarmed.
 */
trait ManagedTableFixtures extends BeforeAndAfterAll with BeforeAndAfterEach { this: Suite =>

  /** The name of the suite's temporary roots, so that one left behind says whose it is. */
  protected def rootPrefix: String

  // Set by the hooks below: ScalaTest builds the suite before it runs beforeAll and beforeEach.
  private var session: Option[SparkSession] = None
  private var tableDir: Option[NioPath] = None

  protected def spark: SparkSession = session.getOrElse(sys.error("no Spark session outside the suite's run"))
  protected def dir: NioPath = tableDir.getOrElse(sys.error("no table root outside a test"))
  protected def root: String = "file:" + dir.toString

  override def beforeAll(): Unit = {
    super.beforeAll()
    session = Some(SparkSession.builder().master("local[1]")
      .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
      .config("spark.sql.extensions", "io.skipstone.SkipstoneExtension").getOrCreate())
  }

  override def afterAll(): Unit = try session.foreach(_.stop()) finally super.afterAll()

  override def beforeEach(): Unit = {
    super.beforeEach()
    val created = Files.createTempDirectory(rootPrefix)
    Files.delete(created) // created by the table
    tableDir = Some(created)
  }

  override def afterEach(): Unit = try {
    Failpoints.disarmAll()
    // A query's workload record reaches the root from another thread a moment later: write it
    // now, or it can land in the root while the root is being deleted (DirectoryNotEmpty).
    Tables.flushWorkload(spark)
    tableDir.foreach(d => FileUtils.deleteDirectory(d.toFile))
  } finally super.afterEach()
}

/** The small table of `a` and `b` that the table and transaction suites write, and its two layouts. */
trait TwoBlockTableFixtures extends ManagedTableFixtures { this: Suite =>

  // a = 0..99 in two blocks cut at 49; b = a % 7
  protected val twoBlocks: TreeLayout = TreeLayout(
    Seq(LayoutColumn("a", ColumnKind.Integer), LayoutColumn("b", ColumnKind.Integer)),
    Split(0, 49.0, Leaf(0, 0.0), Leaf(1, 0.0)))
  // block 1 replaced by blocks 2 (a <= 74) and 3
  protected val fourCuts: TreeLayout =
    twoBlocks.copy(root = Split(0, 49.0, Leaf(0, 0.0), Split(0, 74.0, Leaf(2, 0.0), Leaf(3, 0.0))))

  /** Rows a = from .. from + n - 1 and b = a % 7. */
  protected def rows(from: Long, n: Long): DataFrame =
    spark.range(from, from + n).select(col("id").as("a"), (col("id") % 7).as("b"))
}

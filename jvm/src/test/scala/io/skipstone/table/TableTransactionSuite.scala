package io.skipstone.table

import java.nio.file.Files

import org.apache.spark.sql.functions.col
import org.json4s.JObject
import org.scalatest.funsuite.AnyFunSuite

import io.skipstone.indexing.IndexRequest
import io.skipstone.layout.TreeLayout
import io.skipstone.metadata.MetadataStore

/**
 * Every table write goes through one transaction: on real local Spark, a race lost to a layout
 * change is routed again and committed, a conflict that cannot be resolved fails typed and
 * leaves nothing, a death at any step commits nothing, and files that do not hold the rows
 * routed are never committed.
 */
class TableTransactionSuite extends AnyFunSuite with TwoBlockTableFixtures {
  protected def rootPrefix: String = "skipstone-transaction"

  private def create(): Snapshot = Create.run(spark, root, rows(0, 100), twoBlocks, Map("format" -> "parquet",
    "schema" -> rows(0, 1).schema.json, "layout.spec" -> "{}", "layout.blockRows" -> "50", "layout.sample" -> "none"),
    Seq(IndexRequest("minmax", Seq("a"), Map.empty)))

  private def latest: Snapshot = TableLog.latest(spark.sessionState.newHadoopConf(), root).get
  private def version(v: Long): Snapshot = TableLog.read(spark.sessionState.newHadoopConf(), root, v)

  /** The table's rows as a reader of its newest version sees them. */
  private def tableRows: Seq[Long] = spark.read.parquet(root).select("a").collect().map(_.getLong(0)).sorted.toSeq

  /** Data files in the root: the live ones and those replaced ones a vacuum has not removed yet. */
  private def dataFiles: Set[String] = dir.toFile.listFiles().map(_.getName).filter(_.startsWith("b")).toSet

  private def stagingLeft: Seq[String] =
    Option(dir.resolve("_skipstone/staging").toFile.listFiles()).toSeq.flatten.map(_.getName)

  private def metadataPaths: Set[String] = {
    val (_, table, _) = MetadataStore.current(spark, root).get
    spark.read.parquet(table.toString).select("path").collect().map(r => new java.net.URI(r.getString(0)).getPath)
      .map(p => p.substring(p.lastIndexOf('/') + 1)).toSet
  }

  private def rewriteBlock1(readVersion: Long): OptimizeResult =
    Rewrite.run(spark, root, readVersion, ProposedChange(fourCuts, Seq(1L), JObject()))

  test("create writes one file per block, indexes them and records each block's rows") {
    val created = create()
    assert(created.version == 1 && created.operation == "CREATE")
    assert(created.files.map(_.block).toSet == Set(0L, 1L) && created.files.map(_.rows).sum == 100)
    assert(TreeLayoutRows(created) == Map(0 -> 50.0, 1 -> 50.0))
    assert(tableRows == (0L until 100L) && metadataPaths == created.livePaths)
  }

  test("an append that lost to a layout change routes its rows again through the winner's layout and commits") {
    create()
    // another writer changes the layout while the append publishes its metadata
    Failpoints.armAction("append.afterMetadata", 0, () => rewriteBlock1(1))
    val appended = Append.run(spark, root, rows(100, 20))
    assert(appended == AppendResult(3, 20, 1))
    assert(version(2).commitInfo \ "strategy" == org.json4s.JString("layout") && latest.operation == "APPEND")
    assert(latest.files.filter(f => !version(2).livePaths.contains(f.path)).map(_.block) == Seq(3L))
    assert(TreeLayoutRows(latest)(3) == 45.0) // 75..99 and the 20 appended
    assert(tableRows == (0L until 120L))
    // the first attempt's file is gone: the root holds the live files and those the rewrite replaced
    assert(dataFiles == latest.livePaths ++ version(1).livePaths && stagingLeft.isEmpty)
  }

  test("two layout changes of the same blocks: the loser fails with a typed conflict and leaves nothing behind") {
    create()
    Failpoints.armAction("optimize.afterMetadata", 0, () => rewriteBlock1(1))
    val lost = intercept[ConcurrentTableChange](rewriteBlock1(1))
    assert(lost.conflict.contains(Conflict.FilesRemoved) && lost.getMessage.contains("was not committed"))
    assert(latest.version == 2 && tableRows == (0L until 100L))
    assert(dataFiles == version(2).livePaths ++ version(1).livePaths && stagingLeft.isEmpty)
    assert(latest.livePaths.subsetOf(metadataPaths)) // the winner's files have their metadata back
  }

  for (step <- Seq("afterWrite", "afterMetadata")) {
    test(s"an append killed at append.$step commits nothing and its files are never read") {
      create()
      Failpoints.arm(s"append.$step")
      intercept[InjectedFailure](Append.run(spark, root, rows(100, 20)))
      assert(latest.version == 1 && tableRows == (0L until 100L))
      assert(dataFiles.size > latest.files.size) // a kill cleans nothing up; the files are no version's
      assert(Append.run(spark, root, rows(100, 20)).version == 2 && tableRows == (0L until 120L))
    }

    test(s"an append failing at append.$step removes exactly what it wrote") {
      create()
      Failpoints.armError(s"append.$step", 0)
      val failed = intercept[TableWriteFailed](Append.run(spark, root, rows(100, 20)))
      assert(failed.getMessage.contains(s"append to $root failed and committed nothing") &&
        failed.getMessage.contains(s"append.$step"))
      assert(latest.version == 1 && tableRows == (0L until 100L))
      assert(dataFiles == latest.livePaths && stagingLeft.isEmpty)
    }
  }

  test("an append killed after its commit is committed") {
    create()
    Failpoints.arm("append.afterCommit")
    intercept[InjectedFailure](Append.run(spark, root, rows(100, 20)))
    assert(latest.version == 2 && tableRows == (0L until 120L) && dataFiles == latest.livePaths)
  }

  test("a commit that fails after its log entry was published reports what it committed and keeps its files") {
    create()
    Failpoints.armError("log.afterPublish", 0)
    assert(Append.run(spark, root, rows(100, 20)) == AppendResult(2, 20, 1))
    assert(latest.version == 2 && tableRows == (0L until 120L) && dataFiles == latest.livePaths)
  }

  test("files that do not hold the rows routed are never committed") {
    create()
    val before = latest.livePaths
    // another process replaces the append's new file with one of a single row as it lands
    Failpoints.armAction("append.afterWrite", 0, () => {
      val one = Files.createTempDirectory("skipstone-one-row")
      rows(500, 1).coalesce(1).write.mode("overwrite").parquet(one.toString)
      val part = one.toFile.listFiles().find(_.getName.endsWith(".parquet")).get
      dataFiles.filterNot(before.contains).foreach { name =>
        Files.copy(part.toPath, dir.resolve(name), java.nio.file.StandardCopyOption.REPLACE_EXISTING)
        Files.deleteIfExists(dir.resolve(s".$name.crc")) // Hadoop's checksum of the old bytes
      }
    })
    val mismatch = intercept[RowCountMismatch](Append.run(spark, root, rows(100, 20)))
    assert(mismatch.getMessage.contains("20 rows were routed but the files written hold 1") &&
      mismatch.getMessage.endsWith("nothing was committed"))
    assert(latest.version == 1 && tableRows == (0L until 100L) && dataFiles == before)
  }

  test("a compaction on the transaction rewrites a fragmented block into one file") {
    create()
    Append.run(spark, root, rows(0, 10))
    Append.run(spark, root, rows(10, 10))
    val compacted = Compaction.run(spark, root, 3).get
    assert(compacted.strategy == "compaction" && compacted.filesAdded == 1 && compacted.rowsRewritten == 70)
    assert(latest.files.count(_.block == 0) == 1 && tableRows == ((0L until 100L) ++ (0L until 20L)).sorted)
    assert(latest.layout == version(3).layout) // a compaction keeps the layout
  }

  test("an append's columns are matched by name and refused by name") {
    create()
    val reordered = spark.range(100, 103).select((col("id") % 7).as("b"), col("id").as("a"))
    assert(Append.run(spark, root, reordered).rows == 3)
    val missing = intercept[IllegalArgumentException](Append.run(spark, root, spark.range(3).select(col("id").as("a"))))
    assert(missing.getMessage == s"append to $root: column b (bigint) is missing")
    val extra = intercept[IllegalArgumentException](Append.run(spark, root, rows(0, 3).withColumn("c", col("a"))))
    assert(extra.getMessage == s"append to $root: columns ['c'] are not in the table")
    val typed = intercept[IllegalArgumentException](Append.run(spark, root, rows(0, 3).withColumn("b", col("b").cast("int"))))
    assert(typed.getMessage == s"append to $root: column b is int, the table's is bigint")
  }

  /** Each block's rows as the snapshot's tree layout records them. */
  private object TreeLayoutRows {
    def apply(s: Snapshot): Map[Int, Double] = io.skipstone.layout.LayoutDocument.read(s.layout) match {
      case t: TreeLayout => t.root.leaves.map(l => l.block -> l.rows).toMap
      case other => fail(s"not a tree: $other")
    }
  }
}

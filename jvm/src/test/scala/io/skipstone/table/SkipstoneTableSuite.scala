package io.skipstone.table

import java.nio.file.Files

import org.apache.spark.sql.DataFrame
import org.json4s.JsonDSL._
import org.json4s.jackson.JsonMethods.{compact, render}
import org.scalatest.funsuite.AnyFunSuite

import io.skipstone.indexing.IndexRequest
import io.skipstone.layout.LayoutDocument

/**
 * The managed table as a Scala user holds it, on real local Spark: a handle that keeps nothing
 * but the table's root (two handles see each other's commits at once), its state as DataFrames,
 * appends, one strategy loop whose `layout` strategy asks a policy (Scala's, or Python's JSON),
 * the automatic optimize after an append, properties and vacuum.
 */
class SkipstoneTableSuite extends AnyFunSuite with TwoBlockTableFixtures {
  protected def rootPrefix: String = "skipstone-table"

  /** Splits block 1 whatever the workload: the `layout` strategy always has something to do. */
  private val splitBlock1: LayoutPolicy = (_, _, base) =>
    Option.when(base.files.exists(_.block == 1L))(ProposedChange(fourCuts, Seq(1L), "SplitBlock1", 10.0, 2.0,
      "split block 1 at 74"))

  /** A table of a = 0..99 in two blocks, opened by a fresh handle. */
  private def created(): SkipstoneTable = {
    Create.run(spark, root, rows(0, 100), twoBlocks, Map("format" -> "parquet", "schema" -> rows(0, 1).schema.json,
      "layout.spec" -> """{"kind": "KdTree", "columns": ["a"]}""", "layout.blockRows" -> "50",
      "layout.sample" -> "none"), Seq(IndexRequest("minmax", Seq("a"), Map.empty)))
    SkipstoneTable.forPath(spark, dir.toString)
  }

  private def as(df: DataFrame): Seq[Long] = df.select("a").collect().map(_.getLong(0)).sorted.toSeq

  test("forPath qualifies the path and refuses a directory that is no managed table, naming it") {
    val t = created()
    assert(t.root == root && t.version == 1L && t.toString == s"SkipstoneTable($root)")
    val plain = Files.createTempDirectory("skipstone-plain")
    val refused = intercept[IllegalArgumentException](SkipstoneTable.forPath(spark, plain.toString))
    assert(refused.getMessage == s"file:$plain is not a Skipstone table (no log under file:$plain/_skipstone/log)")
  }

  test("a handle keeps no state: another handle's commit, or SQL's, is what it reads next") {
    val first = created()
    val second = SkipstoneTable.forPath(spark, root)
    second.append(rows(100, 10))
    assert(first.version == 2L && first.snapshot.totalRows == 110L && first.files().count() == 3L)
    spark.sql(s"ALTER TABLE parquet.`$root` SET TBLPROPERTIES ('owner' = 'sales')")
    assert(first.version == 3L && first.properties()("owner") == "sales")
  }

  test("the table's state is DataFrames: history, files, detail, workload") {
    val t = created()
    t.append(rows(100, 10))
    assert(t.history().select("version", "operation").collect().map(r => (r.getLong(0), r.getString(1))).toSeq ==
      Seq((1L, "CREATE"), (2L, "APPEND")))
    val files = t.files().collect()
    assert(files.map(_.getAs[Long]("rows")).sum == 110L && files.map(_.getAs[String]("path")).toSet == t.snapshot.livePaths)
    val detail = t.detail().collect().head
    assert((detail.getAs[Long]("version"), detail.getAs[Long]("numFiles"), detail.getAs[Long]("numRows"),
      detail.getAs[String]("layout"), detail.getAs[String]("location")) == ((2L, 3L, 110L, "KdTree", root)))
    spark.read.parquet(root).where("a < 5").collect()
    val logged = t.workload().where("predicate IS NOT NULL").collect().map(_.getAs[String]("predicate"))
    assert(logged.exists(_.contains("\"a\"")))
  }

  test("read gives the newest version, or one by number or commit time") {
    val t = created()
    val createdAt = new java.sql.Timestamp(t.snapshot.timestampMillis).toString
    t.append(rows(100, 10))
    assert(as(t.read()) == (0L until 110L) && as(t.read(1L)) == (0L until 100L))
    assert(as(t.read(createdAt)) == (0L until 100L))
  }

  test("optimize runs the first strategy with work: compaction of the blocks appends fragmented") {
    val t = created()
    t.append(rows(0, 10))
    t.append(rows(10, 10))
    val compacted = t.optimize().get
    assert(compacted.strategy == "compaction" && compacted.version == 4L && compacted.rowsRewritten == 70L)
    assert(t.snapshot.files.count(_.block == 0L) == 1 && as(t.read()) == ((0L until 100L) ++ (0L until 20L)).sorted)
    // nothing fragmented is left, and without a policy the layout strategy is skipped
    assert(t.optimize().isEmpty && t.version == 4L)
  }

  test("the layout strategy commits what a Scala policy proposes, as the history shows it") {
    val t = created()
    val done = t.optimize(splitBlock1).get
    assert((done.strategy, done.benefit, done.cost, done.filesRemoved, done.rowsRewritten) == (("layout", 10.0, 2.0, 1L, 50L)))
    val last = t.history().collect().last
    assert((last.getAs[String]("policy"), last.getAs[String]("reason")) ==
      (("SplitBlock1", "policy SplitBlock1: split block 1 at 74")))
    assert(t.snapshot.files.map(_.block).toSet == Set(0L, 2L, 3L) && as(t.read()) == (0L until 100L))
    assert(t.optimize(splitBlock1).isEmpty) // block 1 is gone: the policy proposes nothing
  }

  test("a Python policy's JSON is a proposal, and its error fails the optimize before anything is written") {
    val t = created()
    // as skipstone.table.optimize.change_document writes it: a NaN benefit spelled as Python does
    val proposal = compact(render(("layout" -> LayoutDocument.toJson(fourCuts)) ~ ("rewritten" -> Seq(1L)) ~
      ("info" -> (("policy" -> "Py") ~ ("benefit" -> "nan")))))
    val failing: PythonPolicy = (_, _, _) => """{"error": "ValueError: boom"}"""
    val failed = intercept[PolicyFailed](t.optimize(PythonPolicy.asLayoutPolicy(failing)))
    assert(failed.getMessage == "ValueError: boom" && t.version == 1L)
    val answered: PythonPolicy = (_, _, baseVersion) => if (baseVersion == 1L) proposal else null
    val done = t.optimize(PythonPolicy.asLayoutPolicy(answered)).get
    assert(done.version == 2L && done.benefit.isNaN && t.history().collect().last.isNullAt(3)) // benefit: NaN is no number
  }

  test("with optimize.auto an append runs one iteration after its commit") {
    val t = created()
    t.setProperties(Map("optimize.auto" -> "true", "optimize.strategies" -> "compaction"))
    val appended = t.append(rows(100, 10))
    assert(appended.version == 3L && appended.optimize.map(_.strategy).contains("compaction") &&
      appended.optimizeError.isEmpty && t.version == 4L)
  }

  test("an automatic optimize that fails leaves the append committed and says why") {
    val t = created()
    t.setProperties(java.util.Map.of("optimize.auto", "true", "optimize.strategies", "compaction"))
    Failpoints.armError("optimize.compaction.afterWrite", 0)
    val appended = t.append(rows(100, 10))
    assert(appended.version == 3L && appended.rows == 10L && appended.optimize.isEmpty)
    assert(appended.optimizeError.exists(_.contains("optimize.compaction.afterWrite")))
    assert(t.version == 3L && as(t.read()) == (0L until 110L))
  }

  test("properties show each setting's default; a refused key commits nothing") {
    val t = created()
    assert(t.properties()("optimize.strategies") == "unindexed,compaction,layout" && t.retentionHours == 168.0)
    val refused = intercept[IllegalArgumentException](t.setProperties(Map("optimise.auto" -> "true")))
    assert(refused.getMessage.contains("did you mean 'optimize.auto'") && t.version == 1L)
  }

  test("vacuum deletes what no retained version needs, and a dry run only lists it") {
    val t = created()
    t.optimize(splitBlock1) // the create's file of block 1 is no longer live
    intercept[VacuumRefused](t.vacuum(0.0, dryRun = true, force = false))
    val listed = t.vacuum(0.0, dryRun = true, force = true).where("kind = 'data'").count()
    assert(listed == 1L && t.vacuum(0.0, dryRun = false, force = true).where("kind = 'data'").count() == 1L)
    assert(t.vacuum().count() == 0L && as(t.read()) == (0L until 100L))
  }
}

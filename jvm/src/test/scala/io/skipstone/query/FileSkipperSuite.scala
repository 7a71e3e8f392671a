package io.skipstone.query

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.caseInsensitiveResolution
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.execution.datasources.{FileStatusWithMetadata, PartitionDirectory}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import io.skipstone.metadata.{DatasetIndex, HandMadeMetadata, IndexSpec, LoadedMetadata, ReadContext}

/**
 * `FileSkipper.prune` over a hand-made metadata version of four files of a column `temp`
 * (MinMax and ValueList), listed as Spark would list them.
 */
class FileSkipperSuite extends AnyFunSuite {
  private val dataSchema = StructType(Seq(StructField("temp", DoubleType)))
  private val temp = AttributeReference("temp", DoubleType)()
  private val built = HandMadeMetadata.parquetRead(dataSchema)

  private val minMax = IndexSpec("minmax", Seq("temp"), Seq(DoubleType),
    Map("min" -> "temp_min", "max" -> "temp_max", "nulls" -> "temp_nulls"), Map.empty, Some("MinMax(temp)"))
  private val valueList = IndexSpec("valuelist", Seq("temp"), Seq(DoubleType),
    Map("values" -> "temp_values", "nulls" -> "temp_nulls"), Map.empty, Some("ValueList(temp)"))

  /** (min, max, distinct values, rows) per file; file 3 has no rows. */
  private val files: Seq[(Double, Double, Seq[Double], Long)] = Seq(
    (1.0, 3.0, Seq(1.0, 3.0), 10L), (5.0, 9.0, Seq(5.0, 9.0), 10L), (20.0, 30.0, Seq(20.0, 25.0, 30.0), 10L), (0.0, 0.0, Nil, 0L))

  private def metadata(context: Option[ReadContext] = Some(built),
                       withheld: Seq[(IndexSpec, String)] = Nil): LoadedMetadata = {
    val fields = Seq(StructField("temp_min", DoubleType), StructField("temp_max", DoubleType),
      StructField("temp_nulls", LongType), StructField("temp_values", ArrayType(DoubleType)))
    val rows = files.zipWithIndex.map { case ((lo, hi, values, n), i) =>
      InternalRow(UTF8String.fromString(HandMadeMetadata.path(i)), size(i), 1L, n, lo, hi, 0L,
        org.apache.spark.sql.catalyst.util.ArrayData.toArrayData(values.toArray))
    }
    HandMadeMetadata(Seq(minMax, valueList), fields, rows, context, withheld)
  }

  private def size(file: Int): Long = 1000L + file

  private def listed(file: Int, length: Long = -1L): FileStatusWithMetadata =
    FileStatusWithMetadata(new FileStatus(if (length < 0) size(file) else length, false, 1, 1L, 1L,
      new Path(HandMadeMetadata.path(file))))

  private def listing(statuses: FileStatusWithMetadata*): Seq[PartitionDirectory] =
    Seq(PartitionDirectory(InternalRow.empty, statuses))

  private val allFiles = listing(files.indices.map(listed(_)): _*)

  private def skipper(condition: Expression, read: ReadContext = built, schema: StructType = dataSchema,
                      verification: SkipVerification = SkipVerification.Trusted,
                      loaded: LoadedMetadata = metadata()): FileSkipper =
    new FileSkipper(loaded, condition, QueryRead(schema, read, caseInsensitiveResolution), verification)

  private def names(dirs: Seq[PartitionDirectory]): Seq[String] =
    dirs.flatMap(_.files).map(f => f.getPath.getName)

  test("a partial index's files outside its WHERE are read, whatever their index columns hold") {
    val fields = Seq(StructField("temp_min", DoubleType), StructField("temp_max", DoubleType),
      StructField("temp_nulls", LongType), StructField(DatasetIndex.OutsideWhere, BooleanType))
    // file 0: outside, no summary; 1: inside; 2: outside with a summary that would rule it out; 3: cannot tell
    val rows = Seq[(java.lang.Double, java.lang.Double, java.lang.Boolean)](
      (null, null, true), (5.0, 9.0, false), (20.0, 30.0, true), (20.0, 30.0, null)).zipWithIndex.map {
      case ((lo, hi, outside), i) => InternalRow(UTF8String.fromString(HandMadeMetadata.path(i)), size(i), 1L, 10L,
        lo, hi, if (lo == null) null else 0L, outside)
    }
    val partial = HandMadeMetadata(Seq(minMax), fields, rows, Some(built))
    val (kept, stats) = skipper(GreaterThan(temp, Literal(100.0)), loaded = partial).prune(allFiles)
    assert(names(kept) == Seq("part-0.parquet", "part-2.parquet", "part-3.parquet"))
    assert((stats.filesSkipped, stats.filesOutsideWhere, stats.filesUnindexed) == (1, 3, 0))
  }

  test("files the metadata rules out are dropped from the listing, and the rest kept in order") {
    val (kept, _) = skipper(GreaterThan(temp, Literal(4.0))).prune(allFiles)
    assert(names(kept) == Seq("part-1.parquet", "part-2.parquet"))
  }

  test("the stats count files, bytes and rows skipped") {
    val (_, stats) = skipper(GreaterThan(temp, Literal(4.0))).prune(allFiles)
    assert(stats.filesTotal == 4 && stats.filesSkipped == 2)
    assert(stats.bytesTotal == (0 until 4).map(size).sum)
    assert(stats.bytesSkipped == size(0) + size(3))
    assert(stats.rowsSkipped == 10L)
    assert(stats.filesUnindexed == 0)
  }

  test("each index is credited with the files it rules out alone") {
    // Both rule out files 0 and 2 by themselves; file 1's range [5, 9] holds 7, its values do
    // not: only ValueList rules it out. The empty file is skipped by its row count, no index.
    val (_, stats) = skipper(EqualTo(temp, Literal(7.0))).prune(allFiles)
    assert(stats.skippedByIndex.toMap == Map("MinMax(temp)" -> 2L, "ValueList(temp)" -> 3L))
  }

  test("a file with no rows is skipped whatever the condition") {
    val (kept, _) = skipper(Literal(true)).prune(allFiles)
    assert(names(kept) == Seq("part-0.parquet", "part-1.parquet", "part-2.parquet"))
  }

  test("a file whose listed size differs from the indexed one is read and counted unindexed") {
    val (kept, stats) = skipper(GreaterThan(temp, Literal(100.0))).prune(listing(listed(0, length = 5L), listed(1)))
    assert(names(kept) == Seq("part-0.parquet"))
    assert(stats.filesUnindexed == 1)
  }

  test("a table log's listing (Delta's) identifies a file by path and size, whatever time it records") {
    val loggedLater = FileStatusWithMetadata(new FileStatus(size(0), false, 1, 1L, 99L, new Path(HandMadeMetadata.path(0))))
    val byLog = new FileSkipper(metadata(), GreaterThan(temp, Literal(100.0)),
      QueryRead(dataSchema, built, caseInsensitiveResolution, byPathAndSize = true), SkipVerification.Trusted)
    val (kept, stats) = byLog.prune(listing(loggedLater))
    assert(names(kept).isEmpty && stats.filesSkipped == 1)
    // a plain listing with another modification time is another file
    val (read, _) = skipper(GreaterThan(temp, Literal(100.0))).prune(listing(loggedLater))
    assert(names(read) == Seq("part-0.parquet"))
  }

  test("a table log's listing with another size for an indexed path reads the file") {
    val byLog = new FileSkipper(metadata(), GreaterThan(temp, Literal(100.0)),
      QueryRead(dataSchema, built, caseInsensitiveResolution, byPathAndSize = true), SkipVerification.Trusted)
    val (kept, stats) = byLog.prune(listing(listed(0, length = 5L)))
    assert(names(kept) == Seq("part-0.parquet") && stats.filesUnindexed == 1)
  }

  test("a file the metadata does not know is read and counted unindexed") {
    val stranger = FileStatusWithMetadata(new FileStatus(7L, false, 1, 1L, 1L, new Path(s"${HandMadeMetadata.Root}/new.parquet")))
    val (kept, stats) = skipper(GreaterThan(temp, Literal(100.0))).prune(listing(stranger, listed(0)))
    assert(names(kept) == Seq("new.parquet"))
    assert(stats.filesUnindexed == 1 && stats.filesSkipped == 1)
  }

  test("a partition directory left without files is dropped") {
    val dirs = Seq(PartitionDirectory(InternalRow(1), Seq(listed(0))), PartitionDirectory(InternalRow(2), Seq(listed(2))))
    val (kept, _) = skipper(GreaterThan(temp, Literal(10.0))).prune(dirs)
    assert(kept.map(_.values.getInt(0)) == Seq(2))
  }

  test("metadata built under another read skips nothing and says why") {
    val s = skipper(GreaterThan(temp, Literal(100.0)), read = built.copy(format = "orc"))
    val (kept, stats) = s.prune(allFiles)
    assert(stats.filesSkipped == 0 && names(kept).size == 4)
    assert(s.unanswered.exists(_.contains("MinMax(temp) not used: metadata built for format parquet, read as orc")))
  }

  test("metadata that did not record its read skips nothing") {
    val (_, stats) = skipper(GreaterThan(temp, Literal(100.0)), loaded = metadata(context = None)).prune(allFiles)
    assert(stats.filesSkipped == 0)
  }

  test("an index over a column the query reads with another type is not used") {
    val asText = StructType(Seq(StructField("temp", StringType)))
    val s = skipper(GreaterThan(temp, Literal(100.0)), read = built.copy(dataSchema = asText), schema = asText)
    assert(s.prune(allFiles)._2.filesSkipped == 1) // only the empty file: row counts still hold
    assert(s.unanswered.exists(_.contains("was built for columns of type double")))
  }

  test("a file about to be skipped is read when the file system cannot confirm it unchanged") {
    // The listed paths do not exist on this machine: nothing confirms them, so nothing is skipped.
    val (kept, stats) = skipper(GreaterThan(temp, Literal(100.0)), verification = SkipVerification.FileSystem(new Configuration()))
      .prune(allFiles)
    assert(names(kept).size == 4)
    assert(stats.filesSkipped == 0 && stats.filesUnindexed == 4)
  }

  test("an index withheld for want of its key answers nothing, and the stats say why first") {
    val why = "ValueList(temp) not used: key 'k_temp' is not available to this session"
    val skipper = this.skipper(EqualTo(temp, Literal(7.0)), loaded = metadata(withheld = Seq(valueList -> why)))
    val (kept, stats) = skipper.prune(allFiles)
    // MinMax alone: file 1's range [5, 9] holds 7, so it is read; ValueList would rule it out
    assert(names(kept) == Seq("part-1.parquet"))
    assert(stats.skippedByIndex.toMap == Map("MinMax(temp)" -> 2L))
    assert(stats.unanswered.head == why)
  }

  test("a condition no index answers is useless and its leaf is reported") {
    val other = AttributeReference("station", StringType)()
    val s = skipper(EqualTo(other, Literal("x")))
    assert(!s.isUseful)
    assert(s.unanswered == Seq("(station = 'x')"))
  }
}

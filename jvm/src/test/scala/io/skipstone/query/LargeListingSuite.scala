package io.skipstone.query

import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.caseInsensitiveResolution
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.execution.datasources.{FileStatusWithMetadata, PartitionDirectory}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import io.skipstone.metadata.{HandMadeMetadata, IndexSpec}

/**
 * `FileSkipper.prune` over a listing large enough to be pruned in parallel chunks (see
 * [[Chunks]]): a hand-made MinMax version of 40,000 files, file i holding k = 1000 i .. 1000 i + 999.
 */
class LargeListingSuite extends AnyFunSuite {
  private val Files = 40000
  private val dataSchema = StructType(Seq(StructField("k", LongType)))
  private val k = AttributeReference("k", LongType)()

  private val metadata = {
    val minMax = IndexSpec("minmax", Seq("k"), Seq(LongType),
      Map("min" -> "k_min", "max" -> "k_max", "nulls" -> "k_nulls"), Map.empty, Some("MinMax(k)"))
    val fields = Seq(StructField("k_min", LongType), StructField("k_max", LongType), StructField("k_nulls", LongType))
    val rows = (0 until Files).map { i =>
      InternalRow(UTF8String.fromString(HandMadeMetadata.path(i)), 1000L, 1L, 1000L, 1000L * i, 1000L * i + 999, 0L)
    }
    HandMadeMetadata(Seq(minMax), fields, rows, Some(HandMadeMetadata.parquetRead(dataSchema)))
  }

  private val listing: Seq[FileStatusWithMetadata] = (0 until Files).map { i =>
    FileStatusWithMetadata(new FileStatus(1000L, false, 1, 1L, 1L, new Path(HandMadeMetadata.path(i))))
  }

  /** The numbers of the files pruning keeps of `files` for lo <= k <= hi, sorted. */
  private def kept(files: Seq[FileStatusWithMetadata], lo: Long, hi: Long): Seq[Int] = {
    val condition = And(GreaterThanOrEqual(k, Literal(lo)), LessThanOrEqual(k, Literal(hi)))
    val skipper = new FileSkipper(metadata, condition, QueryRead(dataSchema, HandMadeMetadata.parquetRead(dataSchema),
      caseInsensitiveResolution), SkipVerification.Trusted)
    val (dirs, _) = skipper.prune(Seq(PartitionDirectory(InternalRow.empty, files)))
    dirs.flatMap(_.files).map(_.getPath.getName.stripPrefix("part-").stripSuffix(".parquet").toInt).sorted
  }

  // Files 12,345 .. 12,845 meet the range.
  private val (lo, hi) = (12345678L, 12845999L)

  test("a large listing in the version's order keeps exactly the files that may match") {
    assert(kept(listing, lo, hi) == (12345 to 12845))
  }

  test("a large listing in another order keeps exactly the files that may match") {
    // Each chunk guesses that the next listed file is the version's next one; shuffled, every
    // guess misses and the path table answers.
    assert(kept(new scala.util.Random(7).shuffle(listing), lo, hi) == (12345 to 12845))
  }
}

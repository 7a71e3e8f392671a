package io.skipstone.query

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{And, AttributeReference, BindReferences, Coalesce, EqualTo, Expression, Literal, Not, Or, Predicate}
import org.apache.spark.sql.classic.{Dataset => ClassicDataset}
import org.apache.spark.unsafe.types.UTF8String

import io.skipstone.metadata.{DatasetIndex, FileIdentity, LoadedMetadata}

/**
 * Evaluates a clause as a Spark job over the metadata table, for versions too large to hold on
 * the driver (see `spark.skipstone.distributedEvaluation.minFiles`): executors read only the
 * columns the clause needs and send back the few base columns of the files it rules out.
 *
 * It runs when the wrapped relation lists its files, that is when the query executes (Spark
 * lists files there too, with a job of its own past `parallelPartitionDiscovery.threshold`),
 * never in the optimizer: size estimates of such versions do without skipping.
 */
object DistributedEvaluation {
  /** What the metadata says of a file it rules out. */
  case class RuledOut(identity: FileIdentity, numRows: Long)

  /**
   * Files whose metadata rules them out under `clause` (None: only files with no rows), by path.
   *
   * @param rowCountsHold whether files indexed as empty are empty for this read too
   */
  def ruledOut(session: SparkSession, metadata: LoadedMetadata, table: String,
               clause: Option[Expression], rowCountsHold: Boolean): collection.Map[String, RuledOut] = {
    val base = Seq(LoadedMetadata.Path, LoadedMetadata.Size, LoadedMetadata.ModificationTime, LoadedMetadata.NumRows) ++
      Option(LoadedMetadata.Fingerprint).filter(metadata.schema.fieldNames.contains) ++
      Option(DatasetIndex.OutsideWhere).filter(metadata.schema.fieldNames.contains)
    // Bloom filters' memo of decoded cells is transient: executors decode their own.
    val portable = clause
    val needed = (base ++ portable.toSeq.flatMap(_.references.map(_.name))).distinct
    val attributes: Seq[AttributeReference] = needed.map(metadata.attribute)
    val numRows = attributes.find(_.name == LoadedMetadata.NumRows).get
    val outside = attributes.find(_.name == DatasetIndex.OutsideWhere)
    val empty: Expression = if (rowCountsHold) EqualTo(numRows, Literal(0L)) else Literal(false)
    val ruling = portable.fold(empty) { c => Or(empty, Not(Coalesce(Seq(c, Literal(true))))) }
    // a partial index's files outside its WHERE have no summary: never ruled out
    val condition = outside.fold(ruling)(o => And(Not(Coalesce(Seq(o, Literal(true)))), ruling))
    val bound = BindReferences.bindReference(condition, attributes)
    val hasFingerprint = needed.contains(LoadedMetadata.Fingerprint)
    val df = session.read.schema(metadata.schema).parquet(table).select(needed.map(org.apache.spark.sql.functions.col): _*)
    val rdd = df.asInstanceOf[ClassicDataset[_]].queryExecution.toRdd
    val sc = session.sparkContext
    val previous = sc.getLocalProperty("spark.job.description")
    sc.setJobDescription(s"Skipstone: evaluating a filter over ${metadata.filesInTable} files' metadata of " +
      metadata.definition.datasetRoot)
    try {
      val batches = rdd.mapPartitions { rows =>
        val keep = Predicate.create(bound)
        val batch = new RuledOutBatch.Builder
        rows.foreach { r =>
          if (keep.eval(r)) batch.add(r.getUTF8String(0), r.getLong(1), r.getLong(2), r.getLong(3),
            if (hasFingerprint && !r.isNullAt(4)) r.getUTF8String(4).toString else null)
        }
        Iterator.single(batch.result())
      }.collect()
      val byPath = new java.util.HashMap[String, RuledOut](math.max(16, batches.map(_.size).sum * 4 / 3 + 1))
      batches.foreach(_.addTo(byPath))
      byPath.asScala
    }
    finally sc.setLocalProperty("spark.job.description", previous)
  }
}

/**
 * The files one partition of the metadata rules out, as columns: a million ruled-out files
 * travel to the driver as a few arrays per partition (their paths as one run of UTF-8 bytes),
 * not a million serialized objects. Paths are as the metadata stores them, canonical, which is
 * also how the driver's own evaluation finds them.
 */
final class RuledOutBatch(pathBytes: Array[Byte], pathEnds: Array[Int], sizes: Array[Long], modificationTimes: Array[Long],
                          rows: Array[Long], fingerprints: Array[String]) extends Serializable {
  def size: Int = pathEnds.length

  def addTo(byPath: java.util.Map[String, DistributedEvaluation.RuledOut]): Unit = {
    var i = 0
    var start = 0
    while (i < pathEnds.length) {
      val path = new String(pathBytes, start, pathEnds(i) - start, java.nio.charset.StandardCharsets.UTF_8)
      byPath.put(path, DistributedEvaluation.RuledOut(FileIdentity(sizes(i), modificationTimes(i), Option(fingerprints(i))), rows(i)))
      start = pathEnds(i)
      i += 1
    }
  }
}

object RuledOutBatch {
  final class Builder {
    private val pathBytes = new java.io.ByteArrayOutputStream()
    private val pathEnds = ArrayBuffer.empty[Int]
    private val sizes, modificationTimes, rows = ArrayBuffer.empty[Long]
    private val fingerprints = ArrayBuffer.empty[String]

    def add(path: UTF8String, size: Long, modificationTime: Long, numRows: Long, fingerprint: String): Unit = {
      path.writeTo(pathBytes)
      pathEnds += pathBytes.size
      sizes += size; modificationTimes += modificationTime; rows += numRows; fingerprints += fingerprint
    }

    def result(): RuledOutBatch = new RuledOutBatch(pathBytes.toByteArray, pathEnds.toArray, sizes.toArray,
      modificationTimes.toArray, rows.toArray, fingerprints.toArray)
  }
}

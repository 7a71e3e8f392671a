package io.skipstone.query

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, BindReferences, Coalesce, EqualTo, Expression, Literal, Not, Or, Predicate}
import org.apache.spark.sql.classic.{Dataset => ClassicDataset}

import io.skipstone.metadata.{FileIdentity, FilePaths, LoadedMetadata}

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

  /** Files whose metadata rules them out under `clause` (None: only files with no rows), by path. */
  def ruledOut(session: SparkSession, metadata: LoadedMetadata, table: String,
               clause: Option[Expression]): Map[String, RuledOut] = {
    val base = Seq(LoadedMetadata.Path, LoadedMetadata.Size, LoadedMetadata.ModificationTime, LoadedMetadata.NumRows) ++
      Option(LoadedMetadata.Fingerprint).filter(metadata.schema.fieldNames.contains)
    // Bloom filters' memo of decoded cells is transient: executors decode their own.
    val portable = clause
    val needed = (base ++ portable.toSeq.flatMap(_.references.map(_.name))).distinct
    val attributes: Seq[AttributeReference] = needed.map(metadata.attribute)
    val numRows = attributes.find(_.name == LoadedMetadata.NumRows).get
    val condition = portable.fold[Expression](EqualTo(numRows, Literal(0L))) { c =>
      Or(EqualTo(numRows, Literal(0L)), Not(Coalesce(Seq(c, Literal(true)))))
    }
    val bound = BindReferences.bindReference(condition, attributes)
    val hasFingerprint = needed.contains(LoadedMetadata.Fingerprint)
    val df = session.read.schema(metadata.schema).parquet(table).select(needed.map(org.apache.spark.sql.functions.col): _*)
    val rdd = df.asInstanceOf[ClassicDataset[_]].queryExecution.toRdd
    val sc = session.sparkContext
    val previous = sc.getLocalProperty("spark.job.description")
    sc.setJobDescription(s"Skipstone: evaluating a filter over ${metadata.filesInTable} files' metadata of " +
      metadata.definition.datasetRoot)
    try rdd.mapPartitions { rows =>
      val keep = Predicate.create(bound)
      rows.filter(keep.eval).map { r =>
        val fingerprint = if (hasFingerprint && !r.isNullAt(4)) Some(r.getUTF8String(4).toString) else None
        FilePaths.canonical(r.getUTF8String(0).toString) -> RuledOut(FileIdentity(r.getLong(1), r.getLong(2), fingerprint), r.getLong(3))
      }
    }.collect().toMap
    finally sc.setLocalProperty("spark.job.description", previous)
  }
}

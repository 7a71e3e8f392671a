package io.skipstone.table

import java.text.SimpleDateFormat
import java.util.{Date, UUID}

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.json4s.JsonDSL._

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.{col, try_element_at, typedLit}
import org.apache.spark.sql.types.{DataType, StructType}

import io.skipstone.indexing.IndexBuild
import io.skipstone.metadata.{BuildSource, MetadataStore}

/**
 * The compaction strategy of continuous optimization: each selected block's files are rewritten
 * into as few files as its rows need. A block's rows are already in the block, so nothing is
 * routed and the layout does not change; this commutes with appends and with layout changes to
 * other blocks. The one implementation: Python's `t.optimize()` and SQL's `OPTIMIZE` call it.
 *
 * Steps, each followed by a failpoint (docs/maintenance.md): write the new files
 * (`optimize.compaction.afterWrite`), publish skipping metadata for the new version's files
 * (`.afterMetadata`), commit (`.afterCommit`).
 *
 * {{{
 *   Compaction.run(spark, "file:/data/sales", readVersion = 7)   // Some(OptimizeResult(8, ..., "compaction", ...))
 * }}}
 */
object Compaction {
  /** A file holds at most this many times the table's target block rows (Python's `MAX_BLOCK_FACTOR`). */
  val MaxBlockFactor = 2.0

  /**
   * Compacts the fragmented blocks of version `readVersion` that fit one batch, or returns None
   * when no block is fragmented.
   *
   * @param pythonRoles computes the roles of indexes that need Python for the new files; without
   *                    it, a table with such an index is refused before anything is written
   */
  def run(session: SparkSession, root: String, readVersion: Long,
          pythonRoles: Option[PythonRoles] = None): Option[OptimizeResult] = {
    val base = TableLog.read(session.sessionState.newHadoopConf(), root, readVersion)
    select(root, base).map(compact(session, root, base, _, pythonRoles))
  }

  /** [[run]] for Python: the result as JSON, null when nothing was fragmented; `pythonRoles` may be null. */
  def runFromPython(session: SparkSession, root: String, readVersion: Long, pythonRoles: PythonRoles): String =
    run(session, root, readVersion, Option(pythonRoles)).map(_.toJson).orNull

  /** The blocks of `base` one iteration compacts, or None when none is fragmented. */
  def select(root: String, base: Snapshot): Option[CompactionSelection] =
    CompactionSelection.of(base, targetRows(base), TableSettings.of(base.properties, root).batchBytes)

  private def targetRows(base: Snapshot): Double = base.properties("layout.blockRows").toDouble

  private def compact(session: SparkSession, root: String, base: Snapshot, selected: CompactionSelection,
                      pythonRoles: Option[PythonRoles]): OptimizeResult = {
    val started = System.nanoTime()
    val schema = DataType.fromJson(base.properties("schema")).asInstanceOf[StructType]
    val removed = selected.files.map(_.path).toSet
    val kept = base.files.filterNot(f => removed.contains(f.path)).map(f => absolute(root, f.path))
    val roles = if (pythonRoles.isDefined) pythonRoles else {
      val needing = PythonRoles.requiredBy(session, root, schema)
      if (needing.nonEmpty) throw new NeedsPython(s"compacting $root rewrites files whose metadata includes " +
        s"${needing.mkString(", ")}, computed by a Python function: run it from Python (t.optimize()) or the CLI " +
        s"(skipstone optimize $root)")
      None
    }
    val staging = stagingDir(root)
    val fs = staging.getFileSystem(session.sessionState.newHadoopConf())
    var written = Seq.empty[BlockFiles.Written] // set once the files exist: the cleanup deletes exactly these
    // the lease keeps a concurrent vacuum off the files this writer has not committed yet
    val lease = WriterLeases.acquire(session, root, "compaction", staging.toString, base.version)
    val committed = try {
      val rows = session.read.schema(schema).parquet(selected.files.map(f => absolute(root, f.path)): _*)
      // a block's rows are in its files: the block of a row is its file's
      val blockOfFile = typedLit(selected.files.map(f => new Path(f.path).getName -> f.block).toMap)
      written = BlockFiles.write(session, rows, try_element_at(blockOfFile, col("_metadata.file_name")),
        selected.blocks, staging, root, math.ceil(MaxBlockFactor * targetRows(base)).toLong)
      Failpoints.check("optimize.compaction.afterWrite")

      val metadataVersion = publishMetadata(session, root, kept ++ written.map(_.path), written.map(_.path), roles)
      val counts = metadataVersion.fold(Map.empty[String, Long])(rowCounts(session, root, _, written.map(_.path)))
      Failpoints.check("optimize.compaction.afterMetadata")

      val added = written.map(w => DataFile(w.name, w.identity.size, w.identity.modificationTime, w.block, counts(w.path)))
      if (added.map(_.rows).sum != selected.rows) throw new IllegalStateException(
        s"compaction of $root wrote ${added.map(_.rows).sum} rows for ${selected.rows}; nothing was committed")
      val info = ("strategy" -> "compaction") ~ ("reason" -> selected.reason) ~
        ("selected" -> removed.toSeq.sorted) ~ ("bytesRead" -> selected.bytes) ~ ("rowsRewritten" -> selected.rows) ~
        ("filesAdded" -> added.size) ~ ("filesRemoved" -> removed.size) ~ ("blocksRewritten" -> selected.blocks) ~
        ("durationMs" -> math.round((System.nanoTime() - started) / 1e5) / 10.0)
      Tables.commit(session, root, base.version,
        TableChange("OPTIMIZE", added, removed, None, metadataVersion, Map.empty, info))
    } catch {
      // not an injected failure: a killed process cleans nothing up either
      case NonFatal(e) if !e.isInstanceOf[InjectedFailure] =>
        written.foreach(w => fs.delete(new Path(new java.net.URI(w.path)), false))
        fs.delete(staging, true)
        throw e
    } finally {
      // A killed writer's lease lapses after WriterLeases.TtlMillis; a simulated kill (a test's
      // failpoint) ends it at once, so that the test can vacuum the leftovers it proves harmless.
      WriterLeases.release(session, lease)
    }
    Failpoints.check("optimize.compaction.afterCommit")
    fs.delete(staging, true)
    OptimizeResult(committed.version, 0.0, selected.rows.toDouble, selected.rows, written.size, removed.size,
      "compaction", selected.reason, selected.bytes)
  }

  /**
   * Metadata for the files of the new version, of which exactly `added` are new: the other
   * files' rows are kept, the new files' collected, as Python's `replace_metadata` does. None
   * when the version has no file at all (blocks of empty files compacted into nothing).
   */
  private def publishMetadata(session: SparkSession, root: String, live: Seq[String], added: Seq[String],
                              roles: Option[PythonRoles]): Option[Long] = Option.when(live.nonEmpty) {
    val data = session.read.parquet(live: _*)
    val subset = Option.when(added.nonEmpty)(session.read.parquet(added: _*))
    IndexBuild.replaceFiles(session, BuildSource(root, "parquet", Map.empty, None, Some(data.schema)), data,
      subset, for (r <- roles; s <- subset) yield r.compute(s))
  }

  private def rowCounts(session: SparkSession, root: String, metadataVersion: Long, paths: Seq[String]): Map[String, Long] = {
    val table = MetadataStore.tableDir(MetadataStore.versionDir(MetadataStore.metadataDir(session, root), metadataVersion))
    val wanted = paths.toSet
    session.read.parquet(table.toString).select("path", "num_rows").collect()
      .collect { case r if wanted.contains(r.getString(0)) => r.getString(0) -> r.getLong(1) }.toMap
  }

  private def absolute(root: String, relative: String): String = s"$root/$relative"

  /** A fresh directory in the container, as Python's `new_staging_dir` names them (vacuum finds them there). */
  private def stagingDir(root: String): Path = {
    val stamp = new SimpleDateFormat("yyyyMMdd-HHmmss").format(new Date())
    new Path(root, s"${TableLog.ContainerDir}/staging/compaction-$stamp-${UUID.randomUUID().toString.replace("-", "").take(12)}")
  }
}

/** A table operation needs Python (a layout policy, routing through the layout, a Python index role); says what to run. */
class NeedsPython(message: String) extends IllegalArgumentException(message)

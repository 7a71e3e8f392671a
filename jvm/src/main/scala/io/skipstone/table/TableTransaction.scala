package io.skipstone.table

import java.text.SimpleDateFormat
import java.util.{Date, UUID}

import scala.util.Try
import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, Observation, Row, SparkSession}
import org.apache.spark.sql.functions.{count, lit}
import org.apache.spark.sql.types.{DataType, StructType}
import org.json4s._

import io.skipstone.layout.{LayoutDocument, LayoutRouting}

/**
 * The one way a table is written, in the spirit of Delta's `OptimisticTransaction`: opened on a
 * version it reads (`base`; [[Snapshot.Empty]] when creating), it writes new files, publishes
 * their skipping metadata and commits a [[TableChange]], or leaves nothing behind.
 *
 * Steps, each followed by a failpoint named `<step>.<after>` (docs/maintenance.md):
 *  1. route the rows to their blocks, count them, and write one file per block into a staging
 *     directory, moved into the root (`afterWrite`);
 *  2. publish skipping metadata for every file of the new version, and read the rows of each new
 *     file from it (`afterMetadata`);
 *  3. check the new files hold exactly the rows routed, and a rewrite's the rows of the files it
 *     replaces; commit through [[Tables.commit]] (`afterCommit`).
 * From before the first file until it committed or cleaned up it holds a writer lease, so that a
 * vacuum, even a forced one, keeps its files. On a failure (a lost race included) it deletes
 * exactly the files it wrote and its staging directory, and gives the newest version's files
 * their metadata back; an injected failure (a test's kill) cleans up nothing, as a kill would.
 *
 * {{{
 *   val txn = TableTransaction.open(spark, "file:/data/sales", readVersion = 7, "append", "append to file:/data/sales")
 *   txn.commit(TableWrite("APPEND", rows, Routing.throughLayout(txn.layout), Nil, Some(txn.layout), JObject()), None)
 * }}}
 *
 * @param step how failpoints, the lease and the staging directory name the operation
 * @param what how errors name it ("append to file:/data/sales")
 */
final class TableTransaction private (private val session: SparkSession, val root: String, val base: Snapshot, val step: String,
                                      val what: String) {
  /** The table's schema as the version read records it. */
  def schema: StructType = TableTransaction.schemaOf(base.properties)
  /** The layout of the version read. */
  def layout: LayoutDocument = LayoutDocument.read(base.layout)

  /** The rows of `files` of the version read, with the table's schema (no footer read to infer it). */
  def rowsOf(files: Seq[DataFile]): DataFrame =
    if (files.isEmpty) session.createDataFrame(java.util.Collections.emptyList[Row](), schema)
    else session.read.schema(schema).parquet(files.map(f => s"$root/${f.path}"): _*)

  /**
   * Writes and commits `write`; the committed version, rows and files. Throws what went wrong
   * after cleaning up: a [[ConcurrentTableChange]] when it lost a race, a [[NeedsPython]] before
   * anything is written when the table's metadata needs `roles` and none were given, a
   * [[TableWriteFailed]] for any other failure. A commit that failed after its log entry was
   * published is committed (the log says so); when the log cannot tell, [[CommitOutcomeUnknown]]
   * keeps the files.
   */
  def commit(write: TableWrite, roles: Option[PythonRoles]): Committed = {
    val started = System.nanoTime()
    val properties = base.properties ++ write.properties
    val tableSchema = TableTransaction.schemaOf(properties)
    if (roles.isEmpty && base.version > 0) refuseWithoutPython(tableSchema)
    val staging = TableTransaction.stagingDir(root, step)
    val conf = session.sessionState.newHadoopConf()
    val fs = staging.getFileSystem(conf)
    TableLog.requireSafeCommits(conf, root) // before anything is written
    val lease = WriterLeases.acquire(session, root, step, staging.toString, base.version)
    // What this transaction made so far: its clean-up removes exactly these. Set once each exists.
    var written = Seq.empty[BlockFiles.Written]
    var published = false
    val committed = try {
      val routed = new Observation(s"skipstone-$step-${UUID.randomUUID()}")
      val rows = route(write).observe(routed, count(lit(1)).as("rows"))
      val maxRowsPerFile = math.ceil(TableTransaction.MaxBlockFactor * properties("layout.blockRows").toDouble).toLong
      written = BlockFiles.writeRouted(session, rows, TableTransaction.BlockColumn, write.routing.blocks, staging, root,
        maxRowsPerFile)
      // the write ran: the count is there, unless no task ran (no rows at all: then it is absent)
      val rowsRouted = routed.get.get("rows").fold(0L)(_.asInstanceOf[Long])
      Failpoints.check(s"$step.afterWrite")

      val removed = write.removed.map(_.path).toSet
      val kept = base.files.filterNot(f => removed.contains(f.path))
      val changed = written.nonEmpty || removed.nonEmpty
      val metadataVersion = if (!changed) None else TableMetadata.publish(session, root, tableSchema,
        kept.map(f => s"$root/${f.path}") ++ written.map(_.path), written.map(_.path), roles, write.indexes)
      published = metadataVersion.isDefined
      val counts = metadataVersion.fold(Map.empty[String, Long])(TableMetadata.rowCounts(session, root, _, written.map(_.path)))
      Failpoints.check(s"$step.afterMetadata")

      val added = written.map(w => DataFile(w.name, w.identity.size, w.identity.modificationTime, w.block,
        counts.getOrElse(w.path, throw new RowCountMismatch(s"$what: the skipping metadata has no row count of " +
          s"${w.name} (was it deleted meanwhile?); nothing was committed"))))
      checkRows(rowsRouted, added, if (write.rewritesRemoved) write.removed else Nil)
      val perBlock = (kept ++ added).groupMapReduce(_.block)(_.rows)(_ + _)
      val layout = write.layout.map(l => LayoutDocument.toJson(l.withBlockRows(b => perBlock.getOrElse(b.toLong, 0L).toDouble)))
      val done: List[JField] = (if (removed.isEmpty) List("rows" -> JLong(rowsRouted))
        else List("rowsRewritten" -> JLong(rowsRouted), "filesRemoved" -> JInt(removed.size))) ++
        List("filesAdded" -> JInt(added.size), "durationMs" -> JDouble(math.round((System.nanoTime() - started) / 1e5) / 10.0))
      val info = JObject(write.info.obj.filterNot(f => done.exists(_._1 == f._1)) ++ done)
      val change = TableChange(write.operation, added, removed, layout, metadataVersion, write.properties, info,
        write.absorbed)
      val snapshot = try Tables.commit(session, root, base.version, change) catch {
        // an error after the entry was published (the reply of a rename lost) committed all the same
        case NonFatal(e) if !e.isInstanceOf[ConcurrentTableChange] => Try(committedWith(added)).fold(
          unreadable => throw new CommitOutcomeUnknown(s"$what: the commit failed (${TableWriteFailed.reason(e)}) and " +
            s"the log cannot be read to tell whether it was published (${TableWriteFailed.reason(unreadable)}); its " +
            "files are kept: a vacuum removes them if no version lists them", e),
          _.getOrElse(throw e))
      }
      Committed(snapshot, rowsRouted, added)
    } catch {
      // not an injected failure: a killed process cleans nothing up either; and never the files
      // of a commit that may have been published
      case NonFatal(e) if !e.isInstanceOf[InjectedFailure] && !e.isInstanceOf[CommitOutcomeUnknown] =>
        written.foreach(w => Try(fs.delete(new Path(new java.net.URI(w.path)), false)))
        if (published) TableMetadata.repair(session, root, tableSchema, roles)
        Try(fs.delete(staging, true))
        throw failure(e)
    } finally {
      // A killed writer's lease lapses after WriterLeases.TtlMillis; a simulated kill (a test's
      // failpoint) ends it at once, so that the test can vacuum the leftovers it proves harmless.
      WriterLeases.release(session, lease)
    }
    Failpoints.check(s"$step.afterCommit")
    Try(fs.delete(staging, true)) // committed: a staging directory left behind is only a vacuum's to remove
    committed
  }

  /** The version after the one read that lists `added` (unique names: only this writer's commit can), if any. */
  private def committedWith(added: Seq[DataFile]): Option[Snapshot] = added.headOption.flatMap { first =>
    val conf = session.sessionState.newHadoopConf()
    TableLog.versions(conf, root).filter(_ > base.version).iterator.map(TableLog.read(conf, root, _))
      .find(_.livePaths.contains(first.path))
  }

  private def route(write: TableWrite) = write.routing match {
    case Routing.ThroughLayout(layout, _) => LayoutRouting.withBlock(write.rows, layout, TableTransaction.BlockColumn)
    case Routing.ByColumn(blockOf, _) => write.rows.withColumn(TableTransaction.BlockColumn, blockOf)
  }

  /** The new files hold the rows routed, and a rewrite routed the rows of the files it replaces. */
  private def checkRows(routed: Long, added: Seq[DataFile], removed: Seq[DataFile]): Unit = {
    val written = added.map(_.rows).sum
    if (written != routed) throw new RowCountMismatch(s"$what: $routed rows were routed but the files written " +
      s"hold $written (were files deleted meanwhile?); nothing was committed")
    val replaced = removed.map(_.rows).sum
    if (removed.nonEmpty && replaced != routed) throw new RowCountMismatch(s"$what: the files it rewrites hold " +
      s"$replaced rows by the log, but $routed were read from them; nothing was committed")
  }

  private def refuseWithoutPython(schema: StructType): Unit = {
    val needing = PythonRoles.requiredBy(session, root, schema)
    if (needing.nonEmpty) throw new NeedsPython(s"$what writes files whose skipping metadata includes " +
      s"${needing.mkString(", ")}, computed by a Python function: run it from Python (t.optimize()) or the CLI " +
      s"(skipstone optimize $root)")
  }

  /** What to throw after cleaning up: errors that say what happened as they are, others wrapped to say so. */
  private def failure(e: Throwable): Throwable = e match {
    case _: ConcurrentTableChange | _: RowCountMismatch => e
    case _ => TableWriteFailed(what, e)
  }
}

object TableTransaction {
  /** A file holds at most this many times the table's target block rows (blocks hold [b, 2b) rows). */
  val MaxBlockFactor = 2.0
  private val BlockColumn = "__skipstone_block"

  /** A transaction on version `readVersion` of `root` (0: the table is being created). */
  def open(session: SparkSession, root: String, readVersion: Long, step: String, what: String): TableTransaction =
    new TableTransaction(session, root,
      if (readVersion == 0) Snapshot.Empty else TableLog.read(session.sessionState.newHadoopConf(), root, readVersion),
      step, what)

  /** A transaction on the newest version of `root`, or an error when it is no managed table. */
  def latest(session: SparkSession, root: String, step: String, what: String): TableTransaction =
    open(session, root, TableLog.latestVersion(session.sessionState.newHadoopConf(), root).getOrElse(
      throw new NotATable(root, s"$root is not a Skipstone table (no log under ${TableLog.logDir(root)})")), step, what)

  /**
   * Runs `attempt` on `first`; when it loses only because the layout changed (its rows were
   * routed through a layout that is no longer current), runs it again on the newest version, at
   * most `maxAttempts` times in all. Any other conflict, or the last loss, is thrown.
   */
  def retryingOnLayoutChange[T](first: TableTransaction, maxAttempts: Int)(attempt: TableTransaction => T): T = {
    def run(txn: TableTransaction, attempts: Int): T =
      try attempt(txn) catch {
        case e: ConcurrentTableChange if e.conflict.contains(Conflict.LayoutChanged) =>
          if (attempts < maxAttempts) run(latest(txn.session, txn.root, txn.step, txn.what), attempts + 1)
          else throw new ConcurrentTableChange(s"${txn.what} lost $maxAttempts commits to concurrent changes: " +
            e.getMessage, e.conflict)
      }
    run(first, 1)
  }

  def schemaOf(properties: Map[String, String]): StructType =
    DataType.fromJson(properties("schema")).asInstanceOf[StructType]

  /** A fresh directory in the container for one operation's files (vacuum finds them there). */
  private[table] def stagingDir(root: String, step: String): Path = {
    val stamp = new SimpleDateFormat("yyyyMMdd-HHmmss").format(new Date())
    new Path(root, s"${TableLog.ContainerDir}/staging/${step.replace('.', '-')}-$stamp-" +
      UUID.randomUUID().toString.replace("-", "").take(12))
  }
}

/** The files written do not hold the rows they should; nothing was committed. */
class RowCountMismatch(message: String) extends IllegalStateException(message)

/** A commit failed in a way that leaves unknown whether its log entry was published. */
class CommitOutcomeUnknown(message: String, cause: Throwable) extends RuntimeException(message, cause)

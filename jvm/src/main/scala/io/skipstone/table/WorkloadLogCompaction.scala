package io.skipstone.table

import java.nio.charset.StandardCharsets

import scala.io.Source
import scala.util.Try
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.json4s._
import org.json4s.jackson.JsonMethods

import io.skipstone.table.WorkloadLogReader.LogFile

/**
 * Compacts a table's workload log, which its queries grow by one small file per burst
 * ([[WorkloadLog]]): the files become one, and records older than the table's
 * `workloadLog.retentionDays` are dropped. Every vacuum runs it ([[Vacuum]]).
 *
 * A reader sees every record exactly once, whenever it lists. The compacted file is published
 * whole by [[PutIfAbsent]] under its generation's name (`0-compacted-<n>.json`: the `0-` sorts
 * it before every file a query writes, whose names start with the millisecond, so a reader's
 * cursor past the compacted files stays valid as new files come), and its first line names the
 * files it replaces, which readers ignore from then on ([[WorkloadLogReader.CompactedFile]]);
 * they are deleted right after. Of two compactions racing for generation n exactly one
 * publishes it; the other deletes nothing. A compaction killed between publishing and deleting
 * leaves replaced files that readers ignore and the next compaction deletes. Files younger than
 * [[MinAgeMillis]] are left as they are (on a store without atomic creation a writer may still
 * be writing one), and so are fewer than [[MinFiles]] old files with no record past the retention.
 */
object WorkloadLogCompaction extends Logging {
  /** Log files younger than this are not compacted. */
  val MinAgeMillis = 60000L
  /** Fewer old files than this are left as they are (unless some are past the retention): not worth a rewrite. */
  val MinFiles = 100

  /**
   * What a compaction did (or, dry, would do).
   *
   * @param published the compacted file's name; None when dry, when there was nothing to compact or another compaction won
   * @param replaced  the files it replaces (deleted unless dry)
   * @param leftovers files an earlier compaction replaced but did not delete (deleted unless dry)
   * @param kept      records in the compacted file
   * @param dropped   records older than the retention, left out
   */
  final case class Outcome(published: Option[String], replaced: Seq[LogFile], leftovers: Seq[LogFile], kept: Long,
                           dropped: Long, lostRace: Boolean)

  private val Nothing = Outcome(None, Nil, Nil, 0L, 0L, lostRace = false)

  /**
   * Compacts the log of `root` as of `now` (epoch ms), dropping records older than
   * `retentionMillis` when given; `dryRun` plans and changes nothing.
   */
  def run(session: SparkSession, root: String, retentionMillis: Option[Long], now: Long, dryRun: Boolean): Outcome = {
    val listing = WorkloadLogReader.listing(session, root)
    val leftovers = listing.all.filter(f => listing.replaced.contains(f.name))
    val live = listing.live.sortBy(_.name)
    val old = live.filter(_.modified <= now - MinAgeMillis)
    val oldest = retentionMillis.map(now - _)
    // a file last modified before the retention holds only records from before it (a record is
    // written after its query ran)
    val worthIt = old.size >= MinFiles || (oldest.isDefined && old.exists(_.modified < oldest.get))
    val compaction = if (!worthIt) Nothing else {
      val records = old.flatMap(f => linesOf(listing.conf, new Path(listing.dir, f.name)).zipWithIndex
        .flatMap { case (line, i) => timeOf(line).map(t => (t, f.name, i, line)) })
      val (kept, dropped) = records.partition { case (time, _, _, _) => oldest.forall(o => time.forall(_ >= o)) }
      if (kept.size == records.size && old.size < MinFiles) Nothing
      else if (dryRun) Outcome(None, old, leftovers, kept.size, dropped.size, lostRace = false)
      else publish(listing, old, kept.sortBy { case (time, name, i, _) => (time.getOrElse(Long.MinValue), name, i) }
        .map(_._4), dropped.size)
    }
    if (!dryRun && !compaction.lostRace) {
      // leftovers are ignored by readers already; the files just replaced from now on
      val fs = listing.dir.getFileSystem(listing.conf)
      (leftovers ++ compaction.replaced).foreach(f => Try(fs.delete(new Path(listing.dir, f.name), false)))
    }
    compaction.copy(leftovers = if (compaction.lostRace) Nil else leftovers)
  }

  private def publish(listing: WorkloadLogReader.Listing, old: Seq[LogFile], lines: Seq[String],
                      dropped: Int): Outcome = {
    val generation = listing.all.flatMap(f => WorkloadLogReader.generationOf(f.name)).maxOption.getOrElse(0L) + 1
    // a compacted file replaced here takes over what it replaced that still exists: once it is
    // gone, those files must stay ignored
    val existing = listing.all.map(_.name).toSet
    val replaces = (old.map(_.name) ++ old.flatMap(f => listing.headers.getOrElse(f.name, Nil)).filter(existing))
      .distinct.sorted
    val name = WorkloadLogReader.compactedName(generation)
    val header = JsonMethods.compact(JsonMethods.render(JObject("compacted" -> JObject(
      "generation" -> JLong(generation), "replaces" -> JArray(replaces.map(JString(_)).toList)))))
    val content = (header +: lines).mkString("", "\n", "\n")
    Failpoints.check("workloadLog.compaction.beforePublish")
    if (!PutIfAbsent.write(listing.conf, new Path(listing.dir, name), content)) {
      logInfo(s"Skipstone: another compaction of ${listing.dir} published generation $generation first; this one " +
        "leaves the log as it is")
      Outcome(None, Nil, Nil, 0L, 0L, lostRace = true)
    } else {
      Failpoints.check("workloadLog.compaction.afterPublish")
      Outcome(Some(name), old, Nil, lines.size, dropped, lostRace = false)
    }
  }

  private def linesOf(conf: Configuration, file: Path): Seq[String] = {
    val in = file.getFileSystem(conf).open(file)
    try Source.fromInputStream(in, StandardCharsets.UTF_8.name).getLines().toList finally in.close()
  }

  /**
   * A record line's time (None when it has none: kept whatever the retention), or None for a
   * line that is no record (a compacted file's header, a line that is not a JSON object).
   */
  private def timeOf(line: String): Option[Option[Long]] =
    (try JsonMethods.parseOpt(line) catch { case NonFatal(_) => None }).collect {
      case o: JObject if !WorkloadLogReader.isHeader(o) => o.obj.collectFirst {
        case ("time", JInt(v)) => v.toLong
        case ("time", JLong(v)) => v
      }
    }
}

package io.skipstone.table

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.{FileIndex, HadoopFsRelation, InMemoryFileIndex, LogicalRelation}

import io.skipstone.metadata.ReadContext
import io.skipstone.query.{SkippingFileIndex, SkippingRule}

/**
 * Makes a relation over a managed table's root list its files from the table's newest version
 * (a [[ManifestFileIndex]], plus the files other writers dropped in) instead of the directory; under a filter, the manifest is wrapped
 * in the skipping wrapper so the query skips too. Runs before the skipping rule, in the same
 * fixed point: a relation already on a manifest is left alone, which is what pins the query to
 * the version it first saw. Independent of `spark.skipstone.enabled`: which files make up a
 * table is a matter of correct answers, not of skipping.
 */
case class ManagedTableRule(session: SparkSession) extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.transformDown {
    case filter @ Filter(condition, relation @ LogicalRelation(fs: HadoopFsRelation, _, table, _, _)) =>
      pin(fs.location, Some(condition), fs, table).fold(filter: LogicalPlan) { index =>
        filter.copy(child = relation.copy(relation = fs.copy(location = index)(fs.sparkSession)))
      }
    case relation @ LogicalRelation(fs: HadoopFsRelation, _, table, _, _) =>
      pin(fs.location, None, fs, table).fold(relation: LogicalPlan) { index =>
        relation.copy(relation = fs.copy(location = index)(fs.sparkSession))
      }
  }

  /** The index listing from the manifest, or None when the relation is no managed table or already pinned. */
  private def pin(location: FileIndex, condition: Option[Expression], fs: HadoopFsRelation,
                  table: Option[CatalogTable]): Option[FileIndex] = {
    val directory = location match {
      case l: InMemoryFileIndex => Some(l)
      case s: SkippingFileIndex => s.delegate match { case l: InMemoryFileIndex => Some(l); case _ => None }
      case _ => None
    }
    directory.foreach(refuseGlobInsideTable(_, fs))
    val pinned = for {
      listing <- directory
      root <- SkippingRule.datasetRoot(listing)
      (newest, newestUnindexed) <- ManagedTables.resolve(session, root)
    } yield {
      refuseForeignPartitions(root, fs)
      val (snapshot, unindexed) =
        ManagedReadOptions.request(readOptions(fs, table), root, session.sessionState.conf.sessionLocalTimeZone) match {
          case VersionRequest.Newest => (newest, newestUnindexed)
          // A version is exactly the files its log entry lists: other writers' files are in no
          // version until one absorbs them, and which of them existed back then is not recorded.
          case request => (TimeTravel.snapshot(session.sessionState.newHadoopConf(), root, request), Nil)
        }
      WorkloadListener.ensureRegistered(session)
      val manifest = new ManifestFileIndex(root, snapshot, unindexed)
      val reading = ReadContext.Reading.of(fs)
      condition.flatMap(c => SkippingRule.prunable(c, Nil, session)._2)
        .fold(manifest: FileIndex)(c => new SkippingFileIndex(manifest, c, root, fs.schema, reading, session))
    }
    // Spark's own listing ignores a version option: on a directory that is no managed table it
    // would read today's files as if they were the version asked for.
    if (pinned.isEmpty && directory.isDefined) ManagedReadOptions.asksForVersion(fs.options).foreach { option =>
      throw new ManagedTableReadRefused(s"read option '$option' reads a version of a Skipstone managed table, and " +
        s"${directory.get.rootPaths.mkString(", ")} is none: read the table's root, or drop the option")
    }
    pinned
  }

  /**
   * The options a read passes: a `skipstone` catalog table also passes the options it was created
   * with (its layout), which say how it was written and are no read options.
   */
  private def readOptions(fs: HadoopFsRelation, table: Option[CatalogTable]): Map[String, String] =
    if (table.exists(_.provider.exists(_.equalsIgnoreCase(SkipstoneSource.ShortName)))) SourceOptions.forRead(fs.options)
    else fs.options

  /**
   * A managed table has no partitions: directories in its root come from another writer's
   * partitioned write (`partitionBy`), whose rows no version holds and a manifest cannot list as
   * partitions. Refused by name rather than read wrongly or ignored.
   */
  private def refuseForeignPartitions(root: String, fs: HadoopFsRelation): Unit = {
    val directories = ManagedTables.foreignDirectories(root).map(_.getPath.getName)
    if (directories.nonEmpty || fs.partitionSchema.nonEmpty) throw new ManagedTableReadRefused(
      s"$root is a Skipstone managed table, which has no partitions, but its root holds directories another " +
        s"writer made (${(if (directories.nonEmpty) directories else fs.partitionSchema.fieldNames.toSeq).take(5).mkString(", ")}" +
        "; a partitioned write such as df.write.partitionBy(...).parquet(root)): their rows are in no version. " +
        "Move them out of the root and add their rows with t.append(df), or write unpartitioned files into the root " +
        "(docs/maintenance.md#appends)")
  }

  /**
   * A glob such as `*.parquet` under the root matches every file in a managed table's root: files older
   * versions replaced and uncommitted writers' files too. Such a read is refused; the table is
   * read through its root. (A list of files named one by one is read as named.)
   */
  private def refuseGlobInsideTable(listing: InMemoryFileIndex, fs: HadoopFsRelation): Unit = {
    val requested = fs.options.get("path").toSeq ++ fs.options.get("paths").toSeq.flatMap { json =>
      scala.util.Try(org.json4s.jackson.JsonMethods.parse(json).children.collect { case org.json4s.JString(s) => s })
        .getOrElse(Nil)
    }
    if (requested.exists(p => p.exists(c => "*?[{".indexOf(c) >= 0))) {
      val conf = session.sessionState.newHadoopConf()
      listing.rootPaths.iterator.map(_.getParent).filter(_ != null).distinct.find { parent =>
        scala.util.Try(TableLog.latestVersion(conf, parent.toString).isDefined).getOrElse(false)
      }.foreach { root =>
        throw new ManagedTableReadRefused(s"${requested.mkString(", ")} matches files inside the Skipstone managed " +
          s"table $root, including files that newer versions replaced or that no version holds yet: read the " +
          s"table's root ($root) instead, which reads exactly its newest version")
      }
    }
  }
}

/** A read of a managed table that would give wrong rows; the message says what to read instead. */
class ManagedTableReadRefused(message: String) extends IllegalArgumentException(message)

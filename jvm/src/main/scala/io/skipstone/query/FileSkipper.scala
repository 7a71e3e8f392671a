package io.skipstone.query

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.catalyst.expressions.{BasePredicate, BindReferences, Coalesce, Expression, Literal, Predicate}
import org.apache.spark.sql.execution.datasources.PartitionDirectory

import io.skipstone.clauses.{Clause, ClauseBuilder, LeafTranslator}
import io.skipstone.metadata.{FilePaths, LoadedMetadata}

/**
 * A filter condition compiled against one metadata version: decides, file by file, whether a
 * file may hold a matching row. Pure apart from logging, so it is tested without a query.
 */
class FileSkipper(metadata: LoadedMetadata, condition: Expression, resolver: Resolver) extends Logging {

  private val translators = metadata.definition.indexes.flatMap { ix =>
    val t = LeafTranslator.forIndex(ix, metadata, resolver)
    if (t.isEmpty) logWarning(s"Skipstone: index kind '${ix.kind}' on ${ix.columns.mkString(",")} " +
      s"is unknown to this version; it is ignored for ${metadata.definition.datasetRoot}")
    t
  }

  private val translation = new ClauseBuilder(translators).translate(condition)

  /** Whether the condition gives any index something to work with. */
  val isUseful: Boolean = !Clause.isTriviallyTrue(translation.clause)

  val unanswered: Seq[String] = translation.unanswered.map(_.sql)

  // NULL means "cannot tell": such files are read.
  private lazy val keep: BasePredicate = Predicate.create(
    BindReferences.bindReference(Coalesce(Seq(translation.clause, Literal(true))), metadata.attributes))

  def mayMatch(path: String, size: Long, modificationTime: Long): Option[Boolean] =
    metadata.freshRow(path, size, modificationTime).map { row =>
      try keep.eval(row) catch {
        case NonFatal(e) =>
          logWarning(s"Skipstone: could not evaluate metadata of $path; reading it", e)
          true
      }
    }

  def prune(directories: Seq[PartitionDirectory]): (Seq[PartitionDirectory], ListingStats) = {
    var filesTotal, filesSkipped, bytesTotal, bytesSkipped, unindexed = 0L
    val kept = directories.map { dir =>
      dir.copy(files = dir.files.filter { f =>
        val decision = if (isUseful) mayMatch(FilePaths.canonical(f.getPath.toUri), f.getLen, f.getModificationTime) else Some(true)
        filesTotal += 1
        bytesTotal += f.getLen
        if (decision.isEmpty) unindexed += 1
        val read = decision.getOrElse(true)
        if (!read) { filesSkipped += 1; bytesSkipped += f.getLen }
        read
      })
    }.filter(_.files.nonEmpty)
    (kept, ListingStats(metadata.definition.datasetRoot, filesTotal, filesSkipped, bytesTotal,
      bytesSkipped, unindexed, unanswered))
  }
}

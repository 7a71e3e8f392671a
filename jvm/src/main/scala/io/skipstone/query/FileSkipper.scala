package io.skipstone.query

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.catalyst.expressions.{BasePredicate, BindReferences, Coalesce, Expression, IsNotNull, Literal, Predicate}
import org.apache.spark.sql.execution.datasources.PartitionDirectory
import org.apache.spark.sql.types.StructType

import io.skipstone.clauses.{Clause, ClauseBuilder, LeafTranslator}
import io.skipstone.metadata.{FilePaths, LoadedMetadata, SchemaPaths}

/**
 * A filter condition compiled against one metadata version: decides, file by file, whether a
 * file may hold a matching row. Pure apart from logging, so it is tested without a query.
 *
 * @param schema the relation's schema as the query sees it; an index whose column is gone or
 *               has another type (schema evolution, a CSV read without type inference) is ignored
 */
class FileSkipper(metadata: LoadedMetadata, condition: Expression, resolver: Resolver, schema: StructType)
  extends Logging {

  private val root = metadata.definition.datasetRoot
  private val numRowsOrdinal = metadata.schema.fieldIndex(LoadedMetadata.NumRows)

  private val translators: Seq[LeafTranslator] = metadata.definition.indexes.flatMap { ix =>
    if (!SchemaPaths.matches(ix, schema, resolver)) {
      logWarning(s"Skipstone: ${ix.describe} of $root was built for columns of type " +
        s"${ix.columnTypes.map(_.simpleString).mkString(", ")}, which this query reads differently; ignored")
      None
    } else {
      // Compiling a translator (rule-based ones parse their SQL) once per version and session,
      // not once per query; the session matters as rules resolve against its functions.
      val t = metadata.derived(("translator", ix, resolver, SparkSession.active)) {
        LeafTranslator.forIndex(ix, metadata, resolver)
      }
      if (t.isEmpty) logWarning(s"Skipstone: index kind '${ix.kind}' of $root is unknown to this version; ignored")
      t
    }
  }

  private val translation = new ClauseBuilder(translators).translate(condition)

  /** Whether the condition gives any index something to work with. */
  val isUseful: Boolean = !Clause.isTriviallyTrue(translation.clause)

  // Spark adds `x IS NOT NULL` for every column a comparison uses; listing those is noise.
  val unanswered: Seq[String] = translation.unanswered.collect {
    case e if !e.isInstanceOf[IsNotNull] => e.sql
  }

  // NULL means "cannot tell": such files are read.
  private def compile(clause: Expression): BasePredicate =
    Predicate.create(BindReferences.bindReference(Coalesce(Seq(clause, Literal(true))), metadata.attributes))

  private lazy val keep = compile(translation.clause)

  /**
   * Each index alone, to report which index ruled out how many files. Indexes with nothing to
   * say are left out; when only one index has, it alone did all the skipping: no evaluation.
   */
  private lazy val keepByIndex: Seq[(String, Option[BasePredicate])] = {
    val useful = translators.map(t => t.index.describe -> new ClauseBuilder(Seq(t)).translate(condition).clause)
      .filterNot { case (_, clause) => Clause.isTriviallyTrue(clause) }
    if (useful.size == 1) useful.map { case (name, _) => name -> None }
    else useful.map { case (name, clause) => name -> Some(compile(clause)) }
  }

  private def eval(predicate: BasePredicate, row: InternalRow, path: String): Boolean =
    try predicate.eval(row) catch {
      case NonFatal(e) =>
        logWarning(s"Skipstone: could not evaluate metadata of $path; reading it", e)
        true
    }

  /** None: no fresh metadata for the file. */
  def mayMatch(path: String, size: Long, modificationTime: Long): Option[Boolean] =
    metadata.freshRow(path, size, modificationTime).map(eval(keep, _, path))

  def prune(directories: Seq[PartitionDirectory]): (Seq[PartitionDirectory], ListingStats) = {
    var filesTotal, filesSkipped, bytesTotal, bytesSkipped, unindexed, rowsSkipped = 0L
    val skippedBy = scala.collection.mutable.LinkedHashMap(translators.map(_.index.describe -> 0L): _*)
    val kept = directories.map { dir =>
      dir.copy(files = dir.files.filter { f =>
        filesTotal += 1
        bytesTotal += f.getLen
        val path = FilePaths.canonical(f.getPath.toUri)
        val row = if (isUseful) metadata.freshRow(path, f.getLen, f.getModificationTime) else None
        if (isUseful && row.isEmpty) unindexed += 1
        val read = row.forall(eval(keep, _, path))
        if (!read) {
          filesSkipped += 1
          bytesSkipped += f.getLen
          row.foreach(r => rowsSkipped += r.getLong(numRowsOrdinal))
          row.foreach(r => keepByIndex.foreach { case (name, p) =>
            if (p.forall(!eval(_, r, path))) skippedBy(name) += 1
          })
        }
        read
      })
    }.filter(_.files.nonEmpty)
    (kept, ListingStats(root, filesTotal, filesSkipped, bytesTotal, bytesSkipped, unindexed, unanswered,
      skippedBy.toSeq, rowsSkipped))
  }
}

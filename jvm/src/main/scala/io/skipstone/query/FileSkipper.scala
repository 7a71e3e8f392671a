package io.skipstone.query

import scala.collection.mutable
import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.catalyst.expressions.{BasePredicate, BindReferences, Coalesce, Expression, IsNotNull, Literal, Predicate}
import org.apache.spark.sql.execution.datasources.PartitionDirectory
import org.apache.spark.sql.types.StructType

import io.skipstone.clauses.{Clause, ClauseBuilder, LeafTranslator}
import io.skipstone.metadata.{FileIdentity, FilePaths, IndexSpec, LoadedMetadata, ReaderSpec, SchemaPaths}

/**
 * How the query reads the dataset, which decides which indexes may answer it.
 *
 * @param schema the relation's schema as the query sees it; an index whose column is gone or
 *               has another type (schema evolution, a CSV read without type inference) is ignored
 * @param reader how the relation reads its files (format, options, time zone): metadata built
 *               under another reading is ignored, index by index
 */
case class QueryRead(schema: StructType, reader: ReaderSpec, resolver: Resolver)

/**
 * A filter condition compiled against one metadata version: decides, file by file, whether a
 * file may hold a matching row. Pure apart from logging and `verify`, so it is tested without a query.
 *
 * @param verify the current identity of files about to be skipped, read from the file system
 *               at planning time (a file whose bytes may differ from the indexed ones is read)
 */
class FileSkipper(metadata: LoadedMetadata, condition: Expression, read: QueryRead,
                  verify: Seq[String] => Map[String, FileIdentity])
  extends Logging {

  private val root = metadata.definition.datasetRoot
  private val numRowsOrdinal = metadata.schema.fieldIndex(LoadedMetadata.NumRows)

  /** Indexes this query may use, and why the others may not. */
  private val (usable, refused): (Seq[IndexSpec], Seq[String]) = {
    val (everyIndex, datetimeIndexes) = metadata.definition.reader.differences(read.reader)
    val verdicts = metadata.definition.indexes.map { ix =>
      val why =
        if (!SchemaPaths.matches(ix, read.schema, read.resolver))
          Some(s"${ix.describe} was built for columns of type ${ix.columnTypes.map(_.simpleString).mkString(", ")}, " +
            "which this query reads differently")
        else (everyIndex ++ Option.when(ReaderSpec.involvesDatetimes(ix.columnTypes))(datetimeIndexes).toSeq.flatten)
          .headOption.map(reason => s"${ix.describe} not used: metadata $reason")
      ix -> why
    }
    (verdicts.collect { case (ix, None) => ix }, verdicts.flatMap(_._2))
  }

  private val translators: Seq[LeafTranslator] = usable.flatMap { ix =>
    // Compiling a translator (rule-based ones parse their SQL) once per version and session,
    // not once per query; the session matters as rules resolve against its functions.
    val t = metadata.derived(("translator", ix, read.resolver, SparkSession.active)) {
      LeafTranslator.forIndex(ix, metadata, read.resolver)
    }
    if (t.isEmpty) logWarning(s"Skipstone: index kind '${ix.kind}' of $root is unknown to this version; ignored")
    t
  }

  private val translation = new ClauseBuilder(translators).translate(condition)

  /** Whether the condition gives any index something to work with. */
  val isUseful: Boolean = !Clause.isTriviallyTrue(translation.clause)

  // Spark adds `x IS NOT NULL` for every column a comparison uses; listing those is noise.
  val unanswered: Seq[String] = refused ++ translation.unanswered.collect {
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

  /** A file with no rows cannot hold a matching one, whatever the condition. */
  private def isEmptyFile(row: InternalRow): Boolean = row.getLong(numRowsOrdinal) == 0L

  def prune(directories: Seq[PartitionDirectory]): (Seq[PartitionDirectory], ListingStats) = {
    var filesTotal, bytesTotal = 0L
    var unindexed = 0L
    // Files the metadata rules out, to be confirmed against the file system before skipping.
    val candidates = mutable.LinkedHashMap.empty[String, InternalRow]
    directories.foreach(_.files.foreach { f =>
      filesTotal += 1
      bytesTotal += f.getLen
      val path = FilePaths.canonical(f.getPath.toUri)
      metadata.freshRow(path, f.getLen, f.getModificationTime) match {
        case None => unindexed += 1
        case Some(row) => if (isEmptyFile(row) || (isUseful && !eval(keep, row, path))) candidates(path) = row
      }
    })
    val current = if (candidates.isEmpty) Map.empty[String, FileIdentity] else verify(candidates.keys.toSeq)
    val skipped = candidates.filter { case (path, row) => current.get(path).contains(metadata.identity(row)) }
    unindexed += candidates.size - skipped.size

    var bytesSkipped, rowsSkipped = 0L
    val skippedBy = mutable.LinkedHashMap(translators.map(_.index.describe -> 0L): _*)
    val kept = directories.map { dir =>
      dir.copy(files = dir.files.filter { f =>
        val path = FilePaths.canonical(f.getPath.toUri)
        skipped.get(path) match {
          case None => true
          case Some(row) =>
            bytesSkipped += f.getLen
            rowsSkipped += row.getLong(numRowsOrdinal)
            if (!isEmptyFile(row)) keepByIndex.foreach { case (name, p) =>
              if (p.forall(!eval(_, row, path))) skippedBy(name) += 1
            }
            false
        }
      })
    }.filter(_.files.nonEmpty)
    (kept, ListingStats(root, filesTotal, skipped.size.toLong, bytesTotal, bytesSkipped, unindexed, unanswered,
      skippedBy.toSeq, rowsSkipped))
  }
}

package io.skipstone.query

import scala.collection.mutable
import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.catalyst.expressions.{BasePredicate, BindReferences, Coalesce, Expression, IsNotNull, Literal, Predicate}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.{FileStatusWithMetadata, PartitionDirectory}
import org.apache.spark.sql.types.StructType

import io.skipstone.clauses.{Clause, ClauseBuilder, LeafTranslator}
import io.skipstone.clauses.rules.StoredRule
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
    // Built-in translators are compiled once per version for every query. Rule-based ones
    // resolve their clauses with the query's session (its functions), so they are compiled per
    // query: the version is shared by every session and must not keep one alive.
    val t = if (StoredRule.isRuleBased(ix)) LeafTranslator.forIndex(ix, metadata, read.resolver)
      else metadata.derived(("translator", ix, read.resolver))(LeafTranslator.forIndex(ix, metadata, read.resolver))
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

  private lazy val keep = compile(CheapFirst(translation.clause))

  /**
   * Each index alone, to report which index ruled out how many files. Indexes with nothing to
   * say are left out; when only one index has, it alone did all the skipping: no evaluation.
   * Cheap indexes come first and an index with bloom filters is asked only about files no
   * cheaper index ruled out, so reporting decodes no filter that skipping did not need.
   */
  private lazy val keepByIndex: Seq[(String, Option[BasePredicate], Boolean)] = {
    val useful = translators.map(t => t.index.describe -> new ClauseBuilder(Seq(t)).translate(condition).clause)
      .filterNot { case (_, clause) => Clause.isTriviallyTrue(clause) }
      .sortBy { case (_, clause) => CheapFirst.cost(clause) }
    if (useful.size == 1) useful.map { case (name, _) => (name, None, false) }
    else useful.map { case (name, clause) => (name, Some(compile(clause)), CheapFirst.cost(clause) > 0) }
  }

  /** Counts, for a skipped file, each index that rules it out alone. */
  private def attribute(row: InternalRow, path: String, skippedBy: mutable.Map[String, Long]): Unit = {
    var ruledOut = false
    keepByIndex.foreach { case (name, p, expensive) =>
      if (!(expensive && ruledOut) && p.forall(!eval(_, row, path))) {
        skippedBy(name) += 1
        ruledOut = true
      }
    }
  }

  private def eval(predicate: BasePredicate, row: InternalRow, path: => String): Boolean =
    try predicate.eval(row) catch {
      case NonFatal(e) =>
        logWarning(s"Skipstone: could not evaluate metadata of $path; reading it", e)
        true
    }

  /** A file with no rows cannot hold a matching one, whatever the condition. */
  private def isEmptyFile(file: Int): Boolean = metadata.rowCount(file) == 0L

  /** Files the metadata rules out, in listing order, before the file system confirms them. */
  private class Candidates(listed: Int) {
    /** For each listed file: its index among the candidates, or -1 (read it). */
    val of: Array[Int] = Array.fill(listed)(-1)
    val paths = mutable.ArrayBuffer.empty[String]
    val identities = mutable.ArrayBuffer.empty[FileIdentity]
    val rows = mutable.ArrayBuilder.make[Long]
    /** Position in the held version, for per-index counts; -1 when evaluated with Spark. */
    val files = mutable.ArrayBuilder.make[Int]

    def add(n: Int, path: String, identity: FileIdentity, numRows: Long, file: Int): Unit = {
      of(n) = paths.size
      paths += path
      identities += identity
      rows += numRows
      files += file
    }
  }

  /**
   * One pass over the listing evaluates the clause on each listed file's metadata (a row view
   * moved from file to file over the version's columns), or looks the file up among those a
   * Spark job over the metadata table ruled out; the candidates are then verified against the
   * file system together, and a second pass drops those verified.
   *
   * @param session for versions evaluated with Spark; without one (size estimates, which run
   *                inside the optimizer) such versions skip nothing
   */
  def prune(directories: Seq[PartitionDirectory], session: Option[SparkSession] = None): (Seq[PartitionDirectory], ListingStats) = {
    val listed = directories.iterator.map(_.files.size).sum
    val candidates = new Candidates(listed)
    var filesTotal, bytesTotal, unindexed = 0L
    def eachListed(f: (FileStatusWithMetadata, String, Int) => Unit): Unit = {
      var n = 0
      directories.foreach(_.files.foreach { file =>
        filesTotal += 1
        bytesTotal += file.getLen
        f(file, FilePaths.canonical(file.getPath.toUri), n)
        n += 1
      })
    }
    val row = metadata.view()
    (metadata.distributedTable, session) match {
      case (None, _) => eachListed { (f, path, n) =>
        val file = metadata.freshPosition(path, f.getLen, f.getModificationTime)
        if (file < 0) unindexed += 1
        else {
          row.rowId = file
          if (isEmptyFile(file) || (isUseful && !eval(keep, row, path)))
            candidates.add(n, path, metadata.identity(file), metadata.rowCount(file), file)
        }
      }
      case (Some(table), Some(s)) =>
        val ruledOut = DistributedEvaluation.ruledOut(s, metadata, table, Option.when(isUseful)(translation.clause))
        eachListed { (f, path, n) =>
          ruledOut.get(path).filter(r => r.identity.size == f.getLen && r.identity.modificationTime == f.getModificationTime)
            .foreach(r => candidates.add(n, path, r.identity, r.numRows, -1))
        }
      case (Some(_), None) => eachListed((_, _, _) => ())
    }
    val files = candidates.files.result()
    val rows = candidates.rows.result()
    // Files the metadata rules out are skipped only if the file system confirms they are unchanged.
    val current = if (files.isEmpty) Map.empty[String, FileIdentity] else verify(candidates.paths.toSeq)
    val verified = files.indices.map(k => current.get(candidates.paths(k)).contains(candidates.identities(k))).toArray
    val skippedCount = verified.count(identity)
    unindexed += files.length - skippedCount

    var bytesSkipped, rowsSkipped = 0L
    val skippedBy = mutable.LinkedHashMap(translators.map(_.index.describe -> 0L): _*)
    var n = 0
    val kept = directories.map { dir =>
      dir.copy(files = dir.files.filter { f =>
        val k = candidates.of(n)
        n += 1
        if (k < 0 || !verified(k)) true
        else {
          bytesSkipped += f.getLen
          rowsSkipped += rows(k)
          val file = files(k)
          if (file >= 0 && !isEmptyFile(file)) {
            row.rowId = file
            attribute(row, candidates.paths(k), skippedBy)
          }
          false
        }
      })
    }.filter(_.files.nonEmpty)
    val notice = if (metadata.isDistributed && session.isEmpty) Seq("metadata evaluated with Spark only when files are listed")
      else Nil
    (kept, ListingStats(root, filesTotal, skippedCount.toLong, bytesTotal, bytesSkipped, unindexed, unanswered ++ notice,
      if (metadata.isDistributed) Nil else skippedBy.toSeq, rowsSkipped))
  }
}

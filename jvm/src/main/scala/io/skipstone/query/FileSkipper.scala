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
import io.skipstone.clauses.rules.{RuleTranslator, StoredRule}
import io.skipstone.metadata.{CanonicallySpelled, FileIdentity, FilePaths, IndexSpec, LoadedMetadata, ReadContext, SchemaPaths}
import io.skipstone.clauses.rules.FunctionIdentity

/**
 * How the query reads the dataset, which decides which indexes may answer it.
 *
 * @param schema the relation's schema as the query sees it; an index whose column is gone or
 *               has another type (schema evolution, a CSV read without type inference) is ignored
 * @param context how the relation reads its files (format, options, columns, settings): metadata
 *                built under another reading is ignored, index by index
 * @param byPathAndSize the listing is a table log's (Delta's): its files are immutable and never
 *                named twice, so a listed file with an indexed path and size is the file indexed
 */
case class QueryRead(schema: StructType, context: ReadContext, resolver: Resolver, byPathAndSize: Boolean = false)

/**
 * A filter condition compiled against one metadata version: decides, file by file, whether a
 * file may hold a matching row. Pure apart from logging and `verify`, so it is tested without a query.
 *
 * @param verification how files about to be skipped are confirmed unchanged since they were
 *                     indexed (a file whose bytes may differ from the indexed ones is read)
 */
class FileSkipper(metadata: LoadedMetadata, condition: Expression, read: QueryRead, verification: SkipVerification)
  extends Logging {

  private val root = metadata.definition.datasetRoot

  private val built: Option[ReadContext] = metadata.definition.context

  /** How the build's read differs from this query's; None when the build did not record it. */
  private val differences = built.map(_.differences(read.context))

  /**
   * Row counts hold only for the read they were counted under: a header-only CSV file has no
   * rows with `header=true` and one without; a file of `#` lines is empty only with `comment='#'`.
   */
  private val rowCountsHold: Boolean = differences.exists(_.readsAlike)

  /** Indexes this query may use, and why the others may not. */
  private val (usable, refused): (Seq[IndexSpec], Seq[String]) = {
    val verdicts = metadata.definition.indexes.map { ix =>
      val why =
        if (!SchemaPaths.matches(ix, read.schema, read.resolver))
          Some(s"${ix.describe} was built for columns of type ${ix.columnTypes.map(_.simpleString).mkString(", ")}, " +
            "which this query reads differently")
        else (built, differences) match {
          case (Some(ctx), Some(diff)) =>
            (diff.everyIndex ++ Option.when(ReadContext.involvesDatetimes(ix.columnTypes))(diff.datetimeIndexes).toSeq.flatten)
              .headOption.map(reason => s"metadata $reason")
              .orElse(ctx.columnMismatch(ix.paths, read.context, read.resolver))
              .orElse(Option.when(StoredRule.isRuleBased(ix) && !ReadContext.sameZone(ctx.timeZone, read.context.timeZone))(
                s"its expressions were evaluated in time zone ${ctx.timeZone}, this session's is ${read.context.timeZone}"))
              .orElse(Option.when(StoredRule.isRuleBased(ix))(diff.expressionIndexes.map(r => s"its expressions were $r")).flatMap(_.headOption))
              .orElse(FunctionIdentity.mismatch(ix, condition))
              .map(reason => s"${ix.describe} not used: $reason")
          case _ => Some(s"${ix.describe} not used: metadata built by an earlier Skipstone, which did not record how " +
            "it read the files; refresh() or rebuild the index")
        }
      ix -> why
    }
    (verdicts.collect { case (ix, None) => ix }, verdicts.flatMap(_._2))
  }

  private val translators: Seq[LeafTranslator] = usable.flatMap { ix =>
    // Built-in translators are compiled once per version for every query. Rule-based ones
    // resolve their clauses with the query's session (its functions), so they are compiled per
    // query: the version is shared by every session and must not keep one alive.
    val t = if (StoredRule.isRuleBased(ix)) RuleTranslator.forIndex(ix, metadata, read.resolver)
      else metadata.derived(("translator", ix, read.resolver))(RuleTranslator.forIndex(ix, metadata, read.resolver))
    if (t.isEmpty) logWarning(s"Skipstone: index kind '${ix.kind}' of $root is unknown to this version; ignored")
    t
  }

  private val translation = new ClauseBuilder(translators).translate(condition)

  /** Whether the condition gives any index something to work with. */
  val isUseful: Boolean = !Clause.isTriviallyTrue(translation.clause)

  // Indexes whose key this session lacks come first. Spark adds `x IS NOT NULL` for every
  // column a comparison uses; listing those is noise.
  val unanswered: Seq[String] = metadata.withheld.map(_._2) ++ refused ++ translation.unanswered.collect {
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

  private def spelling(f: FileStatusWithMetadata): String = f.fileStatus match {
    case known: CanonicallySpelled => known.canonicalPath
    case status => FilePaths.canonical(status.getPath.toUri)
  }

  /** A file with no rows cannot hold a matching one, whatever the condition. */
  private def isEmptyFile(file: Int): Boolean = rowCountsHold && metadata.rowCount(file) == 0L

  /**
   * Files the metadata rules out, in listing order, before the file system confirms them:
   * parallel primitive arrays, so a million candidates cost no object each.
   */
  private class Candidates(paths: Array[String]) {
    /** For each listed file: its index among the candidates, or -1 (read it). */
    val of: Array[Int] = Array.fill(paths.length)(-1)
    var count = 0
    /** Position in the listing, whose canonical path is `paths(listed(k))`. */
    var listed = new Array[Int](64)
    /** Position in the held version, for per-index counts; -1 when evaluated with Spark. */
    var files = new Array[Int](64)
    /** Identities of candidates evaluated with Spark (the held version keeps its own). */
    val ruledOut = mutable.HashMap.empty[Int, DistributedEvaluation.RuledOut]

    def add(n: Int, file: Int): Unit = {
      if (count == files.length) {
        listed = java.util.Arrays.copyOf(listed, count * 2)
        files = java.util.Arrays.copyOf(files, count * 2)
      }
      of(n) = count
      listed(count) = n
      files(count) = file
      count += 1
    }

    def path(k: Int): String = paths(listed(k))
    def identity(k: Int): FileIdentity = if (files(k) >= 0) metadata.identity(files(k)) else ruledOut(k).identity
    def rows(k: Int): Long = if (files(k) >= 0) metadata.rowCount(files(k)) else ruledOut(k).numRows

    /** Which candidates the file system confirms unchanged since they were indexed. */
    def confirmed(verification: SkipVerification): Array[Boolean] = verification match {
      case SkipVerification.Trusted => Array.fill(count)(true)
      case fs: SkipVerification.FileSystem =>
        val current = fs.current((0 until count).map(path))
        Array.tabulate(count)(k => current(k).contains(identity(k)))
    }
  }

  /**
   * One pass over the listing evaluates the clause on each listed file's metadata (a row view
   * moved from file to file over the version's columns), or looks the file up among those a
   * Spark job over the metadata table ruled out; the candidates are then confirmed together
   * (see [[SkipVerification]]), and a second pass drops those confirmed.
   *
   * @param session for versions evaluated with Spark; without one (size estimates, which run
   *                inside the optimizer) such versions skip nothing
   */
  def prune(directories: Seq[PartitionDirectory], session: Option[SparkSession] = None): (Seq[PartitionDirectory], ListingStats) = {
    val listing = directories.iterator.flatMap(_.files).toArray
    val listed = listing.length
    val paths = new Array[String](listed)
    val candidates = new Candidates(paths)
    var bytesTotal, unindexed, outsideWhere = 0L
    listing.foreach(f => bytesTotal += f.getLen)
    val row = metadata.view()
    (metadata.distributedTable, session) match {
      case (None, _) =>
        // Spelling paths and finding them in the version is pure: on every core. Evaluating the
        // clause (expressions need not be thread-safe) then runs here, over positions.
        val positions = new Array[Int](listed)
        Chunks.foreach(listed) { (from, until) =>
          var previous = -1
          var n = from
          while (n < until) {
            val f = listing(n)
            paths(n) = spelling(f)
            positions(n) = metadata.freshPosition(paths(n), f.getLen, f.getModificationTime,
              FileIdentity.listed(f.fileStatus), guess = previous + 1, byPathAndSize = read.byPathAndSize)
            if (positions(n) >= 0) previous = positions(n)
            n += 1
          }
        }
        var n = 0
        while (n < listed) {
          val file = positions(n)
          if (file < 0) unindexed += 1
          else if (metadata.isOutsideWhere(file)) outsideWhere += 1
          else {
            row.rowId = file
            if (isEmptyFile(file) || (isUseful && !eval(keep, row, paths(n)))) candidates.add(n, file)
          }
          n += 1
        }
      case (Some(table), Some(s)) if isUseful || rowCountsHold =>
        val ruledOut = DistributedEvaluation.ruledOut(s, metadata, table, Option.when(isUseful)(translation.clause),
          rowCountsHold)
        listing.indices.foreach { n =>
          val f = listing(n)
          paths(n) = spelling(f)
          ruledOut.get(paths(n)).filter(r => r.identity.size == f.getLen &&
              (read.byPathAndSize || r.identity.modificationTime == f.getModificationTime) &&
              !FileIdentity.contradicts(r.identity.fingerprint, FileIdentity.listed(f.fileStatus)))
            .foreach { r => candidates.ruledOut(candidates.count) = r; candidates.add(n, -1) }
        }
      case _ => // nothing to rule out, or no session to evaluate with: no candidates
    }
    // Files the metadata rules out are skipped only once confirmed unchanged.
    val confirmed = candidates.confirmed(verification)
    val skippedCount = confirmed.count(identity)
    unindexed += candidates.count - skippedCount

    var bytesSkipped, rowsSkipped = 0L
    val attributing = keepByIndex.size > 1
    val skippedBy = mutable.LinkedHashMap(translators.map(_.index.describe -> 0L): _*)
    var skippedByTheOnlyIndex = 0L
    var n = 0
    val kept = directories.map { dir =>
      dir.copy(files = dir.files.filter { f =>
        val k = candidates.of(n)
        n += 1
        if (k < 0 || !confirmed(k)) true
        else {
          bytesSkipped += f.getLen
          rowsSkipped += candidates.rows(k)
          val file = candidates.files(k)
          if (file >= 0 && !isEmptyFile(file)) {
            if (attributing) {
              row.rowId = file
              attribute(row, candidates.path(k), skippedBy)
            } else skippedByTheOnlyIndex += 1
          }
          false
        }
      })
    }.filter(_.files.nonEmpty)
    keepByIndex.headOption.filter(_ => !attributing).foreach { case (alone, _, _) => skippedBy(alone) += skippedByTheOnlyIndex }
    val notice = if (metadata.isDistributed && session.isEmpty) Seq("metadata evaluated with Spark only when files are listed")
      else Nil
    val partial = metadata.definition.where.filter(_ => outsideWhere > 0).map(where =>
      s"$outsideWhere files outside the partial index's WHERE ($where) were read: the index does not cover them")
    (kept, ListingStats(root, listed.toLong, skippedCount.toLong, bytesTotal, bytesSkipped, unindexed,
      unanswered ++ notice ++ partial, if (metadata.isDistributed) Nil else skippedBy.toSeq, rowsSkipped, outsideWhere))
  }

  /**
   * Files of the listing the metadata has no fresh row for (new or changed since indexed), at
   * most `limit`, canonical paths in listing order: what an automatic refresh indexes. Empty for
   * a version held off the driver.
   */
  def uncovered(directories: Seq[PartitionDirectory], limit: Int): Seq[String] =
    if (metadata.isDistributed) Nil
    else directories.iterator.flatMap(_.files).map(f => (f, spelling(f))).filter { case (f, path) =>
      metadata.freshPosition(path, f.getLen, f.getModificationTime, FileIdentity.listed(f.fileStatus), guess = -1,
        byPathAndSize = read.byPathAndSize) < 0
    }.map(_._2).take(limit).toSeq
}

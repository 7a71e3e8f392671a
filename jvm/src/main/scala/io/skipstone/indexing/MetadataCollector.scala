package io.skipstone.indexing

import org.apache.hadoop.fs.Path

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.execution.datasources.InMemoryFileIndex
import org.apache.spark.sql.functions._

import io.skipstone.metadata.{BuildSource, DatasetIndex}

/**
 * Per-file metadata for every index of a build in one Spark job over the data (or none at all:
 * MinMax from Parquet footers), joined with the roles the caller computed in Python.
 */
object MetadataCollector {
  val PathColumn = "path"
  val NumRows = "num_rows"
  val OutsideWhere: String = DatasetIndex.OutsideWhere
  private val InWhere = "_skipstone_in_where"

  /** The JVM's canonical spelling of a file URI: `file:///a` and `file:/a` are one file. */
  def canonicalPath(path: Column): Column = regexp_replace(path, "^([A-Za-z][A-Za-z0-9+.\\-]*):///", "$1:/")

  /**
   * One row per file of `files` (the listing `data` scans: path, size, mtime, fingerprint):
   * those columns, `num_rows` and every index's roles, named `<kind>_<position>_<role>`.
   * A listed file that yields no row has `num_rows` 0 and NULL roles: queries skip it.
   *
   * @param extraRoles per-file roles computed outside the JVM: `path` and metadata columns
   * @param where a partial index's predicate (see [[PartialIndex]]): a file with rows, none of
   *              which it holds for, gets NULL roles and `outside_where` true (read by queries);
   *              the rows are then scanned, footers alone cannot tell
   */
  def collect(session: SparkSession, source: BuildSource, data: DataFrame, files: DataFrame,
              indexes: Seq[PreparedIndex], extraRoles: Option[DataFrame], useFooters: Boolean,
              where: Option[String] = None): DataFrame = {
    val provided = extraRoles.map(_.columns.toSet - PathColumn).getOrElse(Set.empty)
    val named = for ((ix, position) <- indexes.zipWithIndex; (role, how) <- ix.roles)
      yield (ix, role, how, ix.metadataColumn(position, role))
    named.collect { case (ix, role, PythonRole(function), column) if !provided(column) =>
      throw new IndexBuildError(
        s"${ix.description} computes role '$role' with the Python function $function, so it needs Python: " +
          s"build it with Skipstone's Python API (which computes that role and hands it to this build), " +
          s"not from SQL or Scala alone (missing metadata column $column)")
    }
    val roleColumns = named.map(_._4)
    val order = files.columns.toSeq ++ (NumRows +: roleColumns) ++ where.map(_ => OutsideWhere)
    def scanned(files: DataFrame, data: DataFrame): DataFrame = {
      val aggregates = named.collect { case (_, _, SqlRole(aggregate), column) if !provided(column) => aggregate.alias(column) } ++
        where.map(w => PartialIndex.holdsForSomeRow(w).alias(InWhere))
      val summary = data.groupBy(canonicalPath(col("_metadata.file_path")).alias(PathColumn))
        .agg(count(lit(1)).alias(NumRows), aggregates: _*)
      val perFile = extraRoles.fold(summary) { extra =>
        summary.join(extra.select((PathColumn +: provided.toSeq.sorted).map(col): _*), Seq(PathColumn), "left")
      }
      val joined = files.join(perFile, Seq(PathColumn), "left")
        .withColumn(NumRows, coalesce(col(NumRows), lit(0L)))
      // An empty file holds no row of any query: it keeps its summary (NULL roles, 0 rows) and is skipped.
      where.fold(joined) { _ =>
        val outside = col(NumRows) > 0 && !coalesce(col(InWhere), lit(false))
        roleColumns.foldLeft(joined.withColumn(OutsideWhere, outside))((df, c) => df.withColumn(c, when(!col(OutsideWhere), col(c))))
      }.select(order.map(col): _*)
    }
    fromFooters(session, source, files, indexes, useFooters && extraRoles.isEmpty && where.isEmpty) match {
      case None => scanned(files, data)
      case Some(FooterMinMax.Collected(answered, Seq())) => answered.select(order.map(col): _*)
      case Some(FooterMinMax.Collected(answered, unanswered)) =>
        // Files whose footers lack some bound (INT96 timestamps, statistics left out) are
        // scanned, so that their indexes answer queries instead of keeping every such file.
        def among(path: Column) = path.isin(unanswered: _*)
        answered.select(order.map(col): _*).unionByName(
          scanned(files.where(among(col(PathColumn))), data.where(among(canonicalPath(col("_metadata.file_path"))))))
    }
  }

  /**
   * MinMax metadata from Parquet footers when every index is a MinMax over a column whose footer
   * statistics are exact (not floating point, whose footers leave NaN out; not a partition column),
   * with the files whose footers lack some bound.
   */
  private def fromFooters(session: SparkSession, source: BuildSource, files: DataFrame, indexes: Seq[PreparedIndex],
                          allowed: Boolean): Option[FooterMinMax.Collected] = {
    val minMaxOnly = indexes.forall(_.request.kind == "minmax")
    if (!allowed || source.format != "parquet" || indexes.isEmpty || !minMaxOnly) None
    else {
      // in any case, whatever the session's rule: a column merely spelled like a partition column
      // only loses the footer shortcut, never an answer
      lazy val partitionColumns = new InMemoryFileIndex(session, Seq(new Path(source.root)), Map.empty, None)
        .partitionSchema.fieldNames.map(_.toLowerCase).toSet
      val targets = indexes.zipWithIndex.map { case (ix, position) =>
        val column = ix.columns.head
        FooterMinMax.Target(column.path, column.dataType, ix.metadataColumn(position, "min"),
          ix.metadataColumn(position, "max"), ix.metadataColumn(position, "nulls"))
      }
      val usable = targets.forall(t => FooterValues.supported(t.dataType) &&
        !partitionColumns.contains(t.path.parts.head.toLowerCase))
      Option.when(usable)(FooterMinMax.collect(session, files, targets))
    }
  }
}

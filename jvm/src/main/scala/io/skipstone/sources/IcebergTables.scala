package io.skipstone.sources

import scala.jdk.CollectionConverters._
import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias
import org.apache.spark.sql.classic.{Dataset => ClassicDataset}
import org.apache.spark.sql.execution.datasources.{FileIndex, HadoopFsRelation}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.execution.datasources.v2.{DataSourceV2Relation, DataSourceV2ScanRelation}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.skipstone.Sessions
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, MetadataBuilder, StructField, StructType}

import io.skipstone.metadata.{BuildSource, MetadataStore, ReadContext}

/**
 * What Skipstone needs of an Apache Iceberg table, without Iceberg on its class path: Skipstone
 * is compiled against Spark alone, so Iceberg's classes are recognised by name and asked by
 * reflection (see [[IcebergScans]] for its scans). Iceberg's public API is used where it serves
 * (`Table.location()`, `Schema.asStruct()`, `SparkSchemaUtil.convert`).
 *
 * Facts about Iceberg this relies on (its table spec): a data file is immutable and tracked by
 * its location and size; a snapshot lists the live data files and the delete files that apply
 * to them; columns are identified by field id, which Iceberg's Parquet files carry, so a renamed
 * column keeps its id and a dropped and re-added one gets a new id.
 *
 * A build reads each data file's full contents (delete files ignored) with Spark's Parquet
 * reader matching columns by those field ids, as Iceberg does: the index then holds for every
 * snapshot that lists the file. Only Parquet data files written with field ids are indexed: a
 * build over ORC or Avro files is refused, one over imported files without ids fails with
 * Spark's error about missing field ids.
 */
object IcebergTables extends TableFormat {
  val Format: String = BuildSource.IcebergFormat

  override def name: String = Format
  override def title: String = "Iceberg"
  override def snapshotWord: String = "snapshot"

  /** An Iceberg table in Spark's catalogs (read by queries and by index builds). */
  private[sources] val SparkTableClass = "org.apache.iceberg.spark.source.SparkTable"
  private val SchemaUtil = "org.apache.iceberg.spark.SparkSchemaUtil"
  private val FieldIdKey = "parquet.field.id"

  /**
   * How the files are read, beyond Spark's defaults: Iceberg writes dates and timestamps in the
   * proleptic Gregorian calendar and no Spark version marker, which Spark would otherwise treat
   * by its session's rebase mode (failing on dates before 1582).
   */
  val ReadOptions: Map[String, String] = Map("datetimeRebaseMode" -> "CORRECTED")

  override def lists(index: FileIndex): Boolean = index.isInstanceOf[IcebergFiles]

  override def snapshotOf(index: FileIndex): Option[Long] = index match {
    case files: IcebergFiles => files.snapshot.snapshotId
    case _ => None
  }

  /** An Iceberg table keeps its metadata JSON files in `metadata/` under its location. */
  override def isTableRoot(conf: Configuration, root: String): Boolean = Try {
    val metadata = new Path(root, "metadata")
    val fs = metadata.getFileSystem(conf)
    fs.exists(new Path(metadata, "version-hint.text")) ||
      Option(fs.globStatus(new Path(metadata, "*.metadata.json*"))).exists(_.nonEmpty)
  }.getOrElse(false)

  override def fullContents(session: SparkSession, relation: HadoopFsRelation, files: Seq[String]): DataFrame =
    relation.location match {
      case listed: IcebergFiles => fileRows(session, listed.only(files))
      case other => throw new IllegalArgumentException(s"not an Iceberg table's listing: $other")
    }

  /** The Iceberg table relation `df` reads, if it reads exactly one (through whatever filters or projections). */
  def relation(df: DataFrame): Option[DataSourceV2Relation] =
    df.asInstanceOf[ClassicDataset[_]].queryExecution.analyzed.collect {
      case r: DataSourceV2Relation if isIcebergTable(r) => r
    } match {
      case Seq(one) => Some(one)
      case _ => None
    }

  private def isIcebergTable(r: DataSourceV2Relation): Boolean = r.table != null && r.table.getClass.getName == SparkTableClass

  /**
   * The root and name of the Iceberg table `parts` names in the session's catalogs, if it is
   * one: the name read as a table resolves to an Iceberg relation itself (a view over one is not).
   */
  def resolve(session: SparkSession, parts: Seq[String]): Option[(String, String)] = {
    val name = parts.map(quoted).mkString(".")
    Try(session.table(name).asInstanceOf[ClassicDataset[_]].queryExecution.analyzed).toOption.collect {
      case SubqueryAlias(_, r: DataSourceV2Relation) if isIcebergTable(r) => r
      case r: DataSourceV2Relation if isIcebergTable(r) => r
    }.map(r => (root(session.sessionState.newHadoopConf(), Reflective.call(r.table, "table")), name))
  }

  /** The location of `table` (Iceberg's `Table`), qualified: the key of its Skipstone metadata. */
  def root(conf: Configuration, table: AnyRef): String = MetadataStore.qualify(conf, Reflective.call(table, "location").toString)

  /**
   * `df`'s Iceberg table at the snapshot `df` reads (its time travel, branch or the newest), as
   * a build reads it: the full contents of the data files Iceberg's planning lists for a read
   * of the whole table (see [[fileRows]]). None when `df` reads no Iceberg table.
   */
  def pinned(session: SparkSession, df: DataFrame): Option[DataFrame] = relation(df).map { r =>
    val whole = Sessions.ofPlan(session, r).asInstanceOf[ClassicDataset[_]].queryExecution.optimizedPlan
    val scan = whole.collectFirst { case s: DataSourceV2ScanRelation => s.scan }.getOrElse(throw new IllegalStateException(
      s"Iceberg planned no scan of ${r.name}: ${whole.getClass.getSimpleName}"))
    val conf = session.sessionState.newHadoopConf()
    val snapshot = IcebergScans.snapshot(conf, scan)
    val files = IcebergScans.tasks(scan).map(task => IcebergScans.dataFile(task).getOrElse(throw new IllegalStateException(
      s"Iceberg planned a task that reads no data file for ${snapshot.table}: ${task.getClass.getName}"))).distinct
    files.find(!_.format.equalsIgnoreCase("PARQUET")).foreach { f =>
      throw new IllegalArgumentException(s"the Iceberg table ${snapshot.table} has ${f.format} data files " +
        s"(e.g. ${f.location}); Skipstone indexes Iceberg tables whose data files are Parquet")
    }
    fileRows(session, new IcebergFiles(snapshot.copy(catalogName = catalogName(r)), statuses(conf, snapshot.root, files)))
  }

  /** `catalog.db.table` for a table of Spark's catalogs; None for one Iceberg loads by its path. */
  private def catalogName(r: DataSourceV2Relation): Option[String] = for {
    catalog <- r.catalog
    ident <- r.identifier if ident.getClass.getName != "org.apache.iceberg.spark.PathIdentifier"
  } yield (catalog.name +: ident.namespace.toSeq :+ ident.name).map(quoted).mkString(".")

  private def quoted(part: String): String =
    if (part.matches("[A-Za-z_][A-Za-z0-9_]*")) part else s"`${part.replace("`", "``")}`"

  /** The files as a listing: Iceberg's locations qualified on the table's file system, Iceberg's sizes. */
  def statuses(conf: Configuration, root: String, files: Seq[IcebergScans.DataFile]): Seq[org.apache.hadoop.fs.FileStatus] = {
    val fs = new Path(root).getFileSystem(conf)
    files.map(f => IcebergFiles.status(fs.makeQualified(new Path(f.location)), f.size))
  }

  /**
   * Every row the listed files hold, deletes ignored, read as Iceberg reads them: Parquet
   * columns matched by field id (so a renamed column is found under its old name, and a column
   * added later reads as NULL), in a copy of the session that reads by field id and fails on a
   * file without ids rather than reading NULLs.
   */
  def fileRows(session: SparkSession, files: IcebergFiles): DataFrame = {
    val reader = Sessions.cloned(session)
    reader.conf.set(SQLConf.PARQUET_FIELD_ID_READ_ENABLED.key, "true")
    reader.conf.set(SQLConf.IGNORE_MISSING_PARQUET_FIELD_ID.key, "false")
    reader.baseRelationToDataFrame(
      HadoopFsRelation(files, new StructType(), files.snapshot.schema, None, new ParquetFileFormat, ReadOptions)(reader))
  }

  /**
   * How Skipstone reads an Iceberg table's files, as the read context a build records and a
   * query compares: format `iceberg` (Parquet by field id), the snapshot's columns with their ids.
   */
  def reading(schema: StructType): ReadContext.Reading =
    ReadContext.Reading(new ParquetFileFormat, ReadOptions, schema, new StructType(), Some(Format))

  override def reading(relation: HadoopFsRelation): ReadContext.Reading = reading(relation.dataSchema)

  /** A snapshot of `table` (Iceberg's `Table`) read with `schema` (Iceberg's `Schema`). */
  def snapshot(conf: Configuration, table: AnyRef, snapshotId: Option[Long], schema: AnyRef): IcebergSnapshot = {
    val struct = Reflective.call(schema, "asStruct")
    val converted = Reflective.callStatic(schema, SchemaUtil, "convert", schema).asInstanceOf[StructType]
    val fields = nestedFields(struct)
    IcebergSnapshot(Reflective.call(table, "name").toString, root(conf, table), snapshotId,
      withFieldIds(converted, struct).asInstanceOf[StructType],
      fields.filter(hasDefault).map(f => Reflective.call(f, "name").toString).toSet)
  }

  /** `spark` (Iceberg's conversion of `iceberg`) with each struct field's Iceberg id, and no other field metadata. */
  private def withFieldIds(spark: DataType, iceberg: AnyRef): DataType = spark match {
    case s: StructType if is(iceberg, "isStructType") =>
      StructType(s.fields.toSeq.zip(nestedFields(iceberg)).map { case (field, nested) =>
        val id = Reflective.call(nested, "fieldId").asInstanceOf[java.lang.Integer].longValue
        StructField(field.name, withFieldIds(field.dataType, Reflective.call(nested, "type")), field.nullable,
          new MetadataBuilder().putLong(FieldIdKey, id).build())
      })
    case a: ArrayType if is(iceberg, "isListType") =>
      a.copy(elementType = withFieldIds(a.elementType, Reflective.call(Reflective.call(iceberg, "asListType"), "elementType")))
    case m: MapType if is(iceberg, "isMapType") =>
      val map = Reflective.call(iceberg, "asMapType")
      m.copy(keyType = withFieldIds(m.keyType, Reflective.call(map, "keyType")),
        valueType = withFieldIds(m.valueType, Reflective.call(map, "valueType")))
    case other => other
  }

  private def is(icebergType: AnyRef, test: String): Boolean =
    Reflective.call(icebergType, test).asInstanceOf[java.lang.Boolean].booleanValue

  private def nestedFields(struct: AnyRef): Seq[AnyRef] =
    Reflective.call(Reflective.call(struct, "asStructType"), "fields").asInstanceOf[java.util.List[AnyRef]].asScala.toSeq

  /** Whether a field or one nested in it has an initial default (Iceberg v3; none before). */
  private def hasDefault(field: AnyRef): Boolean =
    Try(Reflective.call(field, "initialDefault")).toOption.exists(_ != null) || {
      val t = Reflective.call(field, "type")
      if (is(t, "isStructType")) nestedFields(t).exists(hasDefault)
      else if (is(t, "isListType")) Try(Reflective.call(Reflective.call(t, "asListType"), "fields")).toOption
        .exists(_.asInstanceOf[java.util.List[AnyRef]].asScala.exists(hasDefault))
      else if (is(t, "isMapType")) Try(Reflective.call(Reflective.call(t, "asMapType"), "fields")).toOption
        .exists(_.asInstanceOf[java.util.List[AnyRef]].asScala.exists(hasDefault))
      else false
    }
}

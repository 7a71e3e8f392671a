package io.skipstone.table

import java.util.{Locale, UUID}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.classic.{Dataset => ClassicDataset}
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.types.{DoubleType, StructField, StructType}
import org.json4s._
import org.json4s.jackson.JsonMethods

import io.skipstone.indexing.IndexRequest
import io.skipstone.layout.{LayoutDocument, LayoutEncoding, Leaf, TreeLayout}
import io.skipstone.layout.builders.{EncodedSample, LayoutBuilders, LayoutSample}
import io.skipstone.metadata.ColumnPath

/**
 * A layout spec that Python defines (a user's `@layout_spec` class, PAW and the qd-tree built from
 * the workload): the JVM draws the sample and asks Python, over py4j's callback server, for the
 * layout document. The built-in specs never need one.
 */
trait PythonLayoutBuilder {
  /** The layout document (JSON) the spec builds on `sample`, with blocks of `blockRows` of `totalRows` rows. */
  def build(sample: EncodedSample, blockRows: Double, totalRows: Double): String
}

/**
 * Creating a managed table from rows and a layout spec: the one orchestration Python's
 * `Skipstone.create`, the `skipstone` source and `CREATE TABLE ... USING skipstone` share. It
 * checks the root, sizes the blocks, draws and stores the sample, builds the layout (the JVM's
 * builders for the built-in specs, Python's for its own), and commits version 1 through
 * [[Create]] (the table transaction) with MinMax over every layout column besides the indexes asked for.
 */
object NewTable {
  val DefaultBytesPerRow = 100.0
  /** A sample of at least this many rows, and of 200 per block wanted. */
  val MinSampleRows = 10000

  def create(session: SparkSession, root: String, rows: DataFrame, spec: JValue, indexes: Seq[IndexRequest],
             sampleRows: Option[Int], python: Option[PythonLayoutBuilder], roles: Option[PythonRoles],
             table: String): Snapshot = {
    val conf = session.sessionState.newHadoopConf()
    if (TableLog.latestVersion(conf, root).isDefined) throw new IllegalArgumentException(
      s"$table is already a Skipstone table; open it, or append to it")
    if (holdsOtherFiles(session, root)) throw new IllegalArgumentException(
      s"$table: $root exists and is not empty; create a table in a new directory")
    TableLog.requireSafeCommits(conf, root) // before the sample and the schema summary are written
    val resolver = session.sessionState.conf.resolver
    val specColumns = (spec \ "columns") match {
      case JArray(cs) => Some(cs.collect { case JString(c) => c })
      case _ => None
    }
    specColumns.foreach(cs => LayoutColumns.resolve(rows.schema, Some(cs), table, resolver))
    // every orderable column: the adaptive optimizer may cut on any column the workload filters
    val columns = LayoutColumns.resolve(rows.schema, None, table, resolver)
    val total = rows.count()
    val blockRows = blockRowsOf(spec, rows, total)
    val blocksWanted = math.max(1L, math.ceil(total / blockRows).toLong)
    val wanted = sampleRows.getOrElse(math.max(MinSampleRows.toLong, 200L * blocksWanted).min(Int.MaxValue).toInt)
    val sample = LayoutSample.draw(rows, columns, total, math.min(total, wanted.toLong).toInt, 0L)
    val resolvedSpec = specColumns.fold(spec)(cs => replaceColumns(spec, LayoutColumns.resolve(rows.schema, Some(cs),
      table, resolver)))
    val layout =
      if (total == 0 || sample.rows == 0) TreeLayout(sample.schema, Leaf(0, 0.0))
      else python.fold(LayoutBuilders.build(resolvedSpec, sample, blockRows, total.toDouble))(
        p => LayoutDocument.parse(p.build(sample, blockRows, total.toDouble)))
    val samplePath = TableSample.write(session, root, sample)
    val properties = Map(
      "format" -> "parquet",
      "schema" -> rows.schema.json,
      "layout.spec" -> JsonMethods.compact(JsonMethods.render(resolvedSpec)),
      "layout.blockRows" -> blockRows.toString,
      "layout.sample" -> samplePath)
    val minMax = columns.map(c => IndexRequest("minmax", Seq(ColumnPath.definitionName(c)), Map.empty))
    val requested = indexes ++ minMax.filterNot(m => indexes.exists(i =>
      i.kind.toLowerCase(Locale.ROOT) == "minmax" && i.columns == m.columns))
    try Create.run(session, root, rows, layout, properties, if (total > 0) requested else Nil, roles)
    catch {
      case e: InjectedFailure => throw e // a test's kill leaves what a kill would
      case e: Throwable =>
        TableSample.delete(session, root, samplePath)
        throw e
    }
  }

  /** The table's block size in rows: the spec's `block_rows`, else its `block_bytes` over Spark's estimate of a row's size. */
  private def blockRowsOf(spec: JValue, rows: DataFrame, total: Long): Double = (spec \ "block_rows") match {
    case JInt(n) if n > 0 => n.toDouble
    case JLong(n) if n > 0 => n.toDouble
    case JDouble(n) if n > 0 => n
    case _ =>
      val bytes = (spec \ "block_bytes") match {
        case JInt(n) if n > 0 => n.toDouble
        case JLong(n) if n > 0 => n.toDouble
        case _ => LayoutBuilders.DefaultBlockBytes.toDouble
      }
      math.max(1.0, bytes / bytesPerRow(rows, total))
  }

  /**
   * Spark's size estimate of the input over its rows: the files' size for a file source (close to
   * what Parquet writes), a row-width estimate for in-memory data (larger: blocks come out smaller
   * than asked). A spec's `block_rows` is exact.
   */
  private def bytesPerRow(rows: DataFrame, total: Long): Double =
    if (total <= 0) DefaultBytesPerRow
    else scala.util.Try(rows.asInstanceOf[ClassicDataset[_]].queryExecution.optimizedPlan.stats.sizeInBytes.toDouble)
      .toOption.filter(_ > 0).fold(DefaultBytesPerRow)(size => math.max(1.0, size / total))

  private def replaceColumns(spec: JValue, columns: Seq[String]): JValue = spec match {
    case JObject(fields) => JObject(fields.map {
      case ("columns", _) => "columns" -> JArray(columns.map(JString(_)).toList)
      case other => other
    })
    case other => other
  }

  /**
   * Whether `root` holds anything but what a create that died before committing left (the
   * container without a log, data files Skipstone named, the schema summary): such a directory
   * may be created again; the leftovers are never read and a vacuum deletes them.
   */
  private def holdsOtherFiles(session: SparkSession, root: String): Boolean = {
    val path = new Path(root)
    val fs = path.getFileSystem(session.sessionState.newHadoopConf())
    fs.exists(path) && fs.listStatus(path).exists { s =>
      val name = s.getPath.getName
      name != TableLog.ContainerDir && name != "_common_metadata" && !BlockFiles.isBlockFile(name)
    }
  }

  /** [[create]] for Python: the spec and index requests as JSON, the new log entry as JSON; `python`, `roles`, `sampleRows` may be null. */
  def createFromPython(session: SparkSession, root: String, rows: DataFrame, specJson: String, indexesJson: String,
                       sampleRows: java.lang.Integer, python: PythonLayoutBuilder, roles: PythonRoles): String = {
    val indexes = if (JsonMethods.parse(indexesJson).children.isEmpty) Nil else IndexRequest.parseAll(indexesJson)
    SnapshotJson.write(create(session, root, rows, JsonMethods.parse(specJson), indexes,
      Option(sampleRows).map(_.intValue), Option(python), Option(roles), root))
  }
}

/** Which columns a layout orders: those named, as the table spells them, or every column a layout can order. */
object LayoutColumns {
  def resolve(schema: StructType, requested: Option[Seq[String]], table: String, resolver: Resolver): Seq[String] =
    requested match {
      case None =>
        val orderable = schema.fields.filter(f => LayoutEncoding.kindOf(f.dataType).isDefined).map(_.name).toSeq
        if (orderable.isEmpty) throw new IllegalArgumentException(
          s"table $table has no column a layout can order (numbers, dates, timestamps, strings, booleans)")
        orderable
      case Some(names) => names.map { name =>
        val field = ColumnPath.pick(ColumnPath(Seq(name)), schema.fields.toSeq, resolver)(f => ColumnPath(Seq(f.name)))
          .getOrElse(throw new IllegalArgumentException(
            s"layout column '$name' does not exist in table $table (columns: ${schema.fieldNames.mkString(", ")})"))
        if (LayoutEncoding.kindOf(field.dataType).isEmpty) throw new IllegalArgumentException(
          s"layout column '${field.name}' of table $table has type ${field.dataType.simpleString}, which a layout cannot order")
        field.name
      }
    }
}

/**
 * The table's stored layout sample: `_skipstone/sample/<id>`, Parquet with one double column
 * `c<i>` per layout column in the layout schema's order. Rows move between blocks but never
 * change, so it stays a sample of the table; optimizations plan on it.
 */
object TableSample {
  def write(session: SparkSession, root: String, sample: EncodedSample): String = {
    val relative = s"${TableLog.ContainerDir}/sample/${UUID.randomUUID().toString.replace("-", "")}"
    val schema = StructType(sample.schema.indices.map(i => StructField(s"c$i", DoubleType)))
    val rows = (0 until sample.rows).map(r => Row.fromSeq(sample.columns.map(_(r)).toSeq))
    session.createDataFrame(rows.asJava, schema).coalesce(1).write.parquet(s"$root/$relative")
    relative
  }

  /** The sample at `relative`, with the layout schema `schema` of the layout it was drawn for. */
  def read(session: SparkSession, root: String, relative: String, schema: Seq[io.skipstone.layout.LayoutColumn]): EncodedSample = {
    val rows = session.read.parquet(s"$root/$relative").select(schema.indices.map(i => col(s"c$i")): _*).collect()
    EncodedSample(schema, schema.indices.map(i => rows.map(_.getDouble(i))).toArray)
  }

  def delete(session: SparkSession, root: String, relative: String): Unit = {
    val path = new Path(s"$root/$relative")
    scala.util.Try(path.getFileSystem(session.sessionState.newHadoopConf()).delete(path, true))
  }
}

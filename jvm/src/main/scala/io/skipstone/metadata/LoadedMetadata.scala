package io.skipstone.metadata

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector
import org.apache.spark.sql.types.{StringType, StructType}
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatchRow}
import org.apache.spark.unsafe.types.UTF8String

/**
 * One published metadata version, held on the driver column by column: position `i` in every
 * column is one data file (see [[MetadataColumns]]).
 *
 * Columns are the base columns `path`, `size`, `mtime`, `num_rows`, optionally `fingerprint`
 * (see [[FileIdentity]]), and every index's columns. Indexes whose columns are missing or of
 * the wrong type (metadata written by someone else) are left out of `definition` once, here.
 *
 * A version too large for the driver (see [[CacheConf]]) holds no files: `columns` is empty and
 * `distributedTable` names the metadata table that clauses are evaluated over with Spark.
 *
 * An encrypted version is held as the sessions that hold some of its keys may use it (see
 * [[KeyAccess]]): `withheld` are the indexes whose key they lack, with why; their columns were
 * never read.
 */
final class LoadedMetadata(val version: Long, declared: DatasetIndex, columns: MetadataColumns,
                           val distributedTable: Option[String] = None, tableFiles: Option[Long] = None,
                           val withheld: Seq[(IndexSpec, String)] = Nil) {
  val schema: StructType = columns.schema

  private val readable = declared.indexes.filterNot(ix => withheld.exists(_._1 == ix))

  /** Problems found in the table against the definition, one message per unusable index. */
  val problems: Seq[String] = readable.flatMap(ix => MetadataTypes.problem(ix, schema))

  /** The definition with only the indexes this table can answer for. */
  val definition: DatasetIndex =
    declared.copy(indexes = readable.filter(ix => MetadataTypes.problem(ix, schema).isEmpty))

  /** The metadata table's columns as attributes, for clauses to refer to and bind against. */
  val attributes: Seq[AttributeReference] = DataTypeUtils.toAttributes(schema)

  private val sizes = columns.vector(schema.fieldIndex(LoadedMetadata.Size))
  private val mtimes = columns.vector(schema.fieldIndex(LoadedMetadata.ModificationTime))
  private val numRows = columns.vector(schema.fieldIndex(LoadedMetadata.NumRows))
  private val fingerprints = Option(schema.fieldNames.indexOf(LoadedMetadata.Fingerprint)).filter(_ >= 0).map(columns.vector)
  private val outsideWhere = Option(schema.fieldNames.indexOf(DatasetIndex.OutsideWhere)).filter(_ >= 0).map(columns.vector)

  /** Paths as listings spell them: the stored column unless some stored path is spelled otherwise. */
  private val paths: ColumnVector = LoadedMetadata.canonicalPaths(columns.vector(schema.fieldIndex(LoadedMetadata.Path)), columns.count)
  private val byPath = new PathIndex(paths, columns.count)

  def attribute(name: String): AttributeReference =
    attributes.find(_.name == name).getOrElse(throw new IllegalStateException(
      s"metadata version $version of ${definition.datasetRoot} has no column '$name'"))

  def fileCount: Int = columns.count

  /** Files the version describes, held on the driver or not. */
  def filesInTable: Long = tableFiles.getOrElse(columns.count.toLong)

  def isDistributed: Boolean = distributedTable.isDefined

  /** A row over this version's columns, to be positioned at a file (`rowId`) before each use. */
  def view(): ColumnarBatchRow = columns.view()

  /**
   * The file's position in the version if it was indexed, else -1; `path` is canonical.
   * `guess` is tried first: listings mostly come in the order the files were indexed, and a
   * look at the next position is cheaper than hashing the path and probing memory at random.
   */
  def position(path: String, guess: Int = -1): Int = {
    val utf8 = UTF8String.fromString(path)
    if (guess >= 0 && guess < columns.count && !byPath.hasDuplicates && !paths.isNullAt(guess) && paths.getUTF8String(guess) == utf8) guess
    else byPath(utf8)
  }

  /**
   * The position of the file if the listing agrees with its metadata, else -1: size and
   * modification time as Spark listed them, and the ETag where both the listing and the
   * metadata have one (object stores list it at no extra request; see [[FileIdentity.listed]]).
   * `byPathAndSize`: the listing comes from a log of immutable, uniquely named files (Delta's),
   * where path and size identify a file and the time is only what the log recorded.
   */
  def freshPosition(path: String, size: Long, modificationTime: Long, listedFingerprint: Option[String],
                    guess: Int, byPathAndSize: Boolean = false): Int = {
    val i = position(path, guess)
    if (i >= 0 && sizes.getLong(i) == size && (byPathAndSize || mtimes.getLong(i) == modificationTime) &&
      !FileIdentity.contradicts(recordedFingerprint(i), listedFingerprint)) i else -1
  }

  private def recordedFingerprint(file: Int): Option[String] =
    fingerprints.filterNot(_.isNullAt(file)).map(_.getUTF8String(file).toString)

  def path(file: Int): String = paths.getUTF8String(file).toString
  def rowCount(file: Int): Long = numRows.getLong(file)

  /**
   * Whether the file is outside its partial index's WHERE: its index columns summarize nothing
   * and it is read (see [[DatasetIndex.where]]). A row that cannot tell counts as outside.
   */
  def isOutsideWhere(file: Int): Boolean = outsideWhere.exists(v => v.isNullAt(file) || v.getBoolean(file))

  /** The identity of the file when it was indexed. */
  def identity(file: Int): FileIdentity = FileIdentity(sizes.getLong(file), mtimes.getLong(file), recordedFingerprint(file))

  private val derivedObjects = new java.util.concurrent.ConcurrentHashMap[Any, AnyRef]()

  /**
   * Work that depends only on this version (and `key`) done once for every query that uses
   * it: compiled index translators, decoded cells. Lives as long as the version is cached;
   * nothing derived may hold a SparkSession (the cache is shared by every session).
   */
  def derived[T <: AnyRef](key: Any)(make: => T): T = {
    // get-then-putIfAbsent rather than computeIfAbsent: `make` may itself derive other objects
    val found = derivedObjects.get(key)
    if (found != null) found.asInstanceOf[T]
    else {
      val made = make
      Option(derivedObjects.putIfAbsent(key, made)).getOrElse(made).asInstanceOf[T]
    }
  }

  /** The memo of objects decoded from `column`'s cells, shared by every query on this version. */
  def decodedCells(column: String): DecodedCells = derived(("decoded", column))(new DecodedCells)

  /** Bytes this version holds on the driver, by metadata column (path lookup table under `path`). */
  val bytesByColumn: Map[String, Long] = {
    val extraPaths = if (paths eq columns.vector(schema.fieldIndex(LoadedMetadata.Path))) 0L
      else columns.columnBytes(LoadedMetadata.Path)
    columns.columnBytes.updated(LoadedMetadata.Path, columns.columnBytes(LoadedMetadata.Path) + extraPaths + byPath.bytes)
  }

  /** Bytes by index (its columns), and the base columns under "base". */
  def bytesByIndex: Seq[(String, Long)] = {
    val byIndex = definition.indexes.map(ix => ix.describe -> ix.metadataColumns.values.toSeq.distinct.map(bytesByColumn.getOrElse(_, 0L)).sum)
    val indexed = definition.indexes.flatMap(_.metadataColumns.values).toSet
    ("base" -> bytesByColumn.filter { case (c, _) => !indexed(c) }.values.sum) +: byIndex
  }

  /** Bytes by index kind (minmax, bloomfilter, ...), summed over indexes of that kind. */
  def bytesByKind: Seq[(String, Long)] =
    definition.indexes.groupBy(_.kind).toSeq.map { case (kind, ixs) =>
      kind -> ixs.flatMap(_.metadataColumns.values).distinct.map(bytesByColumn.getOrElse(_, 0L)).sum
    }.sortBy(_._1)

  /** How many cells of each column have been decoded and kept (bloom filters: files probed). */
  def decodedCounts: Map[String, Int] =
    derivedObjects.asScala.collect { case (("decoded", column: String), d: DecodedCells) => column -> d.size }.toMap

  /** Columns, lookup table and decoded cells. */
  def sizeBytes: Long = bytesByColumn.values.sum + decodedBytes

  private def decodedBytes: Long = derivedObjects.values.asScala.collect { case d: DecodedCells => d.bytes }.sum

  /** Called when the version leaves the cache: gives decoded cells' budget back. */
  def release(): Unit = derivedObjects.values.asScala.foreach {
    case d: DecodedCells => d.release()
    case _ =>
  }
}

object LoadedMetadata {
  val Path = "path"
  val Size = "size"
  val ModificationTime = "mtime"
  val NumRows = "num_rows"
  val Fingerprint = "fingerprint"

  private val NotCanonical = Seq(":///", "?", "#").map(UTF8String.fromString)
  private val Colon = UTF8String.fromString(":")

  /** Builds write canonical paths; any other spelling is rewritten into a second column. */
  private def canonicalPaths(stored: ColumnVector, count: Int): ColumnVector = {
    def odd(i: Int): Boolean = !stored.isNullAt(i) && {
      val p = stored.getUTF8String(i)
      !p.contains(Colon) || NotCanonical.exists(p.contains)
    }
    if (!(0 until count).exists(odd)) stored
    else {
      val canonical = new OnHeapColumnVector(math.max(count, 1), StringType)
      (0 until count).foreach { i =>
        if (stored.isNullAt(i)) canonical.appendNull()
        else {
          val p = stored.getUTF8String(i)
          val bytes = (if (odd(i)) UTF8String.fromString(FilePaths.canonical(p.toString)) else p).getBytes
          canonical.appendByteArray(bytes, 0, bytes.length)
        }
      }
      canonical
    }
  }
}

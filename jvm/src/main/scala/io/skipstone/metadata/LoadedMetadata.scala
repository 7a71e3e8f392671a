package io.skipstone.metadata

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.types.StructType

/**
 * One published metadata version, held on the driver: one row per data file.
 *
 * Rows carry the base columns `path`, `size`, `mtime`, `num_rows`, optionally `fingerprint`
 * (see [[FileIdentity]]), and every index's columns. Indexes whose columns are missing or of
 * the wrong type (metadata written by someone else) are left out of `definition` once, here.
 */
case class LoadedMetadata(
    version: Long,
    declared: DatasetIndex,
    schema: StructType,
    rows: Array[InternalRow]) {

  /** Problems found in the table against the definition, one message per unusable index. */
  val problems: Seq[String] = declared.indexes.flatMap(ix => MetadataTypes.problem(ix, schema))

  /** The definition with only the indexes this table can answer for. */
  val definition: DatasetIndex =
    declared.copy(indexes = declared.indexes.filter(ix => MetadataTypes.problem(ix, schema).isEmpty))

  /** The metadata table's columns as attributes, for clauses to refer to and bind against. */
  val attributes: Seq[AttributeReference] = DataTypeUtils.toAttributes(schema)

  private val pathOrdinal = schema.fieldIndex(LoadedMetadata.Path)
  private val sizeOrdinal = schema.fieldIndex(LoadedMetadata.Size)
  private val mtimeOrdinal = schema.fieldIndex(LoadedMetadata.ModificationTime)
  private val fingerprintOrdinal = Option(schema.fieldNames.indexOf(LoadedMetadata.Fingerprint)).filter(_ >= 0)

  private val rowByPath: Map[String, InternalRow] =
    rows.iterator.map(r => FilePaths.canonical(r.getUTF8String(pathOrdinal).toString) -> r).toMap

  def attribute(name: String): AttributeReference =
    attributes.find(_.name == name).getOrElse(throw new IllegalStateException(
      s"metadata version $version of ${definition.datasetRoot} has no column '$name'"))

  /** The file's metadata row, if it was indexed; `path` is canonical. */
  def row(path: String): Option[InternalRow] = rowByPath.get(path)

  /** The identity of the file when it was indexed. */
  def identity(row: InternalRow): FileIdentity = FileIdentity(
    row.getLong(sizeOrdinal), row.getLong(mtimeOrdinal),
    fingerprintOrdinal.filterNot(row.isNullAt).map(row.getUTF8String(_).toString))

  /** The identities recorded for `paths`, for estimates and benchmarks that do not verify. */
  def recordedIdentities(paths: Seq[String]): Map[String, FileIdentity] =
    paths.flatMap(p => row(p).map(r => p -> identity(r))).toMap

  /** Metadata of the file if `listed` (size, mtime as Spark listed it) agrees with it. */
  def freshRow(path: String, size: Long, modificationTime: Long): Option[InternalRow] =
    row(path).filter(r => r.getLong(sizeOrdinal) == size && r.getLong(mtimeOrdinal) == modificationTime)

  def fileCount: Int = rows.length

  private val derivedObjects = new java.util.concurrent.ConcurrentHashMap[Any, AnyRef]()

  /**
   * Work that depends only on this version (and `key`) done once for every query that uses
   * it: compiled index translators, decoded cells. Lives as long as the version is cached.
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
}

object LoadedMetadata {
  val Path = "path"
  val Size = "size"
  val ModificationTime = "mtime"
  val NumRows = "num_rows"
  val Fingerprint = "fingerprint"
}

package io.skipstone.metadata

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.types.StructType

/**
 * One published metadata version, held on the driver: one row per data file.
 *
 * Rows carry the base columns `path`, `size`, `mtime`, `num_rows` and every index's columns.
 */
case class LoadedMetadata(
    version: Long,
    definition: DatasetIndex,
    schema: StructType,
    rows: Array[InternalRow]) {

  /** The metadata table's columns as attributes, for clauses to refer to and bind against. */
  val attributes: Seq[AttributeReference] = DataTypeUtils.toAttributes(schema)

  private val pathOrdinal = schema.fieldIndex(LoadedMetadata.Path)
  private val sizeOrdinal = schema.fieldIndex(LoadedMetadata.Size)
  private val mtimeOrdinal = schema.fieldIndex(LoadedMetadata.ModificationTime)

  private val rowByPath: Map[String, InternalRow] =
    rows.iterator.map(r => FilePaths.canonical(r.getUTF8String(pathOrdinal).toString) -> r).toMap

  def attribute(name: String): AttributeReference =
    attributes.find(_.name == name).getOrElse(throw new IllegalStateException(
      s"metadata version $version of ${definition.datasetRoot} has no column '$name'"))

  /** The file's metadata row, if it was indexed and has not changed since; `path` is canonical. */
  def freshRow(path: String, size: Long, modificationTime: Long): Option[InternalRow] =
    rowByPath.get(path).filter(r => r.getLong(sizeOrdinal) == size && r.getLong(mtimeOrdinal) == modificationTime)

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
}

package io.skipstone.metadata

import java.nio.charset.StandardCharsets

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileContext, FileStatus, Options, Path}
import org.json4s._
import org.json4s.jackson.JsonMethods

/**
 * The file in a dataset's metadata directory that says its versions live in a catalog table.
 *
 * Why a file there rather than a registry in the catalog: the query path knows a dataset by its
 * root only, and lists that directory anyway (it is where Parquet-file versions live), so the
 * pointer is found in the same listing and a query's planning asks nothing more of the file
 * system than before; a registry would cost every query a catalog call, indexed or not, and
 * need a database of its own that every session agrees on. The pointer holds a name only: what
 * a session may read of the metadata is still decided by the catalog and the table's storage.
 */
object StorePointer {
  val FileName = "store.json"

  /** The table a listing of the metadata directory points to, reading the pointer if listed. */
  def in(conf: Configuration, dir: Path, listing: Seq[FileStatus]): Option[CatalogTableRef] =
    if (listing.exists(s => s.isFile && s.getPath.getName == FileName)) read(conf, dir) else None

  def read(conf: Configuration, dir: Path): Option[CatalogTableRef] = {
    val file = new Path(dir, FileName)
    val fs = file.getFileSystem(conf)
    val text = try {
      val in = fs.open(file)
      try Some(new String(in.readAllBytes(), StandardCharsets.UTF_8)) finally in.close()
    } catch { case _: java.io.FileNotFoundException => None }
    text.map { t =>
      implicit val formats: Formats = DefaultFormats
      val json = JsonMethods.parse(t)
      (json \ "store").extract[String] match {
        case "catalog" => CatalogTableRef((json \ "database").extract[String], (json \ "table").extract[String])
        case other => throw new IllegalStateException(s"$file names a metadata store '$other' this Skipstone does not know")
      }
    }
  }

  /** Points the dataset at `table`, replacing any pointer in one rename: readers see the old one or the new one. */
  def write(conf: Configuration, dir: Path, table: CatalogTableRef): Unit = {
    val fs = dir.getFileSystem(conf)
    val temporary = new Path(dir, s"_$FileName-${java.util.UUID.randomUUID()}")
    val json = JsonMethods.compact(JsonMethods.render(
      JObject("store" -> JString("catalog"), "database" -> JString(table.database), "table" -> JString(table.name))))
    val out = fs.create(temporary, false)
    try out.write(json.getBytes(StandardCharsets.UTF_8)) finally out.close()
    try FileContext.getFileContext(dir.toUri, conf).rename(temporary, new Path(dir, FileName), Options.Rename.OVERWRITE)
    finally if (fs.exists(temporary)) fs.delete(temporary, false)
  }

  def remove(conf: Configuration, dir: Path): Unit = {
    val file = new Path(dir, FileName)
    file.getFileSystem(conf).delete(file, false)
  }
}

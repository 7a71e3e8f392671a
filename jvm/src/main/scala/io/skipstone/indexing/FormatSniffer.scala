package io.skipstone.indexing

import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}

/**
 * Which format a directory's data files are in, from their first bytes, so that indexing a
 * dataset as the wrong format fails with a message naming the format found instead of deep in
 * a reader. Looks at one data file (Spark's rules: names starting with `_` or `.` are not data).
 */
object FormatSniffer {
  def sniff(root: String, conf: Configuration): Option[(String, String)] = {
    val dir = new Path(root)
    val fs = dir.getFileSystem(conf)
    firstDataFile(fs.listStatus(dir).toSeq, fs).flatMap { file =>
      Try {
        val in = fs.open(file.getPath)
        val head = try in.readNBytes(4) finally in.close()
        (formatOf(head), file.getPath.getName)
      }.toOption
    }
  }

  private def firstDataFile(entries: Seq[FileStatus], fs: org.apache.hadoop.fs.FileSystem): Option[FileStatus] = {
    val visible = entries.filterNot(s => s.getPath.getName.startsWith("_") || s.getPath.getName.startsWith("."))
      .sortBy(_.getPath.getName)
    visible.find(s => s.isFile && s.getLen > 0).orElse(
      visible.filter(_.isDirectory).iterator.flatMap(d => firstDataFile(fs.listStatus(d.getPath).toSeq, fs)).nextOption())
  }

  private def formatOf(head: Array[Byte]): String = new String(head, "ISO-8859-1") match {
    case "PAR1" | "PARE" => "parquet" // PARE: Parquet with an encrypted footer
    case h if h.startsWith("ORC") => "orc"
    case h if h.startsWith("Obj") => "avro"
    case h if h.trim.startsWith("{") || h.trim.startsWith("[") => "json"
    case _ => "text (CSV or plain text)"
  }
}

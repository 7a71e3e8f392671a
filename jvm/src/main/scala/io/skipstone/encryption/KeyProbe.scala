package io.skipstone.encryption

import scala.jdk.CollectionConverters._
import scala.util.{Failure, Success, Try}
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.parquet.hadoop.ParquetFileReader

/**
 * What one Parquet file's footer tells a session about the keys it holds, asked the way a read
 * asks: the footer is opened with the session's configuration (its crypto factory and KMS
 * client), and each column encrypted with a key of its own is asked for its metadata, which
 * Parquet decrypts with that key. No page is read.
 */
object KeyProbe {
  sealed trait Outcome

  /** The footer cannot be read (its key is not available, or the session has no crypto factory). */
  final case class FooterDenied(reason: String) extends Outcome

  /**
   * The footer was read. `encrypted`: each leaf column encrypted with a key of its own (its path
   * from the top-level column down, as Parquet names it), with why this session cannot decrypt
   * it (None: it can).
   */
  final case class Readable(encrypted: Map[Seq[String], Option[String]]) extends Outcome {
    /** Whether some leaf at or under `path` is encrypted, and why one of them cannot be decrypted. */
    def under(path: Seq[String]): Option[Option[String]] = {
      val leaves = encrypted.filter { case (leaf, _) => leaf.startsWith(path) || path.startsWith(leaf) }
      Option.when(leaves.nonEmpty)(leaves.values.flatten.headOption)
    }
  }

  /** Raises what is not about keys (an unreadable file). */
  def probe(conf: Configuration, file: FileStatus): Outcome =
    Try(ParquetFooters.open(conf, file)) match {
      case Failure(e) => FooterDenied(EncryptionConf.keyFailure(e).getOrElse(throw e))
      case Success(reader) => try Readable(columns(reader)) finally reader.close()
    }

  private def columns(reader: ParquetFileReader): Map[Seq[String], Option[String]] = {
    val chunks = reader.getFooter.getBlocks.asScala.headOption.toSeq.flatMap(_.getColumns.asScala).filter(_.isEncrypted)
    chunks.map { chunk =>
      // Parquet decrypts a column's metadata with the column's key when it is first asked for it
      val denial = try { chunk.getTotalSize; None } catch {
        case NonFatal(e) => Some(EncryptionConf.keyFailure(e).getOrElse(throw e))
      }
      chunk.getPath.toArray.toSeq -> denial
    }.toMap
  }
}

package io.skipstone.metadata

import java.util.concurrent.ConcurrentHashMap

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.skipstone.SessionIds

import io.skipstone.encryption.{EncryptionConf, KeyProbe}

/**
 * Which keys of an encrypted metadata version a session can use: without the footer key nothing
 * of the version is readable; without an index's key, that index is not. Parquet decides, asked
 * with the session's own configuration (its KMS client and credentials, see [[KeyProbe]]), so a
 * session is allowed exactly what its own reads of the table would decrypt.
 *
 * @param footerDenied why the footer cannot be read, if it cannot
 * @param deniedKeys   index key ids the session cannot use, with Parquet's (or the KMS's) reason
 */
final case class KeyAccess(footerDenied: Option[String], deniedKeys: Map[String, String]) {
  /**
   * What the cache holds apart: sessions with equal shapes may share one loaded version, which
   * holds the columns of exactly the indexes they can decrypt. None: nothing is readable.
   */
  def shape: Option[Set[String]] = if (footerDenied.isDefined) None else Some(deniedKeys.keySet)

  /** The indexes of `definition` this session cannot use, each with the reason queries report. */
  def withheld(definition: DatasetIndex): Seq[(IndexSpec, String)] = definition.indexes.flatMap { ix =>
    val missing = if (footerDenied.isDefined) definition.footerKey.map(k => s"the metadata's footer key '$k'")
      else ix.key.filter(deniedKeys.contains).map(k => s"key '$k'")
    missing.map(what => ix -> s"${ix.describe} not used: $what is not available to this session")
  }
}

object KeyAccess extends Logging {
  /** Every key: a plaintext version, or a session that holds them all. */
  val Full: KeyAccess = KeyAccess(None, Map.empty)

  private case class Asked(tableDir: String, session: String, settings: String)
  private case class Answer(atMillis: Long, access: KeyAccess)

  // Answers by table, session and the session's Parquet settings; kept for the cache's TTL, like
  // the listing of versions, so that a warm query makes no file-system call for them.
  private val answers = new ConcurrentHashMap[Asked, Answer]()

  /** What `session` can use of the version in `tableDir`; Full for a plaintext version. */
  def of(session: SparkSession, tableDir: Path, definition: DatasetIndex): KeyAccess =
    if (!definition.isEncrypted) Full
    else {
      val conf = session.sessionState.newHadoopConf()
      val asked = Asked(tableDir.toString, SessionIds.of(session), EncryptionConf.accessDigest(conf))
      val now = System.currentTimeMillis()
      val ttl = StoreConf.cacheTtlMillis(session)
      Option(answers.get(asked)).filter(a => now - a.atMillis < ttl).map(_.access).getOrElse {
        val access = probe(conf, tableDir, definition)
        answers.values().removeIf(a => now - a.atMillis >= ttl)
        answers.put(asked, Answer(now, access))
        access
      }
    }

  /** Asks Parquet, with `conf`, about the first file of the version's table (all were written alike). */
  def probe(conf: Configuration, tableDir: Path, definition: DatasetIndex): KeyAccess = {
    val first = MetadataStore.tableParts(conf, tableDir).sortBy(_.getPath.getName).headOption
    val access = first.map(KeyProbe.probe(conf, _)) match {
      case None => Full // no file, nothing to decrypt (the load says what is wrong with the table)
      case Some(KeyProbe.FooterDenied(why)) => KeyAccess(Some(why), Map.empty)
      case Some(readable: KeyProbe.Readable) =>
        val denied = for {
          ix <- definition.indexes
          key <- ix.key.toSeq
          why <- ix.metadataColumns.values.flatMap(c => readable.under(Seq(c)).flatten).headOption.toSeq
        } yield key -> why
        KeyAccess(None, denied.toMap)
    }
    access.footerDenied.foreach(why => logWarning(s"Skipstone: the metadata in $tableDir cannot be read by this session " +
      s"(footer key ${definition.footerKey.getOrElse("-")}: $why); its dataset's files are all read"))
    access.deniedKeys.foreach { case (key, why) =>
      logWarning(s"Skipstone: key '$key' of the metadata in $tableDir is not available to this session ($why); " +
        s"the indexes it encrypts are not used: ${definition.indexes.filter(_.key.contains(key)).map(_.describe).mkString(", ")}")
    }
    access
  }

  /** Forgets every answer (with the cache, for benchmarks that measure cold starts). */
  def clear(): Unit = answers.clear()
}

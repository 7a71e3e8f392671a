package io.skipstone.encryption

import java.nio.charset.StandardCharsets
import java.security.MessageDigest
import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.crypto.ParquetCryptoRuntimeException

/**
 * Parquet modular encryption as Skipstone uses it: the one place that knows its settings, parses
 * them and builds them (docs/encryption.md).
 *
 * Metadata is written with Parquet's `PropertiesDrivenCryptoFactory`: an encrypted footer under
 * the dataset's footer key, each encrypted index's columns under the index's key, and every other
 * column (paths, sizes, times, row counts, plaintext indexes) under the footer key too. Keys are
 * named by id; the KMS client the session configures (`parquet.encryption.kms.client.class`)
 * wraps and unwraps them, so that what a session can decrypt is what its KMS credentials allow.
 */
object EncryptionConf {
  val CryptoFactory = "parquet.crypto.factory.class"
  val PropertiesDrivenFactory = "org.apache.parquet.crypto.keytools.PropertiesDrivenCryptoFactory"
  val KmsClientClass = "parquet.encryption.kms.client.class"
  val ColumnKeys = "parquet.encryption.column.keys"
  val FooterKey = "parquet.encryption.footer.key"
  val UniformKey = "parquet.encryption.uniform.key"
  val PlaintextFooter = "parquet.encryption.plaintext.footer"
  val CompleteColumns = "parquet.encryption.complete.columns"
  val KeyMaterialInternal = "parquet.encryption.key.material.store.internally"

  /**
   * Settings of Parquet's encryption: which keys a session holds and how it reaches its KMS.
   * They never change a value read (a file decrypts to its values or not at all), so reads that
   * differ only in them read alike; and they may hold credentials (an access token, the
   * in-memory KMS's keys), so a build never records them in index.json.
   */
  def isCryptoSetting(key: String): Boolean = {
    val k = key.toLowerCase(Locale.ROOT)
    Seq("parquet.encryption.", "parquet.crypto.", "parquet.decryption.").exists(k.startsWith)
  }

  /**
   * Why `id` is not a key id Parquet's settings can carry (`keyId:col1,col2;...`), if it is not:
   * it must not be empty nor hold `:`, `;`, `,` or white space (use a KMS alias for a key whose
   * own id has them, such as an ARN).
   */
  def keyIdProblem(id: String): Option[String] =
    Option.when(id.isEmpty || id.exists(c => c == ':' || c == ';' || c == ',' || c.isWhitespace))(
      s"'$id' is not a key id Parquet can use: a key id is not empty and has no ':', ';', ',' or white space " +
        "(use the KMS's alias of the key)")

  /**
   * `keyId:col1,col2;keyId2:col3` (Parquet's `parquet.encryption.column.keys`) as column to key
   * id, columns as written (dotted for nested ones).
   */
  def parseColumnKeys(spec: String): Map[String, String] =
    spec.split(";").map(_.trim).filter(_.nonEmpty).flatMap { entry =>
      val colon = entry.indexOf(':')
      if (colon <= 0 || colon == entry.length - 1) throw new IllegalArgumentException(
        s"$ColumnKeys: '$entry' is not 'keyId:column,column'")
      val key = entry.substring(0, colon).trim
      entry.substring(colon + 1).split(",").map(_.trim).filter(_.nonEmpty).map(_ -> key)
    }.foldLeft(Map.empty[String, String]) { case (all, (column, key)) =>
      all.get(column).filter(_ != key).foreach(other => throw new IllegalArgumentException(
        s"$ColumnKeys: column '$column' is given two keys, '$other' and '$key'"))
      all.updated(column, key)
    }

  /** The inverse form, for a writer: key id to columns, as Parquet's setting spells it. */
  def formatColumnKeys(columnsByKey: Seq[(String, Seq[String])]): String =
    columnsByKey.filter(_._2.nonEmpty).map { case (key, columns) => s"$key:${columns.mkString(",")}" }.mkString(";")

  /**
   * The data's encrypted columns and their keys as the read declares them: the reader options'
   * `parquet.encryption.column.keys` if set (any case), else the session's.
   */
  def dataColumnKeys(conf: Configuration, readerOptions: Map[String, String]): Map[String, String] =
    readerOptions.collectFirst { case (k, v) if k.equalsIgnoreCase(ColumnKeys) => v }
      .orElse(Option(conf.getTrimmed(ColumnKeys)))
      .map(parseColumnKeys).getOrElse(Map.empty)

  /**
   * Writer options of a metadata version: `columnsByKey` (key id to Parquet leaf columns, e.g.
   * `ix_values.list.element`) and the footer key, or, with no footer key, a plaintext file,
   * whatever the session's own encryption settings for its data say. The session's crypto
   * factory is kept if it has one (it may wrap Parquet's); key material stays inside the files,
   * which are never rewritten.
   */
  def writerOptions(conf: Configuration, columnsByKey: Seq[(String, Seq[String])], footerKey: Option[String]): Map[String, String] =
    (footerKey, columnsByKey.exists(_._2.nonEmpty)) match {
      case (None, _) => Map(ColumnKeys -> "", FooterKey -> "", UniformKey -> "")
      // every column and the footer under one key: Parquet's "uniform" encryption
      case (Some(footer), false) => Map(
        CryptoFactory -> factory(conf), ColumnKeys -> "", FooterKey -> "", UniformKey -> footer,
        PlaintextFooter -> "false", KeyMaterialInternal -> "true")
      case (Some(footer), true) => Map(
        CryptoFactory -> factory(conf),
        ColumnKeys -> formatColumnKeys(columnsByKey),
        FooterKey -> footer,
        UniformKey -> "",
        PlaintextFooter -> "false",
        CompleteColumns -> "true",
        KeyMaterialInternal -> "true")
    }

  private def factory(conf: Configuration): String =
    Option(conf.getTrimmed(CryptoFactory)).filter(_.nonEmpty).getOrElse(PropertiesDrivenFactory)

  /**
   * Why reading failed, if it failed for want of a key: a key the KMS denies, a key that does
   * not decrypt (a different key under the same id), a session without a crypto factory or KMS
   * client reading an encrypted file. Looks through wrapping exceptions (Spark's, IO's).
   */
  def keyFailure(e: Throwable): Option[String] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(20).collectFirst {
      case c: ParquetCryptoRuntimeException => c
    }.map { c =>
      // the innermost message names the key (a KMS client's own words), the outer one the module
      val causes = Iterator.iterate[Throwable](c)(_.getCause).takeWhile(_ != null).take(20).toSeq
      causes.reverse.map(_.getMessage).find(m => m != null && m.nonEmpty).getOrElse(c.getClass.getSimpleName)
    }

  /**
   * A digest of a configuration's Parquet settings (keys, access token, KMS client and instance
   * among them): two configurations with the same digest reach the same keys through Parquet.
   */
  def accessDigest(conf: Configuration): String = {
    val parquet = conf.iterator().asScala.map(e => e.getKey -> e.getValue).filter(_._1.startsWith("parquet.")).toSeq.sorted
    val sha = MessageDigest.getInstance("SHA-256")
    parquet.foreach { case (k, v) => sha.update(s"$k\u0000$v\u0000".getBytes(StandardCharsets.UTF_8)) }
    sha.digest().map(b => f"$b%02x").mkString
  }
}

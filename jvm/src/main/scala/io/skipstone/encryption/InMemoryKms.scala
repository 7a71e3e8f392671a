package io.skipstone.encryption

import java.nio.charset.StandardCharsets
import java.util.Base64

import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.crypto.{KeyAccessDeniedException, ParquetCryptoRuntimeException}
import org.apache.parquet.crypto.keytools.{KeyToolkit, KmsClient}

/**
 * A KMS client whose master keys are listed in the Hadoop configuration: FOR TESTS AND DEMOS
 * ONLY. The keys sit in plain text wherever the configuration does (the session's settings,
 * Spark's UI, logs of the configuration); a real deployment plugs a client of its KMS instead
 * (docs/encryption.md).
 *
 * {{{
 *   parquet.encryption.kms.client.class = io.skipstone.encryption.InMemoryKms
 *   parquet.encryption.key.list         = k_temp:AAECAwQFBgcICQoLDA0ODw==, k_footer:AAECAAECAAECAAECAAECAA==
 * }}}
 * (the property Parquet's own test KMS reads, so examples written for it work unchanged).
 * Keys are 16, 24 or 32 bytes, base64. A key id not in the list is a key this session does not
 * hold: unwrapping with it raises `KeyAccessDeniedException`, and so does a key listed under the
 * right id with the wrong bytes (AES-GCM authentication fails).
 *
 * Parquet creates one client per access token (`parquet.encryption.key.access.token`) and KMS
 * instance, and keeps it and the keys it unwrapped for `parquet.encryption.cache.lifetime.seconds`:
 * in one JVM, sessions that hold different keys must use different access tokens, as they
 * would with a real KMS, where the token is the credential.
 */
class InMemoryKms extends KmsClient {
  // Set once by `initialize`, which Parquet calls before any other method (KmsClient's contract).
  @volatile private var masterKeys: Map[String, Array[Byte]] = Map.empty

  override def initialize(conf: Configuration, kmsInstanceID: String, kmsInstanceURL: String, accessToken: String): Unit =
    masterKeys = InMemoryKms.parse(conf.getTrimmed(InMemoryKms.KeyListProperty, ""))

  override def wrapKey(keyBytes: Array[Byte], masterKeyIdentifier: String): String =
    KeyToolkit.encryptKeyLocally(keyBytes, master(masterKeyIdentifier), aad(masterKeyIdentifier))

  override def unwrapKey(wrappedKey: String, masterKeyIdentifier: String): Array[Byte] =
    try KeyToolkit.decryptKeyLocally(wrappedKey, master(masterKeyIdentifier), aad(masterKeyIdentifier)) catch {
      case e: KeyAccessDeniedException => throw e
      case e: ParquetCryptoRuntimeException => throw new KeyAccessDeniedException(
        s"key '$masterKeyIdentifier' of this session does not decrypt what was encrypted under that id (a different key)", e)
    }

  private def master(id: String): Array[Byte] =
    masterKeys.getOrElse(id, throw new KeyAccessDeniedException(s"key '$id' is not available"))

  private def aad(id: String): Array[Byte] = id.getBytes(StandardCharsets.UTF_8)
}

object InMemoryKms {
  /** Where the keys are listed: `id:base64, id:base64` (Parquet's test KMS reads the same property). */
  val KeyListProperty = "parquet.encryption.key.list"

  def parse(list: String): Map[String, Array[Byte]] =
    list.split(",").map(_.trim).filter(_.nonEmpty).map { entry =>
      val colon = entry.indexOf(':')
      if (colon <= 0) throw new IllegalArgumentException(
        s"$KeyListProperty: an entry is not 'keyId:base64Key'") // the entry itself may be a key: not shown
      val id = entry.substring(0, colon).trim
      val key = Try(Base64.getDecoder.decode(entry.substring(colon + 1).trim)).getOrElse(
        throw new IllegalArgumentException(s"$KeyListProperty: the key of '$id' is not base64"))
      if (!Set(16, 24, 32)(key.length)) throw new IllegalArgumentException(
        s"$KeyListProperty: the key of '$id' has ${key.length} bytes; AES keys have 16, 24 or 32")
      id -> key
    }.toMap
}

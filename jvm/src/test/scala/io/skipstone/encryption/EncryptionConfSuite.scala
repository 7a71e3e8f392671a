package io.skipstone.encryption

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.crypto.{KeyAccessDeniedException, ParquetCryptoRuntimeException}
import org.scalatest.funsuite.AnyFunSuite

/** Parquet's encryption settings as Skipstone reads and writes them (docs/encryption.md). */
class EncryptionConfSuite extends AnyFunSuite {
  import EncryptionConf._

  test("column keys are read as Parquet spells them, column by column") {
    assert(parseColumnKeys(" k1: a, b.c ;k2:d ;") == Map("a" -> "k1", "b.c" -> "k1", "d" -> "k2"))
    assert(formatColumnKeys(Seq("k1" -> Seq("a", "b.c"), "k2" -> Seq("d"), "k3" -> Nil)) == "k1:a,b.c;k2:d")
  }

  test("a malformed entry or a column under two keys is refused, naming it") {
    assert(intercept[IllegalArgumentException](parseColumnKeys("k1 a,b")).getMessage.contains("'k1 a,b'"))
    assert(intercept[IllegalArgumentException](parseColumnKeys("k1:a;k2:a")).getMessage
      .contains("column 'a' is given two keys, 'k1' and 'k2'"))
  }

  test("the data's column keys come from the reader's options before the session's") {
    val conf = new Configuration(false)
    conf.set(ColumnKeys, "k_session:ssn")
    assert(dataColumnKeys(conf, Map("PARQUET.ENCRYPTION.COLUMN.KEYS" -> "k_read:ssn")) == Map("ssn" -> "k_read"))
    assert(dataColumnKeys(conf, Map.empty) == Map("ssn" -> "k_session"))
    assert(dataColumnKeys(new Configuration(false), Map.empty) == Map.empty)
  }

  test("key ids that Parquet's settings cannot carry are refused") {
    assert(keyIdProblem("k_temp-2026.v1").isEmpty)
    Seq("", "arn:aws:kms:key/1", "a;b", "a,b", "a b").foreach(id => assert(keyIdProblem(id).isDefined, id))
  }

  test("encryption settings are recognized whatever their case, and nothing else is") {
    assert(Seq("parquet.encryption.key.access.token", "Parquet.Crypto.Factory.Class", "parquet.decryption.x").forall(isCryptoSetting))
    assert(!Seq("parquet.block.size", "mergeSchema", "spark.sql.parquet.filterPushdown").exists(isCryptoSetting))
  }

  test("metadata without a footer key is written in plaintext, whatever the session sets for its data") {
    val conf = new Configuration(false)
    conf.set(ColumnKeys, "k_data:ssn")
    assert(writerOptions(conf, Nil, None) == Map(ColumnKeys -> "", FooterKey -> "", UniformKey -> ""))
  }

  test("keyed columns go under their keys, everything else and the footer under the footer key") {
    val options = writerOptions(new Configuration(false), Seq("k1" -> Seq("minmax_0_min", "minmax_0_max")), Some("kf"))
    assert(options(ColumnKeys) == "k1:minmax_0_min,minmax_0_max" && options(FooterKey) == "kf")
    assert(options(CompleteColumns) == "true" && options(PlaintextFooter) == "false" && options(UniformKey) == "")
    assert(options(CryptoFactory) == PropertiesDrivenFactory)
    val uniform = writerOptions(new Configuration(false), Nil, Some("kf"))
    assert(uniform(UniformKey) == "kf" && uniform(ColumnKeys) == "" && uniform(FooterKey) == "")
  }

  test("a session's own crypto factory is kept") {
    val conf = new Configuration(false)
    conf.set(CryptoFactory, "com.example.Wrapping")
    assert(writerOptions(conf, Nil, Some("kf"))(CryptoFactory) == "com.example.Wrapping")
  }

  test("a failure for want of a key is told apart from others, through wrapping exceptions, in the KMS's words") {
    val denied = new KeyAccessDeniedException("key 'k2' is not available")
    val wrapped = new RuntimeException("Job aborted", new java.io.IOException("read", new ParquetCryptoRuntimeException("module", denied)))
    assert(keyFailure(wrapped).contains("key 'k2' is not available"))
    assert(keyFailure(new java.io.FileNotFoundException("gone")).isEmpty)
  }

  test("configurations that differ in a Parquet setting have different digests; others do not matter") {
    def conf(pairs: (String, String)*) = { val c = new Configuration(false); pairs.foreach { case (k, v) => c.set(k, v) }; c }
    val a = accessDigest(conf("parquet.encryption.key.access.token" -> "alice", "fs.x" -> "1"))
    assert(a == accessDigest(conf("parquet.encryption.key.access.token" -> "alice", "fs.x" -> "2")))
    assert(a != accessDigest(conf("parquet.encryption.key.access.token" -> "bob")))
  }
}

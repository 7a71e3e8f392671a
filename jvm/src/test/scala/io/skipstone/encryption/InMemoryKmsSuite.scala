package io.skipstone.encryption

import java.util.Base64

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.crypto.KeyAccessDeniedException
import org.scalatest.funsuite.AnyFunSuite

/** The test KMS: keys from the configuration; a key it does not hold, or holds other bytes of, is denied. */
class InMemoryKmsSuite extends AnyFunSuite {
  private def key(n: Int): String = Base64.getEncoder.encodeToString(Array.fill[Byte](16)(n.toByte))

  private def kms(list: String): InMemoryKms = {
    val conf = new Configuration(false)
    conf.set(InMemoryKms.KeyListProperty, list)
    val client = new InMemoryKms
    client.initialize(conf, "DEFAULT", "DEFAULT", "DEFAULT")
    client
  }

  private val dataKey = Array.tabulate[Byte](16)(_.toByte)

  test("a key wrapped under a master key unwraps under the same one") {
    val client = kms(s"k1:${key(1)}, k2:${key(2)}")
    assert(client.unwrapKey(client.wrapKey(dataKey, "k2"), "k2").sameElements(dataKey))
  }

  test("a key the session does not hold is denied, naming it") {
    val wrapped = kms(s"k1:${key(1)}").wrapKey(dataKey, "k1")
    val e = intercept[KeyAccessDeniedException](kms(s"k2:${key(2)}").unwrapKey(wrapped, "k1"))
    assert(e.getMessage == "key 'k1' is not available")
  }

  test("other bytes under the right id are denied too, never a wrong key") {
    val wrapped = kms(s"k1:${key(1)}").wrapKey(dataKey, "k1")
    intercept[KeyAccessDeniedException](kms(s"k1:${key(9)}").unwrapKey(wrapped, "k1"))
    // a key wrapped under one id does not unwrap under another id with the same bytes
    intercept[KeyAccessDeniedException](kms(s"k1:${key(1)}, k3:${key(1)}").unwrapKey(wrapped, "k3"))
  }

  test("a malformed list is refused without echoing key material") {
    val e = intercept[IllegalArgumentException](kms(s"k1 ${key(1)}"))
    assert(!e.getMessage.contains(key(1)))
    assert(intercept[IllegalArgumentException](kms("k1:AAAA")).getMessage.contains("has 3 bytes"))
  }
}

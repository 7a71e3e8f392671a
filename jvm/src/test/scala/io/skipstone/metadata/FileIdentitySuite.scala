package io.skipstone.metadata

import org.apache.hadoop.fs.{EtagSource, FileStatus, Path}
import org.scalatest.funsuite.AnyFunSuite

class FileIdentitySuite extends AnyFunSuite {
  private def status(etag: Option[String]): FileStatus = etag match {
    case Some(e) => new FileStatus(10L, false, 1, 1L, 1000L, new Path("s3a://bucket/part-0.parquet")) with EtagSource {
      override def getEtag: String = e
    }
    case None => new FileStatus(10L, false, 1, 1L, 1000L, new Path("hdfs://nn/data/part-0.parquet"))
  }

  test("a listing's ETag is its fingerprint; a listing without one has none") {
    assert(FileIdentity.listed(status(Some("\"abc\""))) == Some("etag:\"abc\""))
    assert(FileIdentity.listed(status(None)).isEmpty)
    assert(FileIdentity.listed(status(Some(""))).isEmpty)
  }

  test("two different ETags contradict: the object was rewritten, whatever its size and time") {
    assert(FileIdentity.contradicts(Some("etag:a"), Some("etag:b")))
    assert(!FileIdentity.contradicts(Some("etag:a"), Some("etag:a")))
  }

  test("without an ETag on both sides, size and time decide") {
    assert(!FileIdentity.contradicts(None, Some("etag:b")))
    assert(!FileIdentity.contradicts(Some("etag:a"), None))
    assert(!FileIdentity.contradicts(Some("inode:1/ctime:2"), Some("etag:b")))
  }
}

package io.skipstone.table

import java.nio.file.{Files, Path => NioPath}

import org.apache.hadoop.conf.Configuration
import org.json4s.JsonAST.{JObject, JString}
import org.scalatest.BeforeAndAfterEach
import org.scalatest.funsuite.AnyFunSuite

class TimeTravelSuite extends AnyFunSuite with BeforeAndAfterEach {
  private val conf = new Configuration()
  private var dir: NioPath = _ // a fresh table root per test
  private def root: String = dir.toUri.toString

  override def beforeEach(): Unit = dir = Files.createTempDirectory("skipstone-time-travel")

  override def afterEach(): Unit = org.apache.commons.io.FileUtils.deleteDirectory(dir.toFile)

  /** A data file really in the root (time travel checks the root holds it), listed with its size. */
  private def file(name: String): DataFile = {
    Files.write(dir.resolve(name), Array.fill[Byte](10)(1))
    DataFile(name, 10L, 1L, 0L, 1L)
  }

  private def commit(read: Long, operation: String, added: Seq[DataFile], removed: Set[String] = Set.empty): Snapshot =
    TableLog.commit(conf, root, read, TableChange(operation, added, removed, Some(JString("tree")), None, Map.empty, JObject()))

  private def request(options: (String, String)*): VersionRequest =
    ManagedReadOptions.request(options.toMap, "/t", "UTC")

  test("versionAsOf reads exactly that version's files") {
    commit(0, "CREATE", Seq(file("a"), file("b")))
    commit(1, "OPTIMIZE", Seq(file("c")), Set("a"))
    assert(TimeTravel.snapshot(conf, root, VersionRequest.AtVersion(1)).livePaths == Set("a", "b"))
    assert(TimeTravel.snapshot(conf, root, VersionRequest.AtVersion(2)).livePaths == Set("b", "c"))
  }

  test("timestampAsOf picks the newest version committed at or before the time") {
    val first = commit(0, "CREATE", Seq(file("a")))
    Thread.sleep(5)
    val second = commit(1, "APPEND", Seq(file("b")))
    def at(millis: Long) = TimeTravel.snapshot(conf, root, VersionRequest.AsOfTime(millis * 1000L, "t")).version
    assert(at(first.timestampMillis) == 1 && at(second.timestampMillis - 1) == 1)
    assert(at(second.timestampMillis) == 2 && at(second.timestampMillis + 60000) == 2)
    val early = intercept[VersionUnavailable](at(first.timestampMillis - 1))
    assert(early.getMessage.contains("has no version committed at or before 't'"))
    assert(early.getMessage.endsWith("versions available: 1-2"))
  }

  test("a version whose files a vacuum deleted is refused with the versions still readable") {
    commit(0, "CREATE", Seq(file("a"), file("b")))
    commit(1, "OPTIMIZE", Seq(file("c")), Set("a"))
    Files.delete(dir.resolve("a"))
    val gone = intercept[VersionUnavailable](TimeTravel.snapshot(conf, root, VersionRequest.AtVersion(1)))
    assert(gone.getMessage == s"Skipstone managed table $root cannot read version 1: a vacuum removed it " +
      "(1 of its 2 files are gone, e.g. a); versions available: 2")
    val never = intercept[VersionUnavailable](TimeTravel.snapshot(conf, root, VersionRequest.AtVersion(7)))
    assert(never.getMessage == s"Skipstone managed table $root has no version 7 (its log holds versions 1-2); " +
      "versions available: 2")
  }

  test("a file of another size under a version's name makes the version unreadable") {
    commit(0, "CREATE", Seq(file("a")))
    Files.write(dir.resolve("a"), Array.fill[Byte](3)(1))
    assert(intercept[VersionUnavailable](TimeTravel.snapshot(conf, root, VersionRequest.AtVersion(1)))
      .getMessage.contains("versions available: none"))
  }

  test("versions are shown as ranges") {
    assert(TimeTravel.ranges(Seq(5L, 1L, 2L, 3L, 7L, 8L)) == "1-3, 5, 7-8")
    assert(TimeTravel.ranges(Seq(4L)) == "4")
  }

  test("read options: the version asked for, in any spelling of the key") {
    assert(request() == VersionRequest.Newest)
    assert(request("VERSIONASOF" -> " 3") == VersionRequest.AtVersion(3))
    assert(request("timestampAsOf" -> "1970-01-01 00:00:01") == VersionRequest.AsOfTime(1000000L, "1970-01-01 00:00:01"))
    assert(request("timestampAsOf" -> "1970-01-01T01:00:00+01:00") == VersionRequest.AsOfTime(0L, "1970-01-01T01:00:00+01:00"))
  }

  test("read options: what plain Parquet honours alike passes, with Spark's own and Hadoop settings") {
    assert(request("path" -> "/t", "mergeSchema" -> "true", "int96RebaseMode" -> "LEGACY", "ignoreMissingFiles" -> "true",
      "recursiveFileLookup" -> "false", "fs.s3a.endpoint" -> "x", "parquet.crypto.factory.class" -> "y") ==
      VersionRequest.Newest)
  }

  test("read options: every other option is refused by name, with why") {
    def refusal(options: (String, String)*): String = intercept[ManagedTableReadRefused](request(options: _*)).getMessage
    assert(refusal("pathGlobFilter" -> "*.parquet").contains("read option 'pathGlobFilter' is not honoured: it selects files by name"))
    assert(refusal("recursiveFileLookup" -> "true").contains("'recursiveFileLookup' is not honoured"))
    assert(refusal("asOfVersion" -> "1").contains("'asOfVersion' is not honoured: Skipstone does not know it"))
    assert(refusal("versionAsOf" -> "1", "timestampAsOf" -> "2026-01-01").contains("both versionAsOf and timestampAsOf"))
    assert(refusal("versionAsOf" -> "-1").contains("versionAsOf '-1' is not a version number"))
    assert(refusal("timestampAsOf" -> "yesterday").contains("timestampAsOf 'yesterday' is not a timestamp"))
  }
}

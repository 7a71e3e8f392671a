package io.skipstone.metadata

import java.net.URI
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path => NioPath}
import java.util.concurrent.atomic.AtomicInteger

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{DelegateToFileSystem, Path, RawLocalFileSystem}
import org.scalatest.BeforeAndAfterEach
import org.scalatest.funsuite.AnyFunSuite

class MetadataStoreSuite extends AnyFunSuite with BeforeAndAfterEach {
  private var dir: NioPath = _ // a fresh metadata directory per test

  override def beforeEach(): Unit = {
    dir = Files.createTempDirectory("skipstone-metadata-store")
    RenameLosingFileSystem.losses.set(0)
    RenameLosingFileSystem.leavesDestination = true
  }

  override def afterEach(): Unit = org.apache.commons.io.FileUtils.deleteDirectory(dir.toFile)

  private def on(scheme: String, name: String): Path = new Path(s"$scheme://${dir.resolve(name).toUri.getPath}")

  /** A staged build holding its definition, as `publish` leaves it before the rename. */
  private def staged(scheme: String): Path = {
    Files.createDirectories(dir.resolve("_staging-1"))
    Files.write(dir.resolve("_staging-1").resolve("index.json"), "{}".getBytes(StandardCharsets.UTF_8))
    on(scheme, "_staging-1")
  }

  private def holds(version: String): Set[String] =
    Option(dir.resolve(version).toFile.list()).map(_.toSet).getOrElse(Set.empty)

  private val local = new Configuration()

  /** The losing store's file system and `FileContext` class, uncached: each test counts its own losses. */
  private val losing = {
    val conf = new Configuration()
    conf.set("fs.losing.impl", classOf[RenameLosingFileSystem].getName)
    conf.setBoolean("fs.losing.impl.disable.cache", true)
    conf.set("fs.AbstractFileSystem.losing.impl", classOf[RenameLosingFs].getName)
    conf
  }

  test("a build is published under the first version no other publisher holds") {
    Files.createDirectories(dir.resolve("v00000000000000000003"))
    val published = ParquetFileStore.renameToFreeVersion(local, on("file", ""), staged("file"), 3L)
    assert(published == 4L)
    assert(holds("v00000000000000000004") == Set("index.json"))
    assert(!dir.resolve("_staging-1").toFile.exists())
  }

  test("a rename that another publisher's copy into the version beat moves on to the next version") {
    // S3A's rename answers false when the destination became a non-empty directory after the
    // existence check, while another publisher copies its build into it object by object
    RenameLosingFileSystem.losses.set(1)
    val published = ParquetFileStore.renameToFreeVersion(losing, on("losing", ""), staged("losing"), 3L)
    assert(published == 4L)
    assert(holds("v00000000000000000003") == Set("other-publisher.parquet")) // the winner's, untouched
    assert(holds("v00000000000000000004") == Set("index.json"))
  }

  test("a rename that fails with the version still free is an error, not a version taken") {
    RenameLosingFileSystem.losses.set(1)
    RenameLosingFileSystem.leavesDestination = false
    intercept[java.io.IOException] {
      ParquetFileStore.renameToFreeVersion(losing, on("losing", ""), staged("losing"), 3L)
    }
    assert(holds("v00000000000000000004").isEmpty)
    assert(holds("_staging-1") == Set("index.json"))
  }
}

/**
 * Local disk whose next `losses` renames lose a race as S3A's does: another publisher's object
 * appears in the destination (unless `leavesDestination` is off) and the rename answers false.
 */
class RenameLosingFileSystem extends RawLocalFileSystem {
  override def getUri: URI = URI.create("losing:///")

  override def rename(src: Path, dst: Path): Boolean =
    if (RenameLosingFileSystem.losses.getAndDecrement() > 0) {
      if (RenameLosingFileSystem.leavesDestination) {
        Files.createDirectories(pathToFile(dst).toPath)
        Files.write(pathToFile(new Path(dst, "other-publisher.parquet")).toPath, Array[Byte](1))
      }
      false
    } else super.rename(src, dst)
}

object RenameLosingFileSystem {
  val losses = new AtomicInteger(0)
  @volatile var leavesDestination = true
}

/** The `FileContext` face of [[RenameLosingFileSystem]] (`fs.AbstractFileSystem.losing.impl`). */
class RenameLosingFs(uri: URI, conf: Configuration)
  extends DelegateToFileSystem(uri, new RenameLosingFileSystem, conf, "losing", false)

package io.skipstone.table

import java.nio.file.{Files, Path => NioPath}

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.json4s.JsonAST.{JObject, JString}
import org.scalatest.BeforeAndAfterEach
import org.scalatest.funsuite.AnyFunSuite

class TableLogSuite extends AnyFunSuite with BeforeAndAfterEach {
  private val conf = new Configuration()
  private var dir: NioPath = _ // a fresh table root per test
  private def root: String = dir.toUri.toString

  override def beforeEach(): Unit = dir = Files.createTempDirectory("skipstone-table-log")

  override def afterEach(): Unit = org.apache.commons.io.FileUtils.deleteDirectory(dir.toFile)

  private def file(name: String, block: Long = 0L): DataFile = DataFile(name, 100L, 1L, block, 10L)

  private def change(operation: String, added: Seq[DataFile] = Nil, removed: Set[String] = Set.empty,
                     layout: Option[org.json4s.JValue] = None): TableChange =
    TableChange(operation, added, removed, layout, None, Map.empty, JObject())

  private def create(): Snapshot =
    TableLog.commit(conf, root, 0L, change("CREATE", Seq(file("a.parquet"), file("b.parquet")), layout = Some(JString("tree 1"))))

  test("put-if-absent writes a new file and refuses a second writer, keeping the first content") {
    val target = new Path(root, "entry.json")
    assert(PutIfAbsent.write(conf, target, "first"))
    assert(!PutIfAbsent.write(conf, target, "second"))
    assert(new String(Files.readAllBytes(dir.resolve("entry.json")), "UTF-8") == "first")
  }

  test("put-if-absent leaves no temporary file behind") {
    PutIfAbsent.write(conf, new Path(root, "entry.json"), "x")
    PutIfAbsent.write(conf, new Path(root, "entry.json"), "y")
    assert(dir.toFile.list().toSeq == Seq("entry.json"))
  }

  test("the first commit creates version 1 and the latest snapshot reads it back") {
    val created = create()
    assert(created.version == 1L)
    val read = TableLog.latest(conf, root).get
    assert(read.files == created.files)
    assert(read.layout == JString("tree 1"))
    assert(read.operation == "CREATE")
  }

  test("a table without a log has no versions") {
    assert(TableLog.versions(conf, root).isEmpty)
    assert(TableLog.latest(conf, root).isEmpty)
  }

  test("replaying the log finds every version, each with its own live files") {
    create()
    TableLog.commit(conf, root, 1L, change("APPEND", Seq(file("c.parquet"))))
    TableLog.commit(conf, root, 2L, change("OPTIMIZE", Seq(file("d.parquet")), removed = Set("a.parquet", "c.parquet")))
    assert(TableLog.versions(conf, root) == Seq(1L, 2L, 3L))
    assert(TableLog.read(conf, root, 2L).livePaths == Set("a.parquet", "b.parquet", "c.parquet"))
    assert(TableLog.read(conf, root, 3L).livePaths == Set("b.parquet", "d.parquet"))
    assert(TableLog.read(conf, root, 3L).layout == JString("tree 1"))
  }

  test("a second create of the same table fails: the table was created") {
    create()
    val e = intercept[ConcurrentTableChange](create())
    assert(e.getMessage.contains("the table was created") && e.conflict.contains(Conflict.TableCreated))
    assert(TableLog.versions(conf, root) == Seq(1L))
  }

  test("a conflicting commit of the same version fails and writes nothing") {
    create()
    TableLog.commit(conf, root, 1L, change("OPTIMIZE", Seq(file("c.parquet")), removed = Set("a.parquet")))
    // planned on version 1 too, and rewrites the file the winner already removed
    val e = intercept[ConcurrentTableChange](
      TableLog.commit(conf, root, 1L, change("OPTIMIZE", Seq(file("d.parquet")), removed = Set("a.parquet"))))
    assert(e.getMessage.contains("it removed files this operation rewrites") && e.conflict.contains(Conflict.FilesRemoved))
    assert(TableLog.versions(conf, root) == Seq(1L, 2L))
  }

  test("a layout change conflicts with a concurrent layout change") {
    create()
    TableLog.commit(conf, root, 1L, change("OPTIMIZE", layout = Some(JString("tree 2"))))
    val e = intercept[ConcurrentTableChange](TableLog.commit(conf, root, 1L, change("OPTIMIZE", layout = Some(JString("tree 3")))))
    assert(e.getMessage.contains("it changed the layout") && e.conflict.contains(Conflict.LayoutChanged))
  }

  test("a change that conflicts in several ways is told the one a retry cannot resolve") {
    create()
    val absorbed = Set(AbsorbedFile("export.parquet", None))
    TableLog.commit(conf, root, 1L, change("OPTIMIZE", layout = Some(JString("tree 2"))).copy(absorbed = absorbed))
    // the winner changed the layout too: routing again would absorb the same rows twice
    val e = intercept[ConcurrentTableChange](TableLog.commit(conf, root, 1L,
      change("OPTIMIZE", layout = Some(JString("tree 3"))).copy(absorbed = absorbed)))
    assert(e.conflict.contains(Conflict.SameAbsorbed))
  }

  test("a commit that does not conflict is applied on top of the version that won") {
    create()
    TableLog.commit(conf, root, 1L, change("APPEND", Seq(file("c.parquet"))))
    val rebased = TableLog.commit(conf, root, 1L, change("APPEND", Seq(file("d.parquet"))))
    assert(rebased.version == 3L)
    assert(rebased.livePaths == Set("a.parquet", "b.parquet", "c.parquet", "d.parquet"))
  }

  test("a change may not remove a file the version does not list") {
    val e = intercept[IllegalArgumentException](create() match {
      case v1 => change("OPTIMIZE", removed = Set("zz.parquet")).applyTo(v1, 2L, 0L)
    })
    assert(e.getMessage.contains("zz.parquet"))
  }

  test("a log entry whose content names another version is refused") {
    create()
    Files.copy(dir.resolve("_skipstone/log/00000000000000000001.json"), dir.resolve("_skipstone/log/00000000000000000002.json"))
    val e = intercept[IllegalArgumentException](TableLog.read(conf, root, 2L))
    assert(e.getMessage.contains("says it is version 1"))
  }
}

package io.skipstone.tools

import java.nio.file.{Files, Path => NioPath}

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.SparkSession
import org.json4s._
import org.json4s.jackson.JsonMethods
import org.scalatest.BeforeAndAfterEach
import org.scalatest.funsuite.AnyFunSuite

import io.skipstone.table.{DataFile, TableChange, TableLog}

/** The command line's answers, read with a bare Hadoop Configuration: no SparkSession exists here. */
class MetadataCliSuite extends AnyFunSuite with BeforeAndAfterEach {
  private implicit val formats: Formats = DefaultFormats
  private val conf = new Configuration()
  private var dir: NioPath = _
  private def root: String = dir.toUri.toString

  override def beforeEach(): Unit = dir = Files.createTempDirectory("skipstone-metadata-cli")

  override def afterEach(): Unit = {
    org.apache.commons.io.FileUtils.deleteDirectory(dir.toFile)
    assert(SparkSession.getDefaultSession.isEmpty, "a reader started a SparkSession")
  }

  private def commit(version: Long, operation: String, added: Seq[DataFile], properties: Map[String, String]) =
    TableLog.commit(conf, root, version - 1, TableChange(operation, added, Set.empty, None, None, properties,
      JObject("filesAdded" -> JInt(added.size))))

  private def answer(command: String): JValue = JsonMethods.parse(MetadataCli.answer(conf, None, command, root))

  private def twoVersions(): Unit = {
    commit(1L, "CREATE", Seq(DataFile("a.parquet", 100L, 1L, 0L, 10L), DataFile("b.parquet", 300L, 1L, 1L, 30L)),
      Map("format" -> "parquet"))
    commit(2L, "SET PROPERTIES", Nil, Map("owner" -> "sales"))
  }

  test("history lists every version, oldest first, with its commit info as an object") {
    twoVersions()
    val history = answer("history").children
    assert(history.map(h => (h \ "version").extract[Long]) == Seq(1L, 2L))
    assert(history.map(h => (h \ "operation").extract[String]) == Seq("CREATE", "SET PROPERTIES"))
    assert((history.head \ "commit_info" \ "filesAdded").extract[Int] == 2)
    assert((history.head \ "timestamp").extract[String].endsWith("Z"))
  }

  test("properties are the newest version's, with each setting's default where never set") {
    twoVersions()
    val properties = answer("properties").extract[Map[String, String]]
    assert(properties("owner") == "sales" && properties("format") == "parquet")
    assert(properties("optimize.strategies") == "unindexed,compaction,layout")
  }

  test("files and stats describe the live files and how they spread over blocks") {
    twoVersions()
    assert(answer("files").children.map(f => (f \ "rows").extract[Long]).sum == 40L)
    val stats = answer("stats")
    assert((stats \ "table" \ "numFiles").extract[Long] == 2L)
    assert((stats \ "layout" \ "blocks").extract[Long] == 2L)
    assert((stats \ "layout" \ "file_bytes_max").extract[Long] == 300L)
    assert(stats \ "metadata" == JNull)
  }

  test("a directory that is no table is refused, naming its log") {
    val refused = intercept[IllegalArgumentException](answer("history"))
    assert(refused.getMessage.contains("is not a Skipstone managed table") && refused.getMessage.contains("_skipstone/log"))
    val described = answer("describe")
    assert(described \ "table" == JNull && described \ "metadata" == JNull)
  }
}

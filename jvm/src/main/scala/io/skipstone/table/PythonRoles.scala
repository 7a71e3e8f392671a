package io.skipstone.table

import org.json4s._
import org.json4s.jackson.JsonMethods

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.types.StructType

import io.skipstone.indexing.IndexBuild
import io.skipstone.metadata.MetadataStore

/**
 * Per-file metadata that a Python function computes (a GeoBox's boxes, a Formatted index over
 * a Python function), for files a JVM table operation just wrote. Python implements this over
 * py4j's callback server when it calls the operation; a session without Python has none.
 */
trait PythonRoles {
  /** `path` and the metadata columns of the Python-computed roles, one row per file `files` reads. */
  def compute(files: DataFrame): DataFrame
}

object PythonRoles {
  private implicit val formats: Formats = DefaultFormats

  /**
   * The names of the table's current indexes that have a role only Python computes, checked
   * against the table's `schema` as a build would check them.
   */
  def requiredBy(session: SparkSession, root: String, schema: StructType): Seq[String] = {
    val data = session.createDataFrame(java.util.Collections.emptyList[Row](), schema) // the build only needs its schema
    val store = MetadataStore.of(session, root)
    store.latestVersion().toSeq.flatMap { version =>
      val definition = store.readDefinition(version)
      // index.json's entries are build requests as they stand (kind, name, columns, params)
      val requests = JsonMethods.compact(JsonMethods.render(JArray(definition.indexes.map(_.toJson).toList)))
      JsonMethods.parse(IndexBuild.plan(session, data, root, null, requests)).children
        .filter(ix => (ix \ "pythonRoles").children.nonEmpty).map(ix => (ix \ "name").extract[String])
    }
  }
}
